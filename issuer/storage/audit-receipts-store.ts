/**
 * Receipts of provider-signed audit events (POST /v1/audit/events): the event id is the
 * primary key, so a signed event posted twice is recorded once. `claim` and the audit append
 * run in the caller's transaction, so a receipt never exists without its audit record.
 */
import type { IssuerDb, Sync } from './db.ts';

export interface AuditReceiptsStore {
  /**
   * Single use per event id: records the receipt and returns true for exactly one caller; false
   * when an event with this id was already received (by any provider).
   */
  claim(eventId: string, provider: string, auditId: string, at: number): Promise<boolean>;
}

export function createSqliteAuditReceiptsStore(db: IssuerDb): Sync<AuditReceiptsStore> {
  const insert = db.sqlite.prepare(
    'INSERT OR IGNORE INTO audit_event_receipts (event_id, provider, audit_id, received_at) VALUES (?, ?, ?, ?)',
  );
  return {
    claim(eventId, provider, auditId, at) {
      return insert.run(eventId, provider, auditId, at).changes === 1;
    },
  };
}
