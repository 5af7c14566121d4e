/**
 * Versioned migrations for the PostgreSQL schema (schema.ts): on every start, the steps a
 * database has not had are applied in order, each in its own transaction together with its row
 * in `schema_migrations`, so a step is applied whole or not at all and exactly once.
 *
 * Several issuers starting at once on one database (a rolling deploy, N replicas) take turns:
 * the runner holds a session-level advisory lock while it reads the version and applies steps,
 * so the second one waits, then finds nothing left to do. A database whose version is newer
 * than this code's last step was written by a newer issuer: it is refused with one line
 * (SCHEMA_TOO_NEW) rather than run by code that does not know its tables — the same rule the
 * SQLite adapter's upgrade follows (docs/operations.md §PostgreSQL).
 */
import type pg from 'pg';
import { MandateError } from '../../../wallet/crypto/errors.ts';
import { MIGRATION_LOCK, MIGRATION_UNLOCK } from './locks.ts';
import { checkout } from './pool.ts';
import { MIGRATIONS, type Migration } from './schema.ts';

export type SchemaErrorCode = 'SCHEMA_TOO_NEW' | 'SCHEMA_MIGRATION_FAILED';

/** The database's schema cannot be brought to this code's version (one line, no secrets). */
export class SchemaError extends MandateError<SchemaErrorCode> {
  override name = 'SchemaError';
}

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

export interface MigrationResult {
  /** The version the database had before (0 for a new database). */
  from: number;
  /** The version it has now: the last step's. */
  to: number;
  /** The steps this call applied (none when another instance had applied them). */
  applied: number[];
}

function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((step, i) => {
    if (step.version !== i + 1) throw new Error(`migration ${i + 1} is numbered ${step.version}`);
  });
}

async function applyStep(client: pg.PoolClient, step: Migration, now: number): Promise<void> {
  await client.query('BEGIN');
  try {
    for (const statement of step.statements) await client.query(statement);
    await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      step.version,
      step.name,
      now,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    const detail = error instanceof Error ? error.message.split('\n')[0] : 'unknown error';
    throw new SchemaError(
      'SCHEMA_MIGRATION_FAILED',
      `database schema: migration ${step.version} (${step.name}) failed: ${detail}`,
      { cause: error },
    );
  }
}

/**
 * Brings the database of `pool` to the last of `migrations` (default: this code's), waiting for
 * any other instance migrating it. Throws SchemaError SCHEMA_TOO_NEW when the database is
 * newer, SCHEMA_MIGRATION_FAILED when a step fails (that step rolled back, earlier ones kept).
 */
export async function migrate(
  pool: pg.Pool,
  migrations: readonly Migration[] = MIGRATIONS,
  now: () => number = Date.now,
): Promise<MigrationResult> {
  assertOrdered(migrations);
  const latest = migrations.length;
  // Listened to while out (pool.ts): a server going away mid-migration fails the start, not with an uncaught error.
  const out = await checkout(pool);
  const { client } = out;
  try {
    await client.query(`SELECT ${MIGRATION_LOCK}`);
    try {
      await client.query(VERSION_TABLE);
      const found = await client.query<{ version: number }>(
        'SELECT COALESCE(MAX(version), 0)::int AS version FROM schema_migrations',
      );
      const from = found.rows[0]?.version ?? 0;
      if (from > latest) {
        throw new SchemaError(
          'SCHEMA_TOO_NEW',
          `database schema version ${from} is newer than this issuer's (${latest}): run the newer issuer, or restore a backup made before the upgrade`,
        );
      }
      const applied: number[] = [];
      for (const step of migrations.slice(from)) {
        await applyStep(client, step, now());
        applied.push(step.version);
      }
      return { from, to: latest, applied };
    } finally {
      await client.query(`SELECT ${MIGRATION_UNLOCK}`);
    }
  } finally {
    out.release();
  }
}
