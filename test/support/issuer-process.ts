// A real issuer process (issuer/main.ts, bundled: ./bundles.ts) for multi-instance tests: its own
// environment, PORT=0, the URL read from its start-up banner; its JSON log lines (stdout) and
// stderr are kept for assertions. Several of these sharing one database and one Redis are the
// deployment docs/operations.md describes.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Env } from '../../issuer/config/index.ts';
import { bytesToHex } from '../../wallet/crypto/bytes.ts';
import { bundled } from './bundles.ts';
import { TEST_ADMIN_KEY } from './issuer.ts';
import { exited } from './processes.ts';

export interface IssuerProcess {
  url: string;
  child: ChildProcess;
  /** What it wrote to stdout (JSON log lines) so far. */
  stdout(): string;
  /** SIGTERM, and wait for it to exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export interface Deployment {
  /** The one PostgreSQL database every instance uses. */
  databaseUrl: string;
  /** SERVICE_DATABASE_POOL_SIZE of each instance. */
  poolSize: number;
  /** The one Redis every instance uses; none: each instance caches in memory. */
  redisUrl?: string;
}

/**
 * The env every instance of one deployment shares: one database (and Redis), one set of secrets
 * (fresh per call), and rate limits out of the way; `overrides` on top.
 */
export function deploymentEnv(deployment: Deployment, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    SERVICE_STORAGE_ADAPTER: 'postgres',
    SERVICE_DATABASE_URL: deployment.databaseUrl,
    SERVICE_DATABASE_POOL_SIZE: String(deployment.poolSize),
    ...(deployment.redisUrl === undefined
      ? {}
      : { SERVICE_CACHE_ADAPTER: 'redis', SERVICE_REDIS_URL: deployment.redisUrl }),
    SERVICE_ADMIN_API_KEY: TEST_ADMIN_KEY,
    SERVICE_SIGNING_KEY: bytesToHex(randomBytes(32)),
    SERVICE_KEY_ENCRYPTION_KEY: bytesToHex(randomBytes(32)),
    // The address clients use (the load balancer's): every instance names its lists by it.
    API_BASE_URL: 'http://127.0.0.1:9',
    SERVICE_RATE_LIMIT_PER_IP: '1000000',
    SERVICE_RATE_LIMIT_PER_TOKEN: '1000000',
    LOG_LEVEL: 'warn',
    ...overrides,
  };
}

/** Starts `issuer/main.ts` with `env` on top of this process's environment; rejects (with its stderr) if it exits first. */
export async function startIssuerProcess(env: Env, timeoutMs = 60_000): Promise<IssuerProcess> {
  const child = spawn(process.execPath, [bundled('issuer')], {
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
