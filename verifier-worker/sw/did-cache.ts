/**
 * The worker's DID resolver: did:key (pure computation, nothing to keep) and did:web with its
 * documents kept in IndexedDB for `ttlMs`, so a worker that the browser stopped and started
 * again, or that is offline, still knows the did:web documents it met before.
 *
 * Layers, inside out: createWebResolver (wallet/did/web.ts); the store, re-checked on read (DID
 * Core §5.1.1), stale-if-error on internalError only (RFC 5861 §4); createCachedResolver in memory
 * (TTL ≤ MEMORY_TTL_MS). Results carry the fetch's age; a refresh skips the store. Why each:
 * docs/verifier.md §How the worker's parts fit.
 */
import { createCachedResolver, type CachedResolver } from '../../wallet/did/cache.ts';
import { assertDidDocument } from '../../wallet/did/document.ts';
import type { FetchLike } from '../../wallet/did/http.ts';
import { resolveDidKey } from '../../wallet/did/key.ts';
import { createResolver } from '../../wallet/did/registry.ts';
import type { DidResolutionResult, MethodResolver } from '../../wallet/did/types.ts';
import { createWebResolver } from '../../wallet/did/web.ts';
import { tryStore, type KeyValueStore } from './store.ts';

/** A did:web document as stored: the document and when it was fetched (ms since the epoch). */
export interface StoredDidDocument {
  /** Checked again when read (assertDidDocument): a store holds whatever was written to it. */
  document: unknown;
  retrievedAt: number;
}

export interface WorkerResolverOptions {
  store: KeyValueStore<StoredDidDocument>;
  /** How long a fetched did:web document is used before it is fetched again. */
  ttlMs: number;
  /** How long past its TTL a stored document may stand in while its host fails (default 0). */
  staleIfErrorMs?: number;
  /** did:web over http to loopback hosts (tests, local development). */
  allowHttpLoopback?: boolean;
  fetch?: FetchLike;
  now?: () => number;
  /** Receives every storage write, so a worker can stay alive until it lands (ExtendableEvent.waitUntil). */
  track?: (write: Promise<unknown>) => void;
}

/** Longest time the in-memory layer keeps a result before asking the store again. */
export const MEMORY_TTL_MS = 30_000;

function fromStore(stored: StoredDidDocument | undefined, did: string, now: number): DidResolutionResult | undefined {
  if (stored === undefined || !Number.isFinite(stored.retrievedAt)) return undefined;
  try {
    return {
      didDocument: assertDidDocument(stored.document, did),
      didDocumentMetadata: {},
      didResolutionMetadata: {
        contentType: 'application/did+json',
        retrieved: new Date(stored.retrievedAt).toISOString(),
        ageMs: Math.max(0, now - stored.retrievedAt),
        cached: true,
      },
    };
  } catch {
    return undefined; // unreadable: treated as absent, and replaced by the next fetch
  }
}

/** did:web behind the store (layer 2 above). */
export function createStoredWebResolver(options: WorkerResolverOptions): MethodResolver {
  const clock = options.now ?? Date.now;
  const staleIfErrorMs = options.staleIfErrorMs ?? 0;
  const track = options.track ?? (() => undefined);
  const web = createWebResolver({
    allowHttpLoopback: options.allowHttpLoopback === true,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return async (did, parsed, resolver, resolveOptions) => {
    const now = clock();
    const stored = await tryStore(() => options.store.get(did), undefined);
    const storedResult = fromStore(stored, did, now);
    const age = stored ? now - stored.retrievedAt : Infinity;
    if (storedResult && age >= 0 && age < options.ttlMs && resolveOptions.noCache !== true) return storedResult;
    const fresh = await web(did, parsed, resolver, resolveOptions);
    if (fresh.didDocument && fresh.didResolutionMetadata.error === undefined) {
      const record: StoredDidDocument = { document: fresh.didDocument, retrievedAt: now };
      track(tryStore(() => options.store.set(did, record), undefined));
      return fresh;
    }
    if (
      storedResult &&
      fresh.didResolutionMetadata.error === 'internalError' &&
      age >= 0 &&
      age < options.ttlMs + staleIfErrorMs
    ) {
      return storedResult;
    }
    return fresh;
  };
}

/** The worker's resolver: did:key, and did:web through the store, behind a short memory cache. */
export function createWorkerResolver(options: WorkerResolverOptions): CachedResolver {
  const resolver = createResolver({ methods: { key: resolveDidKey, web: createStoredWebResolver(options) } });
  return createCachedResolver(resolver, {
    ttlMs: Math.max(1, Math.min(options.ttlMs, MEMORY_TTL_MS)),
    ...(options.now ? { now: options.now } : {}),
  });
}
