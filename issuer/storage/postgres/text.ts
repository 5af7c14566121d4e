/**
 * PostgreSQL's text types cannot hold U+0000 (SQLSTATE 22021), which SQLite's TEXT and the store
 * interfaces accept: a DID in a URL path, a presentation id or an audit actor may carry one, and
 * a lookup by it must find nothing (not fail) while a record of it must come back as written (the
 * audit hash covers it). So every string goes to PostgreSQL through an injective encoding: one
 * holding U+0000, or starting with the mark U+0001, is stored as the mark and the hex of its
 * UTF-8; any other string as itself (no cost, and the SQL sees the real value). What is read
 * back starting with the mark is decoded.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PreparingSql, Sql } from './pool.ts';

const MARK = '\u0001';

export function encodeText(value: string): string {
  return value.includes('\u0000') || value.startsWith(MARK) ? MARK + Buffer.from(value, 'utf8').toString('hex') : value;
}

export function decodeText(value: string): string {
  return value.startsWith(MARK) ? Buffer.from(value.slice(1), 'hex').toString('utf8') : value;
}

const names = new Map<string, string>();

/**
 * A statement's name: node-postgres prepares a named statement once per connection and then
 * only binds and executes it, sparing the server a parse and plan per query (measured with
 * bench/postgres.ts). The stores' SQL is a fixed set of texts, so the map stays small.
 */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `mandate_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/** `sql` with every string parameter encoded, every string column of the rows decoded, and statements prepared once. */
export function textSafe(sql: PreparingSql): Sql {
  return {
    async query<R extends pg.QueryResultRow>(text: string, values?: readonly unknown[]) {
      const encoded = values?.map((value) => (typeof value === 'string' ? encodeText(value) : value));
      const result = await sql.query<R>({ name: statementName(text), text, values: encoded ?? [] });
      for (const row of result.rows as Record<string, unknown>[]) {
        for (const [column, value] of Object.entries(row))
          if (typeof value === 'string' && value.startsWith(MARK)) row[column] = decodeText(value);
      }
      return result;
    },
  };
}
