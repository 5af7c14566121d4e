// Issue 39 §1: a Redis outage under load, across two issuer processes on one PostgreSQL. Redis
// holds only rate-limit counters and shared caches, nothing of record, so its loss degrades the
// instances instead of stopping them: liveness stays 200, readiness says the cache failed,
// verification keeps answering, each instance enforces its own share of the limits
// (SERVICE_INSTANCES_HINT), single use stays exact (it lives in PostgreSQL), and the shared
// counters are used again once Redis is back (docs/operations.md §Redis).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deploymentEnv, startIssuerProcess, type IssuerProcess } from '../support/issuer-process.ts';
import { agentPath, call, type CallResult } from '../support/issuer.ts';
import { startRedis, type RedisServer } from '../support/redis.ts';
import { freshDatabase, type FreshDatabase } from '../support/servers.ts';

const TARGET = 'files.example.com';
/** SERVICE_RATE_LIMIT_PER_TOKEN for the deployment; each of the two instances counts 20 alone. */
const LIMIT = 40;
const LOCAL_LIMIT = LIMIT / 2;
const PRESENTATIONS = 12;

let redis: RedisServer;
let db: FreshDatabase;
let issuers: IssuerProcess[] = [];

const at = (i: number, path: string, options: Parameters<typeof call>[2] = {}): Promise<CallResult> =>
  call((issuers[i % issuers.length] as IssuerProcess).url, path, options);

/** A credential of its own (any Bearer value is counted per credential before it is checked). */
const freshCredential = () => ({ authorization: `Bearer probe-${randomBytes(8).toString('hex')}` });

async function onboardServerAgent(): Promise<string> {
  const minted = await at(0, '/v1/enrollment-tokens', {
    admin: true,
    body: { requestedScopes: ['files:read'], maxDelegationDepth: 1, requestedDomains: [TARGET] },
  });
  const start = await at(1, '/v1/onboard', { body: { token: minted.json.token, custody: 'server' } });
  const done = await at(0, '/v1/onboard/verify', {
    body: { challengeId: start.json.challengeId, challenge: start.json.challenge },
  });
  expect(done.status).toBe(201);
  return done.json.agentDid as string;
}

async function presentation(agentDid: string, i: number): Promise<unknown> {
  const vp = await at(i, agentPath(agentDid, '/vp'), { admin: true, body: { targetService: TARGET } });
  expect(vp.status).toBe(200);
  return vp.json;
}

const verify = (i: number, vp: unknown) =>
  at(i, '/v1/vp/verify', { body: { presentation: vp, expectedTarget: TARGET } });

/** Sends `count` requests with `headers` to instance `i`, one after another; their statuses. */
async function burst(i: number, count: number, headers: Record<string, string>): Promise<number[]> {
  const statuses: number[] = [];
  for (let n = 0; n < count; n++) statuses.push((await at(i, '/v1/health', { headers })).status);
  return statuses;
}

/** Polls GET /v1/ready on every instance until `expected` holds for each (the instances notice on their own). */
async function readinessOfAll(expected: (ready: CallResult) => void): Promise<void> {
  await vi.waitFor(
    async () => {
      for (const [i] of issuers.entries()) expected(await at(i, '/v1/ready'));
    },
    { timeout: 15_000, interval: 50 },
  );
}

beforeAll(async () => {
  [redis, db] = await Promise.all([startRedis(), freshDatabase()]);
  const env = deploymentEnv(
    { databaseUrl: db.url, poolSize: 4, redisUrl: redis.url },
    { SERVICE_RATE_LIMIT_PER_TOKEN: String(LIMIT), SERVICE_INSTANCES_HINT: '2', LOG_LEVEL: 'info' },
  );
  issuers = await Promise.all([startIssuerProcess(env), startIssuerProcess(env)]);
}, 120_000);

afterAll(async () => {
  await Promise.all(issuers.map((i) => i.stop()));
  await redis?.stop();
  await db?.drop();
});

describe('Redis killed under load and restarted, two issuers on one PostgreSQL', () => {
  it('keeps both instances alive and verifying, enforces per-instance limits, refuses a replay, and shares the counters again once Redis is back', async () => {
    const agentDid = await onboardServerAgent();
    const vps = await Promise.all(Array.from({ length: PRESENTATIONS + 1 }, (_, i) => presentation(agentDid, i)));
    const replayed = vps.pop();
    expect((await verify(0, replayed)).json).toMatchObject({ valid: true, agentDid });
    await readinessOfAll((ready) => expect(ready.json).toEqual({ ok: true, checks: { database: 'ok', cache: 'ok' } }));

    // Concurrent load on both instances: each presentation verified once, liveness probed
    // between them; Redis is killed once half of the presentations have been answered.
    const queue = vps.map((vp, i) => ({ vp, i }));
    const verdicts: CallResult[] = [];
    const probes: CallResult[] = [];
    let killed: Promise<void> | undefined;
    const worker = async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        verdicts.push(await verify(item.i, item.vp));
        if (verdicts.length === PRESENTATIONS / 2) killed = redis.stop();
        probes.push(await at(item.i + 1, '/v1/health'));
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    await killed;
    expect(verdicts.map((v) => v.status)).toEqual(Array.from({ length: PRESENTATIONS }, () => 200));
    expect(probes.map((p) => p.status)).toEqual(Array.from({ length: PRESENTATIONS }, () => 200));

    // Down: not ready (the cache failed), alive, verifying, single use exact, limits per instance.
    await readinessOfAll((ready) => {
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('1');
      expect(ready.json.error).toMatchObject({
        code: 'NOT_READY',
        details: { checks: { database: 'ok', cache: 'failed' } },
      });
    });
    for (const i of [0, 1]) {
      expect((await at(i, '/v1/health')).status).toBe(200);
      const fresh = await verify(i, await presentation(agentDid, i));
      expect(fresh.status).toBe(200);
      expect(fresh.json).toMatchObject({ valid: true, agentDid });
      const replay = await verify(i, replayed);
      expect(replay.status).toBe(403);
      expect(replay.json).toMatchObject({ valid: false, reason: 'REPLAYED' });
    }
    const outage = freshCredential();
    expect(await burst(0, LOCAL_LIMIT, outage)).toEqual(Array.from({ length: LOCAL_LIMIT }, () => 200));
    const refused = await at(0, '/v1/health', { headers: outage });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The other instance counts the same credential on its own.
    expect((await at(1, '/v1/health', { headers: outage })).status).toBe(200);
    for (const issuer of issuers) {
      expect(issuer.child.exitCode).toBeNull();
      expect(issuer.stdout()).toContain(`"msg":"rate limits: Redis unavailable; counting in this instance's memory"`);
    }

    // Back (empty, on its port): ready again, and one budget for both instances again — 30
    // requests on one instance pass (alone it would refuse the 21st), and the 41st over both is refused.
    redis = await startRedis(undefined, redis.port);
    await readinessOfAll((ready) => expect(ready.json).toEqual({ ok: true, checks: { database: 'ok', cache: 'ok' } }));
    const shared = freshCredential();
    expect(await burst(0, 30, shared)).toEqual(Array.from({ length: 30 }, () => 200));
    expect(await burst(1, LIMIT - 30, shared)).toEqual(Array.from({ length: LIMIT - 30 }, () => 200));
    expect((await at(1, '/v1/health', { headers: shared })).status).toBe(429);
    for (const issuer of issuers) {
      expect(issuer.child.exitCode).toBeNull();
      expect(issuer.stdout()).toContain('"msg":"rate limits: counting in Redis again"');
    }
  }, 60_000);
});
