/**
 * W3C VC-API (CCG "Verifiable Credentials API" v0.3) beside our own paths, so standard test
 * suites and wallets can talk to this issuer:
 *
 * - `POST /credentials/issue` (admin): signs the given credential with the issuer's key,
 *   `eddsa-jcs-2022`, proofPurpose `assertionMethod`. Mandate's authority types are refused
 *   here (they are issued only through enrollment and /v1/vcs, which give them status entries).
 * - `POST /credentials/verify`: the credential's proof (a key of its issuer, in
 *   `assertionMethod`), its validity window, and its `credentialStatus` entries (at most 4).
 * - `POST /presentations/verify`: the presentation's proof (a key of its holder, in
 *   `authentication`, with the expected challenge and domain), then every credential in it,
 *   sharing those 4 status entries.
 *
 * Verification results follow VC-API: `{verified, checks, warnings, errors}`; callers decide on
 * trust (which issuers they accept) themselves — this is a proof and status check, not policy.
 */
import { createProof, formatDateTimeStamp, parseDateTimeStamp, verifyProof } from '../../wallet/crypto/data-integrity.ts';
import { isMandateError } from '../../wallet/crypto/errors.ts';
import { assertSafeJson } from '../../wallet/crypto/jcs.ts';
import { StatusListError, statusProcessingError } from '../../wallet/status/errors.ts';
import { assertConformingCredential } from '../../wallet/vc/conformance.ts';
import { VC_V2_CONTEXT } from '../../wallet/vc/context.ts';
import { newUrnUuid } from '../../wallet/vc/identity.ts';
import { CREDENTIAL_TYPES, MAX_STATUS_ENTRIES, statusEntries } from '../../wallet/vc/parse.ts';
import { isDid } from '../../wallet/did/parse.ts';
import type { StatusEntry } from '../../wallet/vc/types.ts';
import { clipText } from '../audit.ts';
import type { IssuerContext } from '../context.ts';
import { apiError } from '../http/errors.ts';
import { controllerKeyResolver } from './controller-keys.ts';

