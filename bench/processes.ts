// Helpers for the benches that run the issuer as separate processes (cluster, postgres): a free
// port, a started issuer, and the CPU time of a process tree read from /proc. No `run`, so
// bench/run.ts skips this file.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { spawnIssuer, type IssuerProcess } from '../test/support/issuer-child.ts';
import { ADMIN_KEY } from './http.ts';

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
const root = fileURLToPath(new URL('..', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** /proc/<pid>/stat after the `(comm)` field: state, ppid, … (proc(5)). */
export function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** `pid` and all its descendants. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(statFields(Number(name))[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i] ?? 0) ?? []));
  return all;
}

/** The issuer processes in the tree of `pid` (a cluster's primary and workers, or the one process). */
export function issuerProcesses(pid: number): number {
  return processTree(pid).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('issuer/main.ts');
    } catch {
      return false;
    }
  }).length;
}

/** The processes `roots` (pids ≤ 0 skipped) and all their descendants. */
function trees(roots: number[]): number[] {
  return roots.filter((p) => p > 0).flatMap(processTree);
}

/**
 * CPU seconds of the processes `roots` (pids ≤ 0 skipped) and all their descendants: each one's
 * utime + stime, and cutime + cstime — the time of its children that have ended (a PostgreSQL
 * backend whose connection closed mid-round still counts, in its postmaster's).
 */
export function cpuSeconds(roots: number[]): number {
  let ticks = 0;
  for (const pid of trees(roots)) {
    try {
      const fields = statFields(pid);
      // utime, stime, cutime, cstime are fields 14–17 of the stat line; 11–14 after (comm) and state.
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // A process that ended meanwhile.
    }
  }
  return ticks / CLOCK_TICKS;
}

/**
 * Involuntary context switches of every thread of `roots` and their descendants (proc(5),
 * /proc/<pid>/task/<tid>/status): how often the scheduler took a core from them while they still
 * had work — what processes sharing too few cores pay for in caches refilled, beyond their own work.
 */
export function preemptions(roots: number[]): number {
  let switches = 0;
  for (const pid of trees(roots)) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
        switches += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
      }
    } catch {
      // A process or thread that ended meanwhile.
    }
  }
  return switches;
}

/**
 * Starts issuer/main.ts as `npm start` would, on a free port with `env` (and no rate limit to
 * speak of), and waits until it answers /v1/ready and `ready` holds.
 */
export async function startIssuer(
  env: Record<string, string>,
  ready: (issuer: IssuerProcess) => boolean = () => true,
  name = 'the issuer',
): Promise<{ url: string; issuer: IssuerProcess }> {
  const port = await freePort();
  const issuer = spawnIssuer(
    ['--import', 'tsx', 'issuer/main.ts'],
    {
      NODE_ENV: 'test',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      SERVICE_ADMIN_API_KEY: ADMIN_KEY,
      SERVICE_RATE_LIMIT_PER_IP: '10000000',
      SERVICE_RATE_LIMIT_PER_TOKEN: '10000000',
      ...env,
    },
    root,
  );
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    const status = await fetch(`${url}/v1/ready`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200 && ready(issuer)) return { url, issuer };
    if (attempt > 600) {
      issuer.child.kill('SIGKILL');
      throw new Error(`${name} did not become ready: ${issuer.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
