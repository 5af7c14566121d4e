/**
 * A bounded least-recently-used map with optional per-entry expiry. It lives in the crypto
 * core because the core's native-key cache needs it, and every other cache in Mandate (DID
 * documents, status lists, verified credentials, replay) builds on it rather than on its own.
 */
export interface LruOptions<V = unknown> {
  /** Maximum number of entries; the least recently used is evicted beyond it. */
  max: number;
  /** Default time-to-live in ms (undefined: entries never expire). */
  ttlMs?: number;
  /** Clock, injectable for tests of expiry. */
  now?: () => number;
  /**
   * A second bound, on the total `sizeOf` of the values (e.g. bytes): the least recently used
   * entries are evicted until the total fits, and a value larger than the whole budget is not
   * stored at all. Both or neither of `maxSize` and `sizeOf`.
   */
  maxSize?: number;
  sizeOf?: (value: V) => number;
}

/**
 * One cached value, linked into the recency list: a hit relinks two neighbours instead of
 * re-inserting into the Map (why: docs/crypto.md §Hot-path details).
 */
interface Entry<K, V> {
  readonly key: K;
  value: V;
  expiresAt: number;
  size: number;
  /** The next less recently used entry (undefined for the oldest). */
  older: Entry<K, V> | undefined;
  /** The next more recently used entry (undefined for the newest). */
  newer: Entry<K, V> | undefined;
}

export class LruCache<K, V> {
  readonly #map = new Map<K, Entry<K, V>>();
  readonly #max: number;
  readonly #ttlMs: number | undefined;
  readonly #now: () => number;
  readonly #maxSize: number;
  readonly #sizeOf: ((value: V) => number) | undefined;
  #size = 0;
  /** The least recently used entry: evicted first. */
  #oldest: Entry<K, V> | undefined;
  #newest: Entry<K, V> | undefined;

  constructor(options: LruOptions<V>) {
    if (!Number.isInteger(options.max) || options.max < 1)
      throw new RangeError('LruCache max must be a positive integer');
    if ((options.maxSize === undefined) !== (options.sizeOf === undefined))
      throw new RangeError('LruCache maxSize and sizeOf go together');
    if (options.maxSize !== undefined && !(options.maxSize > 0))
      throw new RangeError('LruCache maxSize must be positive');
    this.#max = options.max;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
    this.#maxSize = options.maxSize ?? Infinity;
    this.#sizeOf = options.sizeOf;
  }

  get size(): number {
    return this.#map.size;
  }

  /** The live value for `key`, refreshed as most recently used; undefined when absent or expired. */
  get(key: K): V | undefined {
    const entry = this.#map.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#remove(entry);
      return undefined;
    }
    if (entry !== this.#newest) {
      this.#unlink(entry);
      this.#append(entry);
    }
    return entry.value;
  }

  /** Remaining lifetime of `key` in ms (Infinity without expiry), or undefined when absent. */
  ttlOf(key: K): number | undefined {
    const entry = this.#map.get(key);
    if (!entry) return undefined;
    const left = entry.expiresAt - this.#now();
    return left > 0 ? left : undefined;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  set(key: K, value: V, ttlMs: number | undefined = this.#ttlMs): this {
    this.delete(key);
    const size = this.#sizeOf ? this.#sizeOf(value) : 0;
    if (size > this.#maxSize) return this;
    const entry: Entry<K, V> = {
      key,
      value,
      expiresAt: ttlMs === undefined ? Infinity : this.#now() + ttlMs,
      size,
      older: undefined,
      newer: undefined,
    };
    this.#map.set(key, entry);
    this.#append(entry);
    this.#size += size;
    for (
      let oldest = this.#oldest;
      oldest !== undefined && (this.#map.size > this.#max || this.#size > this.#maxSize);
      oldest = this.#oldest
    ) {
      this.#remove(oldest);
    }
    return this;
  }

  delete(key: K): boolean {
    const entry = this.#map.get(key);
    if (!entry) return false;
    this.#remove(entry);
    return true;
  }

  clear(): void {
    this.#map.clear();
    this.#oldest = undefined;
    this.#newest = undefined;
    this.#size = 0;
  }

  #remove(entry: Entry<K, V>): void {
    this.#map.delete(entry.key);
    this.#unlink(entry);
    this.#size -= entry.size;
  }

  #unlink(entry: Entry<K, V>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.#oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.#newest = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }

  /** Links a detached entry in as the most recently used. */
  #append(entry: Entry<K, V>): void {
    entry.older = this.#newest;
    if (this.#newest) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
  }
}
