/** DID documents this issuer hosts, on PostgreSQL; pages follow `pos` (insertion order). */
import type { DidDocument } from '../../../wallet/did/types.ts';
import type { DidStore, HostedDidKind, HostedDidRecord } from '../dids-store.ts';
import { batchedLookup } from './batched-lookup.ts';
import type { Sql } from './pool.ts';

interface DidRow {
  did: string;
  document: string;
  kind: HostedDidKind;
  deactivated: boolean;
  created_at: number;
  updated_at: number;
}

function toRecord(row: DidRow): HostedDidRecord {
  return {
    did: row.did,
    document: JSON.parse(row.document) as DidDocument,
    kind: row.kind,
    deactivated: row.deactivated,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const COLUMNS = 'did, document, kind, deactivated, created_at, updated_at';

export function createPostgresDidStore(sql: Sql): DidStore {
  return {
    async get(did) {
      const row = (await sql.query<DidRow>(`SELECT ${COLUMNS} FROM hosted_dids WHERE did = $1`, [did])).rows[0];
      return row && toRecord(row);
    },
    async insert(r) {
      await sql.query(`INSERT INTO hosted_dids (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [
        r.did,
        JSON.stringify(r.document),
        r.kind,
        r.deactivated,
        r.createdAt,
        r.updatedAt,
      ]);
    },
    async updateDocument(did, document, at) {
      const result = await sql.query('UPDATE hosted_dids SET document = $1, updated_at = $2 WHERE did = $3', [
        JSON.stringify(document),
        at,
        did,
      ]);
      return result.rowCount === 1;
    },
    async deactivate(did, at) {
      const result = await sql.query(
        'UPDATE hosted_dids SET deactivated = TRUE, updated_at = $1 WHERE did = $2 AND NOT deactivated',
        [at, did],
      );
      return result.rowCount === 1;
    },
    async list({ kind, cursor, limit }) {
      let after = 0;
      if (cursor !== undefined) {
        const found = (await sql.query<{ pos: number }>('SELECT pos FROM hosted_dids WHERE did = $1', [cursor]))
          .rows[0];
        if (found === undefined) return undefined;
        after = found.pos;
      }
      const rows = await sql.query<DidRow>(
        `SELECT ${COLUMNS} FROM hosted_dids WHERE pos > $1 AND ($2::text IS NULL OR kind = $2) ORDER BY pos LIMIT $3`,
        [after, kind ?? null, limit],
      );
      return rows.rows.map(toRecord);
    },
  };
}

/** `get` outside transactions: the hosted DIDs every verification resolves, one statement per event-loop turn. */
export function batchedDidGet(sql: Sql): DidStore['get'] {
  return batchedLookup(async (dids) => {
    const rows = (await sql.query<DidRow>(`SELECT ${COLUMNS} FROM hosted_dids WHERE did = ANY($1)`, [dids])).rows;
    return new Map(rows.map((row) => [row.did, toRecord(row)]));
  });
}
