/**
 * Enrolled agents and server-held keys on PostgreSQL. Pages follow `pos` (an identity column:
 * insertion order, as SQLite's rowid); the console's view joins each agent's hosted DID and
 * current credential in the one query.
 */
import {
  toAgent,
  toAgentWithState,
  toKey,
  type AgentRow,
  type AgentStore,
  type JoinedAgentRow,
  type KeyRow,
} from '../agents-store.ts';
import type { Sql } from './pool.ts';

const AGENT_COLUMNS =
  'a.did, a.id, a.custody, a.token_id, a.privilege_scopes, a.delegation_depth, a.domains, a.current_credential_id, a.created_at';

// to_json keeps BIGINT columns as JSON numbers (epoch ms fit a double exactly) and BOOLEAN as booleans.
const LIST_WITH_STATE = `SELECT ${AGENT_COLUMNS}, h.deactivated AS hosted_deactivated,
    CASE WHEN c.id IS NULL THEN NULL ELSE to_json(c) END AS current_credential
  FROM agents a LEFT JOIN hosted_dids h ON h.did = a.did LEFT JOIN credentials c ON c.id = a.current_credential_id
  WHERE a.pos > $1 ORDER BY a.pos LIMIT $2`;

export function createPostgresAgentStore(sql: Sql): AgentStore {
  /** The `pos` after which a page starts, or undefined for an unknown cursor. */
  const after = async (cursor: string | undefined): Promise<number | undefined> => {
    if (cursor === undefined) return 0;
    return (await sql.query<{ pos: number }>('SELECT pos FROM agents WHERE did = $1', [cursor])).rows[0]?.pos;
  };
  const key = async (text: string, values: unknown[]) => {
    const row = (await sql.query<KeyRow>(text, values)).rows[0];
    return row && toKey(row);
  };
  return {
    async insert(a) {
      await sql.query(
        `INSERT INTO agents (did, id, custody, token_id, privilege_scopes, delegation_depth, domains, current_credential_id, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          a.did,
          a.id,
          a.custody,
          a.tokenId,
          JSON.stringify(a.privilegeScopes),
          a.delegationDepth,
          a.domains === null ? null : JSON.stringify(a.domains),
          a.currentCredentialId,
          a.createdAt,
        ],
      );
    },
    async get(did) {
      const row = (await sql.query<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents a WHERE did = $1`, [did])).rows[0];
      return row && toAgent(row);
    },
    async getById(id) {
      const row = (await sql.query<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents a WHERE id = $1`, [id])).rows[0];
      return row && toAgent(row);
    },
    async list({ cursor, limit }) {
      const from = await after(cursor);
      if (from === undefined) return undefined;
      const rows = await sql.query<AgentRow>(
        `SELECT ${AGENT_COLUMNS} FROM agents a WHERE pos > $1 ORDER BY pos LIMIT $2`,
        [from, limit],
      );
      return rows.rows.map(toAgent);
    },
    async listWithState({ cursor, limit }) {
      const from = await after(cursor);
      if (from === undefined) return undefined;
      return (await sql.query<JoinedAgentRow>(LIST_WITH_STATE, [from, limit])).rows.map(toAgentWithState);
    },
    async setCurrentCredential(did, credentialId, terms) {
      await sql.query(
        'UPDATE agents SET current_credential_id = $1, privilege_scopes = $2, delegation_depth = $3, domains = $4 WHERE did = $5',
        [
          credentialId,
          JSON.stringify(terms.privilegeScopes),
          terms.delegationDepth,
          terms.domains === null ? null : JSON.stringify(terms.domains),
          did,
        ],
      );
    },
    async insertKey(k) {
      await sql.query(
        `INSERT INTO agent_keys (did, verification_method, public_key_multibase, envelope, created_at)
        VALUES ($1, $2, $3, $4, $5)`,
        [k.did, k.verificationMethod, k.publicKeyMultibase, JSON.stringify(k.envelope), k.createdAt],
      );
    },
    getKey: (did) => key('SELECT * FROM agent_keys WHERE did = $1', [did]),
    anyKey: () => key('SELECT * FROM agent_keys LIMIT 1', []),
  };
}
