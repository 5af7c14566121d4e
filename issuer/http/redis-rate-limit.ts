/**
 * Rate limits shared by every issuer instance (SERVICE_CACHE_ADAPTER=redis): the same fixed
 * windows as the in-memory limiter (rate-limit.ts), counted in Redis. One Lua script per hit —
 * INCR, PEXPIRE on the window's first hit, PTTL — runs atomically, so N instances counting one
 * key never lose an increment and the window always expires.
 *
 * Degrades when Redis cannot count (down, or no answer within `timeoutMs`): each instance then
 * counts in its own memory against the configured limit divided by SERVICE_INSTANCES_HINT, and
 * goes back to the shared counters once Redis answers again (docs/operations.md §Redis says
 * why). The limits stay enforced throughout; only their sharing is lost for the outage.
 */
import { MandateError } from '../../wallet/crypto/errors.ts';
import { failureLogThrottle, within, type RedisAvailability } from '../redis.ts';
import type { Logger } from '../log.ts';
import type { MemoryRateLimiter, RateLimitDecision, RateLimiter } from '../rate-limiter.ts';

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
  /** How long to wait for Redis before giving up on it for this hit (default 500 ms). */
  timeoutMs?: number;
}

/** Redis could not count the request (the degrading limiter then counts it in memory). */
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
/** The outage warning is logged at most this often per limiter, so a flapping Redis does not flood the log. */
const LOG_EVERY_MS = 10_000;

function parseReply(reply: unknown): { count: number; ttl: number } {
  if (Array.isArray(reply) && typeof reply[0] === 'number' && typeof reply[1] === 'number')
    return { count: reply[0], ttl: reply[1] };
  throw new Error('unexpected reply to the rate-limit script');
}

/** Counts in Redis; rejects with RateLimitUnavailableError when Redis does not answer in time. */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const { client, prefix, limit, windowMs } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    async hit(key): Promise<RateLimitDecision> {
      let reply: { count: number; ttl: number };
      try {
        reply = parseReply(await within(client.eval(HIT, 1, `${prefix}${key}`, windowMs), timeoutMs));
      } catch (error) {
        throw new RateLimitUnavailableError('RATE_LIMIT_UNAVAILABLE', 'rate limits cannot be counted in Redis', {
          cause: error,
        });
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

/**
 * What one instance allows per window while it counts alone: its share of the deployment's
 * limit (⌊limit / instances⌋, at least 1), so N instances together stay within the limit.
 */
export function localShare(limit: number, instancesHint: number): number {
  return Math.max(1, Math.floor(limit / Math.max(1, instancesHint)));
}

export interface DegradingRateLimiterOptions {
  /** The shared limiter (createRedisRateLimiter). */
  shared: RateLimiter;
  /** This instance's own limiter, at its share of the limit (localShare). */
  local: MemoryRateLimiter;
  /** Whether to try Redis at all: not while its connection is down or paused after a failure. */
  availability: RedisAvailability;
  /** Names the limiter in logs (its Redis prefix). */
  prefix: string;
  /** The local limiter's limit, for the log. */
  localLimit: number;
  log?: Logger;
}

/**
 * `shared` while Redis answers, `local` while it does not: a hit Redis could not count is
 * counted in memory instead of refused, and the next hit after the connection is back goes to
 * Redis again. One `warn` line when an outage starts (at most one per 10 s), one `info` line
 * when the shared counters are back.
 */
export function createDegradingRateLimiter(options: DegradingRateLimiterOptions): RateLimiter {
  const { shared, local, availability, prefix, localLimit, log } = options;
  const dueForLog = failureLogThrottle(Date.now, LOG_EVERY_MS);
  let degraded = false;
  const countLocally = (key: string, why: unknown): RateLimitDecision => {
    if (!degraded) {
      degraded = true;
      const error = dueForLog(why);
      if (error !== undefined)
        log?.warn("rate limits: Redis unavailable; counting in this instance's memory", {
          prefix,
          limit: localLimit,
          error,
        });
    }
    return local.hit(key);
  };
  return {
    async hit(key) {
      if (!availability.usable()) return countLocally(key, 'the connection to Redis is down');
      let decision: RateLimitDecision;
      try {
        decision = await shared.hit(key);
      } catch (error) {
        if (!(error instanceof RateLimitUnavailableError)) throw error;
        availability.failed();
        return countLocally(key, error.cause ?? error);
      }
      if (degraded) {
        degraded = false;
        log?.info('rate limits: counting in Redis again', { prefix });
      }
      return decision;
    },
  };
}
