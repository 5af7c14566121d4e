/** Credentials the VC-API signed, on PostgreSQL: the id is the primary key, recorded once. */
import { toVcApiCredential, type VcApiCredentialRow, type VcApiCredentialStore } from '../vc-api-credentials-store.ts';
import type { Sql } from './pool.ts';

export function createPostgresVcApiCredentialStore(sql: Sql): VcApiCredentialStore {
  return {
    async insert(r) {
      const result = await sql.query(
        `INSERT INTO vc_api_credentials (id, types, status_entries, issued_at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (id) DO NOTHING`,
        [r.id, JSON.stringify(r.types), JSON.stringify(r.statusEntries), r.issuedAt],
      );
      return result.rowCount === 1;
    },
    async get(id) {
      const row = (await sql.query<VcApiCredentialRow>('SELECT * FROM vc_api_credentials WHERE id = $1', [id])).rows[0];
      return row && toVcApiCredential(row);
    },
  };
}
