// SERVICE_WORKERS: the issuer as one process against a cluster of 2 workers (plus the primary,
// which accepts the connections and hands them out), each started as `npm start` would
// (issuer/main.ts), on its own SQLite file, at 32 connections, in alternating rounds (1, 2, 2, 1,
// …) since the machine is shared:
//   health     GET /v1/health — no database, no crypto: what the cluster itself costs
//   vpVerify   POST /v1/vp/verify with a fresh presentation per request (its replay and audit
//              records are written to the one SQLite file both workers share)
//
// Reported per configuration: wall-clock requests/s, and requests per server CPU-second — the
// CPU time of every server process (primary, workers, and under tsx their esbuild services, idle
// once the code is loaded), read from /proc/<pid>/stat around each round. On a 2-core machine
// that also runs the load generator, wall-clock scaling cannot show; the cost per request can:
// the issue asks for ≥ 0.9 × one process's rate per CPU-second.
//
//   npm run bench -- cluster     (through bench/run.ts)
//   npx tsx bench/cluster.ts     (alone; prints the same JSON)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IssuerProcess } from '../test/support/issuer-child.ts';
import {
  benchVpVerify,
  enrollAgent,
  load,
  presentations,
  summarize as summarizeRun,
  type Run,
  type Stock,
} from './http.ts';
import { loadRun, median, round } from './measure.ts';
import { cpuSeconds as treeCpuSeconds, issuerProcesses, startIssuer } from './processes.ts';

const CONFIGS = [1, 2] as const;
const ROUNDS = Number(process.env.BENCH_CLUSTER_ROUNDS ?? 4);
const ROUND_SECONDS = Number(process.env.BENCH_CLUSTER_ROUND_SECONDS ?? 4);
/** Presentations per configuration: more than its rounds can consume. */
const PRESENTATIONS = Number(process.env.BENCH_CLUSTER_PRESENTATIONS ?? 100_000);

interface Server {
  workers: number;
  url: string;
  issuer: IssuerProcess;
  dir: string;
}

/** utime + stime of every process of the server (primary, workers; tsx's esbuild service), in seconds. */
function cpuSeconds(server: Server): number {
  return treeCpuSeconds([server.issuer.child.pid ?? 0]);
}

async function startServer(workers: number): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'mandate-bench-cluster-'));
  const { url, issuer } = await startIssuer(
    { SERVICE_WORKERS: String(workers), SERVICE_SQLITE_PATH: join(dir, 'issuer.db') },
    (started) => issuerProcesses(started.child.pid ?? 0) === (workers > 1 ? workers + 1 : 1),
    `the ${workers}-worker issuer`,
  );
  return { workers, url, issuer, dir };
}

async function stopServer(server: Server): Promise<void> {
  server.issuer.child.kill('SIGTERM');
  await server.issuer.exited;
  rmSync(server.dir, { recursive: true, force: true });
}

interface Summary {
  workers: number;
  serverProcesses: number;
  requestsPerSec: number;
  requestsPerServerCpuSec: number;
  /** Server CPU-seconds per wall-second: how many cores the server kept busy. */
  coresUsed: number;
  p50Ms: number;
  p99Ms: number;
  perRound: number[];
  non2xx: number;
  errors: number;
}

async function stockFor(server: Server): Promise<Stock> {
  const { agent, credential } = await enrollAgent(server.url);
  return { bodies: await presentations(agent, credential, PRESENTATIONS), next: 0 };
}

function summarize(server: Server, runs: Array<Run & { seconds: number; cpu: number }>): Summary {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const cpu = runs.reduce((n, r) => n + r.cpu, 0);
  return {
    workers: server.workers,
    serverProcesses: issuerProcesses(server.issuer.child.pid ?? 0),
    requestsPerSec: round(requests / seconds, 1),
    requestsPerServerCpuSec: round(requests / cpu, 1),
    coresUsed: round(cpu / seconds, 2),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    perRound: runs.map((r) => r.requestsPerSec),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

type Measured = Run & { seconds: number; cpu: number };

/** `measure` on each server in alternating rounds (1, 2, 2, 1, …), with the servers' CPU time around each. */
async function interleaved(servers: Server[], measure: (i: number) => Promise<Run>): Promise<Measured[][]> {
  const rounds = servers.map((): Measured[] => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const server = servers[i] as Server;
      const before = cpuSeconds(server);
      const result = await measure(i);
      rounds[i]?.push({ ...result, seconds: ROUND_SECONDS, cpu: cpuSeconds(server) - before });
    }
  }
  return rounds;
}

function compare(servers: Server[], rounds: Measured[][]): Record<string, unknown> {
  const [one, two] = servers.map((server, i) => summarize(server, rounds[i] ?? []));
  return {
    oneProcess: one,
    twoWorkers: two,
    perCpuSecRatio: round((two?.requestsPerServerCpuSec ?? 0) / (one?.requestsPerServerCpuSec ?? 1), 3),
    wallClockRatio: round((two?.requestsPerSec ?? 0) / (one?.requestsPerSec ?? 1), 3),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const servers: Server[] = [];
  try {
    for (const workers of CONFIGS) servers.push(await startServer(workers));
    const stocks = await Promise.all(servers.map((server) => stockFor(server)));
    // Warm-up: one round per issuer process, so that each has served as many requests as the
    // single process before it is measured (V8 optimizes a process's code as it runs it).
    for (const [i, server] of servers.entries())
      await benchVpVerify(server.url, stocks[i] ?? { bodies: [], next: 0 }, ROUND_SECONDS * server.workers);
    // No database, no crypto: what the cluster itself costs (the primary handing out connections).
    const health = await interleaved(servers, async (i) =>
      summarizeRun(await load({ url: `${servers[i]?.url ?? ''}/v1/health`, duration: ROUND_SECONDS })),
    );
    const vpVerify = await interleaved(servers, (i) =>
      benchVpVerify(servers[i]?.url ?? '', stocks[i] as Stock, ROUND_SECONDS),
    );
    return {
      ...loadRun(32, ROUND_SECONDS, ROUNDS),
      health: { endpoint: 'GET /v1/health', ...compare(servers, health) },
      vpVerify: { endpoint: 'POST /v1/vp/verify (fresh presentation per request)', ...compare(servers, vpVerify) },
    };
  } finally {
    for (const server of servers) await stopServer(server);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
}
