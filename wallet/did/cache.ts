/**
 * A caching, coalescing front for any resolver (DID Resolution §4 leaves caching to the
 * client; `noCache` in the options skips the read, as DID Resolution's option of that name).
 *
 * TTL + LRU, negative caching, coalescing of concurrent resolutions, a rate-limited `refresh`
 * past the cache, and the age of every result (`retrieved`, `ageMs`, `cached`, counted from an
 * inner cache's retrieval when it reports one). Cached documents are deep-frozen, so a caller
 * that mutates what it got cannot change what the next caller is told. Defaults and the why of
 * each: docs/dids.md §Cache.
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

/** The options with their defaults, checked. */
function cacheSettings(options: CacheOptions): Required<CacheOptions> {
  const settings = {
    ttlMs: options.ttlMs ?? DID_CACHE_DEFAULTS.ttlMs,
    negativeTtlMs: options.negativeTtlMs ?? DID_CACHE_DEFAULTS.negativeTtlMs,
    max: options.max ?? DID_CACHE_DEFAULTS.max,
    refreshCooldownMs: options.refreshCooldownMs ?? DID_CACHE_DEFAULTS.refreshCooldownMs,
    now: options.now ?? Date.now,
  };
  assertDuration(settings.ttlMs, 'ttlMs', false);
  assertDuration(settings.negativeTtlMs, 'negativeTtlMs', true);
  assertDuration(settings.refreshCooldownMs, 'refreshCooldownMs', true);
  assertDuration(settings.max, 'max', false);
  return settings;
}

/** One cached resolver's state. */
interface CacheState {
  readonly inner: Resolvable;
  readonly settings: Required<CacheOptions>;
  readonly cache: LruCache<string, Entry>;
  /** When each DID was last refreshed: the cooldown counts from it even when that refresh failed. */
  readonly refreshedAt: LruCache<string, number>;
  /** Resolutions under way, by DID; those past every cache (`noCache`) by DID + " !". */
  readonly inFlight: Map<string, Promise<Entry>>;
  /** Bumped by `invalidate`: a resolution started before it lands without being cached. */
  generation: number;
}

