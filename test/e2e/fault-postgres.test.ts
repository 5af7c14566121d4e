// Issue 39 §1: PostgreSQL going away under load, across two issuer processes on one database
// (docs/operations.md §When PostgreSQL goes away). The server is this file's own (the run's
// shared one must stay up): it is stopped at once and started again, the issuers' backends are
// terminated, and its connection slots are filled, each while writers and verifiers keep sending
// requests to both instances. Throughout: no process exits, every answer is a success or a 503
// DATABASE_UNAVAILABLE with Retry-After, `/v1/health` answers 200, every write answered 2xx is
// there afterwards, and the instances serve again by themselves once the database is back.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex } from '../../wallet/crypto/bytes.ts';
import { deploymentEnv, startIssuerProcess, type IssuerProcess } from '../support/issuer-process.ts';
import { agentPath, call, type CallOptions, type CallResult } from '../support/issuer.ts';
import { createDatabase, startPostgres, type FreshDatabase, type PostgresServer } from '../support/postgres.ts';

const TARGET = 'files.example.com';
const INSTANCES = 2;
/** Concurrent request loops while a fault is injected. */
const WORKERS = 6;
/** Small, so that filling the slots takes few connections (3 stay reserved for superusers). */
const MAX_CONNECTIONS = 24;
const ISSUER_ROLE = 'mandate_issuer';
const HEALTH_EVERY_MS = 25;

let server: PostgresServer;
let db: FreshDatabase;
let issuers: IssuerProcess[] = [];
let agentDid: string;
/** The agent's AgentCredential, as issued. */
let credential: unknown;

/** The database as the issuers' own role: not a superuser, so the server's reserved slots and a database limit apply to it. */
function issuerUrl(): string {
  const url = new URL(db.url);
  url.username = ISSUER_ROLE;
  return url.href;
}

function at(i: number, path: string, options: CallOptions = {}): Promise<CallResult> {
  return call((issuers[i % issuers.length] as IssuerProcess).url, path, options);
}

const mintBody = { requestedScopes: ['files:read'], maxDelegationDepth: 0, requestedDomains: [TARGET] };

