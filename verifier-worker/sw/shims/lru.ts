/**
 * A build-time stand-in for `wallet/crypto/lru.ts` in the service-worker bundle (aliased in
 * verifier-worker/vite.sw.config.ts): the same bounded LRU map, kept in a Map's insertion order
 * (a hit is deleted and set again).
 *
 * Why: the wallet's recency list is a server's hot-path choice (docs/crypto.md §Hot-path
 * details) and costs 0.3 KB of the worker's gzip budget; a worker makes a few cache lookups per
 * request. Same behaviour: test/verifier/sw/shims.browser.test.ts drives both with the same
 * operations.
 */
import type * as Lru from '../../../wallet/crypto/lru.ts';

export type LruOptions<V = unknown> = Lru.LruOptions<V>;

interface Entry<V> {
  value: V;
  expiresAt: number;
  size: number;
}

export class LruCache<K, V> {
  readonly #map = new Map<K, Entry<V>>();
  readonly #options: LruOptions<V>;
  readonly #now: () => number;
  #size = 0;

  constructor(options: LruOptions<V>) {
    if (!Number.isInteger(options.max) || options.max < 1)
      throw new RangeError('LruCache max must be a positive integer');
    if ((options.maxSize === undefined) !== (options.sizeOf === undefined))
      throw new RangeError('LruCache maxSize and sizeOf go together');
    if (options.maxSize !== undefined && !(options.maxSize > 0))
      throw new RangeError('LruCache maxSize must be positive');
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    const entry = this.#map.get(key);
    if (!entry) return undefined;
    this.delete(key);
    if (entry.expiresAt <= this.#now()) return undefined;
    this.#map.set(key, entry);
    this.#size += entry.size;
    return entry.value;
  }

  ttlOf(key: K): number | undefined {
    const left = (this.#map.get(key)?.expiresAt ?? 0) - this.#now();
    return left > 0 ? left : undefined;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  set(key: K, value: V, ttlMs: number | undefined = this.#options.ttlMs): this {
    this.delete(key);
    const size = this.#options.sizeOf?.(value) ?? 0;
    const maxSize = this.#options.maxSize ?? Infinity;
    if (size > maxSize) return this;
    this.#map.set(key, { value, expiresAt: ttlMs === undefined ? Infinity : this.#now() + ttlMs, size });
    this.#size += size;
    // The Map's first key is the least recently used.
    for (const oldest of this.#map.keys()) {
      if (this.#map.size <= this.#options.max && this.#size <= maxSize) break;
      this.delete(oldest);
    }
    return this;
  }

  delete(key: K): boolean {
    const entry = this.#map.get(key);
    if (!entry) return false;
    this.#map.delete(key);
    this.#size -= entry.size;
    return true;
  }

  clear(): void {
    this.#map.clear();
    this.#size = 0;
  }
}
