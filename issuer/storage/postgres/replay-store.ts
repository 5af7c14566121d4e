/**
 * The issuer's replay cache on PostgreSQL, shared by every instance on the database. `remember`
 * is one upsert: a new key is inserted; a recorded one is recorded afresh only once expired.
 * Concurrent attempts with one key wait on each other's row (or speculative insertion) and
 * re-check the expiry on the committed row, so exactly one returns true. A few expired rows are
 * deleted in the same statement (never the key being recorded, which the upsert handles).
 */
import { groupCommit } from '../group-commit.ts';
import type { ReplayStore } from '../replay-store.ts';
import type { Sql } from './pool.ts';
import { encodeText } from './text.ts';

/** Expired rows deleted per new row: more than are added, so the table shrinks back to the live ones. */
const PRUNED_PER_INSERT = 8;

const REMEMBER = `WITH pruned AS (
    DELETE FROM replay_keys WHERE key IN (
      SELECT key FROM replay_keys WHERE expires_at <= $3 AND key <> $1
      ORDER BY expires_at LIMIT ${PRUNED_PER_INSERT} FOR UPDATE SKIP LOCKED))
  INSERT INTO replay_keys (key, expires_at) VALUES ($1, $2)
  ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE replay_keys.expires_at <= $3`;

export function createPostgresReplayStore(sql: Sql): ReplayStore {
  return {
    async remember(key, expiresAt, at) {
      // Already expired: nothing left to protect, and a verification straddling the instant must not pass.
      if (!(expiresAt > at)) return false;
      return (await sql.query(REMEMBER, [key, expiresAt, at])).rowCount === 1;
    },
  };
}

/**
 * A batch of `remember` calls (one event-loop turn's, through groupCommit) in ONE statement:
 * the keys inserted or recorded afresh come back from RETURNING. A key asked twice in a batch
 * wins at most once (its first asking). `at` is the batch's earliest clock, so a key counts as
 * expired only when it is for every caller in it. Strings in the array parameter are encoded
 * here: textSafe encodes only plain string parameters. Keys are inserted in key order, as the
 * audit append inserts its own (schema.ts, migration 5): statements whose keys overlap then wait
 * on each other's rows in one order, never in a cycle (a deadlock PostgreSQL would break by
 * failing one of them, a second later).
 */
const REMEMBER_MANY = `WITH pruned AS (
    DELETE FROM replay_keys WHERE key IN (
      SELECT key FROM replay_keys WHERE expires_at <= $3 AND NOT (key = ANY($1::text[]))
      ORDER BY expires_at LIMIT $4 FOR UPDATE SKIP LOCKED))
  INSERT INTO replay_keys (key, expires_at) SELECT * FROM unnest($1::text[], $2::bigint[]) AS u(k, e) ORDER BY k
  ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE replay_keys.expires_at <= $3
  RETURNING key`;

type Remember = Parameters<ReplayStore['remember']>;

/** The replay store of the pool (outside transactions): concurrent calls share one statement. */
export function createGroupedPostgresReplayStore(sql: Sql): ReplayStore {
  const grouped = groupCommit(async (calls: Remember[]): Promise<boolean[]> => {
    const first = new Map<string, number>();
    calls.forEach(([key], i) => (first.has(key) ? undefined : first.set(key, i)));
    const keys = [...first.keys()];
    const expiries = keys.map((key) => calls[first.get(key) as number]?.[1] as number);
    const at = Math.min(...calls.map(([, , now]) => now));
    const encoded = keys.map(encodeText);
    const result = await sql.query<{ key: string }>(REMEMBER_MANY, [encoded, expiries, at, PRUNED_PER_INSERT]);
    const won = new Set(result.rows.map((row) => row.key));
    return calls.map(([key], i) => first.get(key) === i && won.has(key));
  });
  return {
    remember(key, expiresAt, at) {
      // Already expired: nothing left to protect, and a verification straddling the instant must not pass.
      if (!(expiresAt > at)) return Promise.resolve(false);
      return grouped([key, expiresAt, at]);
    },
  };
}
