// SERVICE_CACHE_ADAPTER=redis: the issuer's per-address and per-credential rate limits counted in
// Redis, so several issuer processes share one budget; the settings' one-line errors; and what
// happens when Redis goes away (each instance counts alone, at its share of the limit; the full
// outage under load, and Redis coming back, are in test/e2e/fault-redis.test.ts).
import { rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../issuer/config/index.ts';
import { createLogger } from '../../../issuer/log.ts';
import { createRateLimiter } from '../../../issuer/rate-limiter.ts';
import {
  createDegradingRateLimiter,
  createRedisRateLimiter,
  localShare,
  RateLimitUnavailableError,
} from '../../../issuer/http/redis-rate-limit.ts';
import { redisAvailability } from '../../../issuer/redis.ts';
import { startIssuer } from '../../../issuer/server.ts';
import { tempDir, TEST_ADMIN_KEY, testEnv } from '../../support/issuer.ts';
import { startIssuerProcess, type IssuerProcess } from '../../support/issuer-process.ts';
import { startRedis, type RedisServer } from '../../support/redis.ts';
import { freshRedisPrefix, redisUrl } from '../../support/servers.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dir(): string {
  const made = tempDir();
  dirs.push(made);
  return made;
}

function configError(env: Record<string, string>): string {
  try {
    loadConfig(testEnv(dir(), env));
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('SERVICE_CACHE_ADAPTER and SERVICE_REDIS_URL', () => {
  it('default to memory, and take redis with a redis:// or rediss:// URL', () => {
    expect(loadConfig(testEnv(dir()))).toMatchObject({ cacheAdapter: 'memory', redisUrl: undefined });
    const url = 'rediss://user:secret@cache.internal:6380/2';
    expect(loadConfig(testEnv(dir(), { SERVICE_CACHE_ADAPTER: 'redis', SERVICE_REDIS_URL: url }))).toMatchObject({
      cacheAdapter: 'redis',
      redisUrl: url,
    });
  });

  it('refuse a bad value in one line that never echoes the URL', () => {
    expect(configError({ SERVICE_CACHE_ADAPTER: 'memcached' })).toBe(
      'SERVICE_CACHE_ADAPTER: must be "memory" or "redis"',
    );
    expect(configError({ SERVICE_CACHE_ADAPTER: 'redis' })).toBe(
      'SERVICE_REDIS_URL: required when SERVICE_CACHE_ADAPTER=redis',
    );
    for (const bad of ['http://user:secret@cache:6379', 'cache:6379', 'redis://', 'not a url'])
      expect(configError({ SERVICE_CACHE_ADAPTER: 'redis', SERVICE_REDIS_URL: bad })).toBe(
        'SERVICE_REDIS_URL: must be a redis:// or rediss:// URL with a host (redis://host:6379)',
      );
    expect(configError({ SERVICE_CACHE_ADAPTER: 'redis', SERVICE_REDIS_URL: 'redis://cache:6379/keys' })).toBe(
      'SERVICE_REDIS_URL: the path may only name a database number',
    );
  });

  it('warn when SERVICE_REDIS_URL is set for the memory adapter', () => {
    const config = loadConfig(testEnv(dir(), { SERVICE_REDIS_URL: 'redis://cache:6379' }));
    expect(config.warnings).toContain('SERVICE_REDIS_URL is set but not used: SERVICE_CACHE_ADAPTER is "memory"');
  });

  it('stop an issuer whose Redis does not answer at start, naming it without its password', async () => {
    const gone = await startRedis();
    await gone.stop();
    const url = `redis://user:hunter2@127.0.0.1:${gone.port}`;
    const config = loadConfig(testEnv(dir(), { SERVICE_CACHE_ADAPTER: 'redis', SERVICE_REDIS_URL: url }));
    const error = await startIssuer({ config, port: 0, log: createLogger({ level: 'silent' }) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      new RegExp(`^SERVICE_REDIS_URL: Redis at redis://127\\.0\\.0\\.1:${gone.port} did not answer`),
    );
    expect((error as Error).message).not.toContain('hunter2');
  });
});

describe('createRedisRateLimiter', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(redisUrl(), { lazyConnect: true });
  });
  afterAll(() => redis.disconnect());

  it('counts concurrent hits from several clients exactly: `limit` allowed, one first refusal, the window expiring', async () => {
    const prefix = freshRedisPrefix();
    const clients = [redis, new Redis(redisUrl()), new Redis(redisUrl())];
    try {
      const limiters = clients.map((client) => createRedisRateLimiter({ client, prefix, limit: 10, windowMs: 60_000 }));
      const decisions = await Promise.all(
        Array.from({ length: 50 }, (_, i) => Promise.resolve(limiters[i % limiters.length]!.hit('ip:192.0.2.1'))),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      expect(decisions.filter((d) => d.firstRefusal)).toHaveLength(1);
      for (const d of decisions) expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      const ttl = await redis.pttl(`${prefix}ip:192.0.2.1`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      for (const client of clients.slice(1)) client.disconnect();
    }
  });

  it('rejects with RateLimitUnavailableError when Redis cannot answer', async () => {
    const gone = await startRedis();
    await gone.stop();
    const client = new Redis(gone.url, { lazyConnect: true, enableOfflineQueue: false });
    client.on('error', () => undefined);
    try {
      const limiter = createRedisRateLimiter({ client, prefix: 'x:', limit: 1, windowMs: 1000 });
      await expect(limiter.hit('k')).rejects.toBeInstanceOf(RateLimitUnavailableError);
      await expect(limiter.hit('k')).rejects.toMatchObject({ code: 'RATE_LIMIT_UNAVAILABLE' });
    } finally {
      client.disconnect();
    }
  });

  it("counts in this instance's memory at its share of the limit while Redis cannot answer, logging it once", async () => {
    const gone = await startRedis();
    await gone.stop();
    const client = new Redis(gone.url, { lazyConnect: true, enableOfflineQueue: false });
    client.on('error', () => undefined);
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', write: (line) => lines.push(line) });
    try {
      const localLimit = localShare(10, 3);
      expect(localLimit).toBe(3);
      expect(localShare(2, 5)).toBe(1); // never 0: an instance alone still serves someone
      const limiter = createDegradingRateLimiter({
        shared: createRedisRateLimiter({ client, prefix: 'x:', limit: 10, windowMs: 60_000 }),
        local: createRateLimiter({ limit: localLimit, windowMs: 60_000 }),
        availability: redisAvailability(client),
        prefix: 'x:',
        localLimit,
        log,
      });
      const decisions = [];
      for (let i = 0; i < 5; i++) decisions.push(await limiter.hit('k'));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
      expect(decisions.filter((d) => d.firstRefusal)).toHaveLength(1);
      expect(lines).toHaveLength(1); // once per outage, not per request
      expect(JSON.parse(lines[0] as string)).toMatchObject({
        level: 'warn',
        msg: "rate limits: Redis unavailable; counting in this instance's memory",
        prefix: 'x:',
        limit: 3,
      });
    } finally {
      client.disconnect();
    }
  });
});

describe('two issuer processes sharing one Redis', () => {
  const LIMIT = 6;
  let redis: RedisServer;
  let issuers: IssuerProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis(); // its own: the last test takes it away
    const env = (d: string) =>
      testEnv(d, {
        SERVICE_CACHE_ADAPTER: 'redis',
        SERVICE_REDIS_URL: redis.url,
        SERVICE_RATE_LIMIT_PER_IP: String(LIMIT),
        SERVICE_RATE_LIMIT_PER_TOKEN: String(LIMIT),
        LOG_LEVEL: 'warn',
      });
    issuers = await Promise.all([startIssuerProcess(env(dir())), startIssuerProcess(env(dir()))]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(issuers.map((i) => i.stop()));
    await redis?.stop();
  });

  it('share the per-address limit: the (limit + 1)-th request over both is 429 with Retry-After', async () => {
    for (let i = 0; i < LIMIT; i++) {
      const response = await fetch(`${issuers[i % 2]!.url}/v1/health`);
      expect(response.status, `request ${i + 1}`).toBe(200);
    }
    for (const issuer of issuers) {
      const refused = await fetch(`${issuer.url}/v1/health`);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    }
  });

  it('keep answering while Redis is down, each instance counting alone, and keep running', async () => {
    await redis.stop();
    for (const issuer of issuers) {
      const response = await fetch(`${issuer.url}/v1/health`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
      });
      expect(response.status).toBe(200);
      expect(issuer.child.exitCode).toBeNull();
      expect(issuer.stdout()).toMatch(
        /"level":"warn","msg":"rate limits: Redis unavailable; counting in this instance's memory"/,
      );
    }
  });
});
