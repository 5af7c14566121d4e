/**
 * A throwaway Redis for the tests: `redis-server` on a free port of 127.0.0.1, no persistence,
 * its working directory a temporary one that `stop()` removes. Tests that need Redis to go away
 * (degraded behaviour) start their own with `startRedis()`, stop it, and may start it again on
 * the same port (`startRedis(undefined, port)`); the rest share the run's instance
 * (test/support/servers.ts) under a key prefix of their own.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, freePort } from './processes.ts';

/** `redis-server` on PATH, or undefined. */
export function findRedisServer(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Kills the server (SIGKILL: as abrupt as a crash) and removes its directory. */
  stop(): Promise<void>;
}

const READY = 'Ready to accept connections';

/**
 * Starts a throwaway Redis (empty) on `port`, or on a free one; resolves once it accepts
 * connections. Restarting a stopped one on its port is what its clients see as Redis coming back.
 */
export async function startRedis(binary = findRedisServer() ?? 'redis-server', port?: number): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mandate-redis-'));
  port ??= await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = async (): Promise<void> => {
    const gone = exited(child);
    child.kill('SIGKILL');
    await gone;
    rmSync(dir, { recursive: true, force: true });
  };
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start in 20 s: ${output.slice(-500)}`)),
      20_000,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(READY)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code ?? signal}): ${output.trim().slice(-500)}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, port, stop };
}
