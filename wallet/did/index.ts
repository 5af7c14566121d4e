/**
 * The DID layer of Mandate: parse DIDs, resolve them (did:key, did:web, plugins such as the
 * example did:ledger, loaded lazily), cache resolutions, and turn a proof's verification
 * method into the Ed25519 key that must have signed it. See docs/dids.md.
 */
export { DidError, type DidErrorCode } from './errors.ts';
export { parseDid, tryParseDid, didOf, MAX_DID_URL_LENGTH, type InvalidDid } from './parse.ts';
export { assertDidDocument } from './document.ts';
export { multikeyDocument, MULTIKEY_DOCUMENT_CONTEXT } from './multikey-document.ts';
export {
  createResolver,
  type DidResolver,
  type ResolverOptions,
  type LazyMethodLoader,
  type LazyMethodModule,
} from './registry.ts';
export { createCachedResolver, DID_CACHE_DEFAULTS, type CacheOptions, type CachedResolver } from './cache.ts';
export { didKeyFromPublicKey, didKeyFromSeed, publicKeyFromDidKey, didKeyDocument, resolveDidKey } from './key.ts';
export { createWebResolver, didWebToUrl, DID_WEB_DEFAULTS, type WebResolverOptions } from './web.ts';
export type { FetchLike } from './http.ts';
export {
  createKeyResolver,
  findVerificationMethod,
  publicKeyOf,
  absoluteDidUrl,
  type KeyResolver,
  type KeyResolverOptions,
} from './verification-method.ts';
export {
  VERIFICATION_RELATIONSHIPS,
  resolutionError,
  type DidDocument,
  type DidDocumentMetadata,
  type DidResolutionErrorName,
  type DidResolutionMetadata,
  type DidResolutionOptions,
  type DidResolutionResult,
  type MethodResolver,
  type ParsedDid,
  type PublicKeyJwk,
  type Resolvable,
  type Service,
  type ServiceEndpoint,
  type VerificationMethod,
  type VerificationMethodEntry,
  type VerificationRelationship,
} from './types.ts';
// did:ledger is a plugin: load it lazily (`lazyMethods`) so bundles that never meet it stay small.
export type {
  LedgerMessage,
  LedgerOperation,
  LedgerReplayStats,
  LedgerResolverOptions,
  UnsignedLedgerMessage,
} from './ledger.ts';
