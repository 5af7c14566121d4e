/**
 * Enrollment tokens and onboarding sessions on PostgreSQL. `claim` and `completeSession` are
 * single conditional UPDATEs: PostgreSQL locks the row, and a second concurrent UPDATE waits,
 * then re-checks its WHERE on the committed row (`used_at IS NULL` no longer holds) and changes
 * nothing — so of any number of attempts, on any number of instances, exactly one wins.
 */
import { toSession, toToken, type SessionRow, type TokenRow, type TokenStore } from '../tokens-store.ts';
import type { Sql } from './pool.ts';

const INSERT = `INSERT INTO enrollment_tokens
  (id, token_hash, requested_scopes, max_delegation_depth, requested_domains, credential_ttl_seconds, created_at, expires_at, created_by)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;
const LIST_FIRST = 'SELECT * FROM enrollment_tokens ORDER BY created_at DESC, id DESC LIMIT $1';
const LIST_AFTER = `SELECT * FROM enrollment_tokens WHERE (created_at, id) < ($1, $2)
  ORDER BY created_at DESC, id DESC LIMIT $3`;

export function createPostgresTokenStore(sql: Sql): TokenStore {
  const one = async (text: string, value: string) => {
    const row = (await sql.query<TokenRow>(text, [value])).rows[0];
    return row && toToken(row);
  };
  return {
    async insert(token) {
      await sql.query(INSERT, [
        token.id,
        token.tokenHash,
        JSON.stringify(token.requestedScopes),
        token.maxDelegationDepth,
        JSON.stringify(token.requestedDomains),
        token.credentialTtlSeconds,
        token.createdAt,
        token.expiresAt,
        token.createdBy,
      ]);
    },
    findByHash: (tokenHash) => one('SELECT * FROM enrollment_tokens WHERE token_hash = $1', tokenHash),
    findById: (id) => one('SELECT * FROM enrollment_tokens WHERE id = $1', id),
    async claim(id, now, agentDid) {
      const result = await sql.query(
        'UPDATE enrollment_tokens SET used_at = $1, agent_did = $2 WHERE id = $3 AND used_at IS NULL AND expires_at > $1',
        [now, agentDid, id],
      );
      return result.rowCount === 1;
    },
    async list({ cursor, limit }) {
      if (cursor === undefined) return (await sql.query<TokenRow>(LIST_FIRST, [limit])).rows.map(toToken);
      const [at = '', id = ''] = cursor.split('|');
      return (await sql.query<TokenRow>(LIST_AFTER, [Number(at), id, limit])).rows.map(toToken);
    },
    async insertSession(s) {
      await sql.query(
        `INSERT INTO onboarding_sessions (id, token_id, custody, did, challenge, created_at, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [s.id, s.tokenId, s.custody, s.did, s.challengeHash, s.createdAt, s.expiresAt],
      );
    },
    async findSession(id) {
      const row = (await sql.query<SessionRow>('SELECT * FROM onboarding_sessions WHERE id = $1', [id])).rows[0];
      return row && toSession(row);
    },
    async completeSession(id, now) {
      const result = await sql.query(
        'UPDATE onboarding_sessions SET completed_at = $1 WHERE id = $2 AND completed_at IS NULL AND expires_at > $1',
        [now, id],
      );
      return result.rowCount === 1;
    },
  };
}
