/**
 * `POST /credentials/verify` and `POST /presentations/verify` (W3C-CCG VC-API): a credential's
 * shape (VC DM 2.0, or 1.1 for the implementations that still send it), its JSON-LD rules, its
 * proof (a key of its issuer in `assertionMethod`; eddsa-jcs-2022 or eddsa-rdfc-2022), its
 * validity window and its status entries (at most 4 per request); a presentation's shape, JSON-LD
 * rules and proof (a key of its holder in `authentication`, the expected challenge and domain),
 * then each credential in it.
 *
 * Results follow VC-API: `{verified, checks, warnings, errors}`. Trust in an issuer is the
 * caller's decision: this is a shape, proof and status check, not policy. A check this issuer's
 * own database could not answer (a hosted DID, one of its lists) is no verdict: it is thrown, and
 * answered 503 DATABASE_UNAVAILABLE (storage/unavailable.ts).
 */
import {
  type KeyResolver,
  MAX_PROOF_SET_SIZE,
  parseDateTimeStamp,
  verifyProof,
} from '../../../wallet/crypto/data-integrity.ts';
import { canonicalizeJson } from '../../../wallet/crypto/jcs.ts';
import { isMandateError } from '../../../wallet/crypto/errors.ts';
import { isDid } from '../../../wallet/did/parse.ts';
import { StatusListError, statusProcessingError } from '../../../wallet/status/errors.ts';
import {
  assertConformingCredential,
  assertConformingCredentialV1,
  credentialDataModel,
  VC_V1_CONTEXT,
} from '../../../wallet/vc/conformance.ts';
import { VC_V2_CONTEXT } from '../../../wallet/vc/context.ts';
import { MAX_STATUS_ENTRIES, statusEntries } from '../../../wallet/vc/parse.ts';
import type { StatusEntry } from '../../../wallet/vc/types.ts';
import type { IssuerDeps } from '../../deps.ts';
import { refuse } from '../../refusal.ts';
import { rethrowIfUnavailable } from '../../storage/unavailable.ts';
import { controllerKeyResolver } from '../controller-keys.ts';
import { JsonLdError } from '../../../wallet/jsonld/document-loader.ts';
import { assertJsonLdConformance, VC_API_CRYPTOSUITES } from './jsonld.ts';

export interface VcApiProblem {
  check: string;
  code: string;
  message: string;
  /** Problem-details type, for the processing errors Bitstring Status List §3.5 names. */
  type?: string;
  /** The JSON-LD rule broken (wallet/jsonld/rules.ts), for a MALFORMED document. */
  rule?: string;
}

export interface CredentialVerification {
  verified: boolean;
  checks: string[];
  warnings: VcApiProblem[];
  errors: VcApiProblem[];
}

export interface PresentationVerification extends CredentialVerification {
  presentationResult: { verified: boolean };
  credentialResults: CredentialVerification[];
}

/** VC-API verify options Mandate reads (others, such as `checks`, are accepted and ignored: every check runs). */
export interface CredentialVerifyOptions {
  expectedProofPurpose?: string;
  challenge?: string;
  domain?: string;
}

export interface PresentationVerifyOptions {
  challenge?: string;
  domain?: string;
}

type Json = Record<string, unknown>;

/** Most credentials a presentation may hold here. */
const MAX_CREDENTIALS = 16;
const CLOCK_SKEW_MS = 60_000;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function idOf(value: unknown): string | undefined {
  const id = isObject(value) ? value.id : value;
  return typeof id === 'string' ? id : undefined;
}

function problem(check: string, error: unknown): VcApiProblem {
  if (isMandateError(error)) return { check, code: error.code, message: error.message };
  return { check, code: 'ERROR', message: 'verification failed' };
}

function failed(error: VcApiProblem, checks = ['proof', 'validity']): CredentialVerification {
  return { verified: false, checks, warnings: [], errors: [error] };
}

/**
 * A status check that gave no answer, under its Bitstring Status List §3.5 name
 * (STATUS_RETRIEVAL_ERROR, STATUS_VERIFICATION_ERROR, …) where the spec has one, else
 * STATUS_UNAVAILABLE (a local limit, an unexpected failure).
 */
function statusProblem(error: unknown): VcApiProblem {
  const name = error instanceof StatusListError ? statusProcessingError(error.code) : undefined;
  const message = isMandateError(error) ? error.message : 'the status list could not be checked';
  if (name === undefined) return { check: 'status', code: 'STATUS_UNAVAILABLE', message };
  return { check: 'status', code: name, message, type: `https://www.w3.org/ns/credentials/status-list#${name}` };
}

/**
 * The static rules of the credential's data model, then the JSON-LD rules: the first broken one
 * as a MALFORMED problem, or the related resources that could not be checked (for a warning).
 */
