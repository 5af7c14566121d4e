/**
 * The issuer's SQLite schema: one `CREATE TABLE IF NOT EXISTS` per statement, run in order on
 * every start (so a new file is initialised and an existing one is left as it is).
 *
 * Conventions: times are epoch milliseconds (INTEGER); JSON documents are TEXT written by
 * JSON.stringify of values the wallet built or validated; secrets are never stored in clear
 * (enrollment tokens as SHA-256 hashes, server-held seeds as AES-256-GCM envelopes).
 *
 * Every statement is CREATE … IF NOT EXISTS: new tables are appended, and an existing database
 * gains them on its next start. Columns added to an existing table are listed in ADDED_COLUMNS,
 * which db.ts adds to a database that lacks them (SQLite has no ADD COLUMN IF NOT EXISTS).
 */
/**
 * Audit events whose content a third party signed and sent: users' answers to challenges and
 * providers' events (`POST /v1/challenges/{id}/verify`, `POST /v1/audit/events`). Anyone with
 * a key can produce one naming any agent, so the audit log tells them apart from what the
 * issuer itself did (`reported` in audit queries).
 */
export const REPORTED_EVENTS = [
  'CONSENT_VERIFIED',
  'CONSENT_REJECTED',
  'PROVIDER_AUTHORIZATION',
  'PROVIDER_ACTION',
  'PROVIDER_RESULT',
] as const;

/** 1 for a reported event, else 0: the expression of index audit_agent_reported, which queries must repeat as written. */
export const REPORTED_SQL = `(event IN (${REPORTED_EVENTS.map((e) => `'${e}'`).join(', ')}))`;