function present(entry: Entry, cached: boolean, now: () => number): DidResolutionResult {
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

/** The cache entry for what the inner resolver answered (at `at`). */
function entryOf(resolved: DidResolutionResult | undefined, at: number): Entry {
  // Only a well-formed result is kept; anything else from a foreign resolver fails closed.
  const result =
    typeof resolved?.didResolutionMetadata === 'object' && resolved.didResolutionMetadata !== null
      ? resolved
      : resolutionError('internalError', 'resolver returned a malformed result');
  // An inner cache's copy is as old as it says: a positive age, retrieved no earlier than
  // 1970 (anything else counts as fresh, and keeps the date representable).
  const innerAge = result.didResolutionMetadata.ageMs;
  const retrievedAt = at - (typeof innerAge === 'number' && innerAge > 0 && innerAge <= at ? innerAge : 0);
  return {
    result: deepFreeze(result),
    retrievedAt,
    retrieved: new Date(retrievedAt).toISOString(),
    innerCached: result.didResolutionMetadata.cached === true,
  };
}

/** Stores a landed entry: a success for ttlMs, a failure for negativeTtlMs (or not at all). */
function store(state: CacheState, key: string, entry: Entry): void {
  const { ttlMs, negativeTtlMs, now } = state.settings;
  // An inner cache's copy lives out the ttl counted from its retrieval, not a whole ttl more.
  if (entry.result.didResolutionMetadata.error === undefined)
    state.cache.set(key, entry, Math.max(0, ttlMs - (now() - entry.retrievedAt)));
  else if (negativeTtlMs > 0) state.cache.set(key, entry, negativeTtlMs);
  else state.cache.delete(key);
}

/**
 * Resolves `key` into the cache; a failure leaves `keep` (a good entry, when refreshing) in the
 * cache, and is what every caller gets. A plain resolution joins one under way of either kind
 * (one past the caches is as fresh); one past the caches joins only its own kind.
 */
function fetchEntry(
  state: CacheState,
  key: string,
  resolveOptions: DidResolutionOptions,
  keep?: Entry,
): Promise<Entry> {
  const flight = resolveOptions.noCache === true ? `${key} !` : key;
  const pending = state.inFlight.get(`${key} !`) ?? state.inFlight.get(flight);
  if (pending) return pending;
  const startedIn = state.generation;
  const { now } = state.settings;
  const started = Promise.resolve()
    .then(() => state.inner.resolve(key, resolveOptions))
    .catch(() => resolutionError('internalError', 'resolver failed unexpectedly'))
    .then((resolved) => {
      const entry = entryOf(resolved, now());
      const failed = entry.result.didResolutionMetadata.error !== undefined;
      if (startedIn === state.generation && !(failed && keep !== undefined)) store(state, key, entry);
      return entry;
    })
    .finally(() => state.inFlight.delete(flight));
  state.inFlight.set(flight, started);
  return started;
}

/** The fresh entry for `didUrl`, if any. */
function cachedEntry(cache: LruCache<string, Entry>, didUrl: string): Entry | undefined {
  // A bare DID that is cached was parsed when it was stored (only parsed DIDs are keys):
  // the common case, a verifier resolving the DIDs of a presentation, skips the parse.
  const direct = typeof didUrl === 'string' ? cache.get(didUrl) : undefined;
  if (direct) return direct;
  const key = didOf(didUrl); // DID URLs of one DID share its entry
  return key !== undefined && key !== didUrl ? cache.get(key) : undefined;
}

const notADid = (): DidResolutionResult =>
  resolutionError('invalidDid', 'not a DID: expected did:<method>:<method-specific-id> (DID Core §3.1)');

/** `refresh`: resolves past the caches unless the cached copy, or the last refresh, is recent. */
async function refreshEntry(state: CacheState, didUrl: string): Promise<DidResolutionResult> {
  const { now, refreshCooldownMs } = state.settings;
  const key = didOf(didUrl);
  if (key === undefined) return notADid();
  const entry = state.cache.get(key);
  const since = Math.max(entry?.retrievedAt ?? -Infinity, state.refreshedAt.get(key) ?? -Infinity);
  if (entry && now() - since < refreshCooldownMs) return present(entry, true, now);
  state.refreshedAt.set(key, now());
  // A good copy is never given up for a failed refresh (a made-up key id must not let a host's
  // bad moment cost every verification its cached document).
  const good = entry?.result.didResolutionMetadata.error === undefined ? entry : undefined;
  const fresh = await fetchEntry(state, key, { noCache: true }, good);
  return fresh.result.didResolutionMetadata.error !== undefined && good
    ? present(good, true, now)
    : present(fresh, false, now);
}

export function createCachedResolver(inner: Resolvable, options: CacheOptions = {}): CachedResolver {
  const settings = cacheSettings(options);
  const { max, now } = settings;
  const cache = new LruCache<string, Entry>({ max, now });
  const state: CacheState = {
    inner,
    settings,
    cache,
    refreshedAt: new LruCache<string, number>({ max, now }),
    inFlight: new Map<string, Promise<Entry>>(),
    generation: 0,
  };
  return {
    get size() {
      return cache.size;
    },
    invalidate(did?: string) {
      state.generation++;
      if (did === undefined) cache.clear();
      else cache.delete(didOf(did) ?? did);
    },
    async resolve(didUrl: string, resolveOptions: DidResolutionOptions = {}): Promise<DidResolutionResult> {
      const entry = resolveOptions.noCache === true ? undefined : cachedEntry(cache, didUrl);
      if (entry) return present(entry, true, now);
      const key = didOf(didUrl);
      if (key === undefined) return notADid();
      return present(await fetchEntry(state, key, resolveOptions), false, now);
    },
    refresh: (didUrl: string) => refreshEntry(state, didUrl),
    resolveCached(didUrl: string): DidResolutionResult | undefined {
      const entry = cachedEntry(cache, didUrl);
      return entry && present(entry, true, now);
    },
  };
}
