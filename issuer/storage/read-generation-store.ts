/**
 * The read generation: a counter the database itself moves — by triggers (schema.ts, and
 * migration 3 on PostgreSQL) — in the same transaction as any change to what a verification
 * reads from the database: a hosted DID added, changed, deactivated or removed; a status list
 * added or removed, or its version moved (a status changed). What a process read at one
 * generation is still what the database holds while the generation is the same, so a cache of
 * those reads stays valid exactly that long (services/read-cache.ts); `audit.appendEntries`
 * checks it in the step that records the verdict (AppendConditions.generations).
 */
import type { IssuerDb, Sync } from './db.ts';

export interface ReadGenerationStore {
  /** The generation now: changes (grows) with every change above, committed. */
  current(): Promise<number>;
}

export function createSqliteReadGenerationStore(db: IssuerDb): Sync<ReadGenerationStore> {
  const current = db.sqlite.prepare<[], { value: number }>('SELECT value FROM read_generation WHERE id = 1');
  return { current: () => current.get()?.value ?? 0 };
}
