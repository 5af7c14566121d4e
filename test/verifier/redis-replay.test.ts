// mandate/verifier's Redis replay cache (verifier-worker/redis-replay-cache.ts) on a real Redis:
// one SET NX PXAT per key, exactly one winner of concurrent attempts; two real verifier
// processes sharing one Redis refuse each other's presentations as REPLAYED; two mcpAuth
// instances refuse each other's DPoP proofs as DPOP_PROOF_REPLAYED; and with Redis gone, both refuse
// (fail closed, a typed refusal) and keep serving.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAgentCredential } from '../../wallet/vc/agent-credential.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import type { AgentCredential } from '../../wallet/vc/types.ts';
import { verifyPresentation } from '../../wallet/vc/verify.ts';
import {
  createRedisReplayCache,
  encodePresentationHeader,
  ReplayStoreError,
  type McpAuthOptions,
} from '../../verifier-worker/index.ts';
import { newIdentity, testResolver } from '../support/agents.ts';
import { dpopKey, dpopProof, startHonoMcp, startTokenServer, TOOLS, type McpFixture } from '../support/mcp.ts';
import { bundled } from '../support/bundles.ts';
import { exited } from '../support/processes.ts';
import { startRedis, type RedisServer } from '../support/redis.ts';
import { freshRedisPrefix, redisUrl } from '../support/servers.ts';

const TARGET = 'files.example.com';
const HOUR = 3_600_000;

let platform: SigningIdentity;
let agent: SigningIdentity;
let root: AgentCredential;

beforeAll(async () => {
  platform = newIdentity();
  agent = newIdentity();
  root = await issueAgentCredential({
    issuer: platform,
    agentDid: agent.did,
    privilegeScopes: ['files:read'],
    delegationDepth: 0,
    domains: [TARGET],
  });
});

const present = () =>
  signPresentation({ holder: agent, credentials: [root], challenge: crypto.randomUUID(), domain: TARGET });

function client(url: string, extra: RedisOptions = {}): Redis {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, ...extra });
  redis.on('error', () => undefined);
  return redis;
}

describe('createRedisReplayCache', () => {
  let redis: Redis;
  beforeAll(() => void (redis = client(redisUrl())));
  afterAll(() => redis.disconnect());

  it('answers true once per live key, under its prefix, expiring with the presentation', async () => {
    const prefix = freshRedisPrefix();
    const cache = createRedisReplayCache({ client: redis, prefix });
    const expiresAt = Date.now() + HOUR;
    expect(await cache.remember('vp:urn:uuid:1', expiresAt)).toBe(true);
    expect(await cache.remember('vp:urn:uuid:1', expiresAt)).toBe(false);
    expect(await redis.pexpiretime(`${prefix}vp:urn:uuid:1`)).toBe(expiresAt);
    expect(await cache.remember('vp:urn:uuid:2', Date.now() - 1)).toBe(false); // already expired
    expect(await redis.exists(`${prefix}vp:urn:uuid:2`)).toBe(0);
  });

  it('lets exactly one of many concurrent attempts through, across clients', async () => {
    const prefix = freshRedisPrefix();
    const others = [client(redisUrl()), client(redisUrl()), client(redisUrl())];
    try {
      const caches = [redis, ...others].map((c) => createRedisReplayCache({ client: c, prefix }));
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (caches[i % caches.length] as (typeof caches)[0]).remember('k', Date.now() + HOUR),
        ),
      );
      expect(answers.filter((a) => a)).toHaveLength(1);
    } finally {
      for (const c of others) c.disconnect();
    }
  });

  it('refuses bad options at setup', () => {
    expect(() => createRedisReplayCache({ client: {} as never })).toThrow(TypeError);
    expect(() => createRedisReplayCache({ client: redis, timeoutMs: 0 })).toThrow(RangeError);
  });
});

describe('createRedisReplayCache with Redis gone', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
    await server.stop();
  });

  it('rejects with ReplayStoreError (REPLAYED) when the command fails, and tells onError', async () => {
    const redis = client(server.url, { enableOfflineQueue: false });
    const seen: unknown[] = [];
    const cache = createRedisReplayCache({ client: redis, onError: (e) => seen.push(e) });
    try {
      const error = await Promise.resolve(cache.remember('k', Date.now() + HOUR)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReplayStoreError);
      expect(error).toMatchObject({ code: 'REPLAYED', message: expect.stringMatching(/Redis refused the command/) });
      expect(seen).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
  });

  it('rejects when Redis does not answer within timeoutMs (commands queued for a reconnect)', async () => {
    const redis = client(server.url, { maxRetriesPerRequest: null });
    const cache = createRedisReplayCache({ client: redis, timeoutMs: 50 });
    try {
      await expect(cache.remember('k', Date.now() + HOUR)).rejects.toMatchObject({
        code: 'REPLAYED',
        message: expect.stringMatching(/no answer within 50 ms/),
      });
    } finally {
      redis.disconnect();
    }
  });

  it('makes verifyPresentation refuse REPLAYED at the replay check, naming the store', async () => {
    const redis = client(server.url, { enableOfflineQueue: false });
    try {
      const result = await verifyPresentation(await present(), {
        trustedIssuers: [platform.did],
        expectedDomain: TARGET,
        resolver: testResolver(),
        replayCache: createRedisReplayCache({ client: redis }),
      });
      expect(result).toMatchObject({ valid: false, reason: 'REPLAYED', failedCheck: 'replay' });
      expect(result.valid === false && result.message).toMatch(/shared replay store/);
    } finally {
      redis.disconnect();
    }
  });
});

