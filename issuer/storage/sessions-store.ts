/**
 * Session tokens as rows (POST /v1/vp/verify with `session: true`), kept until the token
 * expires: which agent it is for and the status entries of every credential it was minted from,
 * each with the DID that must have signed its list. Introspection (RFC 7662) re-checks those
 * entries, so a revocation makes the token inactive before it expires.
 */
import type { BitstringStatusListEntry } from '../../wallet/status/credential.ts';
import type { IssuerDb, Sync } from './db.ts';
import { ifRow } from './rows.ts';

/** A credential's status entry (as the credential carries it) and the issuer whose list it points into. */
export interface SessionStatusEntry {
  issuer: string;
  entry: BitstringStatusListEntry;
}

export interface SessionRecord {
  jti: string;
  agentDid: string;
  statusEntries: SessionStatusEntry[];
  expiresAt: number;
}

export interface SessionStore {
  /** Records a minted token (its jti is fresh: a UUID); deletes a few expired rows first. */
  record(session: SessionRecord, now: number): Promise<void>;
  /** The token's record while it has not expired. */
  get(jti: string, now: number): Promise<SessionRecord | undefined>;
}

/** A `sessions` row, as both adapters return it. */
export interface SessionRow {
  jti: string;
  agent_did: string;
  status_entries: string;
  expires_at: number;
}

export function toSessionRecord(row: SessionRow): SessionRecord {
  return {
    jti: row.jti,
    agentDid: row.agent_did,
    statusEntries: JSON.parse(row.status_entries) as SessionStatusEntry[],
    expiresAt: row.expires_at,
  };
}

/** Expired rows deleted per new row: more than are added, so the table shrinks back to the live ones. */
export const PRUNED_PER_INSERT = 8;

export function createSqliteSessionStore(db: IssuerDb): Sync<SessionStore> {
  const insert = db.sqlite.prepare(
    'INSERT INTO sessions (jti, agent_did, status_entries, expires_at) VALUES (?, ?, ?, ?)',
  );
  const prune = db.sqlite.prepare<[number, number]>(
    'DELETE FROM sessions WHERE rowid IN (SELECT rowid FROM sessions WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)',
  );
  const select = db.sqlite.prepare<[string, number], SessionRow>(
    'SELECT * FROM sessions WHERE jti = ? AND expires_at > ?',
  );
  return {
    record(session, now) {
      db.transaction(() => {
        prune.run(now, PRUNED_PER_INSERT);
        insert.run(session.jti, session.agentDid, JSON.stringify(session.statusEntries), session.expiresAt);
      });
    },
    get: (jti, now) => ifRow(select.get(jti, now), toSessionRecord),
  };
}
