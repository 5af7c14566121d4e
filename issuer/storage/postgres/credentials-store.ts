/**
 * Issued credentials and their lifecycle on PostgreSQL. Every lifecycle change is one
 * conditional UPDATE (`… WHERE revoked_at IS NULL`, …): of concurrent attempts on any instance,
 * the row lock lets exactly one change the row. Newest-first lists order by issue time, then
 * `pos` (insertion order, as SQLite's rowid).
 */
import { toCredentialRecord, type CredentialRow, type CredentialStore } from '../credentials-store.ts';
import type { Sql } from './pool.ts';

const INSERT = `INSERT INTO credentials
  (id, type, subject_did, issuer_did, json, parent_id, revocation_list, revocation_index, suspension_list, suspension_index, valid_from, valid_until, issued_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`;

const PREDECESSORS = `WITH RECURSIVE lineage(id) AS (
    SELECT id FROM credentials WHERE superseded_by = $1
    UNION SELECT c.id FROM credentials c JOIN lineage l ON c.superseded_by = l.id)
  SELECT credentials.* FROM credentials JOIN lineage USING (id) ORDER BY issued_at DESC, pos DESC`;

const live = (alias: string) =>
  `${alias}.revoked_at IS NULL AND (${alias}.valid_until IS NULL OR ${alias}.valid_until > $1)`;

const PARTIAL = `SELECT c.* FROM credentials c WHERE c.revoked_at IS NOT NULL AND (
    EXISTS (SELECT 1 FROM credentials p WHERE p.superseded_by = c.id AND ${live('p')})
    OR EXISTS (SELECT 1 FROM agents a JOIN credentials o ON o.subject_did = a.did
      WHERE a.current_credential_id = c.id AND o.type = 'AgentCredential' AND ${live('o')}))
  ORDER BY c.issued_at, c.pos`;

export function createPostgresCredentialStore(sql: Sql): CredentialStore {
  const rows = async (text: string, values: unknown[]) =>
    (await sql.query<CredentialRow>(text, values)).rows.map(toCredentialRecord);
  const changed = async (text: string, values: unknown[]) => (await sql.query(text, values)).rowCount === 1;
  return {
    async insert(r) {
      await sql.query(INSERT, [
        r.id,
        r.type,
        r.subjectDid,
        r.issuerDid,
        JSON.stringify(r.credential),
        r.parentId,
        r.revocation?.listId ?? null,
        r.revocation?.index ?? null,
        r.suspension?.listId ?? null,
        r.suspension?.index ?? null,
        r.validFrom,
        r.validUntil,
        r.issuedAt,
      ]);
    },
    async get(id) {
      return (await rows('SELECT * FROM credentials WHERE id = $1', [id]))[0];
    },
    listBySubject: (subjectDid, limit) =>
      rows('SELECT * FROM credentials WHERE subject_did = $1 ORDER BY issued_at DESC, pos DESC LIMIT $2', [
        subjectDid,
        limit,
      ]),
    listByIssuer: (issuerDid, limit) =>
      rows('SELECT * FROM credentials WHERE issuer_did = $1 ORDER BY issued_at DESC, pos DESC LIMIT $2', [
        issuerDid,
        limit,
      ]),
    markSuperseded: (id, by, renewed) =>
      changed('UPDATE credentials SET superseded_by = $1, renewed = $2 WHERE id = $3 AND superseded_by IS NULL', [
        by,
        renewed,
        id,
      ]),
    predecessorsOf: (id) => rows(PREDECESSORS, [id]),
    markRevoked: (id, at) =>
      changed('UPDATE credentials SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]),
    suspend: (id, at, withId) =>
      changed('UPDATE credentials SET suspended_at = $1, suspended_with = $2 WHERE id = $3 AND suspended_at IS NULL', [
        at,
        withId,
        id,
      ]),
    reinstate: (id) =>
      changed(
        'UPDATE credentials SET suspended_at = NULL, suspended_with = NULL WHERE id = $1 AND suspended_at IS NOT NULL',
        [id],
      ),
    async latestValidUntil(issuerDid, now) {
      const found = await sql.query<{ until: number | null }>(
        'SELECT MAX(valid_until) AS until FROM credentials WHERE issuer_did = $1 AND valid_until > $2 AND revoked_at IS NULL',
        [issuerDid, now],
      );
      return found.rows[0]?.until ?? undefined;
    },
    partialRevocations: (now) => rows(PARTIAL, [now]),
  };
}
