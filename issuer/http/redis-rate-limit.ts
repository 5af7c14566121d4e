/**
 * Rate limits shared by every issuer instance (SERVICE_CACHE_ADAPTER=redis): the same fixed
 * windows as the in-memory limiter (rate-limit.ts), counted in Redis. One Lua script per hit —
 * INCR, PEXPIRE on the window's first hit, PTTL — runs atomically, so N instances counting one
 * key never lose an increment and the window always expires.
 *
 * Fails closed: when Redis errs or does not answer within `timeoutMs`, the hit rejects with
 * RateLimitUnavailableError and the request is answered 503 SERVICE_UNAVAILABLE with
 * Retry-After (docs/operations.md §Rate limits says why: the limits guard credential guessing).
 */
import { MandateError } from '../../wallet/crypto/errors.ts';
import { failureLogThrottle, within } from '../redis.ts';
import type { Logger } from './logger.ts';
import type { RateLimitDecision, RateLimiter } from './rate-limit.ts';

/** The one command the limiter sends, as ioredis spells it. */
export interface RedisEvalClient {
  eval(script: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
}

export interface RedisRateLimiterOptions {
  client: RedisEvalClient;
  /** Keys are `<prefix><key>`; each limiter takes its own prefix (e.g. `mandate:rl:ip:`). */
  prefix: string;
  limit: number;
  windowMs: number;
  /** How long to wait for Redis before refusing (default 500 ms). */
  timeoutMs?: number;
  log?: Logger;
  now?: () => number;
}

/** Redis could not count the request: it is refused (503) rather than let through uncounted. */
export class RateLimitUnavailableError extends MandateError<'RATE_LIMIT_UNAVAILABLE'> {
  override name = 'RateLimitUnavailableError';
}

// KEYS[1] the window's counter, ARGV[1] the window in ms. Returns { count, ms left in the window }.
const HIT = `local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }`;

const DEFAULT_TIMEOUT_MS = 500;
/** A failure is logged at most this often per limiter, so an outage does not flood the log. */
const LOG_EVERY_MS = 10_000;

function parseReply(reply: unknown): { count: number; ttl: number } {
  if (Array.isArray(reply) && typeof reply[0] === 'number' && typeof reply[1] === 'number')
    return { count: reply[0], ttl: reply[1] };
  throw new Error('unexpected reply to the rate-limit script');
}

export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const { client, prefix, limit, windowMs, log } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const dueForLog = failureLogThrottle(now, LOG_EVERY_MS);
  const fail = (error: unknown): never => {
    const why = dueForLog(error);
    if (why !== undefined)
      log?.warn('rate limits: Redis did not answer; refusing requests with 503', { prefix, error: why });
    throw new RateLimitUnavailableError('RATE_LIMIT_UNAVAILABLE', 'rate limits cannot be checked right now', {
      cause: error,
    });
  };
  return {
    async hit(key): Promise<RateLimitDecision> {
      let reply: { count: number; ttl: number };
      try {
        reply = parseReply(await within(client.eval(HIT, 1, `${prefix}${key}`, windowMs), timeoutMs));
      } catch (error) {
        return fail(error);
      }
      const { count, ttl } = reply;
      return {
        allowed: count <= limit,
        retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)),
        firstRefusal: count === limit + 1,
      };
    },
  };
}
