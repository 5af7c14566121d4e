// The harness's real servers (test/support/global-servers.ts): every test file gets a database
// and a Redis key prefix of its own on the run's PostgreSQL and Redis.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, freshRedisPrefix, redisUrl, type FreshDatabase } from './servers.ts';

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('the run PostgreSQL', () => {
  const made: FreshDatabase[] = [];
  afterAll(() => Promise.all(made.map((d) => d.drop())));

  it('is PostgreSQL 15 or newer', async () => {
    const db = await freshDatabase();
    made.push(db);
    const { rows } = await query(db.url, 'SHOW server_version_num');
    expect(Number((rows[0] as { server_version_num: string }).server_version_num)).toBeGreaterThanOrEqual(150000);
  });

  it('gives each suite a database of its own, and drop() removes it', async () => {
    const a = await freshDatabase();
    const b = await freshDatabase();
    made.push(b);
    expect(a.url).not.toBe(b.url);
    await query(a.url, 'CREATE TABLE t (x int)');
    await query(a.url, 'INSERT INTO t VALUES (1)');
    await expect(query(b.url, 'SELECT * FROM t')).rejects.toThrow(/does not exist/);
    await a.drop();
    await expect(query(a.url, 'SELECT 1')).rejects.toThrow(/does not exist/);
  });
});

describe('the run Redis', () => {
  it('is Redis 7 or newer, shared under per-suite prefixes', async () => {
    const redis = new Redis(redisUrl(), { lazyConnect: true });
    await redis.connect();
    try {
      const info = await redis.info('server');
      expect(Number(/redis_version:(\d+)/.exec(info)?.[1])).toBeGreaterThanOrEqual(7);
      const [p, q] = [freshRedisPrefix(), freshRedisPrefix()];
      expect(p).not.toBe(q);
      await redis.set(`${p}k`, 'mine');
      expect(await redis.get(`${q}k`)).toBeNull();
    } finally {
      redis.disconnect();
    }
  });
});

describe('npm test without the servers', () => {
  it('stops at once with one line saying how to install them', () => {
    const emptyPath = mkdtempSync(join(tmpdir(), 'mandate-nopath-'));
    try {
      // No redis-server or sqlite3 on PATH and no MANDATE_TEST_* URLs (PostgreSQL may or may not be found).
      const result = spawnSync(process.execPath, ['test/run.mjs', '--project', 'node'], {
        env: { PATH: emptyPath, HOME: process.env.HOME },
        encoding: 'utf8',
      });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^npm test needs (PostgreSQL and )?Redis and the sqlite3 shell for the node project: install them \(Debian\/Ubuntu: `sudo apt-get install -y postgresql redis-server sqlite3`\) or set MANDATE_TEST_DATABASE_URL and MANDATE_TEST_REDIS_URL [^\n]*\n$/,
      );
    } finally {
      rmSync(emptyPath, { recursive: true, force: true });
    }
  });
});
