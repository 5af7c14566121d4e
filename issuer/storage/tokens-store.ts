/**
 * Enrollment tokens and onboarding sessions. Tokens are stored only as their SHA-256 hash;
 * `claim` is the single-use gate: a conditional UPDATE that succeeds for exactly one caller.
 */
import type { IssuerDb, Sync } from './db.ts';
import { ifRow } from './rows.ts';

export interface EnrollmentTokenRecord {
  id: string;
  tokenHash: string;
  requestedScopes: string[];
  maxDelegationDepth: number;
  requestedDomains: string[];
  credentialTtlSeconds: number;
  createdAt: number;
  expiresAt: number;
  createdBy: string;
  usedAt: number | null;
  agentDid: string | null;
}

export type NewEnrollmentToken = Omit<EnrollmentTokenRecord, 'usedAt' | 'agentDid'>;

export interface OnboardingSessionRecord {
  id: string;
  tokenId: string;
  custody: 'server' | 'self';
  did: string | null;
  /** SHA-256 (hex) of the challenge: the challenge itself is never stored (like tokens). */
  challengeHash: string;
  createdAt: number;
  expiresAt: number;
  completedAt: number | null;
}

export interface PageOptions {
  /** Exclusive lower bound of the next page (opaque to callers; from the previous page). */
  cursor?: string;
  limit: number;
}

export interface TokenStore {
  /** Throws when the id or the hash is taken (both unique). */
  insert(token: NewEnrollmentToken): Promise<void>;
  findByHash(tokenHash: string): Promise<EnrollmentTokenRecord | undefined>;
  findById(id: string): Promise<EnrollmentTokenRecord | undefined>;
  /** Marks the token used by `agentDid` if it is unused and unexpired at `now`; true for exactly one caller. */
  claim(id: string, now: number, agentDid: string): Promise<boolean>;
  /** Newest first. */
  list(page: PageOptions): Promise<EnrollmentTokenRecord[]>;
  insertSession(session: Omit<OnboardingSessionRecord, 'completedAt'>): Promise<void>;
  findSession(id: string): Promise<OnboardingSessionRecord | undefined>;
  /**
   * Marks the session completed if it is neither completed nor expired at `now` (checked again
   * here: the answer's DID may have taken seconds to resolve); true for exactly one caller.
   */
  completeSession(id: string, now: number): Promise<boolean>;
}

/** An `enrollment_tokens` row, as both adapters return it. */
export interface TokenRow {
  id: string;
  token_hash: string;
  requested_scopes: string;
  max_delegation_depth: number;
  requested_domains: string;
  credential_ttl_seconds: number;
  created_at: number;
  expires_at: number;
  created_by: string;
  used_at: number | null;
  agent_did: string | null;
}

/** An `onboarding_sessions` row, as both adapters return it. */
export interface SessionRow {
  id: string;
  token_id: string;
  custody: 'server' | 'self';
  did: string | null;
  challenge: string;
  created_at: number;
  expires_at: number;
  completed_at: number | null;
}

export function toToken(row: TokenRow): EnrollmentTokenRecord {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    requestedScopes: JSON.parse(row.requested_scopes) as string[],
    maxDelegationDepth: row.max_delegation_depth,
    requestedDomains: JSON.parse(row.requested_domains) as string[],
    credentialTtlSeconds: row.credential_ttl_seconds,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    createdBy: row.created_by,
    usedAt: row.used_at,
    agentDid: row.agent_did,
  };
}

export function toSession(row: SessionRow): OnboardingSessionRecord {
  return {
    id: row.id,
    tokenId: row.token_id,
    custody: row.custody,
    did: row.did,
    challengeHash: row.challenge,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    completedAt: row.completed_at,
  };
}

export function createSqliteTokenStore(db: IssuerDb): Sync<TokenStore> {
  const s = db.sqlite;
  const insert = s.prepare(`INSERT INTO enrollment_tokens
    (id, token_hash, requested_scopes, max_delegation_depth, requested_domains, credential_ttl_seconds, created_at, expires_at, created_by)
    VALUES (@id, @tokenHash, @requestedScopes, @maxDelegationDepth, @requestedDomains, @credentialTtlSeconds, @createdAt, @expiresAt, @createdBy)`);
  const byHash = s.prepare<[string], TokenRow>('SELECT * FROM enrollment_tokens WHERE token_hash = ?');
  const byId = s.prepare<[string], TokenRow>('SELECT * FROM enrollment_tokens WHERE id = ?');
  const claim = s.prepare(
    'UPDATE enrollment_tokens SET used_at = ?, agent_did = ? WHERE id = ? AND used_at IS NULL AND expires_at > ?',
  );
  const listFirst = s.prepare<[number], TokenRow>(
    'SELECT * FROM enrollment_tokens ORDER BY created_at DESC, id DESC LIMIT ?',
  );
  const listAfter = s.prepare<[number, number, string, number], TokenRow>(
    'SELECT * FROM enrollment_tokens WHERE created_at < ? OR (created_at = ? AND id < ?) ORDER BY created_at DESC, id DESC LIMIT ?',
  );
  const insertSession =
    s.prepare(`INSERT INTO onboarding_sessions (id, token_id, custody, did, challenge, created_at, expires_at)
    VALUES (@id, @tokenId, @custody, @did, @challengeHash, @createdAt, @expiresAt)`);
  const session = s.prepare<[string], SessionRow>('SELECT * FROM onboarding_sessions WHERE id = ?');
  const complete = s.prepare(
    'UPDATE onboarding_sessions SET completed_at = ? WHERE id = ? AND completed_at IS NULL AND expires_at > ?',
  );

  return {
    insert(token) {
      insert.run({
        ...token,
        requestedScopes: JSON.stringify(token.requestedScopes),
        requestedDomains: JSON.stringify(token.requestedDomains),
      });
    },
    findByHash: (tokenHash) => ifRow(byHash.get(tokenHash), toToken),
    findById: (id) => ifRow(byId.get(id), toToken),
    claim: (id, now, agentDid) => claim.run(now, agentDid, id, now).changes === 1,
    list({ cursor, limit }) {
      if (cursor === undefined) return listFirst.all(limit).map(toToken);
      const [at = '', id = ''] = cursor.split('|');
      const createdAt = Number(at);
      return listAfter.all(createdAt, createdAt, id, limit).map(toToken);
    },
    insertSession: (value) => void insertSession.run(value),
    findSession: (id) => ifRow(session.get(id), toSession),
    completeSession: (id, now) => complete.run(now, id, now).changes === 1,
  };
}

/** The cursor after `token` in `list` order. */
export function tokenCursor(token: EnrollmentTokenRecord): string {
  return `${token.createdAt}|${token.id}`;
}

/** True for what `tokenCursor` writes: creation time in ms, '|', the token's UUID. */
export function isTokenCursor(value: string): boolean {
  return /^\d{1,16}\|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);
}