async function shapeOf(vc: unknown): Promise<{ problem: VcApiProblem } | { unchecked: string[] }> {
  try {
    if (credentialDataModel(vc) === 1) assertConformingCredentialV1(vc);
    else assertConformingCredential(vc);
    return { unchecked: await assertJsonLdConformance(vc as Json) };
  } catch (error) {
    return { problem: malformed(error) };
  }
}

/** A MALFORMED problem for a document that breaks a rule, naming a JSON-LD rule's code too. */
function malformed(error: unknown, check = 'shape'): VcApiProblem {
  const message = isMandateError(error) ? error.message : 'not a verifiable credential';
  return { check, code: 'MALFORMED', message, ...(error instanceof JsonLdError ? { rule: error.code } : {}) };
}

/** VC DM 2.0 §4.9 validFrom/validUntil, or VC DM 1.1 §4.6/§4.7 issuanceDate/expirationDate. */
function validityProblems(vc: Json, now: number): VcApiProblem[] {
  const v1 = credentialDataModel(vc) === 1;
  const [from, until] = v1 ? (['issuanceDate', 'expirationDate'] as const) : (['validFrom', 'validUntil'] as const);
  const problems: VcApiProblem[] = [];
  const start = parseDateTimeStamp(vc[from]);
  const end = parseDateTimeStamp(vc[until]);
  if (start !== undefined && start > now + CLOCK_SKEW_MS)
    problems.push({
      check: 'validity',
      code: 'CREDENTIAL_NOT_YET_VALID',
      message: `the credential ${from} is ${String(vc[from])}`,
    });
  if (end !== undefined && end < now - CLOCK_SKEW_MS)
    problems.push({
      check: 'validity',
      code: 'CREDENTIAL_EXPIRED',
      message: `the credential ${until} is ${String(vc[until])}`,
    });
  return problems;
}

/**
 * Status entries of a credential whose proof verified. `budget`: entries this request may still
 * check; a presentation shares one among its credentials, so no request makes this issuer fetch
 * more than MAX_STATUS_ENTRIES lists, whatever it holds.
 */
async function statusProblems(
  deps: Pick<IssuerDeps, 'statusLists' | 'now'>,
  vc: Json,
  issuer: string,
  budget: { left: number },
): Promise<{ checked: boolean; errors: VcApiProblem[]; warnings: VcApiProblem[] }> {
  let entries: StatusEntry[];
  try {
    entries = statusEntries(vc);
  } catch {
    entries = [];
  }
  const errors: VcApiProblem[] = [];
  const warnings: VcApiProblem[] = [];
  if (entries.length > MAX_STATUS_ENTRIES)
    return {
      checked: false,
      errors: [
        { check: 'status', code: 'MALFORMED', message: `more than ${MAX_STATUS_ENTRIES} credentialStatus entries` },
      ],
      warnings,
    };
  if (entries.length > budget.left) {
    // Not the credential's fault: the request's other credentials used the budget up.
    return {
      checked: false,
      errors: [
        {
          check: 'status',
          code: 'STATUS_UNAVAILABLE',
          message: `not checked: one request may check at most ${MAX_STATUS_ENTRIES} status entries`,
        },
      ],
      warnings,
    };
  }
  budget.left -= entries.length;
  for (const entry of entries) {
    // Fail closed: a status this verifier cannot read may be "revoked".
    if (!isObject(entry) || entry.type !== 'BitstringStatusListEntry') {
      errors.push({
        check: 'status',
        code: 'STATUS_TYPE_UNSUPPORTED',
        message: `a credentialStatus entry of type ${JSON.stringify(isObject(entry) ? entry.type : entry)?.slice(0, 64)} cannot be checked here (Bitstring Status List only)`,
      });
      continue;
    }
    try {
      const { status, purpose, message } = await deps.statusLists.check(entry, issuer, deps.now());
      if (status === 0) continue;
      if (purpose === 'revocation' || purpose === 'suspension') {
        errors.push({
          check: 'status',
          code: purpose === 'revocation' ? 'CREDENTIAL_REVOKED' : 'CREDENTIAL_SUSPENDED',
          message: `the credential's ${purpose} status is set`,
        });
      } else {
        // Like verifyPresentation: only revocation and suspension invalidate; a message or
        // refresh status is information for the caller.
        warnings.push({
          check: 'status',
          code: 'STATUS_SET',
          message: `the credential's ${purpose} status is ${status}${message === undefined ? '' : ` (${message})`}`,
        });
      }
    } catch (error) {
      rethrowIfUnavailable(error); // this issuer's database did not answer: no verdict (503)
      errors.push(statusProblem(error));
    }
  }
  return { checked: entries.length > 0, errors, warnings };
}

