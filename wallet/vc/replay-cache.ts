/**
 * Remembers presentation ids and challenges until they expire, so a captured presentation
 * cannot be presented twice.
 *
 * Memory is bounded, and the bound must not reopen the door: a cache that simply forgot its
 * oldest live entries when full would accept a forgotten presentation a second time. So when
 * it must make room, it forgets the earliest-recorded live keys and raises its *horizon* to the
 * latest expiry it forgot. From then on it refuses any key that expires at or before the
 * horizon, because it can no longer tell whether it saw that key. A replay is therefore refused
 * whether or not its key was forgotten. Under load beyond `max` live keys per presentation
 * lifetime, the cost falls on presentations close to their expiry, which are refused, never on
 * soundness.
 */

export interface ReplayCacheOptions {
  /** Most remembered live entries (default 100,000; each presentation takes one or two). */
  max?: number;
  now?: () => number;
}

export interface ReplayCache {
  /**
   * Atomically checks and records `key` until `expiresAt` (ms since the epoch). Returns false
   * when the key was already recorded and has not expired, when `expiresAt` has already passed
   * by this cache's clock, or when it expires at or before what the cache can still vouch for
   * (see the module note): the caller must refuse. A cache shared through a network store
   * (Redis `SET key 1 NX PXAT expiresAt`) answers with a promise; the verifier accepts only
   * `true`, so any other answer refuses.
   */
  remember(key: string, expiresAt: number): boolean | Promise<boolean>;
}

/** The in-memory cache: it always answers at once. */
export interface MemoryReplayCache extends ReplayCache {
  remember(key: string, expiresAt: number): boolean;
}

export function createReplayCache(options: ReplayCacheOptions = {}): MemoryReplayCache {
  const now = options.now ?? Date.now;
  const max = options.max ?? 100_000;
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError('ReplayCache max must be a positive integer');
  /** Live keys and their expiry, in the order they were recorded. */
  const expiries = new Map<string, number>();
  let horizon = -Infinity;

  /** Forgets the earliest-recorded entry; a live one raises the horizon to its expiry. */
  const forgetOldest = (at: number): void => {
    const [key, expiresAt] = expiries.entries().next().value as [string, number];
    expiries.delete(key);
    if (expiresAt > at) horizon = Math.max(horizon, expiresAt);
  };

  return {
    remember(key, expiresAt) {
      const at = now();
      // Already expired by this cache's clock: there is nothing left to protect, and accepting
      // it would let a replay through whose verification straddled the expiry instant.
      if (expiresAt <= at) return false;
      const known = expiries.get(key);
      if (known !== undefined) {
        if (known > at) return false;
        expiries.delete(key); // expired: it may be recorded afresh
      }
      if (expiresAt <= horizon) return false;
      while (expiries.size >= max) forgetOldest(at);
      // Making room may have raised the horizon past this key.
      if (expiresAt <= horizon) return false;
      expiries.set(key, expiresAt);
      return true;
    },
  };
}
