/**
 * User challenges (POST /v1/challenges): the adapter seam between the challenge service and
 * SQLite. Consumption is one conditional UPDATE (`… WHERE used_at IS NULL`): better-sqlite3 runs
 * it to completion before any other request's statement, so two concurrent answers to one
 * challenge cannot both succeed.
 *
 * Anyone may ask for a challenge, so unanswered ones must not pile up: each insert also deletes
 * a few challenges that expired unanswered more than `UNANSWERED_KEPT_MS` ago (an answer that
 * late gets 404 instead of 403 CHALLENGE_EXPIRED). Deleting more than one per insert drains any
 * backlog, so the table holds the live challenges, the last hour's expired ones and the
 * answered ones, whose evidence is kept.
 */
import type { IssuerDb, Sync } from './db.ts';
import { ifRow, isTrue } from './rows.ts';

export interface UserChallengeRecord {
  id: string;
  userDid: string;
  challenge: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | undefined;
  verified: boolean | undefined;
  /**
   * The consent evidence kept with the outcome (`ChallengeOutcome.evidence`, docs/protocol.md
   * §Consent evidence): what the user signed, for whoever must later show what was approved.
   */
  evidence: string | undefined;
}

export interface ChallengeOutcome {
  verified: boolean;
  /** JSON of what answered the challenge (signature, or signed UserConsent / presentation). */
  evidence: string;
}

/** How long a challenge that expired unanswered is kept (then it is deleted). */
export const UNANSWERED_KEPT_MS = 60 * 60_000;
/** Most expired challenges deleted per insert. */
export const PRUNED_PER_INSERT = 8;

export interface ChallengeStore {
  /**
   * Stores a new challenge and deletes a few long-expired unanswered ones (by `createdAt`), in
   * one transaction. The challenge text is unique: a second insert of the same text throws.
   */
  insert(record: Omit<UserChallengeRecord, 'usedAt' | 'verified' | 'evidence'>): Promise<void>;
  get(id: string): Promise<UserChallengeRecord | undefined>;
  /**
   * Single use: marks the challenge used with its outcome in one atomic conditional write; true
   * for exactly one of any number of concurrent callers, false when it was already used, is
   * unknown, or is expired at `at` (checked again here: the answer's DID may have taken seconds
   * to resolve).
   */
  consume(id: string, at: number, outcome: ChallengeOutcome): Promise<boolean>;
}

/** The columns of a `user_challenges` row both adapters read, as they return them. */
export interface ChallengeRow {
  id: string;
  user_did: string;
  challenge: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  verified: number | boolean | null;
  evidence: string | null;
}

export function toChallenge(row: ChallengeRow): UserChallengeRecord {
  return {
    id: row.id,
    userDid: row.user_did,
    challenge: row.challenge,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at ?? undefined,
    verified: row.verified === null ? undefined : isTrue(row.verified),
    evidence: row.evidence ?? undefined,
  };
}

export function createSqliteChallengeStore(db: IssuerDb): Sync<ChallengeStore> {
  const insert = db.sqlite.prepare(
    'INSERT INTO user_challenges (id, user_did, challenge, created_at, expires_at) VALUES (@id, @userDid, @challenge, @createdAt, @expiresAt)',
  );
  const select = db.sqlite.prepare<[string], ChallengeRow>(
    'SELECT id, user_did, challenge, created_at, expires_at, used_at, verified, evidence FROM user_challenges WHERE id = ?',
  );
  const consume = db.sqlite.prepare(
    'UPDATE user_challenges SET used_at = ?, verified = ?, evidence = ? WHERE id = ? AND used_at IS NULL AND expires_at >= ?',
  );
  // Through the partial index user_challenges_unanswered (schema.ts): no scan of answered rows.
  const prune = db.sqlite.prepare<[number, number]>(
    'DELETE FROM user_challenges WHERE rowid IN (SELECT rowid FROM user_challenges WHERE used_at IS NULL AND expires_at < ? ORDER BY expires_at LIMIT ?)',
  );
  return {
    insert(record) {
      db.transaction(() => {
        insert.run(record);
        prune.run(record.createdAt - UNANSWERED_KEPT_MS, PRUNED_PER_INSERT);
      });
    },
    get: (id) => ifRow(select.get(id), toChallenge),
    consume(id, at, outcome) {
      return db.transaction(() => consume.run(at, outcome.verified ? 1 : 0, outcome.evidence, id, at).changes === 1);
    },
  };
}
