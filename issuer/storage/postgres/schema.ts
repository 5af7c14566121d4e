/**
 * The issuer's PostgreSQL schema, as versioned migrations: an ordered list of steps, each a few
 * SQL statements, applied once per database and recorded in `schema_migrations` (migrate.ts).
 * A step once shipped is never edited: a change to the schema is a new step at the end (each
 * step's text is pinned by its hash in test/issuer/storage/postgres/store-contract-postgres.test.ts; the SQL fragments below
 * are shared by shipped steps, so a change to one is a change to those steps).
 *
 * The tables and constraints are SQLite's (issuer/storage/schema.ts) in PostgreSQL's types:
 * times are epoch milliseconds as BIGINT, bitstrings BYTEA, flags BOOLEAN, JSON documents TEXT
 * (kept byte for byte: an audit record's `data` is JCS text its hash covers, which JSONB would
 * reorder). Where SQLite pages by rowid (agents, hosted DIDs, credentials), a `pos` identity
 * column gives the same insertion order. Ids a page cursor compares are `COLLATE "C"`: byte
 * order, as SQLite compares text, whatever the database's default collation.
 */
import { REPORTED_EVENTS } from '../schema.ts';
import { WRITER_LOCK } from './locks.ts';

export interface Migration {
  /** 1, 2, 3, … in order, with no gap. */
  version: number;
  /** What the step does, for the operator reading `schema_migrations`. */
  name: string;
  statements: readonly string[];
}

/** 1 for a reported event, as SQLite's REPORTED_SQL: the expression of index audit_agent_reported. */
export const PG_REPORTED_SQL = `(event IN (${REPORTED_EVENTS.map((e) => `'${e}'`).join(', ')}))`;

const TOKENS_AND_SESSIONS = [
  // Enrollment tokens: stored only as a hash, single use, short TTL.
  `CREATE TABLE enrollment_tokens (
    id TEXT COLLATE "C" PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    requested_scopes TEXT NOT NULL,
    max_delegation_depth INTEGER NOT NULL,
    requested_domains TEXT NOT NULL,
    credential_ttl_seconds INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    used_at BIGINT,
    agent_did TEXT
  )`,
  `CREATE INDEX enrollment_tokens_created ON enrollment_tokens(created_at DESC, id DESC)`,
  // `challenge` holds the SHA-256 (hex) of the challenge, never the challenge itself.
  `CREATE TABLE onboarding_sessions (
    id TEXT PRIMARY KEY,
    token_id TEXT NOT NULL REFERENCES enrollment_tokens(id),
    custody TEXT NOT NULL CHECK (custody IN ('server', 'self')),
    did TEXT,
    challenge TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    completed_at BIGINT
  )`,
  `CREATE INDEX onboarding_sessions_token ON onboarding_sessions(token_id)`,
];

