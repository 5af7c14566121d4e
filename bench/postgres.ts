// The PostgreSQL adapter against SQLite (issue 26 §5): POST /v1/vp/verify with a fresh
// presentation per request, 32 connections in all, on
//   sqlite      one issuer process on its SQLite file (the default deployment)
//   postgres1   one issuer process on PostgreSQL
//   postgres3   three issuer processes on one PostgreSQL database, the connections spread over them
//   sqlite3     SERVICE_WORKERS=3 on one SQLite file: three issuer processes without PostgreSQL,
//               to tell what three processes on this machine cost from what the database costs
//   postgres3node  postgres3 with SERVICE_ED25519_BACKEND=node pinned: what the default,
//               adaptive, should match there, since issuer processes that take every core keep
//               their signature checks on the loop (operations.md §Choosing the Ed25519 backend)
// in alternating rounds, since the machine is shared. PostgreSQL runs on this machine with its
// defaults for durability except fsync (the throwaway test instance of test/support/postgres.ts).
//
// Reported: wall-clock requests/s and requests per CPU-second of the whole server side — the
// issuer processes AND, for PostgreSQL, every PostgreSQL process (postmaster and backends) —
// read from /proc around each round. This 2-core machine also runs the load generator, so
// wall-clock scaling cannot show; the cost per request can. The issue asks for PostgreSQL ≥ 0.8 ×
// SQLite's rate per CPU-second.
//
// BENCH_PG_RATE=N holds the offered load at N requests/s in all (autocannon's overallRate),
// below what any deployment can serve, to read the cost per request away from saturation.
//
//   npm run bench -- postgres    (through bench/run.ts)
//   npx tsx bench/postgres.ts    (alone; prints the same JSON)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase, startPostgres, type PostgresServer } from '../test/support/postgres.ts';
import type { IssuerProcess } from '../test/support/issuer-child.ts';
import { benchPosts, enrollAgent, presentations, type Run, type Stock } from './http.ts';
import { loadRun, median, round } from './measure.ts';
import { cpuSeconds as treeCpuSeconds, issuerProcesses, preemptions, startIssuer } from './processes.ts';

const ROUNDS = Number(process.env.BENCH_PG_ROUNDS ?? 4);
const ROUND_SECONDS = Number(process.env.BENCH_PG_ROUND_SECONDS ?? 4);
const CONNECTIONS = 32;
const RATE = Number(process.env.BENCH_PG_RATE ?? 0);
const PRESENTATIONS = Number(process.env.BENCH_PG_PRESENTATIONS ?? 100_000);

interface Deployment {
  name: 'sqlite' | 'sqlite3' | 'postgres1' | 'postgres3' | 'postgres3node';
  urls: string[];
  /** Issuer processes serving the load (warm-up: one round each). */
  processes: number;
  issuers: IssuerProcess[];
  /** The PostgreSQL server's postmaster, whose descendants are its backends. */
  postgresPid?: number;
  cleanup(): Promise<void>;
}

/** utime + stime, in seconds, of the deployment's issuer processes and of its PostgreSQL processes. */
function cpuSeconds(deployment: Deployment): { issuers: number; database: number } {
  return {
    issuers: treeCpuSeconds(deployment.issuers.map((i) => i.child.pid ?? 0)),
    database: treeCpuSeconds([deployment.postgresPid ?? -1]),
  };
}

async function stopIssuers(issuers: IssuerProcess[]): Promise<void> {
  for (const issuer of issuers) issuer.child.kill('SIGTERM');
  await Promise.all(issuers.map((issuer) => issuer.exited));
}

/**
 * One issuer on its SQLite file; or (`workers` 3) a SERVICE_WORKERS=3 cluster on it — three
 * issuer processes on one machine without PostgreSQL: what three processes cost in themselves.
 */