export interface VcApiProblem {
  check: string;
  code: string;
  message: string;
  /** Problem-details type, for the processing errors Bitstring Status List §3.5 names. */
  type?: string;
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

export interface PresentationVerifyOptions {
  challenge?: string;
  domain?: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function didOfIssuer(issuer: unknown): string | undefined {
  const id = isObject(issuer) ? issuer.id : issuer;
  return isDid(id) ? id : undefined;
}

function problem(check: string, error: unknown): VcApiProblem {
  if (isMandateError(error)) return { check, code: error.code, message: error.message };
  return { check, code: 'ERROR', message: 'verification failed' };
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

/** VC DM 2.0 §4.13 basics of a presentation; its credentials are each checked on their own. */
function presentationShapeError(value: unknown): string | undefined {
  if (!isObject(value)) return 'presentation must be a JSON object';
  const context = value['@context'];
  if (!Array.isArray(context) || context[0] !== VC_V2_CONTEXT) return `presentation @context must start with ${VC_V2_CONTEXT}`;
  const types = value.type;
  if (!(types === 'VerifiablePresentation' || (Array.isArray(types) && types.includes('VerifiablePresentation')))) {
    return 'presentation type must include VerifiablePresentation';
  }
  return undefined;
}

/** The VC DM 2.0 rule `credential` breaks, if any (`assertConformingCredential`). */
function conformanceError(credential: unknown): string | undefined {
  try {
    assertConformingCredential(credential);
    return undefined;
  } catch (error) {
    return isMandateError(error) ? error.message : 'not a VC DM 2.0 credential';
  }
}

export interface VcApi {
  issue(credential: unknown, actor: string): Promise<Json>;
  verifyCredential(credential: unknown): Promise<CredentialVerification>;
  verifyPresentation(presentation: unknown, options: PresentationVerifyOptions): Promise<PresentationVerification>;
}

export function createVcApi(ctx: IssuerContext): VcApi {
  const keyOf = (did: string) => controllerKeyResolver(ctx, did, (vm) => apiError('KEY_NOT_AUTHORIZED', `${vm} is not a key of ${did}`));

  /**
   * `statusBudget`: status entries this request may still check. A presentation shares one
   * budget among its credentials, so no request makes this issuer fetch more than
   * MAX_STATUS_ENTRIES lists, whatever it holds.
   */
  async function verifyCredential(credential: unknown, statusBudget = { left: MAX_STATUS_ENTRIES }): Promise<CredentialVerification> {
    const checks = ['proof', 'validity'];
    const errors: VcApiProblem[] = [];
    const warnings: VcApiProblem[] = [];
    const shape = conformanceError(credential);
    if (shape !== undefined) return { verified: false, checks, warnings: [], errors: [{ check: 'shape', code: 'MALFORMED', message: shape }] };
    const vc = credential as Json;
    const issuer = didOfIssuer(vc.issuer);
    if (issuer === undefined) return { verified: false, checks, warnings: [], errors: [{ check: 'shape', code: 'MALFORMED', message: 'issuer must be a DID' }] };
    const now = ctx.now();
    try {
      await verifyProof(vc, { resolveKey: keyOf(issuer), expectedProofPurpose: 'assertionMethod', now: new Date(now) });
    } catch (error) {
      errors.push(problem('proof', error));
    }
    const proofVerified = errors.length === 0;
    // VC DM 2.0 §4.9: validFrom / validUntil (both optional; their syntax passed the shape check).
    for (const [field, fails] of [
      ['validFrom', (t: number) => t > now + 60_000],
      ['validUntil', (t: number) => t < now - 60_000],
    ] as const) {
      const at = parseDateTimeStamp(vc[field]);
      if (at !== undefined && fails(at)) {
        errors.push({ check: 'validity', code: field === 'validFrom' ? 'CREDENTIAL_NOT_YET_VALID' : 'CREDENTIAL_EXPIRED', message: `the credential ${field} is ${String(vc[field])}` });
      }
    }
    let entries: StatusEntry[] = [];
    try {
      entries = statusEntries(vc as { credentialStatus?: StatusEntry | StatusEntry[] });
    } catch {
      entries = [];
    }
    // Status lists are fetched only for a credential whose proof verified, and for at most
    // MAX_STATUS_ENTRIES entries per request: an unsigned request naming hundreds of URLs would
    // otherwise make this issuer fetch them all, on every request.
    if (entries.length > MAX_STATUS_ENTRIES) {
      errors.push({ check: 'status', code: 'MALFORMED', message: `more than ${MAX_STATUS_ENTRIES} credentialStatus entries` });
    } else if (entries.length > statusBudget.left && proofVerified) {
      // Not the credential's fault: the request's other credentials used the budget up.
      errors.push({ check: 'status', code: 'STATUS_UNAVAILABLE', message: `not checked: one request may check at most ${MAX_STATUS_ENTRIES} status entries` });
    } else if (entries.length > 0 && proofVerified) {
      statusBudget.left -= entries.length;
      checks.push('status');
      for (const entry of entries) {
        try {
          const { status, purpose, message } = await ctx.statusLists.check(entry, issuer, now);
          if (status === 0) continue;
          if (purpose === 'revocation' || purpose === 'suspension') {
            errors.push({ check: 'status', code: purpose === 'revocation' ? 'CREDENTIAL_REVOKED' : 'CREDENTIAL_SUSPENDED', message: `the credential's ${purpose} status is set` });
          } else {
            // Like verifyPresentation: only revocation and suspension invalidate; a message or
            // refresh status is information for the caller.
            warnings.push({ check: 'status', code: 'STATUS_SET', message: `the credential's ${purpose} status is ${status}${message === undefined ? '' : ` (${message})`}` });
          }
        } catch (error) {
          errors.push(statusProblem(error));
        }
      }
    }
    return { verified: errors.length === 0, checks, warnings, errors };
  }

  return {
    async issue(credential, actor) {
      if (!isObject(credential)) throw apiError('CREDENTIAL_INVALID', 'credential must be a JSON object');
      const vc = { ...credential };
      try {
        assertSafeJson(vc);
      } catch (error) {
        throw apiError('CREDENTIAL_INVALID', (error as Error).message);
      }
      const types = Array.isArray(vc.type) ? vc.type : [vc.type];
      const reserved = CREDENTIAL_TYPES.filter((t) => types.includes(t));
      if (reserved.length > 0) {
        throw apiError('CREDENTIAL_TYPE_RESERVED', `${reserved.join(', ')} credentials are issued through enrollment and POST /v1/vcs, which give them status entries`);
      }
      if (vc.proof !== undefined) throw apiError('CREDENTIAL_INVALID', 'the credential to issue must not already carry a proof');
      if (vc.issuer === undefined) vc.issuer = ctx.issuer.did;
      if (didOfIssuer(vc.issuer) !== ctx.issuer.did) throw apiError('ISSUER_MISMATCH', `this service issues as ${ctx.issuer.did}`);
      vc.id ??= newUrnUuid();
      vc.validFrom ??= formatDateTimeStamp(new Date(ctx.now()));
      // VC DM 2.0 §2.1: a conforming issuer signs only conforming documents.
      const shape = conformanceError(vc);
      if (shape !== undefined) throw apiError('CREDENTIAL_INVALID', shape);
      const signed = await createProof(vc, {
        signer: ctx.issuer.signer,
        verificationMethod: ctx.issuer.verificationMethod,
        proofPurpose: 'assertionMethod',
        created: new Date(Math.floor(ctx.now() / 1000) * 1000),
      });
      ctx.audit.record({ event: 'VC_API_ISSUED', actor, data: { id: clipText(String(vc.id), 256), type: types.filter((t) => typeof t === 'string').slice(0, 8) as string[] } });
      return signed as Json;
    },

    verifyCredential,

    async verifyPresentation(presentation, options) {
      const checks = ['proof'];
      const errors: VcApiProblem[] = [];
      const shape = presentationShapeError(presentation);
      if (shape !== undefined) {
        const failed = { verified: false, checks, warnings: [], errors: [{ check: 'shape', code: 'MALFORMED', message: shape }] };
        return { ...failed, presentationResult: { verified: false }, credentialResults: [] };
      }
      const vp = presentation as Json;
      const proof = Array.isArray(vp.proof) ? vp.proof[0] : vp.proof;
      const vm = isObject(proof) && typeof proof.verificationMethod === 'string' ? proof.verificationMethod : '';
      // VC DM 2.0 §4.13: the holder, when named, is who must have signed.
      const holder = typeof vp.holder === 'string' ? vp.holder : isObject(vp.holder) && typeof vp.holder.id === 'string' ? vp.holder.id : vm.split('#')[0] ?? '';
      try {
        await verifyProof(vp, {
          resolveKey: keyOf(holder),
          expectedProofPurpose: 'authentication',
          // Without a challenge from the caller, the proof's own (authentication proofs must carry one).
          expectedChallenge: options.challenge ?? (isObject(proof) && typeof proof.challenge === 'string' ? proof.challenge : ''),
          ...(options.domain === undefined ? {} : { expectedDomain: options.domain }),
          now: new Date(ctx.now()),
        });
      } catch (error) {
        errors.push(problem('proof', error));
        // Its credentials are not looked at: each could make this issuer resolve a DID.
        return { verified: false, checks, warnings: [], errors, presentationResult: { verified: false }, credentialResults: [] };
      }
      const listed = vp.verifiableCredential;
      const credentials = listed === undefined ? [] : Array.isArray(listed) ? listed : [listed];
      if (credentials.length > 16) errors.push({ check: 'credentials', code: 'MALFORMED', message: 'more than 16 credentials' });
      const statusBudget = { left: MAX_STATUS_ENTRIES };
      const credentialResults = await Promise.all(credentials.slice(0, 16).map((vc) => verifyCredential(vc, statusBudget)));
      if (credentialResults.length > 0) checks.push('credentials');
      const presentationVerified = errors.length === 0;
      credentialResults.forEach((result, i) => {
        if (!result.verified) errors.push({ check: 'credentials', code: result.errors[0]?.code ?? 'ERROR', message: `credential ${i}: ${result.errors[0]?.message ?? 'not verified'}` });
      });
      return { verified: errors.length === 0, checks, warnings: [], errors, presentationResult: { verified: presentationVerified }, credentialResults };
    },
  };
}
