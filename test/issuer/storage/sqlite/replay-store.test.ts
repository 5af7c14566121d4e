// The issuer's replay cache in SQLite: the wallet ReplayCache contract on a real database file,
// shared by two connections (a restart, or a second process on the same file).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type IssuerDb } from '../../../../issuer/storage/db.ts';
import { createSqliteReplayCache } from '../../../../issuer/storage/replay-store.ts';
import { createSqliteStores } from '../../../../issuer/storage/sqlite-stores.ts';
import { tempDir } from '../../../support/issuer.ts';

const opened: IssuerDb[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dbPath(): string {
  const dir = tempDir();
  dirs.push(dir);
  return join(dir, 'issuer.db');
}

function open(path: string): IssuerDb {
  const db = openDatabase(path);
  opened.push(db);
  return db;
}

describe('createSqliteReplayCache', () => {
  it('remembers a key until it expires, across connections to the same file', () => {
    const path = dbPath();
    let clock = 1_000_000;
    const first = createSqliteReplayCache(open(path), () => clock);
    const second = createSqliteReplayCache(open(path), () => clock);
    expect(first.remember('vp:a', clock + 60_000)).toBe(true);
    expect(first.remember('vp:a', clock + 60_000)).toBe(false);
    expect(second.remember('vp:a', clock + 120_000)).toBe(false);
    expect(second.remember('vp:b', clock + 60_000)).toBe(true);
    // Already expired by the cache's clock: refused, never recorded.
    expect(first.remember('vp:c', clock)).toBe(false);
    clock += 60_000;
    // Expired: it may be recorded afresh.
    expect(second.remember('vp:a', clock + 60_000)).toBe(true);
    expect(first.remember('vp:a', clock + 60_000)).toBe(false);
  });

  it('deletes expired rows as new ones arrive, so the table holds about the live ones', () => {
    const db = open(dbPath());
    let clock = 1_000_000;
    const cache = createSqliteReplayCache(db, () => clock);
    for (let i = 0; i < 40; i++) expect(cache.remember(`vp:old-${i}`, clock + 1_000)).toBe(true);
    clock += 2_000;
    for (let i = 0; i < 5; i++) expect(cache.remember(`vp:new-${i}`, clock + 1_000)).toBe(true);
    const count = () => (db.sqlite.prepare('SELECT count(*) AS n FROM replay_keys').get() as { n: number }).n;
    expect(count()).toBe(45 - 5 * 8);
  });
});

describe('transactions on a file shared by two connections', () => {
  it('hold the write lock from the start: a read-then-write transaction is never undone by another writer', () => {
    const path = dbPath();
    const first = open(path);
    const second = open(path);
    second.sqlite.pragma('busy_timeout = 0'); // fail at once instead of waiting for `first`
    const put = (db: IssuerDb, key: string) =>
      db.sqlite.prepare('INSERT INTO replay_keys (key, expires_at) VALUES (?, ?)').run(key, 1);
    let secondError: unknown;
    first.transaction(() => {
      first.sqlite.prepare('SELECT count(*) AS n FROM replay_keys').get(); // a read snapshot…
      try {
        put(second, 'second'); // …another writer in between…
      } catch (error) {
        secondError = error;
      }
      put(first, 'first'); // …and the write that a deferred transaction would lose (SQLITE_BUSY_SNAPSHOT)
    });
    expect(secondError).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(second.sqlite.prepare('SELECT key FROM replay_keys').all()).toEqual([{ key: 'first' }]);
  });

  it('group-commits concurrent remembers through the adapter: one winner per key, all stored once answered', async () => {
    const path = dbPath();
    const stores = createSqliteStores(open(path));
    const now = 1_000;
    const keys = ['a', 'b', 'a', 'c', 'b', 'a'];
    const verdicts = await Promise.all(keys.map((key) => stores.replay.remember(key, now + 60_000, now)));
    expect(verdicts).toEqual([true, true, false, true, false, false]);
    // Committed by the time they were answered: another connection to the file sees them.
    const other = createSqliteStores(open(path));
    expect(await Promise.all(['a', 'b', 'c', 'd'].map((key) => other.replay.remember(key, now + 60_000, now)))).toEqual(
      [false, false, false, true],
    );
  });
});
