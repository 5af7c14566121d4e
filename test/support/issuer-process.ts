// A real issuer process (`node --import tsx issuer/main.ts`) for multi-instance tests: its own
// environment, PORT=0, the URL read from its start-up banner; its JSON log lines (stdout) and
// stderr are kept for assertions. Several of these sharing one database and one Redis are the
// deployment docs/operations.md describes.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Env } from '../../issuer/config.ts';
import { exited } from './processes.ts';

export interface IssuerProcess {
  url: string;
  child: ChildProcess;
  /** What it wrote to stdout (JSON log lines) so far. */
  stdout(): string;
  /** SIGTERM, and wait for it to exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `issuer/main.ts` with `env` on top of this process's environment; rejects (with its stderr) if it exits first. */
export async function startIssuerProcess(env: Env, timeoutMs = 60_000): Promise<IssuerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'issuer/main.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the issuer did not start in ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    );
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)\n/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the issuer exited (${code}): ${stderr.trim()}`));
    });
  });
  const stop = async (graceMs = 10_000): Promise<void> => {
    const gone = exited(child);
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  };
  return { url, child, stdout: () => stdout, stop };
}
