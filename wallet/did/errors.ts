/**
 * Errors of the DID layer. Resolution itself never throws (DID Resolution §4: failures are
 * reported in `didResolutionMetadata.error`); these are thrown by the functions that *use* a
 * resolution — parsing a DID for a caller, turning a verification method into a key — and by
 * configuration mistakes. The key-resolution codes are the verifier's reason codes of a
 * later layer, so they are stable API.
 */
import { MandateError } from '../crypto/errors.ts';

export type DidErrorCode =
  /** Not a DID / DID URL per DID Core §3.1–3.2, or not of the method a function expects. */
  | 'INVALID_DID'
  /** A DID document (given to a helper, or fetched) that is not DID Core §4–5 shaped. */
  | 'INVALID_DID_DOCUMENT'
  /** A method name or method resolver handed to the registry that cannot work. */
  | 'INVALID_METHOD_RESOLVER'
  /** Resolver options out of range (timeouts, size caps, URLs). */
  | 'INVALID_OPTIONS'
  /** Resolving the DID of a verification method failed; the message names the error. */
  | 'DID_RESOLUTION_FAILED'
  /** The DID resolved with `didDocumentMetadata.deactivated: true` (DID Core §7.1.3). */
  | 'DID_DEACTIVATED'
  /** The verification method is absent, not in the proof purpose's relationship, revoked, expired, or controlled by someone else. */
  | 'KEY_NOT_AUTHORIZED'
  /** The verification method is not an Ed25519 Multikey, or its key bytes are invalid. */
  | 'INVALID_PUBLIC_KEY';

export class DidError extends MandateError<DidErrorCode> {
  override name = 'DidError';
}
