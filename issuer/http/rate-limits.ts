/**
 * Which rate limiters an issuer runs (SERVICE_CACHE_ADAPTER): all in this process's memory, or
 * the middleware's per-address and per-credential limits in Redis, shared by every instance.
 */
import type { IssuerConfig } from '../config.ts';
import { connectRedis } from '../redis.ts';
import type { Logger } from './logger.ts';
import { createRateLimiter, type RateLimits } from './rate-limit.ts';
import { createRedisRateLimiter } from './redis-rate-limit.ts';

export interface IssuerRateLimits {
  rateLimits: RateLimits;
  /** Closes the Redis connection, if there is one. */
  close(): void;
}

/**
 * The rate limiters: in memory, or the middleware's in Redis when SERVICE_CACHE_ADAPTER=redis
 * (`close` then closes the connection).
 */
export async function createRateLimits(
  config: IssuerConfig,
  log: Logger,
  now: () => number,
): Promise<IssuerRateLimits> {
  const { perIp, perToken, windowMs } = config.rateLimit;
  if (config.redisUrl === undefined) {
    const rateLimits = {
      perIp: createRateLimiter({ limit: perIp, windowMs, now }),
      perAuthorization: createRateLimiter({ limit: perToken, windowMs, now }),
      perToken: createRateLimiter({ limit: perToken, windowMs, now }),
    };
    return { rateLimits, close: () => undefined };
  }
  const client = await connectRedis(config.redisUrl, log);
  const shared = (name: string, limit: number) =>
    createRedisRateLimiter({ client, prefix: `mandate:rl:${name}:`, limit, windowMs, log, now });
  const rateLimits = {
    perIp: shared('ip', perIp),
    perAuthorization: shared('auth', perToken),
    perToken: shared('enroll', perToken),
  };
  return { rateLimits, close: () => client.disconnect() };
}
