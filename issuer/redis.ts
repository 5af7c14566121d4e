/**
 * The issuer's one Redis connection (SERVICE_CACHE_ADAPTER=redis), shared by what it holds there:
 * the rate-limit counters (http/redis-rate-limit.ts), the shared DID and status-list caches
 * (services/shared-caches/) and the readiness probe's PING. ioredis reconnects by itself; while
 * Redis is away commands fail at once (no offline queue), and each user of the connection bounds
 * its wait for a slow Redis with its own timeout, so an outage is answered, never hung on. Nothing
 * of record lives there (docs/operations.md §Redis): every user degrades without it.
 */
import { Redis } from 'ioredis';
import type { Logger } from './log.ts';

/** `redis://host:port/db` without user or password, for logs and errors. */
export function redactRedisUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}

/**
 * Connects to `url` and waits for the first PING (at most `timeoutMs`), so an issuer whose Redis
 * is unreachable stops at start with one line instead of answering 503 to everything.
 */
export async function connectRedis(url: string, log: Logger, timeoutMs = 5000): Promise<Redis> {
  const where = redactRedisUrl(url);
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    // Once connected, a command sent while Redis is away fails at once (503 at once) instead of
    // queueing for a reconnect and being counted after its request was already refused.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return; // one line per outage, not one per reconnect attempt
    down = true;
    log.warn('redis: connection lost; reconnecting', { redis: where, error: error.message.slice(0, 200) });
  });
  client.on('ready', () => {
    if (down) log.info('redis: connected again', { redis: where });
    down = false;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`SERVICE_REDIS_URL: Redis at ${where} did not answer (${why.slice(0, 200)})`, { cause: error });
  }
  return client;
}

/** Whether to send the connection a command now, as far as a user of it can tell. */
export interface RedisAvailability {
  /** False while the connection is down, and for a short pause after a command failed on it. */
  usable(): boolean;
  /** A command failed or timed out on a connection that looked up: pause before the next one. */
  failed(): void;
}

/** How long a user of the connection stops sending after a failed command (e.g. a slow Redis). */
const PAUSE_AFTER_FAILURE_MS = 1000;

/**
 * `client`'s availability: up while ioredis reports it `ready`, except for a pause after a
 * command failed there — a Redis that is connected but too slow would otherwise cost every
 * request its full timeout. The pause ends early when the connection is (re)established.
 * Wall-clock time, not the issuer's clock: this paces I/O, it decides nothing.
 */
export function redisAvailability(
  client: Pick<Redis, 'status' | 'on'>,
  pauseMs = PAUSE_AFTER_FAILURE_MS,
): RedisAvailability {
  let pausedUntil = -Infinity;
  client.on('ready', () => {
    pausedUntil = -Infinity;
  });
  return {
    usable: () => client.status === 'ready' && performance.now() >= pausedUntil,
    failed: () => {
      pausedUntil = performance.now() + pauseMs;
    },
  };
}

/** `promise`, or a rejection once `ms` pass without its answer: a slow Redis counts as a failed one. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * For logging a user's Redis failures at most once per `everyMs`, so an outage does not flood
 * the log: the returned function gives the error's message (at most 200 characters) when it is
 * time to log it, undefined otherwise.
 */
export function failureLogThrottle(now: () => number, everyMs: number): (error: unknown) => string | undefined {
  let loggedAt = -Infinity;
  return (error) => {
    const t = now();
    if (t - loggedAt < everyMs) return undefined;
    loggedAt = t;
    return (error instanceof Error ? error.message : String(error)).slice(0, 200);
  };
}
