/** Session tokens as rows on PostgreSQL, kept until they expire (a few expired rows pruned per insert). */
import { PRUNED_PER_INSERT, toSessionRecord, type SessionRow, type SessionStore } from '../sessions-store.ts';
import type { Sql } from './pool.ts';

const RECORD = `WITH pruned AS (
    DELETE FROM sessions WHERE jti IN (
      SELECT jti FROM sessions WHERE expires_at <= $5
      ORDER BY expires_at LIMIT ${PRUNED_PER_INSERT} FOR UPDATE SKIP LOCKED))
  INSERT INTO sessions (jti, agent_did, status_entries, expires_at) VALUES ($1, $2, $3, $4)`;

export function createPostgresSessionStore(sql: Sql): SessionStore {
  return {
    async record(session, now) {
      await sql.query(RECORD, [
        session.jti,
        session.agentDid,
        JSON.stringify(session.statusEntries),
        session.expiresAt,
        now,
      ]);
    },
    async get(jti, now) {
      const row = (await sql.query<SessionRow>('SELECT * FROM sessions WHERE jti = $1 AND expires_at > $2', [jti, now]))
        .rows[0];
      return row && toSessionRecord(row);
    },
  };
}
