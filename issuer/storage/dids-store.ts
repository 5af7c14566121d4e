/**
 * DID documents this issuer hosts: its own did:web, its server-custody agents, and DIDs created
 * through /v1/dids. The issuer's local resolver reads them here (no HTTP), so a deactivation or a
 * new service is seen by the next verification.
 */
import type { DidDocument } from '../../wallet/did/types.ts';
import type { IssuerDb, Sync } from './db.ts';

/** Who the DID belongs to: the issuer itself, an enrolled agent, or a DID managed through /v1/dids. */
export type HostedDidKind = 'issuer' | 'agent' | 'managed' | 'registered';

export interface HostedDidRecord {
  did: string;
  document: DidDocument;
  kind: HostedDidKind;
  deactivated: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface DidStore {
  get(did: string): Promise<HostedDidRecord | undefined>;
  /** Throws when the DID is hosted already (the DID is unique). */
  insert(record: HostedDidRecord): Promise<void>;
  /** Replaces the document (and clears nothing else); false when the DID is not hosted. */
  updateDocument(did: string, document: DidDocument, at: number): Promise<boolean>;
  /** Conditional: marks the DID deactivated (DID Core §7.1.3) for exactly one caller; false when absent or already deactivated. */
  deactivate(did: string, at: number): Promise<boolean>;
  /** Oldest first, after `cursor` (a DID); undefined when no DID here is that one. */
  list(page: { kind?: HostedDidKind; cursor?: string; limit: number }): Promise<HostedDidRecord[] | undefined>;
}

interface DidRow {
  did: string;
  document: string;
  kind: HostedDidKind;
  deactivated: number;
  created_at: number;
  updated_at: number;
}

function toRecord(row: DidRow | undefined): HostedDidRecord | undefined {
  if (!row) return undefined;
  return {
    did: row.did,
    document: JSON.parse(row.document) as DidDocument,
    kind: row.kind,
    deactivated: row.deactivated === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createSqliteDidStore(db: IssuerDb): Sync<DidStore> {
  const s = db.sqlite;
  const get = s.prepare<[string], DidRow>('SELECT * FROM hosted_dids WHERE did = ?');
  const insert = s.prepare(`INSERT INTO hosted_dids (did, document, kind, deactivated, created_at, updated_at)
    VALUES (@did, @document, @kind, @deactivated, @createdAt, @updatedAt)`);
  const update = s.prepare('UPDATE hosted_dids SET document = ?, updated_at = ? WHERE did = ?');
  const deactivate = s.prepare(
    'UPDATE hosted_dids SET deactivated = 1, updated_at = ? WHERE did = ? AND deactivated = 0',
  );
  const rowidOf = s.prepare<[string], { rowid: number }>('SELECT rowid FROM hosted_dids WHERE did = ?');
  const listAll = s.prepare<[number, number], DidRow>(
    'SELECT * FROM hosted_dids WHERE rowid > ? ORDER BY rowid LIMIT ?',
  );
  const listKind = s.prepare<[number, string, number], DidRow>(
    'SELECT * FROM hosted_dids WHERE rowid > ? AND kind = ? ORDER BY rowid LIMIT ?',
  );

  return {
    get: (did) => toRecord(get.get(did)),
    insert(record) {
      insert.run({ ...record, document: JSON.stringify(record.document), deactivated: record.deactivated ? 1 : 0 });
    },
    updateDocument: (did, document, at) => update.run(JSON.stringify(document), at, did).changes === 1,
    deactivate: (did, at) => deactivate.run(at, did).changes === 1,
    list({ kind, cursor, limit }) {
      const after = cursor === undefined ? 0 : rowidOf.get(cursor)?.rowid;
      if (after === undefined) return undefined;
      const rows = kind === undefined ? listAll.all(after, limit) : listKind.all(after, kind, limit);
      return rows.map((row) => toRecord(row) as HostedDidRecord);
    },
  };
}
