// A test issuer's database opened from outside, on a connection of its own — as an operator with
// a SQL shell, or whoever copied or can write the file, would. Only for tests whose subject is
// the storage itself: what is at rest (a secret kept only as its hash), or what the issuer does
// when a row is altered behind its back (a broken audit chain, a key row that is not its own).
// Arranging state goes through the stores (`running.ctx.stores`), the API and the clock instead.
//
// One helper for both adapters, so such a test runs in the `node` (SQLite) and `node-postgres`
// projects alike: the SQLite file at SERVICE_SQLITE_PATH, or the database at SERVICE_DATABASE_URL
// when the issuer runs on PostgreSQL. SQL is written with `?` placeholders (numbered for
// PostgreSQL here) and must mean the same in both dialects.
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { TestIssuer } from './issuer.ts';

export type StorageAdapter = 'sqlite' | 'postgres';

/** The adapter `issuer` runs on. */
export function storageOf(issuer: TestIssuer): StorageAdapter {
  return issuer.env.SERVICE_STORAGE_ADAPTER === 'postgres' ? 'postgres' : 'sqlite';
}

/** Runs `sql` with `params` on a connection of its own to `issuer`'s database; returns the rows. */
export async function outsideQuery<Row = Record<string, unknown>>(
  issuer: TestIssuer,
  sql: string,
  ...params: unknown[]
): Promise<Row[]> {
  if (storageOf(issuer) === 'sqlite') {
    const path = issuer.env.SERVICE_SQLITE_PATH;
    if (path === undefined) throw new Error('outsideQuery: the issuer has no SERVICE_SQLITE_PATH');
    const db = new Database(path);
    try {
      const statement = db.prepare(sql);
      return statement.reader ? (statement.all(...params) as Row[]) : (statement.run(...params), []);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: issuer.env.SERVICE_DATABASE_URL });
  await client.connect();
  try {
    let n = 0;
    const numbered = sql.replace(/\?/g, () => `$${++n}`);
    return (await client.query(numbered, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

/**
 * Everything `issuer` has stored, as text to search: on SQLite every byte of the file and its
 * write-ahead log (checkpointed first, so both are read whole); on PostgreSQL every row of
 * every table of its database.
 */
export async function everythingStored(issuer: TestIssuer): Promise<string> {
  if (storageOf(issuer) === 'sqlite') {
    const path = issuer.env.SERVICE_SQLITE_PATH as string;
    await outsideQuery(issuer, 'PRAGMA wal_checkpoint(TRUNCATE)');
    // Both files exist while the issuer runs; one that cannot be read fails the test.
    return [path, `${path}-wal`].map((file) => readFileSync(file).toString('latin1')).join('');
  }
  const tables = await outsideQuery<{ name: string }>(
    issuer,
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
  );
  const dumps = await Promise.all(tables.map(({ name }) => outsideQuery(issuer, `SELECT * FROM "${name}"`)));
  return JSON.stringify(dumps);
}
