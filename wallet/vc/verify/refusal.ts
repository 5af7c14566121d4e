/** How a failure found by a check becomes the verifier's refusal, with one of its reason codes. */
import { isMandateError } from '../../crypto/errors.ts';
import { JsonError } from '../../crypto/json-value.ts';
import { VerificationError, type ReasonCode } from '../reasons.ts';

/** Translation of lower layers' error codes into the verifier's reason codes, per check. */
const PROOF_REASONS: Record<string, ReasonCode> = {
  DID_RESOLUTION_FAILED: 'DID_RESOLUTION_FAILED',
  DID_DEACTIVATED: 'DID_DEACTIVATED',
  KEY_NOT_AUTHORIZED: 'KEY_NOT_AUTHORIZED',
  INVALID_PUBLIC_KEY: 'KEY_NOT_AUTHORIZED',
  PROOF_MALFORMED: 'MALFORMED',
  PROOF_MISSING: 'MALFORMED',
};

export function reasonFor(
  error: unknown,
  fallback: ReasonCode,
  overrides: Record<string, ReasonCode> = {},
): VerificationError {
  if (error instanceof VerificationError) return error;
  if (isMandateError(error)) {
    // Input that is not safe JSON (JsonError, any JSON_* code) is malformed wherever it is found.
    const reason =
      overrides[error.code] ?? PROOF_REASONS[error.code] ?? (error instanceof JsonError ? 'MALFORMED' : fallback);
    return new VerificationError(reason, error.message, { cause: error });
  }
  // Unknown failures (bugs, platform errors) fail closed without leaking their text.
  return new VerificationError(fallback, 'verification failed unexpectedly', { cause: error });
}