export interface VcApiVerifier {
  verifyCredential(credential: unknown, options?: CredentialVerifyOptions): Promise<CredentialVerification>;
  verifyPresentation(presentation: unknown, options: PresentationVerifyOptions): Promise<PresentationVerification>;
}

/**
 * A proof set holding a proof more than once, verbatim, taken as the set it is (VC-DI §2.1: an
 * unordered set of proofs): Digital Bazaar's signers give two proofs made by one key in the same
 * second the same bytes (the W3C vc-di-eddsa suite's proof-set case). verifyProof refuses a
 * repeated proofValue (each would cost a signature check), so each proof is kept once here; two
 * different proofs sharing a proofValue, or a set over the size limit, still reach it and are refused.
 */
function withDistinctProofs(vc: Json): Json {
  const proofs = vc.proof;
  if (!Array.isArray(proofs) || proofs.length < 2 || proofs.length > MAX_PROOF_SET_SIZE) return vc;
  const seen = new Set<string>();
  const distinct = proofs.filter((proof: unknown) => {
    let key: string;
    try {
      key = canonicalizeJson(proof);
    } catch {
      return true; // not JSON: verifyProof says why
    }
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return distinct.length === proofs.length ? vc : { ...vc, proof: distinct };
}

/** The DID a verification method belongs to (the DID URL without its fragment). */
function controllerOf(verificationMethod: unknown): string | undefined {
  return typeof verificationMethod === 'string' ? verificationMethod.split('#')[0] : undefined;
}

export function createVcApiVerifier(deps: Pick<IssuerDeps, 'resolver' | 'statusLists' | 'now'>): VcApiVerifier {
  const keyOf = (did: string) =>
    controllerKeyResolver(deps, did, (vm) => refuse('KEY_NOT_AUTHORIZED', `${vm} is not a key of ${did}`));

  /**
   * Keys for a credential's proofs: the issuer's for a proof by the issuer. A proof set (VC-DI
   * §2.1.1, §4.5) may also hold proofs by others — a witness, a notary, an earlier link of a
   * chain — each checked against its own DID's keys for its purpose; but only when the set holds
   * a proof by the issuer (which must verify like every other): without one nothing says the
   * issuer issued it, and no stranger's DID is resolved.
   */
  const credentialKeys = (issuer: string, vc: Json): KeyResolver => {
    const issuerKeys = keyOf(issuer);
    const proofs: unknown[] = Array.isArray(vc.proof) ? vc.proof : [vc.proof];
    const byIssuer = proofs.some((proof) => isObject(proof) && controllerOf(proof.verificationMethod) === issuer);
    if (proofs.length < 2 || !byIssuer) return issuerKeys;
    return (verificationMethod, purpose) => {
      const controller = controllerOf(verificationMethod) ?? '';
      return controller === issuer || !isDid(controller)
        ? issuerKeys(verificationMethod, purpose)
        : keyOf(controller)(verificationMethod, purpose);
    };
  };

  async function verifyCredential(
    credential: unknown,
    options: CredentialVerifyOptions = {},
    budget = { left: MAX_STATUS_ENTRIES },
  ): Promise<CredentialVerification> {
    const shape = await shapeOf(credential);
    if ('problem' in shape) return failed(shape.problem);
    const vc = withDistinctProofs(credential as Json);
    const issuer = idOf(vc.issuer);
    if (issuer === undefined || !isDid(issuer))
      return failed({ check: 'shape', code: 'MALFORMED', message: 'issuer must be a DID' });
    const checks = ['proof', 'validity'];
    const errors: VcApiProblem[] = [];
    const warnings: VcApiProblem[] = shape.unchecked.map((id) => ({
      check: 'relatedResource',
      code: 'NOT_CHECKED',
      message: `the digest of ${id.slice(0, 100)} was not checked: Mandate fetches no resource`,
    }));
    try {
      await verifyProof(vc, {
        resolveKey: credentialKeys(issuer, vc),
        expectedProofPurpose: options.expectedProofPurpose ?? 'assertionMethod',
        ...(options.challenge === undefined ? {} : { expectedChallenge: options.challenge }),
        ...(options.domain === undefined ? {} : { expectedDomain: options.domain }),
        cryptosuites: VC_API_CRYPTOSUITES,
        now: new Date(deps.now()),
      });
    } catch (error) {
      rethrowIfUnavailable(error);
      errors.push(problem('proof', error));
    }
    errors.push(...validityProblems(vc, deps.now()));
    // Status lists are fetched only for a credential whose proof verified: an unsigned request
    // naming hundreds of URLs would otherwise make this issuer fetch them all, on every request.
    if (!errors.some((e) => e.check === 'proof')) {
      const status = await statusProblems(deps, vc, issuer, budget);
      if (status.checked) checks.push('status');
      errors.push(...status.errors);
      warnings.push(...status.warnings);
    }
    return { verified: errors.length === 0, checks, warnings, errors };
  }

  return {
    verifyCredential: (credential, options) => verifyCredential(credential, options),
    verifyPresentation: (vp, options) => verifyPresentationWith(deps, keyOf, verifyCredential, vp, options),
  };
}

/** VC DM 2.0 §4.13 (and 1.1 §4.10) basics of a presentation, then its JSON-LD rules; its credentials are each checked on their own. */
async function presentationShapeError(value: unknown): Promise<VcApiProblem | undefined> {
  const shape = (message: string): VcApiProblem => ({ check: 'shape', code: 'MALFORMED', message });
  if (!isObject(value)) return shape('presentation must be a JSON object');
  const context = value['@context'];
  if (!Array.isArray(context) || (context[0] !== VC_V2_CONTEXT && context[0] !== VC_V1_CONTEXT))
    return shape(`presentation @context must be an array starting with ${VC_V2_CONTEXT}`);
  const types = value.type;
  if (!(types === 'VerifiablePresentation' || (Array.isArray(types) && types.includes('VerifiablePresentation'))))
    return shape('presentation type must include VerifiablePresentation');
  if (value.holder !== undefined && (idOf(value.holder) === undefined || !URL.canParse(idOf(value.holder) as string)))
    return shape('presentation holder must be a URL or an object whose id is one');
  // Its credentials are checked one by one, each under its own context (the v2 context's
  // verifiableCredential resets the context).
  const { verifiableCredential: _credentials, ...rest } = value;
  try {
    await assertJsonLdConformance(rest);
  } catch (error) {
    return malformed(error);
  }
  return undefined;
}

type CredentialVerifier = (
  credential: unknown,
  options: CredentialVerifyOptions,
  budget: { left: number },
) => Promise<CredentialVerification>;

async function verifyPresentationWith(
  deps: Pick<IssuerDeps, 'now'>,
  keyOf: (did: string) => ReturnType<typeof controllerKeyResolver>,
  verifyCredential: CredentialVerifier,
  presentation: unknown,
  options: PresentationVerifyOptions,
): Promise<PresentationVerification> {
  const none = { presentationResult: { verified: false }, credentialResults: [] };
  const shape = await presentationShapeError(presentation);
  if (shape !== undefined) return { ...failed(shape, ['proof']), ...none };
  const vp = presentation as Json;
  const proof: unknown = Array.isArray(vp.proof) ? vp.proof[0] : vp.proof;
  const vm = isObject(proof) && typeof proof.verificationMethod === 'string' ? proof.verificationMethod : '';
  // VC DM 2.0 §4.13: the holder, when named, is who must have signed.
  const holder = idOf(vp.holder) ?? vm.split('#')[0] ?? '';
  try {
    await verifyProof(vp, {
      resolveKey: keyOf(holder),
      expectedProofPurpose: 'authentication',
      // Without a challenge from the caller, the proof's own (authentication proofs must carry one).
      expectedChallenge:
        options.challenge ?? (isObject(proof) && typeof proof.challenge === 'string' ? proof.challenge : ''),
      ...(options.domain === undefined ? {} : { expectedDomain: options.domain }),
      cryptosuites: VC_API_CRYPTOSUITES,
      now: new Date(deps.now()),
    });
  } catch (error) {
    rethrowIfUnavailable(error);
    // Its credentials are not looked at: each could make this issuer resolve a DID.
    return { verified: false, checks: ['proof'], warnings: [], errors: [problem('proof', error)], ...none };
  }
  const listed = vp.verifiableCredential;
  const credentials = listed === undefined ? [] : Array.isArray(listed) ? listed : [listed];
  const errors: VcApiProblem[] = [];
  if (credentials.length > MAX_CREDENTIALS)
    errors.push({ check: 'credentials', code: 'MALFORMED', message: `more than ${MAX_CREDENTIALS} credentials` });
  const budget = { left: MAX_STATUS_ENTRIES };
  const credentialResults = await Promise.all(
    credentials.slice(0, MAX_CREDENTIALS).map((vc) => verifyCredential(vc, {}, budget)),
  );
  const presentationVerified = errors.length === 0;
  credentialResults.forEach((result, i) => {
    if (!result.verified)
      errors.push({
        check: 'credentials',
        code: result.errors[0]?.code ?? 'ERROR',
        message: `credential ${i}: ${result.errors[0]?.message ?? 'not verified'}`,
      });
  });
  const checks = credentialResults.length > 0 ? ['proof', 'credentials'] : ['proof'];
  return {
    verified: errors.length === 0,
    checks,
    warnings: [],
    errors,
    presentationResult: { verified: presentationVerified },
    credentialResults,
  };
}
