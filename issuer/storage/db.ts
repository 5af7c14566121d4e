/**
 * The SQLite connection of the issuer (better-sqlite3: synchronous, so a transaction runs to
 * its end without another request interleaving — which is what makes a conditional
 * `UPDATE … WHERE used_at IS NULL` a race-free single-use check).
 *
 * - WAL journal (readers never block the writer; `sqlite3 .backup` / `VACUUM INTO` work live),
 * - `foreign_keys = ON` (off by default in SQLite),
 * - `synchronous = NORMAL` (durable at WAL checkpoints; safe with WAL, much faster than FULL),
 * - a 64 MiB page cache (the default 2 MiB thrashes on a large audit log),
 * - `busy_timeout` so a second process (a backup, another issuer) waits instead of failing,
 * - every schema statement of schema.ts run on open, the columns added since a file was
 *   created added to it, and its data brought up to this code's (upgrade.ts),
 * - readable by the issuer's user only: the directory it creates is 0700, and the database file
 *   and its -wal/-shm companions are 0600 (SQLite gives the companions the database's mode).
 *   The file holds the audit trail and consent evidence in the clear.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ADDED_COLUMNS, SCHEMA } from './schema.ts';
import { DATA_VERSION, upgradeData } from './upgrade.ts';

export type SqliteDatabase = Database.Database;

/** Page cache per connection, KiB. */
const CACHE_KIB = 64 * 1024;

/**
 * The synchronous form of a store interface (stores.ts): what a better-sqlite3 implementation
 * returns, before createSqliteStores turns it into the async seam.
 */
export type Sync<S> = {
  [K in keyof S]: S[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : S[K];
};

export interface IssuerDb {
  readonly sqlite: SqliteDatabase;
  /**
   * Runs `fn` in one transaction (nested calls become savepoints); a throw rolls everything back.
   * `BEGIN IMMEDIATE`: the write lock is taken at the start. A deferred transaction that reads
   * first and writes later fails at once with SQLITE_BUSY_SNAPSHOT (busy_timeout does not apply)
   * when another process on the file committed in between; an immediate one waits its turn.
   */
  transaction<T>(fn: () => T): T;
  /**
   * The data version the file had when opened, when older than this code's (upgrade.ts): 0 for
   * a new file and for one an issuer before data versions wrote. Undefined for a current file.
   */
  readonly upgradedFrom: number | undefined;
  close(): void;
}

export function openDatabase(path: string): IssuerDb {
  if (path !== ':memory:') {
    mkdirSync(dirname(resolve(path)), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
    for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
  }
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // 64 MiB of page cache instead of SQLite's 2 MiB: each audit append also writes into the
  // indexes on the random record id and on the agent, at scattered pages that a small cache
  // keeps re-reading once the log is large (vp/verify at 1M records: docs/benchmarks.md).
  sqlite.pragma(`cache_size = ${-CACHE_KIB}`);
  const found = sqlite
    .transaction(() => {
      for (const statement of SCHEMA) sqlite.exec(statement);
      for (const [table, column, declaration] of ADDED_COLUMNS) {
        const columns = sqlite.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`).all();
        if (!columns.some((c) => c.name === column))
          sqlite.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${declaration}`);
      }
      return upgradeData(sqlite);
    })
    .immediate();
  return {
    sqlite,
    upgradedFrom: found < DATA_VERSION ? found : undefined,
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn).immediate(),
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}
