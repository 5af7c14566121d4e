/**
 * The verifier's reason codes: the stable vocabulary every refusal is reported in, by the
 * in-process verifier, the issuer's /v1/vp/verify, the middleware and the service worker.
 * Each is a code of the reason registry (wallet/reasons/registry.ts, checked here at compile time),
 * whose table docs/protocol.md §Reason codes is generated from; each is raised in one place.
 */
import { MandateError } from '../crypto/errors.ts';
import type { HttpSignatureErrorCode } from '../http-signatures/errors.ts';
import type { RegisteredCode } from '../reasons/registry.ts';

export const REASON_CODES = [
  'MALFORMED',
  'VP_SIGNATURE_INVALID',
  'VP_EXPIRED',
  'CHALLENGE_MISMATCH',
  'TARGET_MISMATCH',
  'REPLAYED',
  'DID_RESOLUTION_FAILED',
  'DID_DEACTIVATED',
  'KEY_NOT_AUTHORIZED',
  'CREDENTIAL_SIGNATURE_INVALID',
  'CREDENTIAL_EXPIRED',
  'CREDENTIAL_NOT_YET_VALID',
  'UNTRUSTED_ISSUER',
  'CHAIN_BROKEN',
  'SCOPE_ESCALATION',
  'DEPTH_EXCEEDED',
  'DOMAIN_ESCALATION',
  'HOLDER_MISMATCH',
  'INSUFFICIENT_SCOPE',
  'CREDENTIAL_REVOKED',
  'CREDENTIAL_SUSPENDED',
  'STATUS_UNAVAILABLE',
] as const satisfies readonly RegisteredCode[];

export type ReasonCode = (typeof REASON_CODES)[number];

/**
 * The codes only a signed request is refused with (docs/protocol.md §Signed requests): its own,
 * and those of the RFC 9421 signature (wallet/http-signatures) that verification can raise.
 */
export const SIGNED_REQUEST_REASONS = [
  'CHAIN_UNKNOWN',
  // wallet/http-signatures' verification codes, in its order (docs/http-signatures.md): all but
  // HTTP_SIGNATURE_NOT_FOUND (the verifier judges the first signature, asking for no label or
  // tag) and HTTP_SIGNATURE_OPTIONS_INVALID (a signer's).
  'HTTP_SIGNATURE_MISSING',
  'HTTP_SIGNATURE_MALFORMED',
  'HTTP_SIGNATURE_ALG_UNSUPPORTED',
  'HTTP_SIGNATURE_PARAMS_INVALID',
  'HTTP_SIGNATURE_NOT_YET_VALID',
  'HTTP_SIGNATURE_LIFETIME_EXCEEDED',
  'HTTP_SIGNATURE_EXPIRED',
  'HTTP_SIGNATURE_COMPONENT_NOT_COVERED',
  'CONTENT_DIGEST_MISSING',
  'HTTP_SIGNATURE_COMPONENT_ABSENT',
  'HTTP_SIGNATURE_KEY_UNKNOWN',
  'HTTP_SIGNATURE_INVALID',
  'CONTENT_DIGEST_UNSUPPORTED',
  'CONTENT_DIGEST_MISMATCH',
  'HTTP_SIGNATURE_REPLAYED',
] as const satisfies readonly (RegisteredCode & (HttpSignatureErrorCode | 'CHAIN_UNKNOWN'))[];

export type SignedRequestReason = (typeof SIGNED_REQUEST_REASONS)[number];

/** Every code a verifier refuses with: a presentation's, or a signed request's. */
export type RefusalCode = ReasonCode | SignedRequestReason;

export function isSignedRequestReason(code: unknown): code is SignedRequestReason {
  return typeof code === 'string' && (SIGNED_REQUEST_REASONS as readonly string[]).includes(code);
}

/** A signed request's own refusal (CHAIN_UNKNOWN). */
export class SignedRequestError extends MandateError<'CHAIN_UNKNOWN'> {
  override name = 'SignedRequestError';
}

/** A refusal with its reason code; thrown by the builders (issuance-time checks) and by checks. */
export class VerificationError extends MandateError<ReasonCode> {
  override name = 'VerificationError';
}

export function isReasonCode(code: unknown): code is ReasonCode {
  return typeof code === 'string' && (REASON_CODES as readonly string[]).includes(code);
}

/**
 * A verifier configured in a way that cannot be safe or cannot work: a programming error, never
 * the presentation's fault, so it is thrown (verifyPresentation rejects) rather than reported as
 * a refusal. The middleware throws it at setup.
 */
export class VerifierOptionsError extends MandateError<'INVALID_VERIFIER_OPTIONS'> {
  override name = 'VerifierOptionsError';
}
