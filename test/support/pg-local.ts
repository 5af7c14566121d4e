// A throwaway PostgreSQL for the PostgreSQL adapter's tests, until test/support/postgres.ts (the
// shared harness) replaces it: the same two calls, startPostgres() and createDatabase(). With
// MANDATE_TEST_DATABASE_URL set (a server URL whose user may CREATE DATABASE), that server is
// used; otherwise initdb + postgres from /usr/lib/postgresql/15/bin on a free port of 127.0.0.1,
// as the `postgres` user when run as root, with durability off (the data dies with the run).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

const BIN = '/usr/lib/postgresql/15/bin';

export interface PostgresServer {
  /** A URL of the server's `postgres` database, as a user who may create databases. */
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function ready(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function startPostgres(): Promise<PostgresServer> {
  const given = process.env.MANDATE_TEST_DATABASE_URL;
  if (given) return { url: given, stop: () => Promise.resolve() };
  const ids = postgresIds();
  const dir = mkdtempSync(join(tmpdir(), 'mandate-pg-'));
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const data = join(dir, 'data');
  const init = spawnSync(
    join(BIN, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'],
    {
      encoding: 'utf8',
      ...ids,
    },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr.trim().slice(-300)}`);
  const port = await freePort();
  const settings = ['listen_addresses=127.0.0.1', `port=${port}`, `unix_socket_directories=${dir}`, 'fsync=off'];
  const child: ChildProcess = spawn(join(BIN, 'postgres'), ['-D', data, ...settings.flatMap((s) => ['-c', s])], {
    stdio: 'ignore',
    ...ids,
  });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = once(child, 'exit');
      child.kill('SIGQUIT');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; !(await ready(url)); i++) {
    if (i > 200 || child.exitCode !== null) {
      await stop();
      throw new Error('PostgreSQL did not start');
    }
    await sleep(50);
  }
  return { url, stop };
}

export interface FreshDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

let counter = 0;

async function admin(serverUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** An empty database of its own on the server (dropped by `drop`). */
export async function createDatabase(serverUrl: string, prefix = 'mandate_test'): Promise<FreshDatabase> {
  const name = `${prefix}_${process.pid}_${++counter}`;
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.href, name, drop: () => admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