interface VerifierProcess {
  url: string;
  child: ChildProcess;
}

async function startVerifier(env: Record<string, string>): Promise<VerifierProcess> {
  const child = spawn(process.execPath, [bundled('verifier-process')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  while (!/listening \d+/.test(output)) {
    if (child.exitCode !== null) throw new Error(`the verifier process exited: ${output}`);
    await once(child.stdout, 'data');
  }
  return { url: `http://127.0.0.1:${/listening (\d+)/.exec(output)?.[1]}`, child };
}

async function answer(
  verifier: VerifierProcess,
  vp: unknown,
): Promise<{ status: number; reason?: string; message?: string }> {
  const response = await fetch(`${verifier.url}/files/1`, { headers: { authorization: encodePresentationHeader(vp) } });
  const body = (await response.json()) as { reason?: string; message?: string };
  return { status: response.status, reason: body.reason, message: body.message };
}

describe('two verifier processes sharing one Redis', () => {
  let redis: RedisServer;
  let a: VerifierProcess;
  let b: VerifierProcess;

  beforeAll(async () => {
    redis = await startRedis(); // its own: the last test takes it away
    const env = { TRUSTED_ISSUER: platform.did, TARGET, REDIS_URL: redis.url, REDIS_PREFIX: freshRedisPrefix() };
    [a, b] = await Promise.all([startVerifier(env), startVerifier(env)]);
  }, 60_000);

  afterAll(async () => {
    for (const v of [a, b]) {
      if (!v) continue;
      const gone = exited(v.child);
      v.child.kill('SIGKILL');
      await gone;
    }
    await redis?.stop();
  });

  it('refuses on one process, as REPLAYED, a presentation the other accepted', async () => {
    const vp = await present();
    expect(await answer(a, vp)).toMatchObject({ status: 200 });
    expect(await answer(b, vp)).toMatchObject({ status: 401, reason: 'REPLAYED' });
    expect(await answer(a, vp)).toMatchObject({ status: 401, reason: 'REPLAYED' });
  });

  it('lets exactly one of concurrent uses of one presentation through, over both processes', async () => {
    const vp = await present();
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => answer(i % 2 ? a : b, vp)));
    expect(answers.filter((x) => x.status === 200)).toHaveLength(1);
    expect(answers.filter((x) => x.status === 401 && x.reason === 'REPLAYED')).toHaveLength(15);
  });

  it('refuses every presentation (401 REPLAYED, not a 5xx) while Redis is down, and keeps serving', async () => {
    await redis.stop();
    for (const verifier of [a, b]) {
      const refused = await answer(verifier, await present());
      expect(refused).toMatchObject({ status: 401, reason: 'REPLAYED' });
      expect(refused.message).toMatch(/shared replay store/);
    }
    expect(await answer(a, { not: 'a presentation' })).toMatchObject({ status: 400, reason: 'MALFORMED' });
  });
});

describe('two mcpAuth instances sharing one Redis for DPoP proofs', () => {
  it('refuses at one a proof the other accepted (DPOP_PROOF_REPLAYED), and refuses rather than fails with Redis gone', async () => {
    const redis = await startRedis();
    const issuer = await startTokenServer();
    const clients = [client(redis.url), client(redis.url)];
    const prefix = freshRedisPrefix();
    const fixtures: McpFixture[] = [];
    try {
      const options = (resource: string, i: number): McpAuthOptions => ({
        resource,
        authorizationServer: issuer.url,
        tools: TOOLS,
        replayCache: createRedisReplayCache({ client: clients[i] as Redis, prefix, timeoutMs: 200 }),
      });
      const first = await startHonoMcp((resource) => options(resource, 0));
      fixtures.push(first);
      // Both serve one resource, as two instances behind a load balancer do.
      fixtures.push(await startHonoMcp(() => options(first.resource, 1)));
      const key = await dpopKey();
      const token = await issuer.mint({ aud: first.resource, cnf: { jkt: key.jkt } });
      const send = (fixture: McpFixture, proof: string) =>
        fetch(`${fixture.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `DPoP ${token}`,
            dpop: proof,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
      const proof = await dpopProof(key, 'POST', first.resource, token);
      expect((await send(first, proof)).status).toBe(200);
      const replayed = await send(fixtures[1] as McpFixture, proof);
      expect({ status: replayed.status, body: await replayed.json() }).toMatchObject({
        status: 401,
        body: { reason: 'DPOP_PROOF_REPLAYED' },
      });
      await redis.stop();
      const down = await send(first, await dpopProof(key, 'POST', first.resource, token));
      const body = (await down.json()) as { reason: string; error_description?: string };
      expect({ status: down.status, reason: body.reason }).toEqual({ status: 401, reason: 'DPOP_PROOF_REPLAYED' });
    } finally {
      await Promise.all(fixtures.map((f) => f.close()));
      for (const c of clients) c.disconnect();
      await issuer.close();
      await redis.stop();
    }
  });
});
