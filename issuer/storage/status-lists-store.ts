/**
 * Bitstring Status Lists as rows: the status bitstring itself, a second bitmap of allocated
 * indexes (so an index is handed out once), a version bumped on every status change, and a
 * cache of the signed list credential for the version it was signed at.
 */
import type { IssuerDb, Sync } from './db.ts';
import { ifRow } from './rows.ts';

/** One element of statusMessage (Bitstring Status List §2.1): a "0x…" status and its message. */
export interface StatusMessageRecord {
  status: string;
  message: string;
}

export interface StatusListRecord {
  id: string;
  purpose: string;
  /** Number of entries. */
  length: number;
  /** Bits per entry (§2.1 statusSize), 1 unless the list was created larger. */
  statusSize: number;
  /** What each value means, for entries on a list of statusSize > 1 (§2.1 statusMessage). */
  statusMessages: StatusMessageRecord[] | null;
  bitstring: Uint8Array;
  allocated: Uint8Array;
  issued: number;
  version: number;
  signedVersion: number | null;
  signedJson: string | null;
  etag: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface StatusListStore {
  insert(
    record: Pick<
      StatusListRecord,
      'id' | 'purpose' | 'length' | 'statusSize' | 'statusMessages' | 'bitstring' | 'allocated' | 'createdAt'
    >,
  ): Promise<void>;
  get(id: string): Promise<StatusListRecord | undefined>;
  /** The version only: cheap, for cache validation. */
  version(id: string): Promise<number | undefined>;
  list(): Promise<StatusListRecord[]>;
  /**
   * Unique index allocation: marks `index` of list `id` handed out (and counts it) in one atomic
   * read-check-write; true for exactly one of any number of concurrent callers, false when the
   * index was already allocated or the list does not exist.
   */
  allocate(id: string, index: number, at: number): Promise<boolean>;
  /** Writes a changed bitstring and bumps the version (atomically: every change gets its own version). */
  saveBitstring(id: string, bitstring: Uint8Array, at: number): Promise<void>;
  /** Caches the signed credential if `version` is still current; false when a change raced ahead. */
  saveSigned(id: string, version: number, json: string, etag: string): Promise<boolean>;
  /** Forgets every signed list, so each is signed again (with a new key) when next served. */
  clearSigned(): Promise<void>;
}

/** A `status_lists` row, as both adapters return it (BLOB and BYTEA both as a Buffer). */
export interface ListRow {
  id: string;
  purpose: string;
  length: number;
  status_size: number | null;
  status_messages: string | null;
  bitstring: Buffer;
  allocated: Buffer;
  issued: number;
  version: number;
  signed_version: number | null;
  signed_json: string | null;
  etag: string | null;
  created_at: number;
  updated_at: number;
}

function bytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength));
}

export function toStatusListRecord(row: ListRow): StatusListRecord {
  return {
    id: row.id,
    purpose: row.purpose,
    length: row.length,
    statusSize: row.status_size ?? 1, // null only in SQLite rows written before the column (NOT NULL in PostgreSQL)
    statusMessages: row.status_messages === null ? null : (JSON.parse(row.status_messages) as StatusMessageRecord[]),
    bitstring: bytes(row.bitstring),
    allocated: bytes(row.allocated),
    issued: row.issued,
    version: row.version,
    signedVersion: row.signed_version,
    signedJson: row.signed_json,
    etag: row.etag,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createSqliteStatusListStore(db: IssuerDb): Sync<StatusListStore> {
  const s = db.sqlite;
  const insert =
    s.prepare(`INSERT INTO status_lists (id, purpose, length, status_size, status_messages, bitstring, allocated, created_at, updated_at)
    VALUES (@id, @purpose, @length, @statusSize, @statusMessages, @bitstring, @allocated, @createdAt, @createdAt)`);
  const get = s.prepare<[string], ListRow>('SELECT * FROM status_lists WHERE id = ?');
  const version = s.prepare<[string], { version: number }>('SELECT version FROM status_lists WHERE id = ?');
  const list = s.prepare<[], ListRow>('SELECT * FROM status_lists ORDER BY created_at, id');
  const saveAllocated = s.prepare('UPDATE status_lists SET allocated = ?, issued = ?, updated_at = ? WHERE id = ?');
  const allocation = s.prepare<[string], { allocated: Buffer; issued: number; length: number }>(
    'SELECT allocated, issued, length FROM status_lists WHERE id = ?',
  );
  const saveBitstring = s.prepare(
    'UPDATE status_lists SET bitstring = ?, version = version + 1, updated_at = ? WHERE id = ?',
  );
  const saveSigned = s.prepare(
    'UPDATE status_lists SET signed_version = ?, signed_json = ?, etag = ? WHERE id = ? AND version = ?',
  );
  const clearSigned = s.prepare('UPDATE status_lists SET signed_version = NULL, signed_json = NULL, etag = NULL');

  return {
    insert: (record) =>
      void insert.run({
        ...record,
        statusMessages: record.statusMessages === null ? null : JSON.stringify(record.statusMessages),
        bitstring: Buffer.from(record.bitstring),
        allocated: Buffer.from(record.allocated),
      }),
    get: (id) => ifRow(get.get(id), toStatusListRecord),
    version: (id) => version.get(id)?.version,
    list: () => list.all().map(toStatusListRecord),
    allocate: (id, index, at) =>
      db.transaction(() => {
        const row = allocation.get(id);
        const byte = row?.allocated[index >> 3];
        if (!row || byte === undefined || index < 0 || index >= row.length || (byte & (0x80 >> (index & 7))) !== 0)
          return false;
        row.allocated[index >> 3] = byte | (0x80 >> (index & 7));
        saveAllocated.run(row.allocated, row.issued + 1, at, id);
        return true;
      }),
    saveBitstring: (id, bitstring, at) => void saveBitstring.run(Buffer.from(bitstring), at, id),
    saveSigned: (id, v, json, etag) => saveSigned.run(v, json, etag, id, v).changes === 1,
    clearSigned: () => void clearSigned.run(),
  };
}
