/**
 * `mandate/wallet` for verifiers only: what a service needs to decide a presentation in its own
 * process (docs/protocol.md §Verification) and nothing it does not (no key stores, no issuing,
 * no passphrase KDF). `npm run build` bundles this entry on its own and prints its minified and
 * gzip sizes next to the service worker's, so a size regression in the verify path is visible.
 */
export { MandateError, isMandateError } from './crypto/errors.ts';
export { setEd25519Backend, getEd25519Backend, type Ed25519Backend } from './crypto/ed25519.ts';
export { parseJson } from './crypto/json-parse.ts';
export { type JsonValue, type JsonLimits } from './crypto/json-value.ts';
export { decodeBase64url, encodeBase64url } from './crypto/multikey.ts';
export { createResolver, type DidResolver, type ResolverOptions } from './did/registry.ts';
export { createCachedResolver, type CachedResolver, type CacheOptions } from './did/cache.ts';
export { resolveDidKey } from './did/key.ts';
export { createWebResolver, type WebResolverOptions } from './did/web.ts';
export { createKeyResolver, type KeyResolver } from './did/verification-method.ts';
export { assertDidDocument } from './did/document.ts';
export type { DidDocument, DidResolutionResult, MethodResolver, Resolvable } from './did/types.ts';
export { createStatusListClient, type StatusListClient, type StatusListClientOptions } from './status/client.ts';
export { REASON_CODES, VerificationError, isReasonCode, type ReasonCode } from './vc/reasons.ts';
export { createReplayCache, type ReplayCache, type ReplayCacheOptions } from './vc/replay-cache.ts';
export {
  createVerifiedCredentialCache,
  type VerifiedCredentialCache,
  type VerifiedCredential,
  type ProofKey,
  type CredentialCacheOptions,
} from './vc/credential-cache.ts';
export { verifyPresentation, type VerifyPresentationOptions, type VerificationResult } from './vc/verify.ts';
