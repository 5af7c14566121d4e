/**
 * A bounded set of keys that expire, kept in memory and written through to a store: the nonce
 * store. Forgetting a live key here only makes a nonce unusable (fail closed); the replay cache,
 * where forgetting would reopen a replay, is replay.ts on the wallet's horizon-keeping cache.
 * Decisions are made in memory, synchronously, because one worker instance serves a
 * registration and verifyPresentation's replay check must be atomic; the store only carries
 * the set across the worker's stops, and is read back by `load()` before the first decision.
 */
import { LruCache } from '../../wallet/crypto/lru.ts';
import { tryStore, type KeyValueStore } from './store.ts';

export interface ExpiringSetOptions {
  /** Keys and when each expires (ms since the epoch). */
  store: KeyValueStore<number>;
  /** Most live keys; beyond it the least recently added is forgotten. */
  max: number;
  now?: () => number;
  /** Receives every storage write, so a worker can stay alive until it lands (ExtendableEvent.waitUntil). */
  track?: (write: Promise<unknown>) => void;
}

export interface ExpiringSet {
  /** Reads the stored live keys into memory (and deletes the expired and the surplus ones). */
  load(): Promise<void>;
  /** Adds `key` until `expiresAt`; false (and nothing changes) when it is already live. */
  add(key: string, expiresAt: number): boolean;
  /** Removes a live `key`; false when it was not live. */
  take(key: string): boolean;
}

export function createExpiringSet(options: ExpiringSetOptions): ExpiringSet {
  const clock = options.now ?? Date.now;
  const track = options.track ?? (() => undefined);
  const live = new LruCache<string, number>({ max: options.max, now: clock });
  const write = (operation: () => Promise<void>): void => track(tryStore(operation, undefined));
  return {
    async load() {
      const now = clock();
      const stored = await tryStore(() => options.store.entries(), []);
      // Soonest-expiring first, so with more than `max` the LRU forgets those.
      const sorted = stored.filter(([, at]) => typeof at === 'number' && at > now).sort((a, b) => a[1] - b[1]);
      for (const [key, expiresAt] of sorted) live.set(key, expiresAt, expiresAt - now);
      const dropped = stored.map(([key]) => key).filter((key) => !live.has(key));
      if (dropped.length > 0) write(() => options.store.delete(dropped));
    },
    add(key, expiresAt) {
      if (live.get(key) !== undefined) return false;
      live.set(key, expiresAt, Math.max(1, expiresAt - clock()));
      write(() => options.store.set(key, expiresAt));
      return true;
    },
    take(key) {
      if (live.get(key) === undefined) return false;
      live.delete(key);
      write(() => options.store.delete(key));
      return true;
    },
  };
}
