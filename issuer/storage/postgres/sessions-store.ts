/** Session tokens as rows on PostgreSQL, kept until they expire (a few expired rows pruned per insert). */
import type { SessionStatusEntry, SessionStore } from '../sessions-store.ts';
import type { Sql } from './pool.ts';

/** Expired rows deleted per new row: more than are added, so the table shrinks back to the live ones. */
const PRUNED_PER_INSERT = 8;

interface Row {
  jti: string;
  agent_did: string;
  status_entries: string;
  expires_at: number;
}

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
      const row = (await sql.query<Row>('SELECT * FROM sessions WHERE jti = $1 AND expires_at > $2', [jti, now]))
        .rows[0];
      if (!row) return undefined;
      return {
        jti: row.jti,
        agentDid: row.agent_did,
        statusEntries: JSON.parse(row.status_entries) as SessionStatusEntry[],
        expiresAt: row.expires_at,
      };
    },
  };
}
