// SERVICE_WORKERS=2: a real cluster (primary + 2 workers) on a FRESH database, so both workers
// initialise the same empty file at the same time. They must act as one issuer: one DID
// document with one key, one session-token key (first writer wins), credentials signed by that
// key whichever worker issued them. The primary restarts a worker killed with SIGKILL, and on
// SIGTERM every worker drains and the primary exits 0.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundled } from '../../support/bundles.ts';
import { freshRequest, spawnIssuer, type IssuerProcess } from '../../support/issuer-child.ts';
import { call, tempDir, TEST_ADMIN_KEY } from '../../support/issuer.ts';

let cluster: IssuerProcess;
let url: string;

const workerPids = () =>
  new Set(cluster.lines.filter((line) => line.msg === 'worker started').map((line) => Number(line.pid)));

beforeAll(async () => {
  const dir = tempDir();
  cluster = spawnIssuer([bundled('issuer')], {
    NODE_ENV: 'development',
    PORT: '0',
    SERVICE_WORKERS: '2',
    SERVICE_SQLITE_PATH: join(dir, 'issuer.db'),
    SERVICE_ADMIN_API_KEY: TEST_ADMIN_KEY,
    LOG_LEVEL: 'info',
  });
  const started = await cluster.waitFor((line) => line.msg === 'issuer started' && line.role === 'primary');
  url = String(started.url);
  await cluster.waitFor(() => workerPids().size === 2);
}, 120_000);

afterAll(() => {
  cluster.child.kill('SIGKILL');
});

/** The pids of the workers that logged the requests with these ids. */
function servedBy(requestIds: readonly string[]): Set<number> {
  const ids = new Set(requestIds);
  return new Set(
    cluster.lines
      .filter((line) => line.msg === 'request' && ids.has(String(line.requestId)))
      .map((line) => Number(line.pid)),
  );
}

async function onboardServerAgent(): Promise<{ proof: { verificationMethod: string } }> {
  const minted = await call(url, '/v1/enrollment-tokens', {
    admin: true,
    body: { requestedScopes: ['files:read'], maxDelegationDepth: 1, requestedDomains: ['files.example.com'] },
  });
  const start = await call(url, '/v1/onboard', { body: { token: minted.json.token, custody: 'server' } });
  const done = await call(url, '/v1/onboard/verify', {
    body: { challengeId: start.json.challengeId, challenge: start.json.challenge },
  });
  expect(done.status).toBe(201);
  return done.json.verifiableCredential as { proof: { verificationMethod: string } };
}

describe('a cluster of 2 workers on a fresh database', () => {
  it('serves from both workers with one DID document, one key and one session-token key', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `cluster-${i}`);
    // One connection per request: the primary hands connections to the workers in turn.
    const answers = await Promise.all(
      ids.map((id, i) =>
        freshRequest(`${url}${i % 2 === 0 ? '/.well-known/jwks.json' : '/.well-known/did.json'}`, {
          headers: { 'x-request-id': id },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
    await cluster.waitFor(() => servedBy(ids).size === 2, 10_000);
    const jwks = new Set(answers.filter((_, i) => i % 2 === 0).map((a) => a.body));
    const documents = new Set(answers.filter((_, i) => i % 2 === 1).map((a) => a.body));
    expect(jwks.size).toBe(1);
    expect(documents.size).toBe(1);
    const document = JSON.parse([...documents][0] ?? '{}') as { verificationMethod: { id: string }[] };
    expect(document.verificationMethod.map((m) => m.id)).toEqual([expect.stringMatching(/#key-1$/)]);
    const keys = JSON.parse([...jwks][0] ?? '{}') as { keys: unknown[] };
    expect(keys.keys).toHaveLength(1);
  });

  it('issues credentials on every worker under the one issuer key', async () => {
    const credentials = await Promise.all(Array.from({ length: 6 }, () => onboardServerAgent()));
    const document = JSON.parse((await freshRequest(`${url}/.well-known/did.json`)).body) as {
      verificationMethod: { id: string }[];
    };
    const key = document.verificationMethod[0]?.id;
    expect(credentials.map((c) => c.proof.verificationMethod)).toEqual(credentials.map(() => key));
    const onboarders = new Set(
      cluster.lines
        .filter((line) => line.msg === 'request' && line.path === '/v1/onboard/verify')
        .map((line) => Number(line.pid)),
    );
    expect(onboarders.size).toBe(2);
  });

  it('restarts a worker killed with SIGKILL, and keeps serving', async () => {
    const [victim] = [...workerPids()];
    process.kill(victim ?? 0, 'SIGKILL');
    const exited = await cluster.waitFor((line) => line.msg === 'worker exited: restarting');
    expect(exited).toMatchObject({ level: 'error', role: 'primary', workerPid: victim, signal: 'SIGKILL' });
    await cluster.waitFor(() => workerPids().size === 3);
    const answers = await Promise.all(Array.from({ length: 6 }, () => freshRequest(`${url}/v1/ready`)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  }, 60_000);

  it('on SIGTERM, drains every worker and exits 0', async () => {
    cluster.child.kill('SIGTERM');
    expect(await cluster.exited).toBe(0);
    const stopped = cluster.lines.filter((line) => line.msg === 'worker stopped');
    expect(stopped.map((line) => line.code)).toEqual([0, 0]);
    expect(cluster.lines.at(-1)).toMatchObject({ msg: 'stopped', role: 'primary', signal: 'SIGTERM' });
    expect(cluster.otherStdout).toEqual([]);
  }, 60_000);
});
