/**
 * The worker's replay cache: presentation ids and challenges verifyPresentation has accepted,
 * remembered until their presentation expires, across the worker's stops (expiring-set.ts).
 * Without the store, stopping the worker, which the browser does whenever it is idle, would
 * forget every presentation id and let a captured presentation be replayed.
 */
import type { ReplayCache } from '../../wallet/vc/replay-cache.ts';
import { createExpiringSet, type ExpiringSetOptions } from './expiring-set.ts';

export interface WorkerReplayCache extends ReplayCache {
  /** Reads the stored entries into memory; call (and await) before the first verification. */
  load(): Promise<void>;
}

export function createWorkerReplayCache(options: ExpiringSetOptions): WorkerReplayCache {
  const seen = createExpiringSet(options);
  return { load: seen.load, remember: seen.add };
}
