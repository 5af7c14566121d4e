/**
 * The issuer's audit log: append-only and hash-chained. Each record carries the hash of the
 * previous one, and its own hash is SHA-256 over the JCS (RFC 8785) form of the record with
 * that `prevHash`, so removing, reordering or editing any record breaks every hash after it.
 * The first record chains to a fixed genesis value.
 *
 * `record` runs inside the caller's transaction when it is handed one, so a state change and
 * its audit record commit or roll back together. Every refusal is recorded
 * too (the HTTP error handler calls `record` for each 4xx it sends).
 *
 * Limit of a chain with no outside anchor: truncating the newest records leaves a shorter
 * chain that still verifies. `verifyChain` reports the count and head hash; an operator who
 * copies them elsewhere (logs, backups) detects truncation by comparing.
 */
import { canonicalizeJson } from '../wallet/crypto/jcs.ts';
import { type JsonObject } from '../wallet/crypto/json-value.ts';
import { AUDIT_GENESIS_HASH, auditRecordHash, linkAfter, type AuditEntry } from './storage/audit-chain.ts';
import type { AppendConditions, AuditRow } from './storage/audit-store.ts';
import { groupCommit } from './storage/group-commit.ts';
import type { IssuerStores } from './storage/stores.ts';
import type { AuditChainVerdict, AuditPage, AuditRecord } from '../wallet/contract/audit.ts';

/** The chain's genesis value and a record's hash (storage/audit-chain.ts), for whoever checks a chain. */
export { AUDIT_GENESIS_HASH, auditRecordHash };

/** What a caller records; the trail adds `seq`, `id`, `at` and the hash chain. */
export type AuditInput = Pick<AuditRecord, 'event' | 'agentDid' | 'actor' | 'reason' | 'vpId' | 'data'>;

/** The wire shape of an audit record (docs/api.md), shared with the client that reads it. */
export type { AuditPage, AuditRecord };

export interface AuditQuery {
  agentDid?: string;
  event?: string;
  /** true: only events third parties reported (users' consents, providers' events); false: all but those. */
  reported?: boolean;
  /** Inclusive, epoch ms. */
  from?: number;
  /** Inclusive, epoch ms. */
  to?: number;
  /** From a previous page's nextCursor. */
  cursor?: string;
  /** 1..500, default 100. */
  limit?: number;
  /** 'desc': newest first, each page older than the last. Default 'asc'. */
  order?: 'asc' | 'desc';
}

export type ChainVerdict = AuditChainVerdict;

/** A replay key a record takes (ReplayStore.remember: single use until `expiresAt`). */
export interface ReplayKey {
  key: string;
  expiresAt: number;
}

/**
 * What a record written by `recordIf` depends on: replay keys it takes, and the read generation
 * (stores.readGeneration) the decision it records was made at.
 */
export interface RecordConditions {
  keys?: ReplayKey[];
  generation?: number;
}

export interface AuditLog {
  /** Appends `input`; inside `tx` when given (the caller's transaction), else in its own. */
  record(input: AuditInput, tx?: IssuerStores): Promise<AuditRecord>;
  /**
   * Appends `input` (outside transactions, group-committed as `record`) only if it meets
   * `conditions`: every replay key free, recorded in the same atomic step, and the read
   * generation still the one given. Undefined, with nothing written, when it does not. A
   * verdict is then recorded, and the presentation it accepts spent, in one write, and only
   * while what the verdict read is still what the database holds.
   */
  recordIf(input: AuditInput, conditions: RecordConditions): Promise<AuditRecord | undefined>;
  list(query?: AuditQuery): Promise<AuditPage>;
  /**
   * Re-checks the whole chain, up to the record that was last when it started. It reads and
   * hashes VERIFY_CHUNK records at a time and yields to the event loop in between, so a long
   * log never stalls the server; concurrent calls share one run.
   */
  verifyChain(): Promise<ChainVerdict>;
}

/** Records hashed between two yields to the event loop (a few ms of work). */
const VERIFY_CHUNK = 2000;

