/**
 * Enrolled agents and server-held keys on PostgreSQL. Pages follow `pos` (an identity column:
 * insertion order, as SQLite's rowid); the console's view joins each agent's hosted DID and
 * current credential in the one query.
 */
import type { AgentRecord, AgentStore, AgentWithState, Custody, ServerKeyRecord } from '../agents-store.ts';
import { toPostgresCredential, type PgCredentialRow } from './credentials-store.ts';
import type { Sql } from './pool.ts';

interface AgentRow {
  did: string;
  id: string;
  custody: Custody;
  token_id: string | null;
  privilege_scopes: string;
  delegation_depth: number;
  domains: string | null;
  current_credential_id: string | null;
  created_at: number;
}

interface KeyRow {
  did: string;
  verification_method: string;
  public_key_multibase: string;
  envelope: string;
  created_at: number;
}

type JoinedRow = AgentRow & { hosted_deactivated: boolean | null; current_credential: PgCredentialRow | null };

function toAgent(row: AgentRow): AgentRecord {
  return {
    did: row.did,
    id: row.id,
    custody: row.custody,
    tokenId: row.token_id,
    privilegeScopes: JSON.parse(row.privilege_scopes) as string[],
    delegationDepth: row.delegation_depth,
    domains: row.domains === null ? null : (JSON.parse(row.domains) as string[]),
    currentCredentialId: row.current_credential_id,
    createdAt: row.created_at,
  };
}

function toKey(row: KeyRow): ServerKeyRecord {
  return {
    did: row.did,
    verificationMethod: row.verification_method,
    publicKeyMultibase: row.public_key_multibase,
    envelope: JSON.parse(row.envelope) as unknown,
    createdAt: row.created_at,
  };
}

function toAgentWithState(row: JoinedRow): AgentWithState {
  return {
    agent: toAgent(row),
    hosted: row.hosted_deactivated === null ? undefined : { deactivated: row.hosted_deactivated },
    current: row.current_credential === null ? undefined : toPostgresCredential(row.current_credential),
  };
}

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
      return (await sql.query<JoinedRow>(LIST_WITH_STATE, [from, limit])).rows.map(toAgentWithState);
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