/** A statement on the server as its superuser, on a connection of its own. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Ends every backend of the issuers (what an operator's pg_terminate_backend does): SQLSTATE 57P01 for them. */
const terminateIssuerBackends = () =>
  admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'mandate-issuer'`);

/** A fresh presentation of the agent for TARGET, signed through instance `i`. */
async function present(i: number): Promise<{ presentation: unknown; challenge: string }> {
  const challenge = bytesToHex(randomBytes(16));
  const vp = await at(i, agentPath(agentDid, '/vp'), { admin: true, body: { targetService: TARGET, challenge } });
  expect(vp.status).toBe(200);
  return { presentation: vp.json, challenge };
}

/** 503 DATABASE_UNAVAILABLE with a Retry-After in seconds. */
function expectUnavailable(res: CallResult): void {
  expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status: 503, code: 'DATABASE_UNAVAILABLE' });
  expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
}

/** Superuser connections into `hogs` until the server refuses one with 53300 (too many clients). */
async function takeEverySlot(hogs: pg.Client[]): Promise<void> {
  for (;;) {
    const hog = new pg.Client({ connectionString: server.url });
    const failed = await hog.connect().then(
      () => undefined,
      (error: { code?: string }) => error.code ?? 'no code',
    );
    if (failed === '53300') return;
    if (failed !== undefined) throw new Error(`connecting a slot hog failed: ${failed}`);
    hogs.push(hog);
  }
}

/** What one answer during a fault was: a success, a proper refusal, or something that must not happen. */
type Outcome = 'ok' | 'refused' | 'wrong';

/** Requests from WORKERS loops over both instances, and what they were answered, until `stop()`. */
class Load {
  readonly acknowledged: string[] = [];
  readonly wrong: string[] = [];
  readonly counts = { ok: 0, refused: 0 };
  private running = true;
  private readonly waiters = new Set<() => void>();
  private readonly loops: Promise<void>[];

  constructor() {
    this.loops = Array.from({ length: WORKERS }, (_, w) => this.loop(w));
  }

  /**
   * Resolves once `predicate` holds (checked after each answer), or once waiting is pointless:
   * an instance has exited, or answers keep coming wrong (the assertions after say what).
   */
  until(predicate: () => boolean): Promise<void> {
    const done = () => predicate() || this.wrong.length >= 20 || issuers.some((i) => i.child.exitCode !== null);
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!done()) return;
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private note(outcome: Outcome, what: string): void {
    if (outcome === 'wrong') this.wrong.push(what);
    else this.counts[outcome]++;
    for (const waiter of [...this.waiters]) waiter();
  }

  /** A success, or a 503 DATABASE_UNAVAILABLE with Retry-After; anything else is `wrong`. */
  private judge(res: CallResult | Error, what: string): boolean {
    if (res instanceof Error) {
      this.note('wrong', `${what}: ${res.message}`);
      return false;
    }
    if (res.status >= 200 && res.status < 300) {
      this.note('ok', what);
      return true;
    }
    const code = (res.json as { error?: { code?: string } } | undefined)?.error?.code;
    const proper =
      res.status === 503 && code === 'DATABASE_UNAVAILABLE' && /^\d+$/.test(res.headers.get('retry-after') ?? '');
    this.note(proper ? 'refused' : 'wrong', `${what}: ${res.status} ${JSON.stringify(res.json).slice(0, 200)}`);
    return false;
  }

  private async loop(w: number): Promise<void> {
    for (let n = 0; this.running; n++) {
      const i = w + n;
      if (n % 3 !== 2) {
        const res = await at(i, '/v1/enrollment-tokens', { admin: true, body: mintBody }).catch((e: Error) => e);
        if (this.judge(res, 'mint') && !(res instanceof Error)) this.acknowledged.push(res.json.tokenId as string);
        continue;
      }
      // A verification of a fresh presentation: valid (200) when the database answers, 503 when not.
      // Half of them with a session token (the live path), half without (the read-cache path).
      const challenge = bytesToHex(randomBytes(16));
      const vp = await at(i, agentPath(agentDid, '/vp'), {
        admin: true,
        body: { targetService: TARGET, challenge },
      }).catch((e: Error) => e);
      if (!this.judge(vp, 'present') || vp instanceof Error) continue;
      const verdict = await at(i + 1, '/v1/vp/verify', {
        body: { presentation: vp.json, expectedTarget: TARGET, challenge, session: n % 2 === 0 },
      }).catch((e: Error) => e);
      this.judge(verdict, 'verify');
    }
  }
}

/** `/v1/health` of every instance, over and over until `stop()`: the statuses seen. */
function pollHealth(): { stop: () => Promise<number[]> } {
  const seen: number[] = [];
  let running = true;
  const loops = issuers.map(async (_, i) => {
    while (running) {
      seen.push(
        await at(i, '/v1/health').then(
          (r) => r.status,
          () => 0,
        ),
      );
      await sleep(HEALTH_EVERY_MS); // a sampling rate, not a wait for something
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return seen;
    },
  };
}

/** Every token the instances list (paged), as instance `i` reads them. */
async function listedTokens(i: number): Promise<Set<string>> {
  const listed = new Set<string>();
  for (let cursor: string | undefined; ;) {
    const page = await at(i, `/v1/enrollment-tokens?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { admin: true });
    expect(page.status).toBe(200);
    for (const t of page.json.tokens as { tokenId: string }[]) listed.add(t.tokenId);
    cursor = page.json.nextCursor as string | undefined;
    if (!cursor) return listed;
  }
}

/**
 * Runs `fault` under load and checks what must hold through it: no answer other than a success
 * or a proper 503, health 200, both processes alive, every acknowledged write readable, and
 * each instance serving writes again (without a restart) once `fault` has put things back.
 */
async function underLoad(fault: (load: Load) => Promise<void>): Promise<Load> {
  const health = pollHealth();
  const load = new Load();
  await load.until(() => load.counts.ok >= 10);
  await fault(load);
  // Recovered: successes again after the fault was undone, from both instances' requests.
  const okBefore = load.counts.ok;
  await load.until(() => load.counts.ok >= okBefore + 4 * WORKERS);
  await load.stop();
  const statuses = await health.stop();
  // Alive first: a crash explains every other failure (its log's last lines say why).
  for (const issuer of issuers) expect(issuer.child.exitCode, issuer.stdout().slice(-3000)).toBeNull();
  expect(load.wrong).toEqual([]);
  expect(new Set(statuses)).toEqual(new Set([200]));
  for (const i of issuers.keys()) {
    const listed = await listedTokens(i);
    expect(load.acknowledged.filter((id) => !listed.has(id))).toEqual([]);
    const mint = await at(i, '/v1/enrollment-tokens', { admin: true, body: mintBody });
    expect(mint.status).toBe(201);
  }
  return load;
}