function toRecord(row: AuditRow): AuditRecord {
  return {
    seq: row.seq,
    id: row.id,
    at: new Date(row.at).toISOString(),
    event: row.event,
    ...(row.agentDid === null ? {} : { agentDid: row.agentDid }),
    actor: row.actor,
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.vpId === null ? {} : { vpId: row.vpId }),
    ...(row.data === null ? {} : { data: JSON.parse(row.data) as JsonObject }),
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

const MAX_TEXT = 512;
const clip = (value: string | undefined): string | null => (value === undefined ? null : clipText(value, MAX_TEXT));

/** A surrogate half without its other half (JSON can spell one: "\ud800"). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text from a request made fit for the audit trail: a lone surrogate half becomes U+FFFD, and
 * the text is cut to at most `max` UTF-16 code units, never between the two halves of a pair.
 * A lone half has no UTF-8 form, so the record holding it could not be canonicalized and would
 * not be written: an emoji placed at the cut, or a "\ud800" in a presentation, would keep a
 * refusal out of the audit trail.
 */
export function clipText(text: string, max: number): string {
  const whole = text.replace(LONE_SURROGATE, '\ufffd');
  if (whole.length <= max) return whole;
  const last = whole.charCodeAt(max - 1);
  return whole.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** An input as the chain stores it (text clipped, data canonicalized), before it has a place in the chain. */
type PreparedInput = Pick<AuditRow, 'event' | 'agentDid' | 'actor' | 'reason' | 'vpId' | 'data'>;

/** Throws (for this caller only) when `input.data` has no JSON form. */
function prepare(input: AuditInput): PreparedInput {
  return {
    event: input.event,
    agentDid: clip(input.agentDid),
    actor: clip(input.actor) ?? 'unknown',
    reason: clip(input.reason),
    vpId: clip(input.vpId),
    data: input.data === undefined ? null : canonicalizeJson(input.data),
  };
}

/** `input` as an entry made at `at`, before it has a place in the chain. */
function entry(input: PreparedInput, at: number): AuditEntry {
  return { id: crypto.randomUUID(), at, ...input };
}

/** Appends `input` as the next link, in `tx` (where the head is read and the link written). */
async function appendIn(tx: IssuerStores, input: PreparedInput, at: number): Promise<AuditRow> {
  const [row] = linkAfter(await tx.audit.last(), [entry(input, at)]) as [AuditRow];
  await tx.audit.append(row);
  return row;
}

/** A record waiting for the group commit, with what it depends on (recordIf). */
interface Pending {
  input: PreparedInput;
  conditions?: RecordConditions;
}

/** What the group commit answers a caller: its link, or undefined when it failed its conditions. */
type Appended = AuditRow | undefined;

/** The batch's conditions as `appendEntries` takes them (undefined when no record has any). */
function conditionsOf(batch: Pending[], at: number): AppendConditions | undefined {
  if (batch.every((pending) => pending.conditions === undefined)) return undefined;
  return {
    at,
    keys: batch.flatMap(({ conditions }, row) => (conditions?.keys ?? []).map((key) => ({ row, ...key }))),
    generations: batch.flatMap(({ conditions }, row) =>
      conditions?.generation === undefined ? [] : [{ row, generation: conditions.generation }],
    ),
  };
}

/**
 * The group commit's append: the batch's entries in one step of the store's own
 * (`appendEntries`), which places them after the head as it finds it — another instance or a
 * caller's transaction may have moved it, and no writer needs to know where it is — and leaves
 * out the records that fail their conditions.
 */
function batchAppender(stores: IssuerStores, now: () => number): (batch: Pending[]) => Promise<Appended[]> {
  return (batch) =>
    stores.audit.appendEntries(
      batch.map((pending) => entry(pending.input, now())),
      conditionsOf(batch, now()),
    );
}

/**
 * The log over `stores.audit`. An append inside a caller's transaction reads the head and writes
 * the next link there. Appends outside one are group-committed (storage/group-commit.ts): those
 * made at about the same time become consecutive links written in one step (batchAppender),
 * and each caller is answered once it is stored — one write for many requests instead of one
 * each, and still nothing is answered before its audit record is stored.
 */
export function createAuditLog(stores: IssuerStores, now: () => number = Date.now): AuditLog {
  const store = stores.audit;
  const grouped = groupCommit(batchAppender(stores, now));

  let verifying: Promise<ChainVerdict> | undefined;

  async function verifyChain(): Promise<ChainVerdict> {
    const head = (await store.last())?.seq ?? 0;
    let prevHash = AUDIT_GENESIS_HASH;
    let count = 0;
    let brokenAt: number | undefined;
    // From below any seq, so that a row renumbered to zero or less still shows up (as a break).
    for (let afterSeq = Number.MIN_SAFE_INTEGER; ;) {
      // Chunks by seq, with no statement left open across the yield (better-sqlite3 refuses
      // writes on a connection with an iterator in progress).
      const rows = (await store.list({ afterSeq, limit: VERIFY_CHUNK })).filter((row) => row.seq <= head);
      for (const row of rows) {
        count++;
        if (brokenAt !== undefined) continue; // keep counting: the verdict reports the whole log's size
        const { hash, ...rest } = row;
        if (row.seq !== count || row.prevHash !== prevHash || auditRecordHash(rest) !== hash) brokenAt = row.seq;
        else prevHash = hash;
      }
      const last = rows[rows.length - 1];
      if (last === undefined || rows.length < VERIFY_CHUNK) break;
      afterSeq = last.seq;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return brokenAt === undefined ? { intact: true, count, headHash: prevHash } : { intact: false, brokenAt, count };
  }

  return {
    async record(input, tx) {
      const prepared = prepare(input);
      if (tx) return toRecord(await appendIn(tx, prepared, now()));
      // A record without conditions is never refused: its link is always there.
      return toRecord((await grouped({ input: prepared })) as AuditRow);
    },
    async recordIf(input, conditions) {
      const row = await grouped({ input: prepare(input), conditions });
      return row && toRecord(row);
    },
    async list(query = {}) {
      const limit = Math.min(Math.max(Math.trunc(query.limit ?? 100), 1), 500);
      const parsed = query.cursor === undefined ? 0 : Number.parseInt(query.cursor, 10);
      const cursor = Number.isSafeInteger(parsed) && parsed > 0 ? parsed : undefined;
      // The cursor is the seq of the previous page's last record: the next page starts past it,
      // going up (asc) or down (desc).
      const bound =
        query.order === 'desc'
          ? { order: 'desc' as const, ...(cursor === undefined ? {} : { beforeSeq: cursor }) }
          : { afterSeq: cursor ?? 0 };
      const rows = await store.list({
        ...(query.agentDid === undefined ? {} : { agentDid: query.agentDid }),
        ...(query.event === undefined ? {} : { event: query.event }),
        ...(query.reported === undefined ? {} : { reported: query.reported }),
        ...(query.from === undefined ? {} : { from: query.from }),
        ...(query.to === undefined ? {} : { to: query.to }),
        ...bound,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit).map(toRecord);
      const last = page[page.length - 1];
      return rows.length > limit && last ? { records: page, nextCursor: String(last.seq) } : { records: page };
    },
    verifyChain() {
      verifying ??= verifyChain().finally(() => {
        verifying = undefined;
      });
      return verifying;
    },
  };
}
