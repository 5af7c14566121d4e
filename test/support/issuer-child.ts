// The issuer as a real child process (`issuer/main.ts` under tsx, or a compiled main.js under
// plain Node), with its JSON log lines parsed as they arrive: tests wait for a line
// (`issuer started`, `shutting down`) instead of sleeping.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';

export interface LogLine {
  msg: string;
  level: string;
  [field: string]: unknown;
}

export interface IssuerProcess {
  child: ChildProcessWithoutNullStreams;
  /** Every JSON line written to stdout so far. */
  lines: LogLine[];
  /** stdout lines that are not JSON (there should be none). */
  otherStdout: string[];
  stderr(): string;
  /** The first line (already written or still to come) that `match` accepts. */
  waitFor(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Starts `node <args>` with `env` (NODE_OPTIONS cleared: no loader from the test runner). */
export function spawnIssuer(
  args: string[],
  env: Record<string, string | undefined>,
  cwd = process.cwd(),
): IssuerProcess {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  const otherStdout: string[] = [];
  const waiters = new Set<() => void>();
  let pending = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as LogLine);
      } catch {
        otherStdout.push(part);
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    for (const wake of waiters) wake();
  });
  const waitFor = (match: (line: LogLine) => boolean, timeoutMs = 60_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching log line within ${timeoutMs} ms; stderr: ${stderr}`));
      }, timeoutMs);
      function check() {
        const found = lines.find(match);
        if (found === undefined && !hasExited) return;
        clearTimeout(timer);
        waiters.delete(check);
        if (found) resolve(found);
        else reject(new Error(`the issuer exited first; stderr: ${stderr}; stdout: ${JSON.stringify(lines)}`));
      }
      waiters.add(check);
      check();
    });
  return { child, lines, otherStdout, stderr: () => stderr, waitFor, exited };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request on a connection of its own (no keep-alive pool): with a cluster, each new
 * connection goes to the next worker.
 */
export function freshRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
