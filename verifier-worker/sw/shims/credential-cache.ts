/**
 * A build-time stand-in for `wallet/vc/credential-cache.ts` in the service-worker bundle (aliased
 * in verifier-worker/vite.sw.config.ts): a verified-credential cache that never recalls and
 * never stores, so every request verifies every signature.
 *
 * Why: the cache (and the structural comparison behind it) costs about 375 bytes of the
 * worker's 40 KB gzip budget, and in a browser it saves little: WebCrypto checks a signature in
 * well under a millisecond, and a worker serves one origin's agents. Servers keep the real cache
 * (verifyRequest's default outside the worker).
 */
import type * as CredentialCache from '../../../wallet/vc/credential-cache.ts';

export type VerifiedCredentialCache = CredentialCache.VerifiedCredentialCache;

export const createVerifiedCredentialCache: typeof CredentialCache.createVerifiedCredentialCache = () => ({
  recall: () => undefined,
  add: () => undefined,
});
