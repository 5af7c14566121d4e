/**
 * A string cache in Redis for what issuer instances share only to save fetches (did:web
 * documents, status-list credentials: SERVICE_CACHE_ADAPTER=redis). Unlike the rate limits it
 * fails open: Redis down, slow or answering junk is a miss, and the caller fetches over the
 * network as it would without Redis (docs/operations.md §Redis says why). Values are bounded in
 * size both ways, and keys are `<prefix><sha256 of the name>`, so a name chosen by whoever
 * presents a credential never becomes a long or odd Redis key.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../../log.ts';
import { failureLogThrottle, within } from '../../redis.ts';

/** The three commands the cache sends, as ioredis spells them. */
export type SharedCacheClient = Pick<Redis, 'get' | 'set' | 'del'>;

export interface SharedCache {
  /** The value stored under `name`, or undefined (absent, too large, or Redis failed). */
  get(name: string): Promise<string | undefined>;
  /** Stores `value` for `ttlMs`; a value over the size bound, or a Redis failure, stores nothing. */
  set(name: string, value: string, ttlMs: number): Promise<void>;
  delete(name: string): Promise<void>;
}

export interface SharedCacheOptions {
  client: SharedCacheClient;
  /** Keys are `<prefix><sha256 hex of the name>`, e.g. `mandate:did:`. */
  prefix: string;
  /** Largest value stored or accepted, in UTF-16 code units (string length). */
  maxValueLength: number;
  log: Logger;
  /** How long to wait for Redis before fetching instead (default 250 ms). */
  timeoutMs?: number;
  now?: () => number;
}

/** A failure is logged at most this often per cache, so an outage does not flood the log. */
const LOG_EVERY_MS = 10_000;

export function sharedKey(prefix: string, name: string): string {
  return prefix + createHash('sha256').update(name).digest('hex');
}

export function createSharedCache(options: SharedCacheOptions): SharedCache {
  const { client, prefix, maxValueLength, log } = options;
  const timeoutMs = options.timeoutMs ?? 250;
  const now = options.now ?? Date.now;
  const dueForLog = failureLogThrottle(now, LOG_EVERY_MS);
  // Fail open: the caller goes to the network, and the log hears of it once per period.
  const failed = (operation: string, error: unknown): undefined => {
    const why = dueForLog(error);
    if (why !== undefined)
      log.warn('redis: shared cache unavailable; fetching over the network instead', {
        cache: prefix,
        operation,
        error: why,
      });
    return undefined;
  };
  return {
    async get(name) {
      try {
        const value = await within(client.get(sharedKey(prefix, name)), timeoutMs);
        return typeof value === 'string' && value.length <= maxValueLength ? value : undefined;
      } catch (error) {
        return failed('get', error);
      }
    },
    async set(name, value, ttlMs) {
      const ms = Math.floor(ttlMs);
      if (value.length > maxValueLength || !(ms > 0)) return;
      try {
        await within(client.set(sharedKey(prefix, name), value, 'PX', ms), timeoutMs);
      } catch (error) {
        failed('set', error);
      }
    },
    async delete(name) {
      try {
        await within(client.del(sharedKey(prefix, name)), timeoutMs);
      } catch (error) {
        failed('delete', error);
      }
    },
  };
}

/** The caches SERVICE_CACHE_ADAPTER=redis shares: did:web resolutions and status-list credentials. */
export interface IssuerSharedCaches {
  dids: SharedCache;
  lists: SharedCache;
}

/**
 * The issuer's shared caches on `client`. Bounds: twice the largest document (64 KiB) and list
 * credential (256 KiB) the wallet fetches, as JSON escaping can double a text, plus the wrapper.
 */
export function createIssuerSharedCaches(client: SharedCacheClient, log: Logger): IssuerSharedCaches {
  return {
    dids: createSharedCache({ client, log, prefix: 'mandate:did:', maxValueLength: 2 * 64 * 1024 + 1024 }),
    lists: createSharedCache({ client, log, prefix: 'mandate:sl:', maxValueLength: 2 * 256 * 1024 + 1024 }),
  };
}
