/**
 * A caching, coalescing front for any resolver (DID Resolution §4 leaves caching to the
 * client; `noCache` in the options skips the read, as DID Resolution's option of that name).
 *
 * - TTL + LRU on `LruCache`: documents for `ttlMs` (default 5 min), at most `max` DIDs.
 * - Negative caching: results with an error (notFound, timeouts, …) live `negativeTtlMs`
 *   (default 30 s), so a dead or slow host costs one fetch per 30 s, not one per credential.
 * - Coalescing: concurrent resolutions of one DID share one in-flight call to the inner
 *   resolver (100 verifications arriving together fetch a did:web document once).
 * - Refresh: `refresh` resolves past the cache when the cached result, and the last refresh,
 *   are older than `refreshCooldownMs` (default 30 s): verifiers call it for a key the cached
 *   document lacks. It asks the inner resolver with `noCache`, so a cache behind this one (the
 *   service worker's stored documents) is passed too. A refresh that fails keeps the good copy.
 * - Age: every returned result says when its document was retrieved and how old it is:
 *   `didResolutionMetadata.retrieved` (ISO 8601), `.ageMs` (at return time) and `.cached`.
 *   A verifier that must report "the age of every DID document it relied on" reads these.
 *   When the inner resolver is itself a cache and reports `ageMs` (and `cached`), the age counts
 *   from its retrieval, not from this cache's, and the result stays `cached`: the reported age,
 *   the refresh cooldown and a verifier's decision to refresh are then the document's own.
 * - Deactivated documents (`didDocumentMetadata.deactivated`) are cached like any other
 *   result, and stay reported as deactivated.
 *
 * Cached documents are deep-frozen: a caller that mutates what it got cannot change what the
 * next caller is told.
 */
import { LruCache } from '../crypto/lru.ts';
import { deepFreeze } from './document.ts';
import { DidError } from './errors.ts';
import { didOf } from './parse.ts';
import { resolutionError, type DidResolutionOptions, type DidResolutionResult, type Resolvable } from './types.ts';

export interface CacheOptions {
  /** Lifetime of a successful result (default 300 000 ms). */
  ttlMs?: number;
  /** Most DIDs held (default 1000), least recently used evicted first. */
  max?: number;
  /** Lifetime of an error result (default 30 000 ms; 0 disables negative caching). */
  negativeTtlMs?: number;
  /** Least age of a cached result before `refresh` resolves the DID again (default 30 000 ms). */
  refreshCooldownMs?: number;
  /** Clock in ms since the epoch, injectable for tests. */
  now?: () => number;
}

export interface CachedResolver extends Resolvable {
  resolve(didUrl: string, options?: DidResolutionOptions): Promise<DidResolutionResult>;
  refresh(didUrl: string): Promise<DidResolutionResult>;
  /** Drops one DID (or everything) from the cache. */
  invalidate(did?: string): void;
  /** Number of DIDs currently cached. */
  readonly size: number;
}

export const DID_CACHE_DEFAULTS = /* @__PURE__ */ Object.freeze({
  ttlMs: 5 * 60_000,
  max: 1000,
  negativeTtlMs: 30_000,
  refreshCooldownMs: 30_000,
});

interface Entry {
  result: DidResolutionResult;
  retrievedAt: number;
  /** `retrievedAt` as ISO 8601, formatted once per entry rather than per hit. */
  retrieved: string;
  /** The inner resolver answered from a cache of its own. */
  innerCached: boolean;
}

function assertDuration(value: number, name: string, allowZero: boolean): void {
  if (!Number.isFinite(value) || !Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new DidError('INVALID_OPTIONS', `${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer`);
  }
}

