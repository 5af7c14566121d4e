/**
 * The issuer's replay cache on PostgreSQL, shared by every instance on the database. `remember`
 * is one upsert: a new key is inserted; a recorded one is recorded afresh only once expired.
 * Concurrent attempts with one key wait on each other's row (or speculative insertion) and
 * re-check the expiry on the committed row, so exactly one returns true. A few expired rows are
 * deleted in the same statement (never the key being recorded, which the upsert handles).
 */
import type { ReplayStore } from '../replay-store.ts';
import type { Sql } from './pool.ts';

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
