/**
 * The chain cache of a verifier of signed requests (docs/protocol.md §The chain cache): chains
 * it accepted, by their `Mandate-Chain-Digest`, so that a later request names its chain by
 * digest alone. A held chain is parsed JSON, judged again on every request by the same chain
 * checks (their signatures vouched for by the verified-credential cache): holding it saves
 * the header, its decoding and parsing, never a check. Entries are bounded in number, in JSON
 * bytes and in time — no longer than the TTL, nor than the earliest `validUntil` the caller
 * passes.
 */
import type { JsonValue } from '../crypto/json-value.ts';
import { LruCache } from '../crypto/lru.ts';

export interface ChainCacheOptions {
  /** Most chains held (default 1,000). */
  max?: number;
  /** Most JSON held, in bytes of the chains' `Mandate-Chain` JSON (default 8 MiB). */
  maxBytes?: number;
  /** How long a chain is held after it was last sent in full (default 10 minutes). */
  ttlMs?: number;
  now?: () => number;
}

export interface ChainCache {
  /** The chain held under `digest`, or undefined (never seen, evicted, expired). */
  get(digest: string): readonly JsonValue[] | undefined;
  /**
   * Holds `chain` (`bytes` long as JSON) under `digest` until `notAfter` (ms) or the TTL,
   * whichever is first. The verifier adds only chains of requests that passed every check.
   */
  add(digest: string, chain: readonly JsonValue[], bytes: number, notAfter: number): void;
}

interface Entry {
  chain: readonly JsonValue[];
  bytes: number;
}

export function createChainCache(options: ChainCacheOptions = {}): ChainCache {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const cache = new LruCache<string, Entry>({
    max: options.max ?? 1_000,
    maxSize: options.maxBytes ?? 8 * 1024 * 1024,
    sizeOf: (entry) => entry.bytes,
    now,
  });
  return {
    get: (digest) => cache.get(digest)?.chain,
    add(digest, chain, bytes, notAfter) {
      const ttl = Math.min(ttlMs, notAfter - now());
      if (ttl > 0) cache.set(digest, { chain, bytes }, ttl);
    },
  };
}
