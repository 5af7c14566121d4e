/**
 * The audit table: append and read, nothing else. There is deliberately no update or delete
 * here or anywhere else in the issuer; the hash chain (issuer/audit.ts) makes any change made
 * behind the issuer's back detectable.
 */
import { linkAfter, type AuditEntry } from './audit-chain.ts';
import type { IssuerDb, Sync } from './db.ts';
import { createSqliteReadGenerationStore } from './read-generation-store.ts';
import { createSqliteReplayStore } from './replay-store.ts';
import { REPORTED_SQL } from './schema.ts';

export interface AuditRow {
  seq: number;
  id: string;
  at: number;
  event: string;
  agentDid: string | null;
  actor: string;
  reason: string | null;
  vpId: string | null;
  /** JSON text of the record's data, or null. */
  data: string | null;
  prevHash: string;
  hash: string;
}

export interface AuditFilter {
  agentDid?: string;
  event?: string;
  /** true: only reported events (REPORTED_EVENTS, schema.ts); false: none of them. */
  reported?: boolean;
  /** Inclusive lower bound, epoch ms. */
  from?: number;
  /** Inclusive upper bound, epoch ms. */
  to?: number;
  /** Only records with seq greater than this. */
  afterSeq?: number;
  /** Only records with seq less than this (the cursor of a newest-first page). */
  beforeSeq?: number;
  /** 'desc': newest first, so the tail of a long log is read without paging through all of it. Default 'asc'. */
  order?: 'asc' | 'desc';
  limit: number;
}

/** The chain's last link: what the next one's `seq` and `prevHash` follow. */
export interface AuditHead {
  seq: number;
  hash: string;
}

/**
 * What the entries of an `appendEntries` batch depend on, judged at `at`. `keys`: replay keys they
 * take, with ReplayStore.remember's single use. `generations`: entries valid only while the read
 * generation (read-generation-store.ts) is still the one given. `row` is an index into the batch.
 */
export interface AppendConditions {
  at: number;
  keys: { row: number; key: string; expiresAt: number }[];
  generations: { row: number; generation: number }[];
}

export interface AuditStore {
  /** The last record's seq and hash (undefined for an empty log). */
  last(): Promise<AuditHead | undefined>;
  /**
   * Chain append of consecutive links (a group commit's batch at once): throws when a row's `seq`
   * (or `id`) is taken, so two writers that read the same `last()` cannot both extend the chain;
   * run `last` and `append` in one transaction.
   */
  append(...rows: AuditRow[]): Promise<void>;
  /**
   * Places `entries`, in order, at the end of the chain in one atomic step of its own: each
   * becomes the link after the head as it is then (seq, prevHash and hash: audit-chain.ts), so
   * writers on any instance never need to know the head beforehand. An entry that fails its
   * `conditions` — a read generation that has passed, or a replay key that is not free (recorded
   * and unexpired, expiring by `at`, or taken by an earlier entry of the batch) — is left out
   * (undefined in the answer) and takes no key; the others take theirs with their links. Waits
   * for an open writer transaction of any instance. Outside transactions, or inside a writer
   * transaction — there without keys another call may be taking at the same moment: on
   * PostgreSQL a call takes its keys before the writer lock, so a transaction holding the lock and
   * waiting on such a key would close a cycle the server breaks by failing one side
   * (`deadlock_timeout`). The audit log records inside transactions without conditions.
   */
  appendEntries(entries: AuditEntry[], conditions?: AppendConditions): Promise<(AuditRow | undefined)[]>;
  /** In seq order, ascending unless `filter.order` is 'desc'. */
  list(filter: AuditFilter): Promise<AuditRow[]>;
}

/** An `audit` row, as both adapters return it. */
export interface AuditTableRow {
  seq: number;
  id: string;
  at: number;
  event: string;
  agent_did: string | null;
  actor: string;
  reason: string | null;
  vp_id: string | null;
  data: string | null;
  prev_hash: string;
  hash: string;
}