/** While the server is down: refusals pile up, readiness says so, and verifications are not verdicts. */
async function whileDown(load: Load, presentations: { presentation: unknown; challenge: string }[]): Promise<void> {
  const refused = load.counts.refused;
  await load.until(() => load.counts.refused >= refused + 2 * WORKERS);
  // While it is down, readiness says so, and a verification is not a verdict (403, or a VC-API
  // `verified: false`): the verifier decided nothing.
  for (const i of issuers.keys()) {
    const ready = await at(i, '/v1/ready');
    expect(ready.status).toBe(503);
    expect(ready.json.error.code).toBe('NOT_READY');
    const verdicts = [
      ...presentations.map(({ presentation, challenge }, session) =>
        at(i, '/v1/vp/verify', {
          body: { presentation, challenge, expectedTarget: TARGET, session: session === 1 },
        }),
      ),
      at(i, '/credentials/verify', { body: { verifiableCredential: credential } }),
    ];
    for (const verdict of await Promise.all(verdicts)) expectUnavailable(verdict);
  }
}

beforeAll(async () => {
  server = await startPostgres(undefined, { settings: { max_connections: String(MAX_CONNECTIONS) } });
  db = await createDatabase(server.url);
  await admin(`CREATE ROLE ${ISSUER_ROLE} LOGIN`);
  await admin(`ALTER DATABASE ${db.name} OWNER TO ${ISSUER_ROLE}`);
  const env = deploymentEnv({ databaseUrl: issuerUrl(), poolSize: 4 });
  issuers = await Promise.all(Array.from({ length: INSTANCES }, () => startIssuerProcess(env)));
  const token = await at(0, '/v1/enrollment-tokens', {
    admin: true,
    body: { ...mintBody, maxDelegationDepth: 1 },
  });
  const start = await at(0, '/v1/onboard', { body: { token: token.json.token, custody: 'server' } });
  const done = await at(1, '/v1/onboard/verify', {
    body: { challengeId: start.json.challengeId, challenge: start.json.challenge },
  });
  expect(done.status).toBe(201);
  agentDid = done.json.agentDid as string;
  credential = done.json.verifiableCredential;
}, 120_000);

afterAll(async () => {
  await Promise.all(issuers.map((i) => i.stop()));
  await server?.stop();
});

describe('two issuer instances while PostgreSQL goes away under load', () => {
  it('backends terminated (pg_terminate_backend, 57P01) mid-transaction: requests fail 503, processes live', async () => {
    await underLoad(async (load) => {
      for (let round = 0; round < 4; round++) {
        const seen = load.counts.ok + load.counts.refused;
        await load.until(() => load.counts.ok + load.counts.refused >= seen + WORKERS);
        await terminateIssuerBackends();
      }
    });
  }, 60_000);

  it('the server stopped at once (pg_ctl stop -m immediate) and started again: 503 while down, then served', async () => {
    const load = await underLoad(async (load) => {
      const presentations = await Promise.all([0, 1].map(() => present(0)));
      await server.halt();
      try {
        await whileDown(load, presentations);
      } finally {
        await server.resume();
      }
    });
    expect(load.counts.refused).toBeGreaterThan(0);
    const logs = issuers.map((i) => i.stdout()).join('');
    expect(logs).toMatch(/"code":"ECONNREFUSED"/);
    expect(logs).not.toMatch(/uncaught exception|unhandled rejection/);
  }, 60_000);

  it('connection slots exhausted (53300 too many clients): 503 with Retry-After until they free up', async () => {
    const hogs: pg.Client[] = [];
    const load = await underLoad(async (load) => {
      // The issuers' pools must open new connections, and must not win the slots being filled:
      // their database is closed to their (non-superuser) role meanwhile, then every slot of the
      // server is taken by superuser connections, then the database opened again.
      await admin(`ALTER DATABASE ${db.name} CONNECTION LIMIT 0`);
      try {
        await terminateIssuerBackends();
        await takeEverySlot(hogs);
        await (hogs[0] as pg.Client).query(`ALTER DATABASE ${db.name} CONNECTION LIMIT -1`);
        const refused = load.counts.refused;
        await load.until(() => load.counts.refused >= refused + 2 * WORKERS);
      } finally {
        await Promise.all(hogs.map((hog) => hog.end()));
        await admin(`ALTER DATABASE ${db.name} CONNECTION LIMIT -1`);
      }
    });
    expect(load.counts.refused).toBeGreaterThan(0);
    expect(issuers.map((i) => i.stdout()).join('')).toMatch(/"code":"53300"/);
  }, 60_000);
});
