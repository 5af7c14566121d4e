/**
 * did:web resolutions shared by every issuer instance through Redis (SERVICE_CACHE_ADAPTER=redis),
 * as a layer between the per-process cache (wallet/did/cache.ts, kept in front: most reads never
 * reach Redis) and the did:web resolver. A did:web document carries no proof of its own, so one
 * read from Redis is trusted as the fetch that put it there was: only successful resolutions are
 * shared, for the per-process cache's ttl counted from the fetch, and the Redis holding them must
 * be protected like the database (docs/operations.md §Redis). A resolution past the caches
 * (`noCache`: the cached resolver's `refresh`, taken when a proof names a key the cached document
 * lacks) skips the read and overwrites the shared entry, so one instance's refresh serves all.
 */
import { assertDidDocument } from '../../../wallet/did/document.ts';
import { didOf } from '../../../wallet/did/parse.ts';
import type { DidDocument, DidResolutionOptions, DidResolutionResult, Resolvable } from '../../../wallet/did/types.ts';
import type { SharedCache } from './redis-cache.ts';

export interface SharedDidResolverOptions {
  /** The `mandate:did:` cache. */
  cache: SharedCache;
  /** How long a resolution is shared, counted from its fetch (the per-process cache's ttlMs). */
  ttlMs: number;
  now: () => number;
}

interface StoredResolution {
  retrievedAt: number;
  contentType: string;
  didDocument: unknown;
}

/** The stored resolution of `did` when well-formed and younger than `ttlMs`. */
function storedResult(
  value: string | undefined,
  did: string,
  ttlMs: number,
  now: number,
): DidResolutionResult | undefined {
  if (value === undefined) return undefined;
  try {
    const stored = JSON.parse(value) as Partial<StoredResolution> | null;
    const { retrievedAt, contentType, didDocument } = stored ?? {};
    if (typeof retrievedAt !== 'number' || typeof contentType !== 'string') return undefined;
    const ageMs = Math.max(0, now - retrievedAt);
    if (ageMs >= ttlMs) return undefined;
    // Checked as a fetched document is (its id is this DID, its shape DID Core's).
    const document: DidDocument = assertDidDocument(didDocument, did);
    return {
      didDocument: document,
      didDocumentMetadata: {},
      didResolutionMetadata: { contentType, ageMs, cached: true },
    };
  } catch {
    return undefined;
  }
}

/** `inner` (the method resolvers) with did:web resolutions shared through `options.cache`. */
export function createSharedDidResolver(inner: Resolvable, options: SharedDidResolverOptions): Resolvable {
  const { cache, ttlMs, now } = options;
  return {
    async resolve(didUrl: string, resolveOptions?: DidResolutionOptions): Promise<DidResolutionResult> {
      const did = didOf(didUrl);
      // did:key is computed, not fetched: a Redis round trip would cost more than it saves.
      if (did === undefined || !did.startsWith('did:web:')) return inner.resolve(didUrl, resolveOptions);
      if (resolveOptions?.noCache !== true) {
        const shared = storedResult(await cache.get(did), did, ttlMs, now());
        if (shared) return shared;
      }
      const retrievedAt = now();
      const result = await inner.resolve(didUrl, resolveOptions);
      const { error, contentType } = result.didResolutionMetadata;
      if (error === undefined && result.didDocument !== null) {
        const stored: StoredResolution = {
          retrievedAt,
          contentType: contentType ?? 'application/did+json',
          didDocument: result.didDocument,
        };
        await cache.set(did, JSON.stringify(stored), ttlMs);
      }
      return result;
    },
  };
}
