// The shared cache's bounds (issuer/services/shared-caches/redis-cache.ts) on a real Redis: keys
// are the prefix and the SHA-256 of the name, values over the bound are neither stored nor read,
// and a Redis that is gone is a miss (fail open), logged at most once per 10 s.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../issuer/log.ts';
import { connectRedis } from '../../../issuer/redis.ts';
import { createSharedCache } from '../../../issuer/services/shared-caches/redis-cache.ts';
import { startRedis, type RedisServer } from '../../support/redis.ts';
import { freshRedisPrefix, redisUrl } from '../../support/servers.ts';

let client: Redis;
beforeAll(() => {
  client = new Redis(redisUrl());
});
afterAll(() => client.disconnect());

const silent = createLogger({ level: 'silent' });

describe('createSharedCache', () => {
  it('stores under <prefix><sha256 of the name> for the ttl, and deletes', async () => {
    const prefix = freshRedisPrefix();
    const cache = createSharedCache({ client, prefix, maxValueLength: 100, log: silent });
    await cache.set('https://lists.example/1', 'value', 60_000);
    const key = prefix + createHash('sha256').update('https://lists.example/1').digest('hex');
    expect(await client.get(key)).toBe('value');
    expect(await client.pttl(key)).toBeGreaterThan(59_000);
    expect(await cache.get('https://lists.example/1')).toBe('value');
    await cache.delete('https://lists.example/1');
    expect(await cache.get('https://lists.example/1')).toBeUndefined();
  });

  it('neither stores nor reads a value over its bound', async () => {
    const prefix = freshRedisPrefix();
    const cache = createSharedCache({ client, prefix, maxValueLength: 10, log: silent });
    await cache.set('big', 'x'.repeat(11), 60_000);
    expect(await cache.get('big')).toBeUndefined();
    await client.set(prefix + createHash('sha256').update('planted').digest('hex'), 'x'.repeat(11));
    expect(await cache.get('planted')).toBeUndefined();
  });

  it('answers a miss when Redis is gone, and logs it once per 10 s', async () => {
    const own: RedisServer = await startRedis();
    // As the issuer connects (no offline queue): a command while Redis is away fails at once.
    const ownClient = await connectRedis(own.url, silent);
    const lines: string[] = [];
    let clock = 0;
    const log = createLogger({ level: 'warn', write: (line) => lines.push(line) });
    const cache = createSharedCache({ client: ownClient, prefix: 'p:', maxValueLength: 100, log, now: () => clock });
    await cache.set('a', 'value', 60_000);
    await own.stop();
    expect(await cache.get('a')).toBeUndefined();
    await cache.set('a', 'value', 60_000);
    expect(lines).toHaveLength(1);
    clock += 10_000;
    expect(await cache.get('a')).toBeUndefined();
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', cache: 'p:', operation: 'get' });
    ownClient.disconnect();
  });
});
