/**
 * The audit table on PostgreSQL: append and read, nothing else. The chain stays linear across
 * instances twice over: every transaction of this adapter holds the writer lock (stores.ts), so
 * `last()` then `append()` in one transaction reads the head no other writer can move; and the
 * primary key on `seq` refuses a second record at one position, whoever read the same head.
 * `appendAfter` (the group commit's path) takes the same lock inside its one call.
 */
import {
  toAuditRow,
  type AuditFilter,
  type AuditHead,
  type AuditRow,
  type AuditStore,
  type AuditTableRow,
  type AppendConditions,
} from '../audit-store.ts';
import type { Sql } from './pool.ts';
import { PG_REPORTED_SQL } from './schema.ts';
import { encodeText } from './text.ts';

/** The row's fields in the table's column order, each bound as one array parameter of APPEND. */
const AUDIT_COLUMNS = [
  'seq',
  'id',
  'at',
  'event',
  'agentDid',
  'actor',
  'reason',
  'vpId',
  'data',
  'prevHash',
  'hash',
] as const satisfies readonly (keyof AuditRow)[];

/** Every link of a batch in one statement: a round trip per batch, not per record. */
const APPEND = `INSERT INTO audit (seq, id, at, event, agent_did, actor, reason, vp_id, data, prev_hash, hash)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[],
    $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])`;

/** `appendAfter`: the function of migration 3 (schema.ts), one round trip, its own transaction. */
const APPEND_AFTER = `SELECT appended, head_seq, head_hash, refused FROM mandate_audit_append_if($12, $13,
  $1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
  $10::text[], $11::text[], $14::int[], $15::text[], $16::bigint[], $17, $18, $19::int[], $20::bigint[])`;

/** Expired replay keys deleted per claimed one, as replay-store.ts does per recorded one. */
const PRUNED_PER_CLAIM = 8;

/** The conditions as APPEND_AFTER's last seven parameters (keys encoded here, as the columns' strings). */
function conditionParameters(conditions: AppendConditions | undefined): unknown[] {
  const keys = conditions?.keys ?? [];
  const generations = conditions?.generations ?? [];
  return [
    keys.map((k) => k.row),
    keys.map((k) => encodeText(k.key)),
    keys.map((k) => k.expiresAt),
    conditions?.at ?? 0,
    PRUNED_PER_CLAIM,
    generations.map((g) => g.row),
    generations.map((g) => g.generation),
  ];
}

/** One array per column; strings encoded here, since textSafe encodes only plain string parameters. */
function columns(rows: AuditRow[]): (string | number | null)[][] {
  return AUDIT_COLUMNS.map((column) =>
    rows.map((row) => (typeof row[column] === 'string' ? encodeText(row[column]) : row[column])),
  );
}

/** The WHERE clause of `filter` from fixed fragments, its values as bound parameters. */
function where(filter: Omit<AuditFilter, 'order' | 'limit'>): { clause: string; values: unknown[] } {
  const values: unknown[] = [filter.afterSeq ?? 0];
  const parts = ['seq > $1'];
  const bind = (fragment: (n: string) => string, value: unknown) => {
    values.push(value);
    parts.push(fragment(`$${values.length}`));
  };
  if (filter.beforeSeq !== undefined) bind((n) => `seq < ${n}`, filter.beforeSeq);
  if (filter.agentDid !== undefined) bind((n) => `agent_did = ${n}`, filter.agentDid);
  if (filter.event !== undefined) bind((n) => `event = ${n}`, filter.event);
  if (filter.reported !== undefined) parts.push(`${PG_REPORTED_SQL} = ${filter.reported ? 'TRUE' : 'FALSE'}`);
  if (filter.from !== undefined) bind((n) => `at >= ${n}`, filter.from);
  if (filter.to !== undefined) bind((n) => `at <= ${n}`, filter.to);
  return { clause: parts.join(' AND '), values };
}

export function createPostgresAuditStore(sql: Sql): AuditStore {
  const last = async () =>
    (await sql.query<AuditHead>('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1')).rows[0];
  return {
    last,
    async append(...rows) {
      if (rows.length === 0) return;
      await sql.query(APPEND, columns(rows));
    },
    async appendAfter(expected, rows, conditions) {
      const result = await sql.query<{
        appended: boolean;
        head_seq: number | null;
        head_hash: string | null;
        refused: number[] | null;
      }>(APPEND_AFTER, [
        ...columns(rows),
        expected?.seq ?? null,
        expected?.hash ?? null,
        ...conditionParameters(conditions),
      ]);
      const { appended, head_seq: seq, head_hash: hash, refused } = result.rows[0] ?? {};
      if (appended === true) return { appended: true };
      const head = seq == null || hash == null ? undefined : { seq, hash };
      const [first, ...rest] = refused ?? [];
      return first === undefined ? { appended: false, head } : { appended: false, head, refused: [first, ...rest] };
    },
    async list({ order, limit, ...filter }) {
      const { clause, values } = where(filter);
      const rows = await sql.query<AuditTableRow>(
        `SELECT * FROM audit WHERE ${clause} ORDER BY seq ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT $${values.length + 1}`,
        [...values, limit],
      );
      return rows.rows.map(toAuditRow);
    },
  };
}
