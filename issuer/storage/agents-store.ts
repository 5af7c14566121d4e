/**
 * Enrolled agents, and the server-held keys of server-custody DIDs (`agent_keys`: the seed as
 * an AES-256-GCM envelope under the key-encryption key, never in clear).
 */
import {
  CREDENTIAL_COLUMNS,
  toCredentialRecord,
  type CredentialRecord,
  type CredentialRow,
} from './credentials-store.ts';
import type { IssuerDb, Sync } from './db.ts';
import { ifRow, isTrue } from './rows.ts';

export type Custody = 'server' | 'self';

export interface AgentRecord {
  did: string;
  /** Short id: the path segment of a hosted did:web (`did:web:<domain>:agents:<id>`). */
  id: string;
  custody: Custody;
  tokenId: string | null;
  privilegeScopes: string[];
  delegationDepth: number;
  domains: string[] | null;
  currentCredentialId: string | null;
  createdAt: number;
}

/** The authority an agent holds: its current credential's subject terms. */
export type AgentTerms = Pick<AgentRecord, 'privilegeScopes' | 'delegationDepth' | 'domains'>;

export interface ServerKeyRecord {
  did: string;
  verificationMethod: string;
  publicKeyMultibase: string;
  /** The AeadEnvelope (wallet/crypto/aead.ts) of the 32-byte seed, AAD = the DID. */
  envelope: unknown;
  createdAt: number;
}

/** An agent with what the console shows beside it: its hosted DID's state and its current credential. */
export interface AgentWithState {
  agent: AgentRecord;
  /** Undefined when the agent's DID is not hosted here. */
  hosted: { deactivated: boolean } | undefined;
  current: CredentialRecord | undefined;
}

export interface AgentStore {
  /** Throws when an agent with this DID or id exists (both are unique). */
  insert(agent: AgentRecord): Promise<void>;
  get(did: string): Promise<AgentRecord | undefined>;
  /** The agent whose short id is `id` (unique, like the DID): its public documents' path segment. */
  getById(id: string): Promise<AgentRecord | undefined>;
  /** Oldest first, after `cursor` (a DID's creation order); undefined when no agent has that DID. */
  list(page: { cursor?: string; limit: number }): Promise<AgentRecord[] | undefined>;
  /** `list`, each agent with its hosted DID's state and current credential, in one read (no query per agent). */
  listWithState(page: { cursor?: string; limit: number }): Promise<AgentWithState[] | undefined>;
  /** Makes `credentialId` the agent's current credential, and its terms the agent's authority (run in the issuing transaction). */
  setCurrentCredential(did: string, credentialId: string, terms: AgentTerms): Promise<void>;
  insertKey(key: ServerKeyRecord): Promise<void>;
  getKey(did: string): Promise<ServerKeyRecord | undefined>;
  /** One server-held key, if any (the start-up check of the key-encryption key). */
  anyKey(): Promise<ServerKeyRecord | undefined>;
}