const AGENTS_AND_DIDS = [
  `CREATE TABLE hosted_dids (
    pos BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    did TEXT PRIMARY KEY,
    document TEXT NOT NULL,
    kind TEXT NOT NULL,
    deactivated BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
  `CREATE TABLE agents (
    pos BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    did TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    custody TEXT NOT NULL CHECK (custody IN ('server', 'self')),
    token_id TEXT REFERENCES enrollment_tokens(id),
    privilege_scopes TEXT NOT NULL,
    delegation_depth INTEGER NOT NULL,
    domains TEXT,
    current_credential_id TEXT,
    created_at BIGINT NOT NULL
  )`,
  // Server custody: the seed as an AES-256-GCM envelope under the KEK, AAD = the DID.
  `CREATE TABLE agent_keys (
    did TEXT PRIMARY KEY,
    verification_method TEXT NOT NULL,
    public_key_multibase TEXT NOT NULL,
    envelope TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`,
  // The SHA-256 (hex) of a server-custody agent's own client secret, never the secret.
  `CREATE TABLE agent_client_secrets (
    agent_did TEXT PRIMARY KEY REFERENCES agents(did),
    secret_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`,
];

const LISTS_AND_CREDENTIALS = [
  `CREATE TABLE status_lists (
    id TEXT COLLATE "C" PRIMARY KEY,
    purpose TEXT NOT NULL,
    length INTEGER NOT NULL,
    status_size INTEGER NOT NULL DEFAULT 1,
    status_messages TEXT,
    bitstring BYTEA NOT NULL,
    allocated BYTEA NOT NULL,
    issued INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 0,
    signed_version INTEGER,
    signed_json TEXT,
    etag TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
  `CREATE TABLE credentials (
    pos BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
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
    valid_from BIGINT NOT NULL,
    valid_until BIGINT,
    issued_at BIGINT NOT NULL,
    superseded_by TEXT,
    renewed BOOLEAN,
    revoked_at BIGINT,
    suspended_at BIGINT,
    suspended_with TEXT
  )`,
  `CREATE INDEX credentials_subject ON credentials(subject_did, issued_at)`,
  `CREATE INDEX credentials_issuer ON credentials(issuer_did, issued_at)`,
  `CREATE INDEX credentials_superseded_by ON credentials(superseded_by)`,
];

const AUDIT = [
  // Hash-chained, append-only: no statement anywhere updates or deletes a row. The primary key
  // on seq refuses a second record at one position, so the chain stays linear.
  `CREATE TABLE audit (
    seq BIGINT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    at BIGINT NOT NULL,
    event TEXT NOT NULL,
    agent_did TEXT,
    actor TEXT NOT NULL,
    reason TEXT,
    vp_id TEXT,
    data TEXT,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
  )`,
  `CREATE INDEX audit_agent ON audit(agent_did, seq)`,
  `CREATE INDEX audit_agent_reported ON audit(agent_did, ${PG_REPORTED_SQL}, seq)`,
  `CREATE INDEX audit_event ON audit(event, seq)`,
  // One receipt per provider-signed event id: a signed event replayed later is refused.
  `CREATE TABLE audit_event_receipts (
    event_id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    audit_id TEXT NOT NULL,
    received_at BIGINT NOT NULL
  )`,
];

const SMALL_TABLES = [
  `CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  )`,
  `CREATE TABLE user_challenges (
    id TEXT PRIMARY KEY,
    user_did TEXT NOT NULL,
    challenge TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    verified BOOLEAN,
    evidence TEXT
  )`,
  `CREATE INDEX user_challenges_unanswered ON user_challenges(expires_at) WHERE used_at IS NULL`,
  `CREATE TABLE replay_keys (
    key TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
  )`,
  `CREATE INDEX replay_keys_expiry ON replay_keys(expires_at)`,
  `CREATE TABLE sessions (
    jti TEXT PRIMARY KEY,
    agent_did TEXT NOT NULL,
    status_entries TEXT NOT NULL,
    expires_at BIGINT NOT NULL
  )`,
  `CREATE INDEX sessions_expiry ON sessions(expires_at)`,
  `CREATE TABLE vc_api_credentials (
    id TEXT PRIMARY KEY,
    types TEXT NOT NULL,
    status_entries TEXT NOT NULL,
    issued_at BIGINT NOT NULL
  )`,
];

/**
 * Migration 2's group-commit append in one call (its successors are 3's and 4's; each stays, for
 * the instances still running the code before it in a rolling upgrade): the writer lock, then the head — read by a statement of its own, so in a snapshot taken after the lock was
 * granted (a VOLATILE function's statements each take one under READ COMMITTED), where a head
 * the lock's previous holder moved is seen — then the links, only if the head is the expected one.
 */
const AUDIT_APPEND_FUNCTION = [
  `CREATE FUNCTION mandate_audit_append(
    expected_seq BIGINT, expected_hash TEXT,
    seqs BIGINT[], ids TEXT[], ats BIGINT[], events TEXT[], agent_dids TEXT[], actors TEXT[],
    reasons TEXT[], vp_ids TEXT[], datas TEXT[], prev_hashes TEXT[], hashes TEXT[],
    OUT appended BOOLEAN, OUT head_seq BIGINT, OUT head_hash TEXT)
  LANGUAGE plpgsql VOLATILE AS $fn$
  BEGIN
    PERFORM ${WRITER_LOCK};
    SELECT seq, hash INTO head_seq, head_hash FROM audit ORDER BY seq DESC LIMIT 1;
    appended := head_seq IS NOT DISTINCT FROM expected_seq AND head_hash IS NOT DISTINCT FROM expected_hash;
    IF appended THEN
      INSERT INTO audit (seq, id, at, event, agent_did, actor, reason, vp_id, data, prev_hash, hash)
      SELECT * FROM unnest(seqs, ids, ats, events, agent_dids, actors, reasons, vp_ids, datas, prev_hashes, hashes);
    END IF;
  END
  $fn$`,
];

/**
 * The read generation (read-generation-store.ts): one row, moved by statement triggers in the
 * transaction of any change to what a verification reads — hosted DIDs, status-list versions.
 */
const READ_GENERATION = [
  `CREATE TABLE read_generation (
    id INT PRIMARY KEY CHECK (id = 1),
    value BIGINT NOT NULL
  )`,
  `INSERT INTO read_generation (id, value) VALUES (1, 0)`,
  `CREATE FUNCTION mandate_read_generation_moves() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    UPDATE read_generation SET value = value + 1 WHERE id = 1;
    RETURN NULL;
  END
  $fn$`,
  `CREATE TRIGGER hosted_dids_changed AFTER INSERT OR UPDATE OR DELETE ON hosted_dids
    FOR EACH STATEMENT EXECUTE FUNCTION mandate_read_generation_moves()`,
  `CREATE TRIGGER status_lists_changed AFTER INSERT OR DELETE OR UPDATE OF version ON status_lists
    FOR EACH STATEMENT EXECUTE FUNCTION mandate_read_generation_moves()`,
];

/**
 * Migration 3's append: 2's with conditions (audit-store.ts `AppendConditions`), under the writer lock
 * and with the head as expected. Rows whose read generation has passed, whose key expires by
 * `claim_at`, or whose key an earlier row of the batch claims, refuse the batch at once (named in
 * `refused`). Otherwise the keys are recorded (a few expired ones pruned first, as
 * replay-store.ts does) by an upsert on the key's unique index that records a recorded key afresh
 * only once expired; a key it could not record (recorded and unexpired — by anyone, committed
 * before or racing with this call) refuses the batch too, and the keys this call did record are
 * deleted again. Then the links. Refusals are the rare case (a replay, a revocation), so the
 * common one reads no key before inserting it.
 */
const AUDIT_APPEND_IF_FUNCTION = [
  `CREATE FUNCTION mandate_audit_append_if(
    expected_seq BIGINT, expected_hash TEXT,
    seqs BIGINT[], ids TEXT[], ats BIGINT[], events TEXT[], agent_dids TEXT[], actors TEXT[],
    reasons TEXT[], vp_ids TEXT[], datas TEXT[], prev_hashes TEXT[], hashes TEXT[],
    claim_rows INT[], claim_keys TEXT[], claim_expiries BIGINT[], claim_at BIGINT, pruned INT,
    generation_rows INT[], generations BIGINT[],
    OUT appended BOOLEAN, OUT head_seq BIGINT, OUT head_hash TEXT, OUT refused INT[])
  LANGUAGE plpgsql VOLATILE AS $fn$
  DECLARE
    won TEXT[];
  BEGIN
    PERFORM ${WRITER_LOCK};
    SELECT seq, hash INTO head_seq, head_hash FROM audit ORDER BY seq DESC LIMIT 1;
    appended := head_seq IS NOT DISTINCT FROM expected_seq AND head_hash IS NOT DISTINCT FROM expected_hash;
    IF NOT appended THEN RETURN; END IF;
    IF cardinality(generation_rows) > 0 THEN
      SELECT array_agg(DISTINCT g.r ORDER BY g.r) INTO refused
      FROM unnest(generation_rows, generations) AS g(r, v)
      WHERE g.v <> (SELECT value FROM read_generation WHERE id = 1);
    END IF;
    IF refused IS NULL AND cardinality(claim_keys) > 0 THEN
      SELECT array_agg(DISTINCT c.r ORDER BY c.r) INTO refused FROM (
        SELECT u.r, u.e, row_number() OVER (PARTITION BY u.k ORDER BY u.o) AS nth
        FROM unnest(claim_rows, claim_keys, claim_expiries) WITH ORDINALITY AS u(r, k, e, o)) AS c
      WHERE c.e <= claim_at OR c.nth > 1;
      IF refused IS NULL THEN
        DELETE FROM replay_keys WHERE key IN (
          SELECT key FROM replay_keys WHERE expires_at <= claim_at AND NOT (key = ANY(claim_keys))
          ORDER BY expires_at LIMIT pruned FOR UPDATE SKIP LOCKED);
        WITH recorded AS (
          INSERT INTO replay_keys (key, expires_at) SELECT * FROM unnest(claim_keys, claim_expiries)
          ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE replay_keys.expires_at <= claim_at
          RETURNING key)
        SELECT coalesce(array_agg(key), '{}') INTO won FROM recorded;
        IF cardinality(won) < cardinality(claim_keys) THEN
          DELETE FROM replay_keys WHERE key = ANY(won);
          SELECT array_agg(DISTINCT c.r ORDER BY c.r) INTO refused
          FROM unnest(claim_rows, claim_keys) AS c(r, k) WHERE NOT (c.k = ANY(won));
        END IF;
      END IF;
    END IF;
    IF refused IS NOT NULL THEN
      appended := false;
      RETURN;
    END IF;
    INSERT INTO audit (seq, id, at, event, agent_did, actor, reason, vp_id, data, prev_hash, hash)
    SELECT * FROM unnest(seqs, ids, ats, events, agent_dids, actors, reasons, vp_ids, datas, prev_hashes, hashes);
  END
  $fn$`,
];

/** The arguments and answer of mandate_audit_append_entries (migrations 4 and 5: one signature). */
const APPEND_ENTRIES_SIGNATURE = `    ids TEXT[], ats BIGINT[], events TEXT[], agent_dids TEXT[], actors TEXT[], reasons TEXT[],
    vp_ids TEXT[], datas TEXT[], heads TEXT[], mids TEXT[], tails TEXT[], genesis TEXT,
    claim_rows INT[], claim_keys TEXT[], claim_expiries BIGINT[], claim_at BIGINT, pruned INT,
    generation_rows INT[], generations BIGINT[],
    OUT first_seq BIGINT, OUT first_prev TEXT, OUT links TEXT[], OUT refused INT[])
  LANGUAGE plpgsql VOLATILE AS $fn$`;

/** `sql` with every line indented by `spaces` (the fragments below sit at several depths). */
function indented(sql: string, spaces: number): string {
  return sql
    .split('\n')
    .map((line) => ' '.repeat(spaces) + line)
    .join('\n');
}

/** Entries whose key expires by `claim_at`, or an earlier entry of the batch takes, join `refused`. */
const REFUSE_IN_BATCH = `SELECT refused || coalesce(array_agg(DISTINCT c.r), '{}') INTO refused FROM (
  SELECT u.r, u.e, row_number() OVER (PARTITION BY u.k ORDER BY u.o) AS nth
  FROM unnest(claim_rows, claim_keys, claim_expiries) WITH ORDINALITY AS u(r, k, e, o)
  WHERE NOT (u.r = ANY(refused))) AS c
WHERE c.e <= claim_at OR c.nth > 1;`;

/** The entries in `lost` join `refused`, and the keys they took (in `won`) are deleted again. */
const LEAVE_OUT_LOST_FREEING_KEYS = `DELETE FROM replay_keys WHERE key = ANY(won)
  AND key IN (SELECT u.k FROM unnest(claim_rows, claim_keys) AS u(r, k) WHERE u.r = ANY(lost));
refused := refused || lost;`;

/** Entries with a key the upsert could not record (not in `won`) are left out, as above. */
const LEAVE_OUT_LOST = `SELECT coalesce(array_agg(DISTINCT u.r), '{}') INTO lost FROM unnest(claim_rows, claim_keys) AS u(r, k)
WHERE NOT (u.r = ANY(refused)) AND NOT (u.k = ANY(won));
IF cardinality(lost) > 0 THEN
${indented(LEAVE_OUT_LOST_FREEING_KEYS, 2)}
END IF;`;

/** A few expired replay keys deleted, none the batch asks for, none another call holds. */
const PRUNE_EXPIRED_KEYS = `      DELETE FROM replay_keys WHERE key IN (
        SELECT key FROM replay_keys WHERE expires_at <= claim_at AND NOT (key = ANY(claim_keys))
        ORDER BY expires_at LIMIT pruned FOR UPDATE SKIP LOCKED);`;

/** The variables PLACE_LINKS uses, for the function's DECLARE. */
const PLACE_LINKS_VARIABLES = `    places INT[] := '{}';
    seqs BIGINT[] := '{}';
    prevs TEXT[] := '{}';
    n BIGINT;
    link TEXT;`;

/**
 * Under the writer lock, the entries not refused become the links after the head: each hash is
 * SHA-256 over `head || prev_hash || mid || seq || tail` (audit-chain.ts), then one insert.
 */
const PLACE_LINKS = `    SELECT seq, hash INTO n, link FROM audit ORDER BY seq DESC LIMIT 1;
    n := coalesce(n, 0);
    link := coalesce(link, genesis);
    first_seq := n + 1;
    first_prev := link;
    links := '{}';
    FOR i IN 1 .. cardinality(ids) LOOP
      CONTINUE WHEN (i - 1) = ANY(refused);
      n := n + 1;
      places := places || i;
      seqs := seqs || n;
      prevs := prevs || link;
      link := encode(sha256(convert_to(heads[i] || link || mids[i] || n::text || tails[i], 'UTF8')), 'hex');
      links := links || link;
    END LOOP;
    INSERT INTO audit (seq, id, at, event, agent_did, actor, reason, vp_id, data, prev_hash, hash)
    SELECT p.s, ids[p.i], ats[p.i], events[p.i], agent_dids[p.i], actors[p.i], reasons[p.i], vp_ids[p.i],
      datas[p.i], p.prev, p.h
    FROM unnest(places, seqs, prevs, links) AS p(i, s, prev, h);`;

/**
 * The group commit's append (audit-store.ts `appendEntries`) in one call, the links placed here:
 * under the writer lock, entries whose read generation has passed, whose key expires by
 * `claim_at`, or whose key an earlier entry of the batch takes, are left out (named in
 * `refused`); the others' keys are recorded (a few expired ones pruned first, as
 * replay-store.ts does) by an upsert on the key's unique index that records a recorded key afresh
 * only once expired. An entry with a key the upsert could not record (recorded and unexpired — by
 * anyone, committed before or racing with this call) is left out too, and the keys it did record
 * deleted again. The rest become the links after the head, read in a snapshot taken after the
 * lock was granted: each hash is SHA-256 over `head || prev_hash || mid || seq || tail`, the JCS
 * preimage the client cut around the two values only this call knows (audit-chain.ts). So no
 * writer on any instance has to know the head beforehand, and none is sent back for a moved one.
 */
const AUDIT_APPEND_ENTRIES_FUNCTION = [
  `CREATE FUNCTION mandate_audit_append_entries(
${APPEND_ENTRIES_SIGNATURE}
  DECLARE
    won TEXT[];
    lost INT[];
${PLACE_LINKS_VARIABLES}
  BEGIN
    PERFORM ${WRITER_LOCK};
    refused := '{}';
    IF cardinality(generation_rows) > 0 THEN
      SELECT coalesce(array_agg(DISTINCT g.r), '{}') INTO refused
      FROM unnest(generation_rows, generations) AS g(r, v)
      WHERE g.v <> (SELECT value FROM read_generation WHERE id = 1);
    END IF;
    IF cardinality(claim_keys) > 0 THEN
${indented(REFUSE_IN_BATCH, 6)}
${PRUNE_EXPIRED_KEYS}
      WITH recorded AS (
        INSERT INTO replay_keys (key, expires_at)
        SELECT u.k, u.e FROM unnest(claim_rows, claim_keys, claim_expiries) AS u(r, k, e) WHERE NOT (u.r = ANY(refused))
        ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE replay_keys.expires_at <= claim_at
        RETURNING key)
      SELECT coalesce(array_agg(key), '{}') INTO won FROM recorded;
${indented(LEAVE_OUT_LOST, 6)}
    END IF;
${PLACE_LINKS}
  END
  $fn$`,
];

/**
 * Migration 5: 4's function, same arguments and answer, with the writer lock held only for what
 * needs the head. The replay keys go first, outside the lock (a key's unique index decides who
 * records it, as ReplayStore.remember's upsert does), and in key order, so two calls — or a call
 * and a `remember` batch — whose keys overlap wait on each other's rows in one order and cannot
 * deadlock. The read generation is read before them (a stale entry takes no key) and again under
 * the lock, where it is authoritative: an entry it finds stale there is left out and the keys it
 * took deleted. The common batch — one generation, distinct live keys, all recorded — skips the
 * statements that sort out refusals. Under the lock: the generation, the head, the links, the
 * insert. Measured with three concurrent writers: 9 % less server CPU per call (docs/benchmarks.md
 * §postgres).
 */
const AUDIT_APPEND_ENTRIES_KEYS_FIRST = [
  `CREATE OR REPLACE FUNCTION mandate_audit_append_entries(
${APPEND_ENTRIES_SIGNATURE}
  DECLARE
    seen BIGINT;
    locked BIGINT;
    won TEXT[] := '{}';
    lost INT[];
${PLACE_LINKS_VARIABLES}
  BEGIN
    refused := '{}';
    SELECT value INTO seen FROM read_generation WHERE id = 1;
    IF NOT (seen = ALL(generations)) THEN
      SELECT coalesce(array_agg(DISTINCT g.r), '{}') INTO refused
      FROM unnest(generation_rows, generations) AS g(r, v) WHERE g.v <> seen;
    END IF;
    IF cardinality(claim_keys) > 0 THEN
      IF NOT (claim_at < ALL(claim_expiries))
        OR (SELECT count(DISTINCT k) FROM unnest(claim_keys) AS k) < cardinality(claim_keys) THEN
${indented(REFUSE_IN_BATCH, 8)}
      END IF;
${PRUNE_EXPIRED_KEYS}
      WITH recorded AS (
        INSERT INTO replay_keys (key, expires_at)
        SELECT u.k, u.e FROM unnest(claim_rows, claim_keys, claim_expiries) AS u(r, k, e) WHERE NOT (u.r = ANY(refused))
        ORDER BY u.k
        ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE replay_keys.expires_at <= claim_at
        RETURNING key)
      SELECT coalesce(array_agg(key), '{}') INTO won FROM recorded;
      IF cardinality(refused) > 0 OR cardinality(won) < cardinality(claim_keys) THEN
${indented(LEAVE_OUT_LOST, 8)}
      END IF;
    END IF;
    PERFORM ${WRITER_LOCK};
    SELECT value INTO locked FROM read_generation WHERE id = 1;
    IF locked <> seen THEN
      SELECT coalesce(array_agg(DISTINCT g.r), '{}') INTO lost FROM unnest(generation_rows, generations) AS g(r, v)
      WHERE g.v <> locked AND NOT (g.r = ANY(refused));
      IF cardinality(lost) > 0 THEN
${indented(LEAVE_OUT_LOST_FREEING_KEYS, 8)}
      END IF;
    END IF;
${PLACE_LINKS}
  END
  $fn$`,
];

/** Every step, in order; the last one's version is the schema this code runs on. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'issuer tables',
    statements: [...TOKENS_AND_SESSIONS, ...AGENTS_AND_DIDS, ...LISTS_AND_CREDENTIALS, ...AUDIT, ...SMALL_TABLES],
  },
  { version: 2, name: 'audit append in one call', statements: AUDIT_APPEND_FUNCTION },
  {
    version: 3,
    name: 'read generation; audit append with conditions',
    statements: [...READ_GENERATION, ...AUDIT_APPEND_IF_FUNCTION],
  },
  { version: 4, name: 'audit links placed by the database', statements: AUDIT_APPEND_ENTRIES_FUNCTION },
  { version: 5, name: 'audit append: replay keys first, in key order', statements: AUDIT_APPEND_ENTRIES_KEYS_FIRST },
];
