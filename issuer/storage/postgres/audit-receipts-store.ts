/** Receipts of provider-signed audit events on PostgreSQL: the event id is the primary key. */
import type { AuditReceiptsStore } from '../audit-receipts-store.ts';
import type { Sql } from './pool.ts';

export function createPostgresAuditReceiptsStore(sql: Sql): AuditReceiptsStore {
  return {
    // ON CONFLICT DO NOTHING waits for a concurrent insert of the same id, then inserts nothing.
    async claim(eventId, provider, auditId, at) {
      const result = await sql.query(
        `INSERT INTO audit_event_receipts (event_id, provider, audit_id, received_at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (event_id) DO NOTHING`,
        [eventId, provider, auditId, at],
      );
      return result.rowCount === 1;
    },
  };
}