export const SCHEMA: readonly string[] = [
  // Enrollment tokens (issue: 256-bit random, stored only as a hash, single use, short TTL).
  `CREATE TABLE IF NOT EXISTS enrollment_tokens (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    requested_scopes TEXT NOT NULL,
    max_delegation_depth INTEGER NOT NULL,
    requested_domains TEXT NOT NULL,
    credential_ttl_seconds INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    used_at INTEGER,
    agent_did TEXT
  )`,
  // Step 1 of onboarding: a challenge bound to a token; step 2 completes it (once). `challenge`
  // holds the SHA-256 (hex) of the challenge, never the challenge itself.
  `CREATE TABLE IF NOT EXISTS onboarding_sessions (
    id TEXT PRIMARY KEY,
    token_id TEXT NOT NULL REFERENCES enrollment_tokens(id),
    custody TEXT NOT NULL CHECK (custody IN ('server', 'self')),
    did TEXT,
    challenge TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    completed_at INTEGER
  )`,
  `CREATE INDEX IF NOT EXISTS onboarding_sessions_token ON onboarding_sessions(token_id)`,
  // Documents of DIDs this issuer hosts (its own did:web, server-custody agents, /v1/dids).
  `CREATE TABLE IF NOT EXISTS hosted_dids (
    did TEXT PRIMARY KEY,
    document TEXT NOT NULL,
    kind TEXT NOT NULL,
    deactivated INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS agents (
    did TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    custody TEXT NOT NULL CHECK (custody IN ('server', 'self')),
    token_id TEXT REFERENCES enrollment_tokens(id),
    privilege_scopes TEXT NOT NULL,
    delegation_depth INTEGER NOT NULL,
    domains TEXT,
    current_credential_id TEXT,
    created_at INTEGER NOT NULL
  )`,
  // Server custody: the seed as an AES-256-GCM envelope under the KEK, AAD = the DID (wallet/crypto/aead.ts).
  `CREATE TABLE IF NOT EXISTS agent_keys (
    did TEXT PRIMARY KEY,
    verification_method TEXT NOT NULL,
    public_key_multibase TEXT NOT NULL,
    envelope TEXT NOT NULL,
    created_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS status_lists (
    id TEXT PRIMARY KEY,
    purpose TEXT NOT NULL,
    length INTEGER NOT NULL,
    bitstring BLOB NOT NULL,
    allocated BLOB NOT NULL,
    issued INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 0,
    signed_version INTEGER,
    signed_json TEXT,
    etag TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS credentials (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    subject_did TEXT NOT NULL,
    issuer_did TEXT NOT NULL,
    json TEXT NOT NULL,
    parent_id TEXT,
    revocation_list TEXT REFERENCES status_lists(id),
    revocation_index INTEGER,
    suspension_list TEXT REFERENCES status_lists(id),
    suspension_index INTEGER,
    valid_from INTEGER NOT NULL,
    valid_until INTEGER,
    issued_at INTEGER NOT NULL,
    superseded_by TEXT,
    revoked_at INTEGER,
    suspended_at INTEGER
  )`,
  `CREATE INDEX IF NOT EXISTS credentials_subject ON credentials(subject_did, issued_at)`,
  // Hash-chained, append-only: no statement anywhere updates or deletes a row (issuer/audit.ts).
  `CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    at INTEGER NOT NULL,
    event TEXT NOT NULL,
    agent_did TEXT,
    actor TEXT NOT NULL,
    reason TEXT,
    vp_id TEXT,
    data TEXT,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS audit_agent ON audit(agent_did, seq)`,
  // An agent's own history without the reports filed under it (REPORTED_SQL): anyone with a key
  // can file those, so this view must not have to step over them.
  `CREATE INDEX IF NOT EXISTS audit_agent_reported ON audit(agent_did, ${REPORTED_SQL}, seq)`,
  `CREATE INDEX IF NOT EXISTS audit_event ON audit(event, seq)`,
  `CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  )`,
  // User challenges (POST /v1/challenges): single use, expiring; `evidence` keeps what answered
  // it (the signature or the signed UserConsent / presentation) as consent evidence.
  `CREATE TABLE IF NOT EXISTS user_challenges (
    id TEXT PRIMARY KEY,
    user_did TEXT NOT NULL,
    challenge TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER,
    verified INTEGER,
    evidence TEXT
  )`,
  // What challenges-store.ts prunes: unanswered challenges, by expiry.
  `CREATE INDEX IF NOT EXISTS user_challenges_unanswered ON user_challenges(expires_at) WHERE used_at IS NULL`,
  // Provider-signed audit events (POST /v1/audit/events): one receipt per event id, so a signed
  // event replayed later is refused instead of recorded twice.
  `CREATE TABLE IF NOT EXISTS audit_event_receipts (
    event_id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    audit_id TEXT NOT NULL,
    received_at INTEGER NOT NULL
  )`,
  // Presentation ids and challenges POST /v1/vp/verify accepted, until their presentation
  // expires (replay-store.ts): a restart must not make a presentation acceptable again.
  `CREATE TABLE IF NOT EXISTS replay_keys (
    key TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS replay_keys_expiry ON replay_keys(expires_at)`,
  // Session tokens minted by POST /v1/vp/verify, until they expire: the status entries of the
  // credentials each was minted from, so introspection (RFC 7662) can say when one is revoked.
  `CREATE TABLE IF NOT EXISTS sessions (
    jti TEXT PRIMARY KEY,
    agent_did TEXT NOT NULL,
    status_entries TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions(expires_at)`,
  // Credentials POST /credentials/issue (the VC-API) signed, by the id a status update names
  // (the credential's id, or options.credentialId): their status entries on this issuer's
  // lists, so POST /credentials/status can set and clear them.
  `CREATE TABLE IF NOT EXISTS vc_api_credentials (
    id TEXT PRIMARY KEY,
    types TEXT NOT NULL,
    status_entries TEXT NOT NULL,
    issued_at INTEGER NOT NULL
  )`,
  // The read generation (read-generation-store.ts): one row, moved by the triggers below in the
  // transaction of any change to what a verification reads — hosted DIDs, status-list versions.
  `CREATE TABLE IF NOT EXISTS read_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    value INTEGER NOT NULL
  )`,
  `INSERT OR IGNORE INTO read_generation (id, value) VALUES (1, 0)`,
  ...[
    ['hosted_dids_inserted', 'INSERT ON hosted_dids'],
    ['hosted_dids_updated', 'UPDATE ON hosted_dids'],
    ['hosted_dids_deleted', 'DELETE ON hosted_dids'],
    ['status_lists_inserted', 'INSERT ON status_lists'],
    ['status_lists_version', 'UPDATE OF version ON status_lists'],
    ['status_lists_deleted', 'DELETE ON status_lists'],
  ].map(
    ([name, event]) => `CREATE TRIGGER IF NOT EXISTS ${name} AFTER ${event}
    BEGIN UPDATE read_generation SET value = value + 1 WHERE id = 1; END`,
  ),
  // A server-custody agent's own client secret (one per agent; rotation replaces it), stored as
  // the SHA-256 (hex) of a 256-bit random secret, never in clear.
  `CREATE TABLE IF NOT EXISTS agent_client_secrets (
    agent_did TEXT PRIMARY KEY REFERENCES agents(did),
    secret_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
  )`,
];

/**
 * Columns added after their table was first shipped: [table, column, declaration]. A database
 * created before gets them on its next start, NULL in existing rows.
 */
export const ADDED_COLUMNS: ReadonlyArray<readonly [table: string, column: string, declaration: string]> = [
  // 1 when `superseded_by` is a renewal of this credential (same terms, a new validity), which a
  // revoke or suspend follows forward; 0 or NULL for a replacement by POST /v1/vcs.
  ['credentials', 'renewed', 'INTEGER'],
  // Whose suspension suspended this credential: its own id, or the successor whose suspension
  // cascaded to it. Reinstating a successor lifts only the suspensions it caused.
  ['credentials', 'suspended_with', 'TEXT'],
  // Bits per entry (Bitstring Status List §2.1 statusSize); NULL in lists made before: 1.
  ['status_lists', 'status_size', 'INTEGER'],
  // The statusMessage array (JSON) entries on a list of statusSize > 1 carry; NULL: none.
  ['status_lists', 'status_messages', 'TEXT'],
];
