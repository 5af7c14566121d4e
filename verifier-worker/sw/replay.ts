/**
 * The worker's replay cache: presentation ids and challenges verifyPresentation has accepted,
 * remembered until their presentation expires, across the worker's stops (which the browser
 * makes whenever it is idle: without the store, a captured presentation could be replayed).
 *
 * Decisions are the wallet's `createReplayCache`, in memory and synchronous (atomic), written
 * through to the store. `durable` (challenge modes `none`, `request`): a failed write refuses the
 * presentation. Why: docs/verifier.md §What survives the worker being stopped.
 */
import { createReplayCache, type ReplayCache } from '../../wallet/vc/replay-cache.ts';
import { tryStore, type KeyValueStore } from './store.ts';

export interface WorkerReplayCacheOptions {
  /** Keys and when each expires (ms since the epoch). */
  store: KeyValueStore<number>;
  /** Most live keys held in memory (the replay cache's `max`). */
  max: number;
  now?: () => number;
  /** Receives every storage write, so a worker can stay alive until it lands (ExtendableEvent.waitUntil). */
  track?: (write: Promise<unknown>) => void;
  /** Accept a key only once it is stored (see the module note). */
  durable?: boolean;
}

export interface WorkerReplayCache extends ReplayCache {
  /** Reads the stored entries into memory (and deletes the expired ones); call (and await) before the first verification. */
  load(): Promise<void>;
}

export function createWorkerReplayCache(options: WorkerReplayCacheOptions): WorkerReplayCache {
  const clock = options.now ?? Date.now;
  const track = options.track ?? (() => undefined);
  const write = (operation: () => Promise<void>): void => track(tryStore(operation, undefined));
  const memory = createReplayCache({ max: options.max, now: clock });
  return {
    async load() {
      const now = clock();
      const stored = await tryStore(() => options.store.entries(), []);
      const isLive = ([, at]: [string, unknown]) => typeof at === 'number' && at > now;
      // Soonest-expiring first: beyond `max`, those are the ones the horizon covers.
      for (const [key, at] of stored.filter(isLive).sort((a, b) => a[1] - b[1])) memory.remember(key, at);
      const expired = stored.filter((entry) => !isLive(entry)).map(([key]) => key);
      if (expired.length > 0) write(() => options.store.delete(expired));
    },
    remember(key, expiresAt) {
      if (!memory.remember(key, expiresAt)) return false;
      if (!options.durable) {
        write(() => options.store.set(key, expiresAt));
        return true;
      }
      const stored = tryStore(() => options.store.set(key, expiresAt).then(() => true), false);
      track(stored);
      return stored;
    },
  };
}
