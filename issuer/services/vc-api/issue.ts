/**
 * `POST /credentials/issue` (W3C-CCG VC-API): signs a VC 2.0 credential as this issuer, with a
 * BitstringStatusListEntry on one of its own lists so the credential can be revoked later
 * (POST /credentials/status), unless `options.credentialStatus` asks otherwise.
 *
 * A VC 1.1 credential (its first context `https://www.w3.org/2018/credentials/v1`, as the W3C
 * vc-di-eddsa suite sends) is signed too, held to VC DM 1.1 §4 (`issuanceDate` required) as the
 * verifier holds it. The v1 context does not define the proof's terms, so the Data Integrity
 * context is appended when absent (VC-DI §2.4.1 Context Injection), and it gets no status entry:
 * a BitstringStatusListEntry's terms are defined by the v2 context only.
 *
 * - The issuer is this issuer (VC DM 2.0 §4.7: the issuer selects the URL that identifies it):
 *   a URL or `{id, …}` given in the request must be valid, and its id is then this issuer's DID;
 *   the object's other members (name, description) stay.
 * - `id` is filled in only when absent (status updates name the credential by it); a member that
 *   is present, `null` included, is taken as given and checked (VC DM 2.0 §4). `validFrom` is
 *   not added: optional in VC DM 2.0 §4.9, and "now" would contradict a `validUntil` in the past.
 * - Mandate's authority types are refused (422 CREDENTIAL_TYPE_RESERVED): they are issued through
 *   enrollment and POST /v1/vcs, which give them their entries and chains.
 * - Before signing, the credential must conform (VC DM 2.0 §2.1): the static rules, then the
 *   JSON-LD rules on the bundled contexts (wallet/jsonld/rules.ts).
 * Options (VC-API IssueCredentialOptions, plus the historical `credentialStatus` option):
 * `credentialId`, `credentialStatus` (`{type: 'BitstringStatusListEntry', statusPurpose}` or a
 * list of them; `[]` for none; default one revocation entry), `cryptosuite`, `type`.
 */
import { createProof } from '../../../wallet/crypto/data-integrity.ts';
import { isMandateError } from '../../../wallet/crypto/errors.ts';
import { assertSafeJson } from '../../../wallet/crypto/json-safe.ts';
import { JsonLdError } from '../../../wallet/jsonld/document-loader.ts';
import { DATA_INTEGRITY_V2_URL } from '../../../wallet/jsonld/bundled-contexts.ts';
import {
  assertConformingCredential,
  assertConformingCredentialV1,
  credentialDataModel,
} from '../../../wallet/vc/conformance.ts';
import { newUrnUuid } from '../../../wallet/vc/identity.ts';
import { CREDENTIAL_TYPES, statusEntries } from '../../../wallet/vc/parse.ts';
import { clipText } from '../../audit.ts';
import type { IssuerDeps } from '../../deps.ts';
import type { IssuerStores } from '../../storage/stores.ts';
import { refuse } from '../../refusal.ts';
import { commitReservation, IndexTaken, reserveIndex, statusListUrl, type IndexReservation } from '../status-lists.ts';
import { assertJsonLdConformance, suiteFor, type VcApiCryptosuite } from './jsonld.ts';

type Json = Record<string, unknown>;

/** One status entry asked for (the VC-API's historical `credentialStatus` option). */
export interface StatusRequest {
  type: 'BitstringStatusListEntry';
  statusPurpose: string;
}

export interface IssueOptions {
  credentialId?: string;
  credentialStatus?: StatusRequest | StatusRequest[];
  cryptosuite?: VcApiCryptosuite;
  type?: 'DataIntegrityProof';
}

const MAX_ATTEMPTS = 5;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): never {
  throw refuse('CREDENTIAL_INVALID', message);
}

/** The credential's types, as strings (for the reserved-type check and the audit record). */
function typesOf(vc: Json): string[] {
  return (Array.isArray(vc.type) ? vc.type : [vc.type]).filter((t): t is string => typeof t === 'string');
}

/** This issuer in place of the issuer the request named, once that one was seen to be a URL (or `{id: URL}`). */
function asThisIssuer(deps: Pick<IssuerDeps, 'issuer'>, issuer: unknown): unknown {
  const given = isObject(issuer) ? issuer.id : issuer;
  if (typeof given !== 'string' || !URL.canParse(given))
    invalid(
      `issuer must be a URL or an object whose id is one (VC DM 2.0 §4.7), got ${JSON.stringify(given)?.slice(0, 100) ?? 'nothing'}`,
    );
  return isObject(issuer) ? { ...issuer, id: deps.issuer.did } : deps.issuer.did;
}

/**
 * The credential to sign: a copy with issuer and id settled (an absent id filled in), checked to
 * be safe JSON, of no reserved type, and not yet signed.
 */
function unsignedCredential(deps: Pick<IssuerDeps, 'issuer'>, credential: unknown): Json {
  if (!isObject(credential)) invalid('credential must be a JSON object');
  try {
    assertSafeJson(credential);
  } catch (error) {
    invalid((error as Error).message);
  }
  const vc: Json = { ...credential };
  const reserved = CREDENTIAL_TYPES.filter((t) => typesOf(vc).includes(t));
  if (reserved.length > 0) {
    throw refuse(
      'CREDENTIAL_TYPE_RESERVED',
      `${reserved.join(', ')} credentials are issued through enrollment and POST /v1/vcs, which give them status entries`,
    );
  }
  if (Object.hasOwn(vc, 'proof')) invalid('the credential to issue must not already carry a proof');
  vc.issuer = Object.hasOwn(vc, 'issuer') ? asThisIssuer(deps, vc.issuer) : deps.issuer.did;
  if (!Object.hasOwn(vc, 'id')) vc.id = newUrnUuid();
  return vc;
}

