/**
 * Error codes of the EXTRAS endpoints (DIDs, user challenges, /v1/vp/verify, audit events,
 * VC-API) with their HTTP statuses, beside CORE's table in errors.ts. Codes CORE already
 * defines for the same failure (CHALLENGE_NOT_FOUND, CHALLENGE_USED, CHALLENGE_EXPIRED,
 * DID_NOT_FOUND, DID_DEACTIVATED…) are reused through `apiError`, never redefined.
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError, type ApiErrorOptions } from './errors.ts';

export const EXTRAS_ERRORS = {
  /** A DID (path or body) that is not DID Core §3.1 syntax. */
  INVALID_DID: 400,
  /** A presentation /v1/vp/verify cannot even read (the verifier's MALFORMED). */
  MALFORMED: 400,
  /** A challenge signature that is neither base58btc multibase nor hex of 64 bytes. */
  SIGNATURE_ENCODING_INVALID: 400,
  /** VC-API: the credential to issue is not a VC 2.0 credential. */
  CREDENTIAL_INVALID: 400,
  /** A provider's audit event whose proof does not verify. */
  EVENT_SIGNATURE_INVALID: 403,
  /** A proof made with a key that is not the claimed signer's (or not in the right relationship). */
  KEY_NOT_AUTHORIZED: 403,
  /** A service id the DID document does not have. */
  SERVICE_NOT_FOUND: 404,
  /** The DID (or the did:web path chosen for it) already exists here. */
  DID_EXISTS: 409,
  /** The DID document already has a service with this id. */
  SERVICE_EXISTS: 409,
  /** The issuer's own DID cannot be deactivated through the API. */
  ISSUER_DID_PROTECTED: 409,
  /** A provider's audit event id that was already recorded. */
  EVENT_DUPLICATE: 409,
  /** did:key documents are derived from the key: they cannot carry services. */
  DID_KEY_SERVICES_UNSUPPORTED: 422,
  /** The DID's document is not served by this issuer, so it cannot be changed here. */
  DID_NOT_HOSTED: 422,
  /** A DID whose key must check a signature (a provider's) could not be resolved. */
  DID_RESOLUTION_FAILED: 422,
  /** A provider's audit event signed too long ago (or in the future). */
  EVENT_STALE: 422,
  /** VC-API: the credential names another issuer than this one. */
  ISSUER_MISMATCH: 422,
  /** VC-API: Mandate authority types are issued only through /v1 (enrollment, /v1/vcs). */
  CREDENTIAL_TYPE_RESERVED: 422,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ExtrasErrorCode = keyof typeof EXTRAS_ERRORS;

/** An ApiError for one of the EXTRAS codes, with the status the table gives it. */
export function extrasError(code: ExtrasErrorCode, message: string, options?: ApiErrorOptions): ApiError<ExtrasErrorCode> {
  return new ApiError(EXTRAS_ERRORS[code], code, message, options);
}