async function sqliteDeployment(workers: 1 | 3): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), 'mandate-bench-pg-'));
  const { url, issuer } = await startIssuer(
    { SERVICE_SQLITE_PATH: join(dir, 'issuer.db'), SERVICE_WORKERS: String(workers) },
    (started) => issuerProcesses(started.child.pid ?? 0) === (workers > 1 ? workers + 1 : 1),
  );
  return {
    name: workers === 1 ? 'sqlite' : 'sqlite3',
    urls: [url],
    processes: workers,
    issuers: [issuer],
    cleanup: async () => {
      await stopIssuers([issuer]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresDeployment(server: PostgresServer, instances: 1 | 3, backend?: 'node'): Promise<Deployment> {
  const db = await createDatabase(server.url, `mandate_bench_${instances}${backend ?? ''}`);
  // One set of secrets for all instances: they are one issuer.
  const shared = {
    SERVICE_STORAGE_ADAPTER: 'postgres',
    SERVICE_DATABASE_URL: db.url,
    SERVICE_SIGNING_KEY: 'ab'.repeat(32),
    SERVICE_KEY_ENCRYPTION_KEY: 'cd'.repeat(32),
    API_BASE_URL: 'http://127.0.0.1:9',
    ...(backend === undefined ? {} : { SERVICE_ED25519_BACKEND: backend }),
  };
  const started = [];
  for (let i = 0; i < instances; i++) started.push(await startIssuer(shared));
  const issuers = started.map((s) => s.issuer);
  return {
    name: instances === 1 ? 'postgres1' : backend === undefined ? 'postgres3' : 'postgres3node',
    urls: started.map((s) => s.url),
    processes: instances,
    issuers,
    postgresPid: server.pid,
    cleanup: async () => {
      await stopIssuers(issuers);
      await db.drop();
    },
  };
}

/** Fresh presentations for one deployment, split over its instances (any instance verifies any). */
async function stocksFor(deployment: Deployment): Promise<Stock[]> {
  const { agent, credential } = await enrollAgent(deployment.urls[0] ?? '');
  const bodies = await presentations(agent, credential, PRESENTATIONS);
  const n = deployment.urls.length;
  return deployment.urls.map((_, i) => ({ bodies: bodies.filter((_b, j) => j % n === i), next: 0 }));
}

type Measured = Run & { cpu: number; databaseCpu: number; preemptions: number };

/** One round: 32 connections spread evenly over the deployment's instances, at once. */
async function round1(deployment: Deployment, stocks: Stock[]): Promise<Measured> {
  const before = cpuSeconds(deployment);
  const issuerPids = deployment.issuers.map((i) => i.child.pid ?? 0);
  const preempted = preemptions(issuerPids);
  const per = Math.floor(CONNECTIONS / deployment.urls.length);
  const runs = await Promise.all(
    deployment.urls.map((url, i) =>
      benchPosts(url, '/v1/vp/verify', { 'content-type': 'application/json' }, stocks[i] as Stock, ROUND_SECONDS, {
        connections: i === 0 ? CONNECTIONS - per * (deployment.urls.length - 1) : per,
        ...(RATE > 0 ? { overallRate: RATE / deployment.urls.length } : {}),
      }),
    ),
  );
  const after = cpuSeconds(deployment);
  const issuerPreemptions = preemptions(issuerPids) - preempted;
  const databaseCpu = after.database - before.database;
  const cpu = after.issuers - before.issuers + databaseCpu;
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  return {
    ...(runs[0] as Run),
    requests,
    requestsPerSec: requests / ROUND_SECONDS,
    p50Ms: Math.max(...runs.map((r) => r.p50Ms)),
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    cpu,
    databaseCpu,
    preemptions: issuerPreemptions,
  };
}

function summary(runs: Measured[]) {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const cpu = runs.reduce((n, r) => n + r.cpu, 0);
  const databaseCpu = runs.reduce((n, r) => n + r.databaseCpu, 0);
  return {
    requestsPerSec: round(requests / (runs.length * ROUND_SECONDS), 1),
    requestsPerServerCpuSec: round(requests / cpu, 1),
    coresUsed: round(cpu / (runs.length * ROUND_SECONDS), 2),
    // Of the server side's CPU time, the share PostgreSQL's processes used.
    databaseCpuShare: round(databaseCpu / cpu, 2),
    // The issuer processes' CPU per request in µs, and how often their threads lost a core.
    issuerCpuUsPerRequest: round((1e6 * (cpu - databaseCpu)) / requests, 0),
    issuerPreemptionsPerRequest: round(runs.reduce((n, r) => n + r.preemptions, 0) / requests, 2),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    perRound: runs.map((r) => round(r.requestsPerSec, 1)),
    perRoundPerServerCpuSec: runs.map((r) => round(r.requests / r.cpu, 1)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const server = await startPostgres();
  const deployments: Deployment[] = [];
  try {
    deployments.push(
      await sqliteDeployment(1),
      await postgresDeployment(server, 1),
      await postgresDeployment(server, 3),
      await sqliteDeployment(3),
      await postgresDeployment(server, 3, 'node'),
    );
    const stocks = await Promise.all(deployments.map(stocksFor));
    // Warm-up: one round per issuer process, so that each has served as many requests as the
    // single instance before it is measured (V8 optimizes a process's code as it runs it).
    for (const [i, d] of deployments.entries())
      for (let p = 0; p < d.processes; p++) await round1(d, stocks[i] as Stock[]);
    const results = deployments.map((): Measured[] => []);
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? [0, 1, 2, 3, 4] : [4, 3, 2, 1, 0];
      for (const i of order) results[i]?.push(await round1(deployments[i] as Deployment, stocks[i] as Stock[]));
    }
    const [sqlite, postgres1, postgres3, sqlite3, postgres3node] = results.map(summary);
    const ratio = (a?: { requestsPerServerCpuSec: number }) =>
      round((a?.requestsPerServerCpuSec ?? 0) / (sqlite?.requestsPerServerCpuSec ?? 1), 3);
    // Round by round against SQLite's round next to it, then the median: a load that drifts
    // over the run (the machine is shared) moves both sides of a pair alike.
    const roundRatio = (a?: { perRoundPerServerCpuSec: number[] }) =>
      round(median((a?.perRoundPerServerCpuSec ?? []).map((x, r) => x / (sqlite?.perRoundPerServerCpuSec[r] ?? 1))), 3);
    return {
      endpoint: 'POST /v1/vp/verify (fresh presentation per request)',
      ...loadRun(CONNECTIONS, ROUND_SECONDS, ROUNDS),
      sqlite,
      postgres1,
      postgres3,
      sqliteThreeWorkers: sqlite3,
      postgres3NodeBackend: postgres3node,
      perCpuSecRatio: {
        postgres1: ratio(postgres1),
        postgres3: ratio(postgres3),
        sqliteThreeWorkers: ratio(sqlite3),
        postgres3NodeBackend: ratio(postgres3node),
      },
      perCpuSecRatioRoundMedian: {
        postgres1: roundRatio(postgres1),
        postgres3: roundRatio(postgres3),
        sqliteThreeWorkers: roundRatio(sqlite3),
        postgres3NodeBackend: roundRatio(postgres3node),
      },
      // Three PostgreSQL instances against three processes on SQLite: the database's part of the cost.
      postgres3OverSqliteThreeWorkers: round(
        (postgres3?.requestsPerServerCpuSec ?? 0) / (sqlite3?.requestsPerServerCpuSec ?? 1),
        3,
      ),
    };
  } finally {
    for (const d of deployments) await d.cleanup();
    await server.stop();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
}
