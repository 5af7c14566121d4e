/**
 * A replay cache shared through Redis, so N verifier processes in front of one API (or N MCP
 * servers, for DPoP proof `jti`s) refuse a presentation any one of them has accepted. One
 * command per key: `SET <prefix><key> 1 PXAT <expiresAt> NX` — Redis runs it atomically, so of
 * any number of concurrent attempts on any number of processes exactly one gets `OK`, and the
 * key expires by itself when the presentation could no longer pass verification anyway.
 *
 * Fails closed: when Redis errs or does not answer within `timeoutMs`, `remember` rejects with
 * ReplayStoreError — a VerificationError with the reason `REPLAYED`, so verifyPresentation and
 * the middleware refuse the request (401, failedCheck `replay`) and the MCP middleware answers
 * DPOP_PROOF_REPLAYED; nothing is accepted that could not be recorded as used. Consistency model:
 * docs/verifier.md §Several verifier processes.
 *
 * `mandate` does not depend on a Redis client: `client` is anything with ioredis's `set`
 * signature (an ioredis `Redis` or `Cluster`); node-redis users pass a one-line adapter.
 */
import { VerificationError } from '../wallet/vc/reasons.ts';
import type { ReplayCache } from '../wallet/vc/replay-cache.ts';

/** The one Redis command the cache sends, as ioredis spells it. */
export interface RedisSetClient {
  set(key: string, value: string, pxat: 'PXAT', unixTimeMilliseconds: number, nx: 'NX'): Promise<'OK' | null>;
}

export interface RedisReplayCacheOptions {
  client: RedisSetClient;
  /** Prepended to every key (default `mandate:replay:`): one Redis can serve several APIs apart. */
  prefix?: string;
  /** How long to wait for Redis before refusing (default 1,000 ms). */
  timeoutMs?: number;
  /** Told of every Redis failure (the refusal itself carries no Redis detail to the client). */
  onError?: (error: unknown) => void;
  now?: () => number;
}

/** The Redis cache always answers with a promise. */
export interface RedisReplayCache extends ReplayCache {
  remember(key: string, expiresAt: number): Promise<boolean>;
}

/** Redis could not record a key: the presentation (or DPoP proof) cannot be shown to be a first use. */
export class ReplayStoreError extends VerificationError {
  override name = 'ReplayStoreError';
}

const DEFAULT_PREFIX = 'mandate:replay:';
const DEFAULT_TIMEOUT_MS = 1000;

function unavailable(why: string, cause?: unknown): ReplayStoreError {
  return new ReplayStoreError(
    'REPLAYED',
    `the shared replay store did not record this use (${why}); refused, since it cannot be shown to be the first`,
    { cause },
  );
}

/** Resolves with `promise`'s answer, or rejects once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The replay cache over Redis.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * const replayCache = createRedisReplayCache({ client: new Redis(process.env.REDIS_URL) });
 * app.use('/api/*', agentAuth({ ...options, replayCache }));
 * ```
 */
export function createRedisReplayCache(options: RedisReplayCacheOptions): RedisReplayCache {
  const { client, onError } = options;
  if (typeof client?.set !== 'function') throw new TypeError('createRedisReplayCache: client must have a set() method');
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1)
    throw new RangeError('createRedisReplayCache: timeoutMs must be a positive integer');
  const now = options.now ?? Date.now;
  return {
    async remember(key, expiresAt) {
      // Already expired (or no expiry at all): nothing left to protect, as in the memory cache.
      if (!Number.isFinite(expiresAt) || expiresAt <= now()) return false;
      let answer: 'OK' | null;
      try {
        answer = await within(client.set(`${prefix}${key}`, '1', 'PXAT', Math.ceil(expiresAt), 'NX'), timeoutMs);
      } catch (error) {
        onError?.(error);
        throw error instanceof ReplayStoreError ? error : unavailable('Redis refused the command', error);
      }
      return answer === 'OK';
    },
  };
}
