/**
 * Credentials the VC-API signed (POST /credentials/issue), by the id status updates name them
 * with: the credential's own id, or the request's options.credentialId. Each row keeps where its
 * status entries point on this issuer's lists, so POST /credentials/status can change them.
 */
import type { IssuerDb, Sync } from './db.ts';
import { ifRow } from './rows.ts';

/** A status entry of a VC-API credential: which purpose, on which of this issuer's lists, at which index. */
export interface VcApiStatusEntry {
  purpose: string;
  listId: string;
  index: number;
}

export interface VcApiCredentialRecord {
  id: string;
  types: string[];
  statusEntries: VcApiStatusEntry[];
  issuedAt: number;
}

export interface VcApiCredentialStore {
  /** Records a credential; false when one with this id was recorded before (ids are unique). */
  insert(record: VcApiCredentialRecord): Promise<boolean>;
  get(id: string): Promise<VcApiCredentialRecord | undefined>;
}

/** A `vc_api_credentials` row, as both adapters return it. */
export interface VcApiCredentialRow {
  id: string;
  types: string;
  status_entries: string;
  issued_at: number;
}

export function toVcApiCredential(row: VcApiCredentialRow): VcApiCredentialRecord {
  return {
    id: row.id,
    types: JSON.parse(row.types) as string[],
    statusEntries: JSON.parse(row.status_entries) as VcApiStatusEntry[],
    issuedAt: row.issued_at,
  };
}

export function createSqliteVcApiCredentialStore(db: IssuerDb): Sync<VcApiCredentialStore> {
  const insert = db.sqlite.prepare(
    'INSERT OR IGNORE INTO vc_api_credentials (id, types, status_entries, issued_at) VALUES (?, ?, ?, ?)',
  );
  const get = db.sqlite.prepare<[string], VcApiCredentialRow>('SELECT * FROM vc_api_credentials WHERE id = ?');
  return {
    insert: (record) =>
      insert.run(record.id, JSON.stringify(record.types), JSON.stringify(record.statusEntries), record.issuedAt)
        .changes === 1,
    get: (id) => ifRow(get.get(id), toVcApiCredential),
  };
}
