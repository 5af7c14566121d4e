/**
 * Every credential this issuer signed (and delegated credentials it signed for server-custody
 * delegators), with their lifecycle: status list positions, revocation, suspension, and
 * supersession by a renewal or a replacement.
 */
import type { IssuerDb, Sync } from './db.ts';
import { ifRow, isTrue } from './rows.ts';

export interface StatusPosition {
  listId: string;
  index: number;
}

export interface CredentialRecord {
  id: string;
  type: 'AgentCredential' | 'DelegatedAgentCredential';
  subjectDid: string;
  issuerDid: string;
  /** The signed credential as issued. */
  credential: Record<string, unknown>;
  parentId: string | null;
  revocation: StatusPosition | null;
  suspension: StatusPosition | null;
  validFrom: number;
  validUntil: number | null;
  issuedAt: number;
  supersededBy: string | null;
  /** `supersededBy` renewed this credential (same terms); false for a replacement by POST /v1/vcs. */
  renewed: boolean;
  revokedAt: number | null;
  suspendedAt: number | null;
  /** Whose suspension this is: the credential's own id, or its successor's whose suspension reached it (null before this was recorded). */
  suspendedWith: string | null;
}

export type NewCredential = Omit<
  CredentialRecord,
  'supersededBy' | 'renewed' | 'revokedAt' | 'suspendedAt' | 'suspendedWith'
>;

export interface CredentialStore {
  /** Throws when the id is taken; run in the issuing transaction with the status allocations and the audit record. */
  insert(record: NewCredential): Promise<void>;
  get(id: string): Promise<CredentialRecord | undefined>;
  /** Newest first. */
  listBySubject(subjectDid: string, limit: number): Promise<CredentialRecord[]>;
  /** The credentials `issuerDid` signed (delegations by an agent held here), newest first, in one read. */
  listByIssuer(issuerDid: string, limit: number): Promise<CredentialRecord[]>;
  /**
   * Conditional: true for exactly one caller, when the credential was not superseded before;
   * `renewed` when `by` is its renewal.
   */
  markSuperseded(id: string, by: string, renewed: boolean): Promise<boolean>;
  /** The credentials `id` superseded, directly or through earlier supersessions. */
  predecessorsOf(id: string): Promise<CredentialRecord[]>;
  /** Conditional: true for exactly one caller, when the credential was not revoked before. */
  markRevoked(id: string, at: number): Promise<boolean>;
  /** Conditional: suspends at `at` because of `with` (itself or a successor); true for exactly one caller, when it was not suspended. */
  suspend(id: string, at: number, withId: string): Promise<boolean>;
  /** Conditional: lifts the suspension; true for exactly one caller, when it was suspended. */
  reinstate(id: string): Promise<boolean>;
  /** The latest `validUntil` among `issuerDid`'s unrevoked credentials still valid after `now`. */
  latestValidUntil(issuerDid: string, now: number): Promise<number | undefined>;
  /**
   * Revoked credentials that left authority working at `now`: one it superseded is unrevoked and
   * unexpired, or it is an agent's current credential and another AgentCredential of that agent
   * is. Revocations made by this code never do; ones an older issuer made may.
   */
  partialRevocations(now: number): Promise<CredentialRecord[]>;
}

/** Every column of `credentials`, in the order CredentialRow declares them (for joins that alias them). */
export const CREDENTIAL_COLUMNS = [
  'id',
  'type',
  'subject_did',
  'issuer_did',
  'json',
  'parent_id',
  'revocation_list',
  'revocation_index',
  'suspension_list',
  'suspension_index',
  'valid_from',
  'valid_until',
  'issued_at',
  'superseded_by',
  'renewed',
  'revoked_at',
  'suspended_at',
  'suspended_with',
] as const;

/** A `credentials` row, as both adapters return it (and as SQLite's json_object / PostgreSQL's to_json spell it). */
export interface CredentialRow {
  id: string;
  type: CredentialRecord['type'];
  subject_did: string;
  issuer_did: string;
  json: string;
  parent_id: string | null;
  revocation_list: string | null;
  revocation_index: number | null;
  suspension_list: string | null;
  suspension_index: number | null;
  valid_from: number;
  valid_until: number | null;
  issued_at: number;
  superseded_by: string | null;
  renewed: number | boolean | null;
  revoked_at: number | null;
  suspended_at: number | null;
  suspended_with: string | null;
}

function position(listId: string | null, index: number | null): StatusPosition | null {
  return listId === null || index === null ? null : { listId, index };
}

export function toCredentialRecord(row: CredentialRow): CredentialRecord {
  return {
    id: row.id,
    type: row.type,
    subjectDid: row.subject_did,
    issuerDid: row.issuer_did,
    credential: JSON.parse(row.json) as Record<string, unknown>,
    parentId: row.parent_id,
    revocation: position(row.revocation_list, row.revocation_index),
    suspension: position(row.suspension_list, row.suspension_index),
    validFrom: row.valid_from,
    validUntil: row.valid_until,
    issuedAt: row.issued_at,
    supersededBy: row.superseded_by,
    renewed: isTrue(row.renewed),
    revokedAt: row.revoked_at,
    suspendedAt: row.suspended_at,
    suspendedWith: row.suspended_with,
  };
}

