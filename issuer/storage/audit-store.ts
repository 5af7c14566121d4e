/**
 * The audit table: append and read, nothing else. There is deliberately no update or delete
 * here or anywhere else in the issuer; the hash chain (issuer/audit.ts) makes any change made
 * behind the issuer's back detectable.
 */
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
 * What the rows of an `appendAfter` batch depend on, judged at `at`. `keys`: replay keys they take,
 * with ReplayStore.remember's single use. `generations`: rows valid only while the read generation
 * (read-generation-store.ts) is still the one given. `row` is an index into the batch.
 */
export interface AppendConditions {
  at: number;
  keys: { row: number; key: string; expiresAt: number }[];
  generations: { row: number; generation: number }[];
}

/**
 * What `appendAfter` did: appended; or refused because the chain's head had moved (to `head`);
 * or, the head being the expected one, refused because the rows at the indexes `refused` fail a
 * condition — a read generation that has passed, or a replay key that is not free (recorded and
 * unexpired, expiring by `at`, or claimed by an earlier row of the batch). `refused` may name
 * only some such rows: a caller leaves them out and tries the rest again.
 */
export type AppendAfterResult =
  | { appended: true }
  | { appended: false; head: AuditHead | undefined; refused?: undefined }
  | { appended: false; head: AuditHead | undefined; refused: [number, ...number[]] };

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
   * Appends `rows` (links that follow `expected`) in one atomic step of its own if `expected`
   * (undefined: the empty log) is still the chain's head and every row meets its `conditions` —
   * recording their replay keys in the same step; otherwise writes nothing and says why. Waits
   * for an open writer transaction of any instance, so it never takes a position such a
   * transaction has read as free. Outside transactions, or inside a writer transaction (where
   * the head cannot move, and claims are judged as in the one step).
   */
  appendAfter(
    expected: AuditHead | undefined,
    rows: AuditRow[],
    conditions?: AppendConditions,
  ): Promise<AppendAfterResult>;
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

/** Rolls back appendAfter's transaction when rows fail their conditions: no key and no row stays written. */
class Refused extends Error {
  constructor(readonly rows: [number, ...number[]]) {
    super('rows refused');
  }
}

/** Sorted and without repeats; throws Refused when there is any. */
function refuse(rows: number[]): void {
  const [first, ...rest] = [...new Set(rows)].sort((a, b) => a - b);
  if (first !== undefined) throw new Refused([first, ...rest]);
}

export function createSqliteAuditStore(db: IssuerDb): Sync<AuditStore> {
  const s = db.sqlite;
  const last = s.prepare<[], AuditHead>('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1');
  const append =
    s.prepare(`INSERT INTO audit (seq, id, at, event, agent_did, actor, reason, vp_id, data, prev_hash, hash)
    VALUES (@seq, @id, @at, @event, @agentDid, @actor, @reason, @vpId, @data, @prevHash, @hash)`);
  const appendAll = s.transaction((...rows: AuditRow[]) => {
    for (const row of rows) append.run(row);
  });
  const replay = createSqliteReplayStore(db);
  const generation = createSqliteReadGenerationStore(db);
  // Generations first (nothing written yet), then the keys, through the replay store: rolled back whole on a refusal.
  const meet = ({ at, keys, generations }: AppendConditions): void => {
    const now = generation.current();
    refuse(generations.filter((g) => g.generation !== now).map((g) => g.row));
    refuse(keys.filter(({ key, expiresAt }) => !replay.remember(key, expiresAt, at)).map((k) => k.row));
  };
  const appendAfter = s.transaction(
    (
      expected: AuditHead | undefined,
      rows: AuditRow[],
      conditions: AppendConditions | undefined,
    ): AppendAfterResult => {
      const head = last.get();
      if (head?.seq !== expected?.seq || head?.hash !== expected?.hash) return { appended: false, head };
      if (conditions) meet(conditions);
      appendAll(...rows);
      return { appended: true };
    },
  );

  return {
    last: () => last.get(),
    // All or none (a savepoint when the caller's transaction is open), as PostgreSQL's one statement.
    append: appendAll,
    // IMMEDIATE: the write lock before the head is read, so another process on the file cannot move it in between.
    appendAfter(expected, rows, conditions) {
      try {
        return appendAfter.immediate(expected, rows, conditions);
      } catch (error) {
        if (error instanceof Refused) return { appended: false, head: expected, refused: error.rows };
        throw error;
      }
    },
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
