/**
 * The issuer's replay cache (`POST /v1/vp/verify`, check 7) in its SQLite file, so a presentation
 * accepted once stays refused after a restart and in every process that opens the same file.
 * The contract is the wallet's `ReplayCache`; only accepted presentations are recorded (the
 * verifier checks replay last), and expired rows are deleted a few at a time as new ones arrive.
 */
import type { ReplayCache } from '../../wallet/vc/replay-cache.ts';
import type { IssuerDb, Sync } from './db.ts';

/** Expired rows deleted per new row: more than are added, so the table shrinks back to the live ones. */
const PRUNED_PER_INSERT = 8;

export interface ReplayStore {
  /**
   * Single use: records `key` until `expiresAt` and returns true, atomically, unless the key is
   * recorded and unexpired at `now` (then false). Of concurrent calls with one key, exactly one
   * returns true. A key already expired at `now` is refused and not recorded.
   */
  remember(key: string, expiresAt: number, now: number): Promise<boolean>;
}

export function createSqliteReplayStore(db: IssuerDb): Sync<ReplayStore> {
  // A key already recorded is recorded afresh only once its expiry has passed.
  const record = db.sqlite.prepare(
    'INSERT INTO replay_keys (key, expires_at) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET expires_at = excluded.expires_at WHERE replay_keys.expires_at <= ?',
  );
  const prune = db.sqlite.prepare<[number, number]>(
    'DELETE FROM replay_keys WHERE rowid IN (SELECT rowid FROM replay_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)',
  );
  // Built once (a savepoint when the adapter's group commit already opened a transaction).
  const write = db.sqlite.transaction((key: string, expiresAt: number, at: number): boolean => {
    prune.run(at, PRUNED_PER_INSERT);
    return record.run(key, expiresAt, at).changes === 1;
  });
  return {
    remember(key, expiresAt, at) {
      // Already expired: nothing left to protect, and a verification straddling the instant must not pass.
      if (!(expiresAt > at)) return false;
      return write.immediate(key, expiresAt, at);
    },
  };
}

/** The wallet's ReplayCache over a replay store, on the issuer's clock. */
export function replayCacheOver(store: ReplayStore, now: () => number): ReplayCache {
  return { remember: (key, expiresAt) => store.remember(key, expiresAt, now()) };
}

/** The replay cache over one SQLite file by itself (without the rest of the stores). */
export function createSqliteReplayCache(db: IssuerDb, now: () => number): ReplayCache {
  const store = createSqliteReplayStore(db);
  return { remember: (key, expiresAt) => store.remember(key, expiresAt, now()) };
}
