/** Server-custody agents' client secret hashes on PostgreSQL: one per agent, rotation replaces it. */
import type { AgentSecretRecord, AgentSecretStore } from '../agent-secrets-store.ts';
import type { Sql } from './pool.ts';

interface Row {
  agent_did: string;
  secret_hash: string;
  created_at: number;
}

// One statement, so the replacement is atomic. `xmax` of the returned row is 0 when it was
// inserted, and the updating transaction's id when ON CONFLICT updated an existing row.
const PUT = `INSERT INTO agent_client_secrets (agent_did, secret_hash, created_at) VALUES ($1, $2, $3)
  ON CONFLICT (agent_did) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, created_at = EXCLUDED.created_at
  RETURNING (xmax <> 0) AS replaced`;

export function createPostgresAgentSecretStore(sql: Sql): AgentSecretStore {
  return {
    async put(r) {
      const row = (await sql.query<{ replaced: boolean }>(PUT, [r.agentDid, r.secretHash, r.createdAt])).rows[0];
      return { replaced: row?.replaced === true };
    },
    async get(agentDid): Promise<AgentSecretRecord | undefined> {
      const row = (await sql.query<Row>('SELECT * FROM agent_client_secrets WHERE agent_did = $1', [agentDid])).rows[0];
      return row && { agentDid: row.agent_did, secretHash: row.secret_hash, createdAt: row.created_at };
    },
    async remove(agentDid) {
      const result = await sql.query('DELETE FROM agent_client_secrets WHERE agent_did = $1', [agentDid]);
      return (result.rowCount ?? 0) > 0;
    },
  };
}
