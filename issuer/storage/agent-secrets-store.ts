/**
 * Server-custody agents' client secrets (table `agent_client_secrets`): one per agent, kept as
 * the SHA-256 of the secret (docs/api.md §Agent client secrets).
 */
import type { IssuerDb, Sync } from './db.ts';

export interface AgentSecretRecord {
  agentDid: string;
  /** Hex SHA-256 of the secret. */
  secretHash: string;
  createdAt: number;
}

export interface AgentSecretStore {
  /**
   * Stores the agent's secret hash, replacing the one it had (rotation) atomically: from the
   * moment this returns only `secretHash` is accepted. Returns whether a secret was replaced.
   */
  put(record: AgentSecretRecord): Promise<{ replaced: boolean }>;
  get(agentDid: string): Promise<AgentSecretRecord | undefined>;
  /** Removes the agent's secret; false when it had none. */
  remove(agentDid: string): Promise<boolean>;
}

interface Row {
  agent_did: string;
  secret_hash: string;
  created_at: number;
}

export function createSqliteAgentSecretStore(db: IssuerDb): Sync<AgentSecretStore> {
  const select = db.sqlite.prepare<[string], Row>('SELECT * FROM agent_client_secrets WHERE agent_did = ?');
  const upsert = db.sqlite.prepare(
    `INSERT INTO agent_client_secrets (agent_did, secret_hash, created_at) VALUES (?, ?, ?)
     ON CONFLICT(agent_did) DO UPDATE SET secret_hash = excluded.secret_hash, created_at = excluded.created_at`,
  );
  const remove = db.sqlite.prepare('DELETE FROM agent_client_secrets WHERE agent_did = ?');
  const get = (agentDid: string): AgentSecretRecord | undefined => {
    const row = select.get(agentDid);
    return row && { agentDid: row.agent_did, secretHash: row.secret_hash, createdAt: row.created_at };
  };
  return {
    put: (record) =>
      db.transaction(() => {
        const replaced = select.get(record.agentDid) !== undefined;
        upsert.run(record.agentDid, record.secretHash, record.createdAt);
        return { replaced };
      }),
    get,
    remove: (agentDid) => remove.run(agentDid).changes > 0,
  };
}
