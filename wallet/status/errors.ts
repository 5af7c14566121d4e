/**
 * Errors of the status layer. Each code names one failure; where Bitstring Status List v1.0
 * §3.5 (Processing Errors) or VC 2.0 names an error for the same failure, it is given next to
 * the code so an HTTP layer can map ours to the spec's problem-details `type`.
 */
import { MandateError } from '../crypto/errors.ts';

export type StatusListErrorCode =
  /** A list credential, its subject or its encodedList is not what §2.2 requires (MALFORMED_VALUE_ERROR). */
  | 'STATUS_LIST_MALFORMED'
  /** A credentialStatus entry is not what §2.1 requires (MALFORMED_VALUE_ERROR). */
  | 'STATUS_ENTRY_MALFORMED'
  /** The encoded or the decompressed list exceeds the configured maximum (no spec code: a local limit). */
  | 'STATUS_LIST_TOO_LARGE'
  /** Fewer entries than minimumNumberOfEntries (§3.2 step 9, STATUS_LIST_LENGTH_ERROR). */
  | 'STATUS_LIST_TOO_SHORT'
  /** statusListIndex × statusSize falls outside the bitstring (§3.2 step 10, RANGE_ERROR). */
  | 'STATUS_INDEX_OUT_OF_RANGE'
  /** The entry's statusPurpose is not one of the list's (§3.2 step 5, STATUS_VERIFICATION_ERROR). */
  | 'STATUS_PURPOSE_MISMATCH'
  /** The list is not the one the entry points to: other id or statusSize (STATUS_VERIFICATION_ERROR). */
  | 'STATUS_LIST_MISMATCH'
  /** The list could not be fetched, and no usable cached copy exists (§3.2 step 4, STATUS_RETRIEVAL_ERROR). */
  | 'STATUS_LIST_UNAVAILABLE'
  /**
   * The list was fetched but cannot be trusted: its proof fails, it names another id, another
   * issuer signed it, or it is outside its validity period (§3.2 step 4, STATUS_VERIFICATION_ERROR).
   */
  | 'STATUS_LIST_UNVERIFIED'
  /** Every index of the list is allocated (issuer side). */
  | 'STATUS_LIST_FULL'
  /** A caller passed an argument outside the function's contract (issuer side: size, value, date…). */
  | 'INVALID_STATUS_ARGUMENT';

export class StatusListError extends MandateError<StatusListErrorCode> {
  override name = 'StatusListError';
}

/** The processing errors of Bitstring Status List v1.0 §3.5. */
export type StatusProcessingError =
  | 'STATUS_RETRIEVAL_ERROR'
  | 'STATUS_VERIFICATION_ERROR'
  | 'STATUS_LIST_LENGTH_ERROR'
  | 'RANGE_ERROR'
  | 'MALFORMED_VALUE_ERROR';

const PROCESSING_ERRORS: Partial<Record<StatusListErrorCode, StatusProcessingError>> = {
  STATUS_LIST_MALFORMED: 'MALFORMED_VALUE_ERROR',
  STATUS_ENTRY_MALFORMED: 'MALFORMED_VALUE_ERROR',
  STATUS_LIST_TOO_SHORT: 'STATUS_LIST_LENGTH_ERROR',
  STATUS_INDEX_OUT_OF_RANGE: 'RANGE_ERROR',
  STATUS_PURPOSE_MISMATCH: 'STATUS_VERIFICATION_ERROR',
  STATUS_LIST_MISMATCH: 'STATUS_VERIFICATION_ERROR',
  STATUS_LIST_UNAVAILABLE: 'STATUS_RETRIEVAL_ERROR',
  STATUS_LIST_UNVERIFIED: 'STATUS_VERIFICATION_ERROR',
};

/**
 * The §3.5 name of a verifier-side failure, for an HTTP layer's problem details (`type`
 * `https://www.w3.org/ns/credentials/status-list#<name>`); undefined for local limits
 * (STATUS_LIST_TOO_LARGE) and issuer-side codes.
 */
export function statusProcessingError(code: StatusListErrorCode): StatusProcessingError | undefined {
  return PROCESSING_ERRORS[code];
}
