/**
 * Which rate limiters an issuer runs (SERVICE_CACHE_ADAPTER): all in this process's memory, or
 * the middleware's per-address and per-credential limits in Redis, shared by every instance —
 * and counted in this process's memory at its share of each limit (SERVICE_INSTANCES_HINT)
 * while Redis is unreachable.
 */
import type { Redis } from 'ioredis';
import type { IssuerConfig } from '../config/index.ts';
import { redisAvailability } from '../redis.ts';
import type { Logger } from '../log.ts';
import { createRateLimiter, type RateLimits } from '../rate-limiter.ts';
import { createDegradingRateLimiter, createRedisRateLimiter, localShare } from './redis-rate-limit.ts';

/**
 * The rate limiters: in memory, or the middleware's on `redis` (the issuer's connection, which
 * the caller owns) when SERVICE_CACHE_ADAPTER=redis.
 */
export function createRateLimits(
  config: IssuerConfig,
  log: Logger,
  now: () => number,
  redis: Redis | undefined,
): RateLimits {
  const { perIp, perToken, windowMs, instancesHint } = config.rateLimit;
  if (redis === undefined)
    return {
      perIp: createRateLimiter({ limit: perIp, windowMs, now }),
      perAuthorization: createRateLimiter({ limit: perToken, windowMs, now }),
      perToken: createRateLimiter({ limit: perToken, windowMs, now }),
    };
  const availability = redisAvailability(redis);
  const degrading = (name: string, limit: number) => {
    const prefix = `mandate:rl:${name}:`;
    const localLimit = localShare(limit, instancesHint);
    return createDegradingRateLimiter({
      shared: createRedisRateLimiter({ client: redis, prefix, limit, windowMs }),
      local: createRateLimiter({ limit: localLimit, windowMs, now }),
      availability,
      prefix,
      localLimit,
      log,
    });
  };
  return {
    perIp: degrading('ip', perIp),
    perAuthorization: degrading('auth', perToken),
    perToken: degrading('enroll', perToken),
  };
}
