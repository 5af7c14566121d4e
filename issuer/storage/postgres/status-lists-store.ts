/**
 * Bitstring Status Lists on PostgreSQL. `allocate` is one conditional UPDATE that sets the
 * index's bit of the allocation bitmap only while it is clear: the row lock makes a concurrent
 * allocation of the same index wait and then find the bit set, so no index is handed out twice
 * across instances.
 */
import { toStatusListRecord, type ListRow, type StatusListStore } from '../status-lists-store.ts';
import { batchedLookup } from './batched-lookup.ts';
import type { Sql } from './pool.ts';

/**
 * PostgreSQL's get_bit/set_bit number a bytea's bits from the least significant bit of each
 * byte; the bitmap is read most significant bit first (Bitstring Status List §3.2, and the
 * SQLite adapter's `0x80 >> (index & 7)`).
 */
function bitOf(index: number): number {
  return (index >> 3) * 8 + (7 - (index & 7));
}

// CASE orders the checks: get_bit on a bit past the bitmap's end would raise, not answer false.
const ALLOCATE = `UPDATE status_lists
  SET allocated = set_bit(allocated, $2, 1), issued = issued + 1, updated_at = $4
  WHERE id = $1 AND CASE WHEN $3 < length AND $2 < octet_length(allocated) * 8
    THEN get_bit(allocated, $2) = 0 ELSE FALSE END`;

export function createPostgresStatusListStore(sql: Sql): StatusListStore {
  return {
    async insert(r) {
      await sql.query(
        `INSERT INTO status_lists (id, purpose, length, status_size, status_messages, bitstring, allocated, created_at, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
        [
          r.id,
          r.purpose,
          r.length,
          r.statusSize,
          r.statusMessages === null ? null : JSON.stringify(r.statusMessages),
          Buffer.from(r.bitstring),
          Buffer.from(r.allocated),
          r.createdAt,
        ],
      );
    },
    async get(id) {
      const row = (await sql.query<ListRow>('SELECT * FROM status_lists WHERE id = $1', [id])).rows[0];
      return row && toStatusListRecord(row);
    },
    async version(id) {
      return (await sql.query<{ version: number }>('SELECT version FROM status_lists WHERE id = $1', [id])).rows[0]
        ?.version;
    },
    async list() {
      return (await sql.query<ListRow>('SELECT * FROM status_lists ORDER BY created_at, id')).rows.map(
        toStatusListRecord,
      );
    },
    async allocate(id, index, at) {
      if (!Number.isSafeInteger(index) || index < 0 || index >= 2 ** 31 - 8) return false;
      return (await sql.query(ALLOCATE, [id, bitOf(index), index, at])).rowCount === 1;
    },
    async saveBitstring(id, bitstring, at) {
      await sql.query('UPDATE status_lists SET bitstring = $1, version = version + 1, updated_at = $2 WHERE id = $3', [
        Buffer.from(bitstring),
        at,
        id,
      ]);
    },
    async saveSigned(id, v, json, etag) {
      const result = await sql.query(
        'UPDATE status_lists SET signed_version = $1, signed_json = $2, etag = $3 WHERE id = $4 AND version = $1',
        [v, json, etag, id],
      );
      return result.rowCount === 1;
    },
    async clearSigned() {
      await sql.query('UPDATE status_lists SET signed_version = NULL, signed_json = NULL, etag = NULL');
    },
  };
}

/**
 * `version` outside transactions: the lists' versions every verification reads, for one
 * event-loop turn's callers in one statement (each read is issued after its call: no caller
 * sees a version older than its own request).
 */
export function batchedListVersion(sql: Sql): StatusListStore['version'] {
  return batchedLookup(async (ids) => {
    const rows = (
      await sql.query<{ id: string; version: number }>('SELECT id, version FROM status_lists WHERE id = ANY($1)', [ids])
    ).rows;
    return new Map(rows.map((row) => [row.id, row.version]));
  });
}
