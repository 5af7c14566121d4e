/**
 * The issuer's PostgreSQL database: a pool (pool.ts) whose schema has been brought up to date
 * (migrate.ts) before any store uses it.
 */
import type pg from 'pg';
import { migrate, type MigrationResult } from './migrate.ts';
import { createPool, type PoolOptions } from './pool.ts';
import type { Migration } from './schema.ts';

export interface PostgresDb {
  readonly pool: pg.Pool;
  /** What the start-up migration found and did. */
  readonly migration: MigrationResult;
  /** Ends every pooled connection (after in-flight queries). */
  close(): Promise<void>;
}

export interface OpenPostgresOptions extends PoolOptions {
  /** Test seam: the migration steps to run (default: this code's). */
  migrations?: readonly Migration[];
}

/** Opens the pool and migrates; on a refusal (SchemaError) the pool is closed again. */
export async function openPostgres(options: OpenPostgresOptions): Promise<PostgresDb> {
  const pool = createPool(options);
  try {
    const migration = await migrate(pool, options.migrations);
    let closing: Promise<void> | undefined;
    return { pool, migration, close: () => (closing ??= pool.end()) };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