export function createSqliteCredentialStore(db: IssuerDb): Sync<CredentialStore> {
  const s = db.sqlite;
  const insert = s.prepare(`INSERT INTO credentials
    (id, type, subject_did, issuer_did, json, parent_id, revocation_list, revocation_index, suspension_list, suspension_index, valid_from, valid_until, issued_at)
    VALUES (@id, @type, @subjectDid, @issuerDid, @json, @parentId, @revocationList, @revocationIndex, @suspensionList, @suspensionIndex, @validFrom, @validUntil, @issuedAt)`);
  const get = s.prepare<[string], CredentialRow>('SELECT * FROM credentials WHERE id = ?');
  const bySubject = s.prepare<[string, number], CredentialRow>(
    'SELECT * FROM credentials WHERE subject_did = ? ORDER BY issued_at DESC, rowid DESC LIMIT ?',
  );
  const byIssuer = s.prepare<[string, number], CredentialRow>(
    'SELECT * FROM credentials WHERE issuer_did = ? ORDER BY issued_at DESC, rowid DESC LIMIT ?',
  );
  const supersede = s.prepare(
    'UPDATE credentials SET superseded_by = ?, renewed = ? WHERE id = ? AND superseded_by IS NULL',
  );
  const predecessors = s.prepare<[string], CredentialRow>(`WITH RECURSIVE lineage(id) AS (
      SELECT id FROM credentials WHERE superseded_by = ?
      UNION SELECT c.id FROM credentials c JOIN lineage l ON c.superseded_by = l.id)
    SELECT credentials.* FROM credentials JOIN lineage USING (id) ORDER BY issued_at DESC, rowid DESC`);
  const revoke = s.prepare('UPDATE credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const suspend = s.prepare(
    'UPDATE credentials SET suspended_at = ?, suspended_with = ? WHERE id = ? AND suspended_at IS NULL',
  );
  const reinstate = s.prepare(
    'UPDATE credentials SET suspended_at = NULL, suspended_with = NULL WHERE id = ? AND suspended_at IS NOT NULL',
  );
  const live = (alias: string) =>
    `${alias}.revoked_at IS NULL AND (${alias}.valid_until IS NULL OR ${alias}.valid_until > @now)`;
  const partial = s.prepare<
    { now: number },
    CredentialRow
  >(`SELECT c.* FROM credentials c WHERE c.revoked_at IS NOT NULL AND (
      EXISTS (SELECT 1 FROM credentials p WHERE p.superseded_by = c.id AND ${live('p')})
      OR EXISTS (SELECT 1 FROM agents a JOIN credentials o ON o.subject_did = a.did
        WHERE a.current_credential_id = c.id AND o.type = 'AgentCredential' AND ${live('o')}))
    ORDER BY c.issued_at, c.rowid`);
  const latest = s.prepare<[string, number], { until: number | null }>(
    'SELECT MAX(valid_until) AS until FROM credentials WHERE issuer_did = ? AND valid_until > ? AND revoked_at IS NULL',
  );

  return {
    insert(record) {
      insert.run({
        id: record.id,
        type: record.type,
        subjectDid: record.subjectDid,
        issuerDid: record.issuerDid,
        json: JSON.stringify(record.credential),
        parentId: record.parentId,
        revocationList: record.revocation?.listId ?? null,
        revocationIndex: record.revocation?.index ?? null,
        suspensionList: record.suspension?.listId ?? null,
        suspensionIndex: record.suspension?.index ?? null,
        validFrom: record.validFrom,
        validUntil: record.validUntil,
        issuedAt: record.issuedAt,
      });
    },
    get: (id) => ifRow(get.get(id), toCredentialRecord),
    listBySubject: (subjectDid, limit) => bySubject.all(subjectDid, limit).map(toCredentialRecord),
    listByIssuer: (issuerDid, limit) => byIssuer.all(issuerDid, limit).map(toCredentialRecord),
    markSuperseded: (id, by, renewed) => supersede.run(by, renewed ? 1 : 0, id).changes === 1,
    predecessorsOf: (id) => predecessors.all(id).map(toCredentialRecord),
    markRevoked: (id, at) => revoke.run(at, id).changes === 1,
    suspend: (id, at, withId) => suspend.run(at, withId, id).changes === 1,
    reinstate: (id) => reinstate.run(id).changes === 1,
    latestValidUntil: (issuerDid, now) => latest.get(issuerDid, now)?.until ?? undefined,
    partialRevocations: (now) => partial.all({ now }).map(toCredentialRecord),
  };
}