export function createCachedResolver(inner: Resolvable, options: CacheOptions = {}): CachedResolver {
  const ttlMs = options.ttlMs ?? DID_CACHE_DEFAULTS.ttlMs;
  const negativeTtlMs = options.negativeTtlMs ?? DID_CACHE_DEFAULTS.negativeTtlMs;
  const max = options.max ?? DID_CACHE_DEFAULTS.max;
  const refreshCooldownMs = options.refreshCooldownMs ?? DID_CACHE_DEFAULTS.refreshCooldownMs;
  assertDuration(ttlMs, 'ttlMs', false);
  assertDuration(negativeTtlMs, 'negativeTtlMs', true);
  assertDuration(refreshCooldownMs, 'refreshCooldownMs', true);
  assertDuration(max, 'max', false);
  const now = options.now ?? Date.now;
  const cache = new LruCache<string, Entry>({ max, now });
  /** When each DID was last refreshed: the cooldown counts from it even when that refresh failed. */
  const refreshedAt = new LruCache<string, number>({ max, now });
  /** Resolutions under way, by DID; those past every cache (`noCache`) by DID + " !". */
  const inFlight = new Map<string, Promise<Entry>>();
  /** Bumped by `invalidate`: a resolution started before it lands without being cached. */
  let generation = 0;

  function present(entry: Entry, cached: boolean): DidResolutionResult {
    // Fresh outer objects per caller; the frozen document is shared.
    return {
      ...entry.result,
      didDocumentMetadata: { ...entry.result.didDocumentMetadata },
      didResolutionMetadata: {
        ...entry.result.didResolutionMetadata,
        retrieved: entry.retrieved,
        ageMs: Math.max(0, now() - entry.retrievedAt),
        cached: cached || entry.innerCached,
      },
    };
  }

  /**
   * Resolves `key` into the cache; a failure leaves `keep` (a good entry, when refreshing) in the
   * cache, and is what every caller gets. A plain resolution joins one under way of either kind
   * (one past the caches is as fresh); one past the caches joins only its own kind.
   */
  function fetchEntry(key: string, resolveOptions: DidResolutionOptions, keep?: Entry): Promise<Entry> {
    const flight = resolveOptions.noCache === true ? `${key} !` : key;
    const pending = inFlight.get(`${key} !`) ?? inFlight.get(flight);
    if (pending) return pending;
    const startedIn = generation;
    const started = Promise.resolve()
      .then(() => inner.resolve(key, resolveOptions))
      .catch(() => resolutionError('internalError', 'resolver failed unexpectedly'))
      .then((resolved) => {
        // Only a well-formed result is kept; anything else from a foreign resolver fails closed.
        const result =
          typeof resolved?.didResolutionMetadata === 'object' && resolved.didResolutionMetadata !== null
            ? resolved
            : resolutionError('internalError', 'resolver returned a malformed result');
        // An inner cache's copy is as old as it says: a positive age, retrieved no earlier than
        // 1970 (anything else counts as fresh, and keeps the date representable).
        const at = now();
        const innerAge = result.didResolutionMetadata.ageMs;
        const retrievedAt = at - (typeof innerAge === 'number' && innerAge > 0 && innerAge <= at ? innerAge : 0);
        const innerCached = result.didResolutionMetadata.cached === true;
        const entry: Entry = {
          result: deepFreeze(result),
          retrievedAt,
          retrieved: new Date(retrievedAt).toISOString(),
          innerCached,
        };
        const failed = result.didResolutionMetadata.error !== undefined;
        if (startedIn !== generation || (failed && keep !== undefined)) return entry;
        if (!failed) cache.set(key, entry, ttlMs);
        else if (negativeTtlMs > 0) cache.set(key, entry, negativeTtlMs);
        else cache.delete(key);
        return entry;
      })
      .finally(() => inFlight.delete(flight));
    inFlight.set(flight, started);
    return started;
  }

  /** The fresh entry for `didUrl`, if any. */
  function cachedEntry(didUrl: string): Entry | undefined {
    // A bare DID that is cached was parsed when it was stored (only parsed DIDs are keys):
    // the common case, a verifier resolving the DIDs of a presentation, skips the parse.
    const direct = typeof didUrl === 'string' ? cache.get(didUrl) : undefined;
    if (direct) return direct;
    const key = didOf(didUrl); // DID URLs of one DID share its entry
    return key !== undefined && key !== didUrl ? cache.get(key) : undefined;
  }

  return {
    get size() {
      return cache.size;
    },
    invalidate(did?: string) {
      generation++;
      if (did === undefined) cache.clear();
      else cache.delete(didOf(did) ?? did);
    },
    async resolve(didUrl: string, resolveOptions: DidResolutionOptions = {}): Promise<DidResolutionResult> {
      const entry = resolveOptions.noCache === true ? undefined : cachedEntry(didUrl);
      if (entry) return present(entry, true);
      const key = didOf(didUrl);
      if (key === undefined)
        return resolutionError('invalidDid', 'not a DID: expected did:<method>:<method-specific-id> (DID Core §3.1)');
      return present(await fetchEntry(key, resolveOptions), false);
    },
    async refresh(didUrl: string): Promise<DidResolutionResult> {
      const key = didOf(didUrl);
      if (key === undefined)
        return resolutionError('invalidDid', 'not a DID: expected did:<method>:<method-specific-id> (DID Core §3.1)');
      const entry = cache.get(key);
      const since = Math.max(entry?.retrievedAt ?? -Infinity, refreshedAt.get(key) ?? -Infinity);
      if (entry && now() - since < refreshCooldownMs) return present(entry, true);
      refreshedAt.set(key, now());
      // A good copy is never given up for a failed refresh (a made-up key id must not let a host's
      // bad moment cost every verification its cached document).
      const good = entry?.result.didResolutionMetadata.error === undefined ? entry : undefined;
      const fresh = await fetchEntry(key, { noCache: true }, good);
      return fresh.result.didResolutionMetadata.error !== undefined && good
        ? present(good, true)
        : present(fresh, false);
    },
    resolveCached(didUrl: string): DidResolutionResult | undefined {
      const entry = cachedEntry(didUrl);
      return entry && present(entry, true);
    },
  };
}
