/**
 * The verified-credential cache: a credential presented again — byte for byte the same
 * canonical form, hence the same digest — skips re-verifying its signature until its validity
 * or the cache TTL ends. Only successes are stored; validity windows, chain rules and
 * revocation are still checked every time.
 *
 * Entries are found by the credential's `proofValue` and hit only when the presented
 * credential's canonical (JCS) text equals the text that was verified, character for
 * character; the entry then also gives the digest computed at the time. Comparing the text the
 * verifier has already produced (the presentation's canonical form contains it) costs a
 * fraction of hashing it again, and equality needs no collision resistance. The `proofValue`
 * only picks the candidate: a forged credential reusing another's signature differs in its
 * text and misses.
 */
import { LruCache } from '../crypto/lru.ts';

export interface CredentialCacheOptions {
  /** Most cached credentials (default 10,000). */
  max?: number;
  /**
   * Most UTF-16 code units of canonical text held in total (default 16 Mi, about 16 MiB for
   * the ASCII text credentials are): the bound that matters when credentials are large.
   */
  maxTextLength?: number;
  /** How long a verified signature is trusted (default 10 minutes). */
  ttlMs?: number;
  now?: () => number;
}

/** A credential as the cache sees it: its first proof's value and its canonical (JCS) text. */
export interface CachedCredentialKey {
  proofValue: string;
  canonical: string;
}

export interface VerifiedCredentialCache {
  /** The digest of a credential verified before with exactly this canonical text, while live; else undefined. */
  lookup(credential: CachedCredentialKey): string | undefined;
  /** Records a verified credential and its digest until `validUntil` (ms) or the TTL, whichever is first. */
  add(credential: CachedCredentialKey, digest: string, validUntil: number): void;
}

interface Verified {
  canonical: string;
  digest: string;
}

export function createVerifiedCredentialCache(options: CredentialCacheOptions = {}): VerifiedCredentialCache {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const cache = new LruCache<string, Verified>({
    max: options.max ?? 10_000,
    maxSize: options.maxTextLength ?? 16 * 1024 * 1024,
    sizeOf: (entry) => entry.canonical.length,
    now,
  });
  return {
    lookup({ proofValue, canonical }) {
      const entry = cache.get(proofValue);
      return entry !== undefined && entry.canonical === canonical ? entry.digest : undefined;
    },
    add({ proofValue, canonical }, digest, validUntil) {
      const ttl = Math.min(ttlMs, validUntil - now());
      if (ttl > 0) cache.set(proofValue, { canonical, digest }, ttl);
    },
  };
}
