/**
 * The worker's DID resolver: did:key (pure computation, nothing to keep) and did:web with its
 * documents kept in IndexedDB for `ttlMs`, so a worker that the browser stopped and started
 * again, or that is offline, still knows the did:web documents it met before.
 *
 * Layers, from the inside out:
 * 1. createWebResolver (wallet/did/web.ts): the network policy, limits and document checks;
 * 2. the store: a document fetched less than `ttlMs` ago is used without asking the host. Read
 *    back, it is checked again (assertDidDocument, DID Core §5.1.1: its id must be the DID), so
 *    the store can hold nothing the resolver would not have accepted. When the host fails
 *    (internalError: network, timeout, 5xx; NOT notFound, which says the DID is gone) a stored
 *    document may stand in up to `staleIfErrorMs` past its TTL (RFC 5861 §4 stale-if-error;
 *    default 0);
 * 3. createCachedResolver (wallet/did/cache.ts) in memory, for coalescing and to spare the
 *    store a read per request. Its TTL is at most MEMORY_TTL_MS, so a document is used at most
 *    `ttlMs` + 30 s after it was fetched.
 *
 * A stored document is returned as cached, with its age (`didResolutionMetadata.cached`,
 * `ageMs`, `retrieved`), so the memory layer and the verification report count from the fetch,
 * not from the read. A refresh (a key the document lacks: a rotated issuer key) resolves with
 * `noCache`, which skips the store and asks the host, at most once per 30 s of the document's
 * age.
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
