/**
 * The failures of HTTP Message Signatures (RFC 9421) and Content-Digest (RFC 9530), each with a
 * stable reason code registered in wallet/reasons/registry.ts and documented in
 * docs/http-signatures.md §Reason codes. Messages name the rule that failed, never key material.
 */
import { MandateError } from '../crypto/errors.ts';
import type { RegisteredCode } from '../reasons/registry.ts';

/** Every code an HttpSignatureError carries, in the order the verifier checks (docs/http-signatures.md). */
export const HTTP_SIGNATURE_REASONS = [
  'HTTP_SIGNATURE_MISSING',
  'HTTP_SIGNATURE_MALFORMED',
  'HTTP_SIGNATURE_NOT_FOUND',
  'HTTP_SIGNATURE_ALG_UNSUPPORTED',
  'HTTP_SIGNATURE_PARAMS_INVALID',
  'HTTP_SIGNATURE_NOT_YET_VALID',
  'HTTP_SIGNATURE_LIFETIME_EXCEEDED',
  'HTTP_SIGNATURE_EXPIRED',
  'HTTP_SIGNATURE_COMPONENT_NOT_COVERED',
  'CONTENT_DIGEST_MISSING',
  'HTTP_SIGNATURE_COMPONENT_ABSENT',
  'HTTP_SIGNATURE_AGENT_INVALID',
  'HTTP_SIGNATURE_KEY_UNKNOWN',
  'HTTP_SIGNATURE_KEYID_MISMATCH',
  'HTTP_SIGNATURE_INVALID',
  'CONTENT_DIGEST_UNSUPPORTED',
  'CONTENT_DIGEST_MISMATCH',
  'HTTP_SIGNATURE_REPLAYED',
  'HTTP_SIGNATURE_OPTIONS_INVALID',
] as const satisfies readonly RegisteredCode[];

export type HttpSignatureErrorCode = (typeof HTTP_SIGNATURE_REASONS)[number];

export class HttpSignatureError extends MandateError<HttpSignatureErrorCode> {
  override name = 'HttpSignatureError';
}

export function refuse(code: HttpSignatureErrorCode, message: string, cause?: unknown): never {
  throw new HttpSignatureError(code, message, cause === undefined ? undefined : { cause });
}
