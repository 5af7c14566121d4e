/**
 * The adapter's advisory locks, each two int4 keys: 1298230884 ("Mand") and the lock's number.
 * Migrators take turns on the first (session-level, around the whole migration); every writer
 * transaction, and the audit's one-statement append, take the second (transaction-level:
 * released by COMMIT or ROLLBACK, or by the server when the instance dies). See stores.ts.
 */
export const MIGRATION_LOCK = 'pg_advisory_lock(1298230884, 1)';
export const MIGRATION_UNLOCK = 'pg_advisory_unlock(1298230884, 1)';
export const WRITER_LOCK = 'pg_advisory_xact_lock(1298230884, 2)';