/** An `agents` row, as both adapters return it. */
export interface AgentRow {
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

/** An `agent_keys` row, as both adapters return it. */
export interface KeyRow {
  did: string;
  verification_method: string;
  public_key_multibase: string;
  envelope: string;
  created_at: number;
}

export function toKey(row: KeyRow): ServerKeyRecord {
  return {
    did: row.did,
    verificationMethod: row.verification_method,
    publicKeyMultibase: row.public_key_multibase,
    envelope: JSON.parse(row.envelope) as unknown,
    createdAt: row.created_at,
  };
}

export function toAgent(row: AgentRow): AgentRecord {
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

/** The current credential of a joined row as one JSON object of its columns (none collide with the agent's). */
const JOINED_CREDENTIAL = `CASE WHEN c.id IS NULL THEN NULL ELSE json_object(${CREDENTIAL_COLUMNS.map(
  (column) => `'${column}', c.${column}`,
).join(', ')}) END AS current_credential`;

/** An agent joined with its hosted DID and current credential (the console's `listWithState`). */
export type JoinedAgentRow = AgentRow & {
  hosted_deactivated: number | boolean | null;
  // SQLite's json_object gives the credential as JSON text, PostgreSQL's to_json as an object.
  current_credential: string | CredentialRow | null;
};

export function toAgentWithState(row: JoinedAgentRow): AgentWithState {
  const current = row.current_credential;
  return {
    agent: toAgent(row),
    hosted: row.hosted_deactivated === null ? undefined : { deactivated: isTrue(row.hosted_deactivated) },
    current:
      current === null
        ? undefined
        : toCredentialRecord(typeof current === 'string' ? (JSON.parse(current) as CredentialRow) : current),
  };
}

export function createSqliteAgentStore(db: IssuerDb): Sync<AgentStore> {
  const s = db.sqlite;
  const insert =
    s.prepare(`INSERT INTO agents (did, id, custody, token_id, privilege_scopes, delegation_depth, domains, current_credential_id, created_at)
    VALUES (@did, @id, @custody, @tokenId, @privilegeScopes, @delegationDepth, @domains, @currentCredentialId, @createdAt)`);
  const get = s.prepare<[string], AgentRow>('SELECT rowid, * FROM agents WHERE did = ?');
  const getById = s.prepare<[string], AgentRow>('SELECT rowid, * FROM agents WHERE id = ?');
  const rowidOf = s.prepare<[string], { rowid: number }>('SELECT rowid FROM agents WHERE did = ?');
  const list = s.prepare<[number, number], AgentRow>(
    'SELECT rowid, * FROM agents WHERE rowid > ? ORDER BY rowid LIMIT ?',
  );
  const listWithState = s.prepare<[number, number], JoinedAgentRow>(
    `SELECT a.rowid AS rowid, a.*, h.deactivated AS hosted_deactivated, ${JOINED_CREDENTIAL}
    FROM agents a LEFT JOIN hosted_dids h ON h.did = a.did LEFT JOIN credentials c ON c.id = a.current_credential_id
    WHERE a.rowid > ? ORDER BY a.rowid LIMIT ?`,
  );
  const setCurrent = s.prepare(
    'UPDATE agents SET current_credential_id = @credentialId, privilege_scopes = @privilegeScopes, delegation_depth = @delegationDepth, domains = @domains WHERE did = @did',
  );
  const insertKey =
    s.prepare(`INSERT INTO agent_keys (did, verification_method, public_key_multibase, envelope, created_at)
    VALUES (@did, @verificationMethod, @publicKeyMultibase, @envelope, @createdAt)`);
  const getKey = s.prepare<[string], KeyRow>('SELECT * FROM agent_keys WHERE did = ?');
  const anyKey = s.prepare<[], KeyRow>('SELECT * FROM agent_keys LIMIT 1');

  return {
    insert(agent) {
      insert.run({
        ...agent,
        privilegeScopes: JSON.stringify(agent.privilegeScopes),
        domains: agent.domains === null ? null : JSON.stringify(agent.domains),
      });
    },
    get: (did) => ifRow(get.get(did), toAgent),
    getById: (id) => ifRow(getById.get(id), toAgent),
    list({ cursor, limit }) {
      const after = cursor === undefined ? 0 : rowidOf.get(cursor)?.rowid;
      return after === undefined ? undefined : list.all(after, limit).map(toAgent);
    },
    listWithState({ cursor, limit }) {
      const after = cursor === undefined ? 0 : rowidOf.get(cursor)?.rowid;
      return after === undefined ? undefined : listWithState.all(after, limit).map(toAgentWithState);
    },
    setCurrentCredential: (did, credentialId, terms) =>
      void setCurrent.run({
        did,
        credentialId,
        privilegeScopes: JSON.stringify(terms.privilegeScopes),
        delegationDepth: terms.delegationDepth,
        domains: terms.domains === null ? null : JSON.stringify(terms.domains),
      }),
    insertKey: (key) => void insertKey.run({ ...key, envelope: JSON.stringify(key.envelope) }),
    getKey: (did) => ifRow(getKey.get(did), toKey),
    anyKey: () => ifRow(anyKey.get(), toKey),
  };
}
