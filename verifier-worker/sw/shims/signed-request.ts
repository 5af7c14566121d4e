/**
 * A build-time stand-in for `wallet/vc/signed-request.ts` in the service-worker bundle (aliased
 * in verifier-worker/vite.sw.config.ts): the worker refuses signed requests (MALFORMED, 400)
 * instead of verifying them, and keeps accepting presentations.
 *
 * Why: verifying RFC 9421 signatures bound to a chain brings the structured-field parser, the
 * signature base, Content-Digest (with SHA-512) and the chain header code into the worker:
 * about 8.7 KB gzip, 44.9 KB against its 40 KB budget (docs/verifier.md §Size). Servers keep the
 * real module (verifyRequest outside the worker), until the worker makes room for it.
 */
import type * as SignedRequest from '../../../wallet/vc/signed-request.ts';

export type RequestSignature = SignedRequest.RequestSignature;

export const DEFAULT_MAX_SIGNED_BODY_BYTES = 1024 * 1024;

export const verifySignedRequest: typeof SignedRequest.verifySignedRequest = () => {
  const message = 'this service worker does not verify signed requests: send a presentation (Authorization: VP …)';
  return Promise.resolve({
    valid: false,
    reason: 'MALFORMED',
    message,
    failedCheck: 'signature',
    checks: [{ check: 'signature', ok: false, reason: 'MALFORMED', message }],
  });
};
