// What changes to status lists cost the verifications around them (operations.md §Scaling out).
// A verdict of POST /v1/vp/verify is made with the hosted DIDs and list versions the process last
// read, and recorded only while the read generation is unchanged; every change to a hosted DID
// or to a list's version moves it, and the verdicts in flight are then refused at their record
// and made again with live reads. Here: one issuer as `npm start` starts it (SQLite), a fresh
// presentation per request at 32 connections, while a loop suspends and reinstates another
// agent's credential at RATE changes per second (each moves its status list's version), in
// alternating rounds per rate.
//
// Reported per rate: the changes made per second, requests/s, requests per issuer CPU-second,
// and that rate's requests per CPU-second over the rate-0 rounds' — also with the changes' own
// CPU taken out (each change's cost measured alone, in one round without load), which leaves
// what the verdicts made again cost.
//
//   npm run bench -- churn       (through bench/run.ts)
//   npx tsx bench/churn.ts       (alone; prints the same JSON)
//   BENCH_CHURN_RATES=0,10,100 BENCH_CHURN_ROUNDS=3 BENCH_CHURN_ROUND_SECONDS=4
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, benchPosts, enrollAgent, presentations, type Run, type Stock } from './http.ts';
import { loadRun, median, round } from './measure.ts';
import { cpuSeconds, startIssuer } from './processes.ts';

const RATES = (process.env.BENCH_CHURN_RATES ?? '0,10,100').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_CHURN_ROUNDS ?? 3);
const ROUND_SECONDS = Number(process.env.BENCH_CHURN_ROUND_SECONDS ?? 4);
const CONNECTIONS = 32;

/** The credential the changes are made to (another agent's), and whether it is suspended now. */
interface Target {
  vcId: string;
  suspended: boolean;
}

/** Suspends and reinstates the target in turn, `rate` changes per second, until `stop` resolves; the changes made. */
async function churn(url: string, target: Target, rate: number, stop: Promise<void>): Promise<number> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const start = performance.now();
  let changes = 0;
  while (!stopped && rate > 0) {
    const action = target.suspended ? 'reinstate' : 'suspend';
    const answer = await api(url, `/v1/vcs/${encodeURIComponent(target.vcId)}/${action}`, {}, true);
    if (answer.status !== 200) throw new Error(`${action}: ${answer.status} ${JSON.stringify(answer.json)}`);
    target.suspended = !target.suspended;
    changes++;
    const due = start + (changes * 1000) / rate;
    await Promise.race([stop, new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())))]);
  }
  return changes;
}

type Measured = Run & { cpu: number; changes: number };

async function round1(url: string, pid: number, stock: Stock, target: Target, rate: number): Promise<Measured> {
  const before = cpuSeconds([pid]);
  let done = (): void => undefined;
  const stop = new Promise<void>((resolve) => (done = resolve));
  const changing = churn(url, target, rate, stop);
  const run = await benchPosts(url, '/v1/vp/verify', { 'content-type': 'application/json' }, stock, ROUND_SECONDS, {
    connections: CONNECTIONS,
  });
  done();
  const changes = await changing;
  return { ...run, cpu: cpuSeconds([pid]) - before, changes };
}

/** CPU-seconds one change costs the issuer by itself (the changes alone, one round, no load). */
async function cpuPerChange(url: string, pid: number, target: Target, rate: number): Promise<number> {
  if (rate === 0) return 0;
  const before = cpuSeconds([pid]);
  const changes = await churn(url, target, rate, new Promise((resolve) => setTimeout(resolve, ROUND_SECONDS * 1000)));
  return (cpuSeconds([pid]) - before) / changes;
}

function summary(rate: number, runs: Measured[], perChange: number) {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const cpu = runs.reduce((n, r) => n + r.cpu, 0);
  const changes = runs.reduce((n, r) => n + r.changes, 0);
  return {
    rate,
    changesPerSec: round(changes / (runs.length * ROUND_SECONDS), 1),
    cpuMsPerChange: round(perChange * 1000, 2),
    requestsPerSec: round(requests / (runs.length * ROUND_SECONDS), 1),
    requestsPerCpuSec: round(requests / cpu, 1),
    // The verifications' own cost: the changes' CPU (measured alone) taken out.
    requestsPerCpuSecLessChanges: round(requests / (cpu - changes * perChange), 1),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'mandate-bench-churn-'));
  const { url, issuer } = await startIssuer({ SERVICE_SQLITE_PATH: join(dir, 'issuer.db') });
  try {
    const { agent, credential } = await enrollAgent(url);
    const other = await enrollAgent(url);
    // More than the rounds can use: the warm-up and ROUNDS per rate, at up to 3,500 requests/s.
    const needed = 3_500 * ROUND_SECONDS * (1 + ROUNDS * RATES.length);
    const stock: Stock = { bodies: await presentations(agent, credential, needed), next: 0 };
    const pid = issuer.child.pid ?? 0;
    const target: Target = { vcId: other.credential.id, suspended: false };
    await round1(url, pid, stock, target, 0); // warm-up
    const perChange: number[] = [];
    for (const rate of RATES) perChange.push(await cpuPerChange(url, pid, target, rate));
    const results = RATES.map((): Measured[] => []);
    for (let r = 0; r < ROUNDS; r++) {
      const order = RATES.map((_, i) => i);
      for (const i of r % 2 === 0 ? order : order.reverse())
        results[i]?.push(await round1(url, pid, stock, target, RATES[i] ?? 0));
    }
    const summaries = RATES.map((rate, i) => summary(rate, results[i] ?? [], perChange[i] ?? 0));
    const quiet = (summaries.find((s) => s.rate === 0) ?? summaries[0])?.requestsPerCpuSec ?? 1;
    return {
      endpoint: 'POST /v1/vp/verify (fresh presentation per request), one issuer on SQLite',
      ...loadRun(CONNECTIONS, ROUND_SECONDS, ROUNDS),
      rates: summaries,
      perCpuSecRatioToQuiet: Object.fromEntries(summaries.map((s) => [s.rate, round(s.requestsPerCpuSec / quiet, 3)])),
      // The same, the changes' own CPU taken out: what the refused verdicts cost.
      perCpuSecRatioToQuietLessChanges: Object.fromEntries(
        summaries.map((s) => [s.rate, round(s.requestsPerCpuSecLessChanges / quiet, 3)]),
      ),
    };
  } finally {
    issuer.child.kill('SIGTERM');
    await issuer.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
}