/** The purposes asked for: one revocation entry by default (VC 2.0; none for VC 1.1), none for `[]`. */
function requestedPurposes(options: IssueOptions, dataModel: 1 | 2 | undefined): string[] {
  const asked = options.credentialStatus;
  const purposes =
    asked === undefined
      ? dataModel === 1
        ? []
        : ['revocation']
      : (Array.isArray(asked) ? asked : [asked]).map((request) => request.statusPurpose);
  if (dataModel === 1 && purposes.length > 0)
    invalid(
      'a VC 1.1 credential cannot carry a BitstringStatusListEntry (its terms are defined by the VC 2.0 context)',
    );
  return purposes;
}

/**
 * VC-DI §2.4.1 Context Injection for a VC 1.1 credential: the Data Integrity context appended when
 * its contexts lack it, so `DataIntegrityProof` and its members are defined terms (what Digital
 * Bazaar's signers do). A VC 2.0 context defines them already.
 */
function withProofContext(vc: Json): Json {
  const context = vc['@context'];
  if (credentialDataModel(vc) !== 1 || !Array.isArray(context) || context.includes(DATA_INTEGRITY_V2_URL)) return vc;
  return { ...vc, '@context': [...(context as unknown[]), DATA_INTEGRITY_V2_URL] };
}

/** The credentialStatus entries the request gave, as a list (unchecked: conformance comes later). */
function givenEntries(vc: Json): unknown[] {
  return statusEntries(vc);
}

/** Entries on this issuer's lists are handed out here: one written by the caller could share another credential's index. */
function refuseOwnListEntries(deps: Pick<IssuerDeps, 'config'>, vc: Json): void {
  const ours = statusListUrl(deps, ''); // the URL every list of this issuer starts with
  if (
    givenEntries(vc).some(
      (entry) =>
        isObject(entry) &&
        typeof entry.statusListCredential === 'string' &&
        entry.statusListCredential.startsWith(ours),
    )
  ) {
    invalid(
      "status entries on this issuer's own lists are allocated by the issuer: ask for them with options.credentialStatus",
    );
  }
}

/** The credential with the reserved entries after any the caller gave (one entry alone stays an object). */
function withEntries(vc: Json, reservations: readonly IndexReservation[]): Json {
  if (reservations.length === 0) return vc;
  const all = [...givenEntries(vc), ...reservations.map((r) => r.entry)];
  return { ...vc, credentialStatus: all.length === 1 ? all[0] : all };
}

/** Static VC DM 2.0 (or 1.1) rules, then the JSON-LD ones: 400 CREDENTIAL_INVALID naming the rule (a JSON-LD rule's code in `details.rule`). */
async function assertConforming(vc: Json): Promise<void> {
  try {
    if (credentialDataModel(vc) === 1) assertConformingCredentialV1(vc);
    else assertConformingCredential(vc);
    await assertJsonLdConformance(vc);
  } catch (error) {
    if (error instanceof JsonLdError)
      throw refuse('CREDENTIAL_INVALID', error.message, { details: { rule: error.code } });
    if (isMandateError(error)) invalid(error.message);
    throw error;
  }
}

export async function issueVcApiCredential(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'issuer' | 'audit' | 'now'>,
  credential: unknown,
  options: IssueOptions,
  actor: string,
): Promise<Json> {
  const base = withProofContext(unsignedCredential(deps, credential));
  refuseOwnListEntries(deps, base);
  // The entries added below are the issuer's own, conforming by construction.
  await assertConforming(base);
  const purposes = requestedPurposes(options, credentialDataModel(base));
  const key = options.credentialId ?? (base.id as string);
  for (let attempt = 1; ; attempt++) {
    const reservations: IndexReservation[] = [];
    for (const purpose of purposes) reservations.push(await reserveIndex(deps, purpose));
    const vc = withEntries(base, reservations);
    const signed = (await createProof(vc, {
      signer: deps.issuer.signer,
      verificationMethod: deps.issuer.verificationMethod,
      proofPurpose: 'assertionMethod',
      created: new Date(Math.floor(deps.now() / 1000) * 1000),
      ...suiteFor(options.cryptosuite),
    })) as Json;
    try {
      await deps.stores.transaction((tx) => record(deps, tx, { key, vc, reservations, actor }));
      return signed;
    } catch (error) {
      if (!(error instanceof IndexTaken) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

interface Issued {
  key: string;
  vc: Json;
  reservations: readonly IndexReservation[];
  actor: string;
}

/** Inside the issuing transaction: the indexes, the credential's record, the audit record. */
async function record(
  deps: Pick<IssuerDeps, 'config' | 'audit' | 'now'>,
  tx: IssuerStores,
  { key, vc, reservations, actor }: Issued,
): Promise<void> {
  for (const reservation of reservations) await commitReservation(deps, tx, reservation);
  const statusEntries = reservations.map(({ purpose, listId, index }) => ({ purpose, listId, index }));
  const types = typesOf(vc).slice(0, 8);
  if (!(await tx.vcApiCredentials.insert({ id: key, types, statusEntries, issuedAt: deps.now() }))) {
    throw refuse(
      'CREDENTIAL_EXISTS',
      `a credential with id ${JSON.stringify(clipText(key, 100))} was issued here before: ids name one credential`,
    );
  }
  const data = {
    id: clipText(String(vc.id), 256),
    type: types,
    status: reservations.map((r) => ({ purpose: r.purpose, url: statusListUrl(deps, r.listId), index: r.index })),
  };
  await deps.audit.record({ event: 'VC_API_ISSUED', actor, data }, tx);
}
