/**
 * A throwaway PostgreSQL for the tests: `initdb` into a temporary directory, `postgres` on a free
 * port of 127.0.0.1 (and a Unix socket in that directory), removed again by `stop()`. The
 * binaries are Debian's (`/usr/lib/postgresql/<version>/bin`, the newest found); PostgreSQL
 * refuses to run as root, so as root the server runs as the `postgres` user, which then owns the
 * directory. Only `fsync` is off (the data dies with the run, and disk flushes on a shared
 * machine would make the tests and benches slow for nothing they measure); every other setting
 * that bears on durability keeps its default, so a commit is acknowledged after its WAL is
 * written (`synchronous_commit`), as a production server does it. bench/postgres.ts measures
 * the server's CPU with these settings: asynchronous commit cost more of it there, since every
 * commit then wakes the WAL writer (docs/benchmarks.md §postgres).
 *
 * No Vitest import here: the global setup (test/support/global-servers.ts) runs it in the main
 * process; tests reach it through test/support/servers.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, chownSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { exited, freePort, waitFor } from './processes.ts';

const DEBIAN_ROOT = '/usr/lib/postgresql';

export const INSTALL_HINT =
  'install PostgreSQL 15+ and Redis 7+ (Debian/Ubuntu: `sudo apt-get install -y postgresql redis-server`) or set MANDATE_TEST_DATABASE_URL and MANDATE_TEST_REDIS_URL';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The newest `/usr/lib/postgresql/<major>/bin` with initdb and postgres in it, or undefined. */
export function findPostgresBin(): string | undefined {
  let versions: string[];
  try {
    versions = readdirSync(DEBIAN_ROOT);
  } catch {
    return undefined;
  }
  return versions
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(DEBIAN_ROOT, v, 'bin'))
    .find((bin) => executable(join(bin, 'initdb')) && executable(join(bin, 'postgres')));
}

interface RunAs {
  uid: number;
  gid: number;
}

/** As root: the `postgres` account's ids (PostgreSQL will not start as root). */
function postgresAccount(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined)
    throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as');
  return { uid: Number(uid), gid: Number(gid) };
}

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication: a throwaway instance). */
  url: string;
  /** The postmaster's process id (its backends are its children); a new one after `resume()`. */
  pid: number;
  /**
   * Immediate shutdown (SIGQUIT, what `pg_ctl stop -m immediate` sends): every backend ends at
   * once, open transactions are lost, the data directory stays. For fault tests.
   */
  halt(): Promise<void>;
  /** Starts the halted server again on the same data directory and port (crash recovery first). */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /** Server settings on top of this module's (`max_connections`, say). */
  settings?: Record<string, string>;
}

function initdb(bin: string, dataDir: string, runAs: RunAs | undefined): void {
  const args = ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'];
  const result = spawnSync(join(bin, 'initdb'), args, { encoding: 'utf8', ...(runAs ?? {}) });
  if (result.status !== 0)
    throw new Error(`initdb failed (${result.status ?? result.signal}): ${(result.stderr || result.stdout).trim()}`);
}

function serverArgs(dataDir: string, socketDir: string, port: number, extra: Record<string, string>): string[] {
  const settings = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: socketDir,
    fsync: 'off',
    max_connections: '300',
    shared_buffers: '64MB',
    ...extra,
  };
  return ['-D', dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
}

/** Starts a throwaway PostgreSQL; `stop()` shuts it down and removes its directory. */
export async function startPostgres(
  bin = findPostgresBin(),
  options: StartPostgresOptions = {},
): Promise<PostgresServer> {
  if (bin === undefined) throw new Error(`PostgreSQL binaries not found in ${DEBIAN_ROOT}/*/bin: ${INSTALL_HINT}`);
  const runAs = postgresAccount();
  // As root, under /tmp: a TMPDIR inside root's home would be closed to the postgres user.
  const dir = mkdtempSync(join(runAs ? '/tmp' : tmpdir(), 'mandate-pg-'));
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  chmodSync(dir, 0o700);
  const dataDir = join(dir, 'data');
  let child: ChildProcess | undefined;
  const halt = async (): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = exited(child);
      child.kill('SIGQUIT'); // immediate shutdown: nothing here is worth a checkpoint
      await gone;
    }
  };
  const stop = async (): Promise<void> => {
    await halt();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    initdb(bin, dataDir, runAs);
    const port = await freePort();
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const launch = async (): Promise<void> => {
      const log: string[] = [];
      const started = spawn(join(bin, 'postgres'), serverArgs(dataDir, dir, port, options.settings ?? {}), {
        stdio: ['ignore', 'pipe', 'pipe'],
        ...runAs,
      });
      child = started;
      started.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
      await waitFor(
        started,
        () => canConnect(url),
        () => `PostgreSQL did not start: ${log.join('').trim().slice(-500)}`,
      );
      server.pid = started.pid ?? 0;
    };
    const server: PostgresServer = { url, pid: 0, halt, resume: launch, stop };
    await launch();
    return server;
  } catch (error) {
    await stop();
    throw error;
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface FreshDatabase {
  /** The server's URL with this database's name in place of the path. */
  url: string;
  name: string;
  /** Drops the database (closing any connection still open to it). */
  drop(): Promise<void>;
}

let counter = 0;

/** Creates an empty database on the server at `serverUrl`, so test files running in parallel never share tables. */
export async function createDatabase(serverUrl: string, prefix = 'mandate_test'): Promise<FreshDatabase> {
  const name = `${prefix}_${process.pid}_${++counter}_${Date.now().toString(36)}`;
  if (!/^[a-z0-9_]{1,63}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    name,
    drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** What untilWaitingOnLock queries through: a pool, or a client outside any transaction. */
export interface LockWatcher {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

const LOCK_POLL_MS = 5;
/** Under the tests' 30 s timeout, so a waiter that never comes is named rather than timed out. */
const LOCK_WAIT_LIMIT_MS = 20_000;

/**
 * Resolves once another backend of the database `watcher` is connected to waits for a
 * heavyweight lock (pg_stat_activity `wait_event_type = 'Lock'`: a row lock, an advisory lock) —
 * one that the backend `holder` holds, by pg_blocking_pids, when a holder is given. The sure sign
 * that a racing statement has reached the lock and waits, where a sleep only makes it likely.
 * Polls every few ms; `watcher` must not be inside a transaction, where pg_stat_activity is read
 * once. Throws when no backend has waited after LOCK_WAIT_LIMIT_MS.
 */
export async function untilWaitingOnLock(watcher: LockWatcher, holder?: number): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_LIMIT_MS;
  for (;;) {
    const { rows } = await watcher.query(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
          AND ($1::int IS NULL OR $1::int = ANY (pg_blocking_pids(pid)))
        LIMIT 1`,
      [holder ?? null],
    );
    if (rows.length > 0) return;
    if (Date.now() > deadline)
      throw new Error(`no backend waited for a lock${holder === undefined ? '' : ` held by backend ${holder}`}`);
    await sleep(LOCK_POLL_MS);
  }
}

/** The backend process id of `client`, for untilWaitingOnLock's `holder`. */
export async function backendPid(client: LockWatcher): Promise<number> {
  const { rows } = await client.query('SELECT pg_backend_pid() AS pid', []);
  return (rows[0] as { pid: number }).pid;
}
