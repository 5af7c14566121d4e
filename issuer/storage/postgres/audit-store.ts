/**
 * The audit table on PostgreSQL: append and read, nothing else. The chain stays linear across
 * instances twice over: every transaction of this adapter holds the writer lock (stores.ts), so
 * `last()` then `append()` in one transaction reads the head no other writer can move; and the
 * primary key on `seq` refuses a second record at one position, whoever read the same head.
 * `appendEntries` (the group commit's path) takes the same lock inside its one call and places
 * the links after the head it reads there.
 */
import { AUDIT_GENESIS_HASH, linkSegments, type AuditEntry } from '../audit-chain.ts';
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

/** The entry's fields in APPEND_ENTRIES's order, each bound as one array parameter. */
const ENTRY_COLUMNS = [
  'id',
  'at',
  'event',
  'agentDid',
  'actor',
  'reason',
  'vpId',
  'data',
] as const satisfies readonly (keyof AuditEntry)[];

/** The row's fields in the table's column order, each bound as one array parameter of APPEND. */
const AUDIT_COLUMNS = ['seq', ...ENTRY_COLUMNS, 'prevHash', 'hash'] as const satisfies readonly (keyof AuditRow)[];

/** Every link of a batch in one statement: a round trip per batch, not per record. */
const APPEND = `INSERT INTO audit (seq, id, at, event, agent_did, actor, reason, vp_id, data, prev_hash, hash)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[],
    $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])`;

/** `appendEntries`: the function of migration 4 (schema.ts), one round trip, its own transaction. */
const APPEND_ENTRIES = `SELECT first_seq, first_prev, links, refused FROM mandate_audit_append_entries(
  $1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
  $9::text[], $10::text[], $11::text[], $12, $13::int[], $14::text[], $15::bigint[], $16, $17, $18::int[], $19::bigint[])`;

/** Expired replay keys deleted per claimed one, as replay-store.ts does per recorded one. */
const PRUNED_PER_CLAIM = 8;

/** The conditions as APPEND_ENTRIES's last seven parameters (keys encoded here, as the columns' strings). */
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
function columns<R extends AuditEntry>(rows: R[], names: readonly (keyof R)[]): unknown[][] {
  return names.map((column) =>
    rows.map((row) => (typeof row[column] === 'string' ? encodeText(row[column]) : row[column])),
  );
}

/**
 * The entries' parameters: their fields, then the JCS texts around prevHash and seq the function
 * finishes each hash with (audit-chain.ts; plain JSON text, nothing textSafe would encode).
 */
function entryParameters(entries: AuditEntry[]): unknown[] {
  const segments = entries.map(linkSegments);
  return [
    ...columns(entries, ENTRY_COLUMNS),
    segments.map((s) => s.head),
    segments.map((s) => s.mid),
    segments.map((s) => s.tail),
    AUDIT_GENESIS_HASH,
  ];
}

/** APPEND_ENTRIES's answer as one row (or undefined) per entry, in order. */
function placed(
  entries: AuditEntry[],
  answer: { first_seq: number; first_prev: string; links: string[]; refused: number[] },
): (AuditRow | undefined)[] {
  const refused = new Set(answer.refused);
  let seq = answer.first_seq;
  let prevHash = answer.first_prev;
  let k = 0;
  return entries.map((entry, i) => {
    if (refused.has(i)) return undefined;
    const hash = answer.links[k++];
    if (hash === undefined) throw new Error('audit: the append function answered fewer links than entries');
    const row = { ...entry, seq: seq++, prevHash, hash };
    prevHash = hash;
    return row;
  });
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
      await sql.query(APPEND, columns(rows, AUDIT_COLUMNS));
    },
    async appendEntries(entries, conditions) {
      const result = await sql.query<{ first_seq: number; first_prev: string; links: string[]; refused: number[] }>(
        APPEND_ENTRIES,
        [...entryParameters(entries), ...conditionParameters(conditions)],
      );
      const answer = result.rows[0];
      if (answer === undefined) throw new Error('audit: the append function answered no row');
      return placed(entries, answer);
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
