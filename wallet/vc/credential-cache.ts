/**
 * The verified-credential cache: a credential presented again (same bytes, so same digest)
 * skips re-verifying its signature until its validity or the cache TTL ends. Only successes
 * are stored; validity windows, chain rules and revocation are still checked every time.
 */
import { LruCache } from '../crypto/lru.ts';

export interface CredentialCacheOptions {
  /** Most cached credentials (default 10,000). */
  max?: number;
  /** How long a verified signature is trusted (default 10 minutes). */
  ttlMs?: number;
  now?: () => number;
}

export interface VerifiedCredentialCache {
  /** True when a credential with this digest had its signature verified and the entry is live. */
  has(digest: string): boolean;
  /** Records a verified signature until `validUntil` (ms) or the TTL, whichever is first. */
  add(digest: string, validUntil: number): void;
}

export function createVerifiedCredentialCache(options: CredentialCacheOptions = {}): VerifiedCredentialCache {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const cache = new LruCache<string, true>({ max: options.max ?? 10_000, now });
  return {
    has: (digest) => cache.get(digest) === true,
    add(digest, validUntil) {
      const ttl = Math.min(ttlMs, validUntil - now());
      if (ttl > 0) cache.set(digest, true, ttl);
    },
  };
}
