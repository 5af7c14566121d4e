// The issuer as operators run it, as a process of its own built from its environment: graceful
// shutdown on SIGTERM (an in-flight request completes, new connections are refused, exit 0; past
// SERVICE_SHUTDOWN_TIMEOUT_SECONDS the rest is cut, exit 1), JSON-only logs in production, and
// the SERVICE_WORKERS bounds. Readiness on an in-process issuer is in ../readiness.test.ts.
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../issuer/config/index.ts';
import { bundled } from '../../support/bundles.ts';
import { spawnIssuer, type IssuerProcess } from '../../support/issuer-child.ts';
import { tempDir, TEST_ADMIN_KEY } from '../../support/issuer.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const PRODUCTION = {
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  PORT: '0',
  API_BASE_URL: 'http://127.0.0.1:8787',
  DID_DOMAIN: 'issuer.example.com',
  SERVICE_ADMIN_API_KEY: TEST_ADMIN_KEY,
  SERVICE_SIGNING_KEY: '9f1c4e7a2b8d05f36e91a4c7d2b58e0f13a6c9d4e7f0b2a58c1d6e93f4a7b20c',
  SERVICE_KEY_ENCRYPTION_KEY: '3a7e0c91f5d24b86a1e9c3f70d5b28e4c6a1f93d07b5e28c4f1a69d3e0b7c52f',
  LOG_LEVEL: 'info',
};

async function startProcess(env: Record<string, string> = {}): Promise<{ issuer: IssuerProcess; url: string }> {
  const dir = tempDir();
  const spawned = spawnIssuer([bundled('issuer')], {
    ...PRODUCTION,
    SERVICE_SQLITE_PATH: join(dir, 'issuer.db'),
    ...env,
  });
  cleanups.push(() => {
    spawned.child.kill('SIGKILL');
  });
  const started = await spawned.waitFor((line) => line.msg === 'issuer started');
  return { issuer: spawned, url: String(started.url) };
}

