/**
 * Remembers presentation ids and challenges until they expire, so a captured presentation
 * cannot be presented twice. Memory is bounded: beyond `max` live entries the least recently
 * seen is forgotten, which is why presentations are short-lived (default 5 minutes): size
 * `max` above the number of presentations a verifier accepts in one lifetime.
 */
import { LruCache } from '../crypto/lru.ts';

export interface ReplayCacheOptions {
  /** Most remembered entries (default 100,000). */
  max?: number;
  now?: () => number;
}

export interface ReplayCache {
  /**
   * Atomically checks and records `key` until `expiresAt` (ms since the epoch). Returns false
   * when the key was already recorded and has not expired: the caller must refuse.
   */
  remember(key: string, expiresAt: number): boolean;
}

export function createReplayCache(options: ReplayCacheOptions = {}): ReplayCache {
  const now = options.now ?? Date.now;
  const seen = new LruCache<string, true>({ max: options.max ?? 100_000, now });
  return {
    remember(key, expiresAt) {
      if (seen.get(key)) return false;
      seen.set(key, true, Math.max(1, expiresAt - now()));
      return true;
    },
  };
}
