/**
 * PostgreSQL's text types cannot hold U+0000 (SQLSTATE 22021), which SQLite's TEXT and the store
 * interfaces accept: a DID in a URL path, a presentation id or an audit actor may carry one, and
 * a lookup by it must find nothing (not fail) while a record of it must come back as written (the
 * audit hash covers it). So every string goes to PostgreSQL through an injective encoding: one
 * holding U+0000, or starting with the mark U+0001, is stored as the mark and the hex of its
 * UTF-8; any other string as itself (no cost, and the SQL sees the real value). What is read
 * back starting with the mark is decoded.
 */
import type pg from 'pg';
import type { Sql } from './pool.ts';

const MARK = '\u0001';

export function encodeText(value: string): string {
  return value.includes('\u0000') || value.startsWith(MARK) ? MARK + Buffer.from(value, 'utf8').toString('hex') : value;
}

export function decodeText(value: string): string {
  return value.startsWith(MARK) ? Buffer.from(value.slice(1), 'hex').toString('utf8') : value;
}

/** `sql` with every string parameter encoded and every string column of the rows decoded. */
export function textSafe(sql: Sql): Sql {
  return {
    async query<R extends pg.QueryResultRow>(text: string, values?: readonly unknown[]) {
      const encoded = values?.map((value) => (typeof value === 'string' ? encodeText(value) : value));
      const result = await sql.query<R>(text, encoded);
      for (const row of result.rows as Record<string, unknown>[]) {
        for (const [column, value] of Object.entries(row))
          if (typeof value === 'string' && value.startsWith(MARK)) row[column] = decodeText(value);
      }
      return result;
    },
  };
}