/** POST /v1/enrollment-tokens with its body held back: the server has the headers (100 Continue) and waits. */
async function heldRequest(url: string): Promise<{ req: ClientRequest; finish(): Promise<IncomingMessage> }> {
  const body = JSON.stringify({
    requestedScopes: ['files:read'],
    maxDelegationDepth: 1,
    requestedDomains: ['files.example.com'],
  });
  const req = request(`${url}/v1/enrollment-tokens`, {
    method: 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${TEST_ADMIN_KEY}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      expect: '100-continue',
    },
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  // A test that never finishes the request sees its end through req's 'error' instead.
  response.catch(() => undefined);
  await new Promise<void>((resolve) => req.once('continue', () => resolve()));
  return {
    req,
    finish: () => {
      req.end(body);
      return response;
    },
  };
}

function connectRefused(url: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('the issuer process (production)', () => {
  it('logs only JSON lines, and on SIGTERM finishes the in-flight request, refuses new connections and exits 0', async () => {
    const { issuer: proc, url } = await startProcess();
    const held = await heldRequest(url);
    proc.child.kill('SIGTERM');
    await proc.waitFor((line) => line.msg === 'shutting down');
    expect(await connectRefused(url)).toBe('ECONNREFUSED');
    const response = await held.finish();
    let body = '';
    for await (const chunk of response) body += String(chunk);
    expect(response.statusCode).toBe(201);
    expect(response.headers.connection).toBe('close');
    expect((JSON.parse(body) as { token?: unknown }).token).toEqual(expect.any(String));
    expect(await proc.exited).toBe(0);
    // Production: the log stream is JSON only, and there is no human banner.
    expect(proc.otherStdout).toEqual([]);
    expect(proc.stderr()).toBe('');
    const messages = proc.lines.map((line) => line.msg);
    expect(messages).toEqual(expect.arrayContaining(['issuer started', 'shutting down', 'request', 'stopped']));
    expect(proc.lines.find((line) => line.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM', level: 'info' });
  }, 60_000);

  it('cuts what is still open at SERVICE_SHUTDOWN_TIMEOUT_SECONDS and exits 1, saying so', async () => {
    const { issuer: proc, url } = await startProcess({ SERVICE_SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const held = await heldRequest(url);
    const cut = new Promise<string>((resolve) =>
      held.req.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? '')),
    );
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(1);
    expect(await cut).toBe('ECONNRESET');
    expect(proc.lines.find((line) => line.level === 'error')).toMatchObject({
      msg: 'stopped: in-flight requests cut at the shutdown deadline',
      timeoutMs: 1000,
    });
  }, 60_000);

  it.each([
    ['throw', 'uncaught exception', 'planted crash'],
    ['reject', 'unhandled rejection', 'planted rejection'],
  ])(
    'logs a crash (%s) as one JSON error line with its stack, then exits 1',
    async (kind, msg, message) => {
      const spawned = spawnIssuer(['--import', bundled('crash-on-signal'), bundled('issuer')], {
        ...PRODUCTION,
        SERVICE_SQLITE_PATH: join(tempDir(), 'issuer.db'),
        MANDATE_TEST_CRASH: kind,
      });
      cleanups.push(() => {
        spawned.child.kill('SIGKILL');
      });
      await spawned.waitFor((line) => line.msg === 'issuer started');
      spawned.child.kill('SIGUSR2');
      expect(await spawned.exited).toBe(1);
      expect(spawned.lines.at(-1)).toMatchObject({ level: 'error', msg, error: 'Error', message });
      expect(String(spawned.lines.at(-1)?.stack)).toContain('crash-on-signal.mjs');
      expect(spawned.otherStdout).toEqual([]);
    },
    60_000,
  );

  it('logs a failure to start as a JSON error line', async () => {
    const dir = tempDir();
    // A file where the database's directory should be: the database cannot be opened.
    writeFileSync(join(dir, 'issuer.db'), '');
    const spawned = spawnIssuer([bundled('issuer')], {
      ...PRODUCTION,
      SERVICE_SQLITE_PATH: join(dir, 'issuer.db', 'nested.db'),
    });
    expect(await spawned.exited).toBe(1);
    expect(spawned.lines.at(-1)).toMatchObject({ level: 'error', msg: 'failed to start' });
  }, 60_000);
});

describe('SERVICE_WORKERS', () => {
  it('a cluster whose workers cannot start stops with exit code 1 instead of restarting them forever', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'issuer.db'), '');
    const spawned = spawnIssuer([bundled('issuer')], {
      ...PRODUCTION,
      SERVICE_WORKERS: '2',
      SERVICE_SQLITE_PATH: join(dir, 'issuer.db', 'nested.db'),
    });
    cleanups.push(() => void spawned.child.kill('SIGKILL'));
    expect(await spawned.exited).toBe(1);
    expect(spawned.lines.find((line) => line.msg === 'failed to start')).toMatchObject({ level: 'error' });
    expect(spawned.lines.find((line) => line.role === 'primary' && line.level === 'error')).toMatchObject({
      msg: 'worker failed to start: stopping',
    });
    expect(spawned.lines.filter((line) => line.msg === 'worker exited: restarting')).toEqual([]);
  }, 60_000);

  const configError = (env: Record<string, string>): ConfigError => {
    try {
      loadConfig({ NODE_ENV: 'test', SERVICE_SQLITE_PATH: join(tempDir(), 'issuer.db'), ...env });
    } catch (error) {
      if (error instanceof ConfigError) return error;
      throw error;
    }
    throw new Error('accepted');
  };

  it('defaults to 1 and accepts 1..64', () => {
    expect(loadConfig({ NODE_ENV: 'test', SERVICE_SQLITE_PATH: ':memory:' }).workers).toBe(1);
    expect(
      loadConfig({ NODE_ENV: 'test', SERVICE_SQLITE_PATH: join(tempDir(), 'i.db'), SERVICE_WORKERS: '64' }).workers,
    ).toBe(64);
  });

  it.each(['0', '65', '1.5', 'two'])('refuses SERVICE_WORKERS=%s with one line', (value) => {
    const error = configError({ SERVICE_WORKERS: value });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe('SERVICE_WORKERS: must be an integer from 1 to 64');
  });

  it('refuses more than one worker over an in-memory database', () => {
    const error = configError({ SERVICE_WORKERS: '2', SERVICE_SQLITE_PATH: ':memory:' });
    expect(error.message).toBe(
      'SERVICE_WORKERS: must be 1 with SERVICE_SQLITE_PATH=:memory: (each process would have its own database)',
    );
  });
});