export function toAuditRow(row: AuditTableRow): AuditRow {
  return {
    seq: row.seq,
    id: row.id,
    at: row.at,
    event: row.event,
    agentDid: row.agent_did,
    actor: row.actor,
    reason: row.reason,
    vpId: row.vp_id,
    data: row.data,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** Rolls back the savepoint of an entry whose replay key is not free. */
class KeyTaken extends Error {}

export function createSqliteAuditStore(db: IssuerDb): Sync<AuditStore> {
  const s = db.sqlite;
  const last = s.prepare<[], AuditHead>('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1');
  const append =
    s.prepare(`INSERT INTO audit (seq, id, at, event, agent_did, actor, reason, vp_id, data, prev_hash, hash)
    VALUES (@seq, @id, @at, @event, @agentDid, @actor, @reason, @vpId, @data, @prevHash, @hash)`);
  const insert = (rows: AuditRow[]): void => {
    for (const row of rows) append.run(row);
  };
  const appendAll = s.transaction((...rows: AuditRow[]) => insert(rows));
  const replay = createSqliteReplayStore(db);
  const generation = createSqliteReadGenerationStore(db);
  // One entry's keys in a savepoint: all of them taken, or none.
  const claim = s.transaction((keys: AppendConditions['keys'], at: number): void => {
    for (const { key, expiresAt } of keys) if (!replay.remember(key, expiresAt, at)) throw new KeyTaken();
  });
  const claims = (keys: AppendConditions['keys'], at: number): boolean => {
    try {
      claim(keys, at);
      return true;
    } catch (error) {
      if (error instanceof KeyTaken) return false;
      throw error;
    }
  };
  // The entries (by index) that meet their conditions; generations first, so a stale entry takes no key.
  const meeting = (count: number, { at, keys, generations }: AppendConditions): boolean[] => {
    const now = generations.length > 0 ? generation.current() : undefined;
    const stale = new Set(generations.filter((g) => g.generation !== now).map((g) => g.row));
    const keysOf = new Map<number, AppendConditions['keys']>();
    for (const key of keys) keysOf.set(key.row, [...(keysOf.get(key.row) ?? []), key]);
    return Array.from({ length: count }, (_, row) => {
      if (stale.has(row)) return false;
      const own = keysOf.get(row);
      return own === undefined || claims(own, at);
    });
  };
  const appendEntries = s.transaction((entries: AuditEntry[], conditions: AppendConditions | undefined) => {
    const meets = conditions === undefined ? undefined : meeting(entries.length, conditions);
    const kept = entries.filter((_, row) => meets?.[row] !== false);
    const rows = linkAfter(last.get(), kept);
    insert(rows);
    let placed = 0;
    return entries.map((_, row) => (meets?.[row] === false ? undefined : rows[placed++]));
  });

  return {
    last: () => last.get(),
    // All or none (a savepoint when the caller's transaction is open), as PostgreSQL's one statement.
    append: appendAll,
    // IMMEDIATE: the write lock before the head is read, so another process on the file cannot move it in between.
    appendEntries: (entries, conditions) => appendEntries.immediate(entries, conditions),
    list({ order, ...filter }) {
      const where: string[] = ['seq > @afterSeq'];
      if (filter.beforeSeq !== undefined) where.push('seq < @beforeSeq');
      if (filter.agentDid !== undefined) where.push('agent_did = @agentDid');
      if (filter.event !== undefined) where.push('event = @event');
      if (filter.reported !== undefined) where.push(`${REPORTED_SQL} = ${filter.reported ? 1 : 0}`);
      if (filter.from !== undefined) where.push('at >= @from');
      if (filter.to !== undefined) where.push('at <= @to');
      // Built only from the fixed fragments above; values are bound parameters.
      const statement = s.prepare<[Record<string, unknown>], AuditTableRow>(
        `SELECT * FROM audit WHERE ${where.join(' AND ')} ORDER BY seq ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT @limit`,
      );
      return statement.all({ ...filter, afterSeq: filter.afterSeq ?? 0 }).map(toAuditRow);
    },
  };
}
