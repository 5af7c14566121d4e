/**
 * User challenges on PostgreSQL. Consumption is one conditional UPDATE (`… WHERE used_at IS
 * NULL`): a concurrent answer on any instance waits for the row lock, then finds the challenge
 * used. Each insert also deletes a few challenges long expired unanswered (as the SQLite store
 * does), in the same statement, skipping rows another instance is deleting.
 */
import {
  PRUNED_PER_INSERT,
  toChallenge,
  UNANSWERED_KEPT_MS,
  type ChallengeRow,
  type ChallengeStore,
} from '../challenges-store.ts';
import type { Sql } from './pool.ts';

// Through the partial index user_challenges_unanswered: no scan of answered rows.
const INSERT = `WITH pruned AS (
    DELETE FROM user_challenges WHERE id IN (
      SELECT id FROM user_challenges WHERE used_at IS NULL AND expires_at < $6
      ORDER BY expires_at LIMIT ${PRUNED_PER_INSERT} FOR UPDATE SKIP LOCKED))
  INSERT INTO user_challenges (id, user_did, challenge, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`;

export function createPostgresChallengeStore(sql: Sql): ChallengeStore {
  return {
    async insert(r) {
      await sql.query(INSERT, [
        r.id,
        r.userDid,
        r.challenge,
        r.createdAt,
        r.expiresAt,
        r.createdAt - UNANSWERED_KEPT_MS,
      ]);
    },
    async get(id) {
      const row = (
        await sql.query<ChallengeRow>(
          'SELECT id, user_did, challenge, created_at, expires_at, used_at, verified, evidence FROM user_challenges WHERE id = $1',
          [id],
        )
      ).rows[0];
      return row && toChallenge(row);
    },
    async consume(id, at, outcome) {
      const result = await sql.query(
        'UPDATE user_challenges SET used_at = $1, verified = $2, evidence = $3 WHERE id = $4 AND used_at IS NULL AND expires_at >= $1',
        [at, outcome.verified, outcome.evidence, id],
      );
      return result.rowCount === 1;
    },
  };
}
