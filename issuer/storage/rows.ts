/**
 * What the row mappers of both storage adapters share: SQLite and PostgreSQL hold the same
 * columns (schema.ts, postgres/schema.ts), so each table's row type and mapping is written once,
 * in its SQLite store, and these cover where the two drivers return a column differently.
 */

/** `map(row)`, or undefined when the query found no row. */
export function ifRow<R extends object, T>(row: R | undefined, map: (row: R) => T): T | undefined {
  return row === undefined ? undefined : map(row);
}

/** A BOOLEAN column: better-sqlite3 returns 0/1, node-postgres true/false (null reads as false). */
export function isTrue(value: number | boolean | null): boolean {
  return value === 1 || value === true;
}
