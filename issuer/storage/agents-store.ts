/**
 * Enrolled agents, and the server-held keys of server-custody DIDs (`agent_keys`: the seed as
 * an AES-256-GCM envelope under the key-encryption key, never in clear).
 */
import type { IssuerDb } from './db.ts';

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

export interface AgentStore {
  insert(agent: AgentRecord): void;
  get(did: string): AgentRecord | undefined;
  /** Oldest first, after `cursor` (a DID's creation order); undefined when no agent has that DID. */
  list(page: { cursor?: string; limit: number }): AgentRecord[] | undefined;
  /** Makes `credentialId` the agent's current credential, and its terms the agent's authority. */
  setCurrentCredential(did: string, credentialId: string, terms: AgentTerms): void;
  insertKey(key: ServerKeyRecord): void;
  getKey(did: string): ServerKeyRecord | undefined;
  /** One server-held key, if any (the start-up check of the key-encryption key). */
  anyKey(): ServerKeyRecord | undefined;
}

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
  rowid: number;
}

interface KeyRow {
  did: string;
  verification_method: string;
  public_key_multibase: string;
  envelope: string;
  created_at: number;
}

function toKey(row: KeyRow | undefined): ServerKeyRecord | undefined {
  if (!row) return undefined;
  return {
    did: row.did,
    verificationMethod: row.verification_method,
    publicKeyMultibase: row.public_key_multibase,
    envelope: JSON.parse(row.envelope) as unknown,
    createdAt: row.created_at,
  };
}

function toAgent(row: AgentRow | undefined): AgentRecord | undefined {
  if (!row) return undefined;
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

export function createSqliteAgentStore(db: IssuerDb): AgentStore {
  const s = db.sqlite;
  const insert =
    s.prepare(`INSERT INTO agents (did, id, custody, token_id, privilege_scopes, delegation_depth, domains, current_credential_id, created_at)
    VALUES (@did, @id, @custody, @tokenId, @privilegeScopes, @delegationDepth, @domains, @currentCredentialId, @createdAt)`);
  const get = s.prepare<[string], AgentRow>('SELECT rowid, * FROM agents WHERE did = ?');
  const rowidOf = s.prepare<[string], { rowid: number }>('SELECT rowid FROM agents WHERE did = ?');
  const list = s.prepare<[number, number], AgentRow>(
    'SELECT rowid, * FROM agents WHERE rowid > ? ORDER BY rowid LIMIT ?',
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
    get: (did) => toAgent(get.get(did)),
    list({ cursor, limit }) {
      const after = cursor === undefined ? 0 : rowidOf.get(cursor)?.rowid;
      return after === undefined ? undefined : list.all(after, limit).map((row) => toAgent(row) as AgentRecord);
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
    getKey: (did) => toKey(getKey.get(did)),
    anyKey: () => toKey(anyKey.get()),
  };
}
