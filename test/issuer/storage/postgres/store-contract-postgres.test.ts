// The storage contract (test/support/store-contract.ts) on the PostgreSQL adapter, each case in
// a schema of its own on the run's PostgreSQL (test/support/servers.ts); then what only a shared
// server can show: the versioned migrations (fresh, older, newer, concurrent starts) and two
// pools on one database standing for two issuer instances.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { auditRecordHash, AUDIT_GENESIS_HASH, createAuditLog } from '../../../../issuer/audit.ts';
import { linkAfter, type AuditEntry } from '../../../../issuer/storage/audit-chain.ts';
import type { AuditHead, AuditRow } from '../../../../issuer/storage/audit-store.ts';
import { createPostgresAuditStore } from '../../../../issuer/storage/postgres/audit-store.ts';
import { openPostgres, type PostgresDb } from '../../../../issuer/storage/postgres/db.ts';
import type { Sql } from '../../../../issuer/storage/postgres/pool.ts';
import { migrate, SchemaError } from '../../../../issuer/storage/postgres/migrate.ts';
import { MIGRATIONS, type Migration } from '../../../../issuer/storage/postgres/schema.ts';
import { WRITER_LOCK } from '../../../../issuer/storage/postgres/locks.ts';
import { createPostgresStores } from '../../../../issuer/storage/postgres/stores.ts';
import type { IssuerStores } from '../../../../issuer/storage/stores.ts';
import { describeStoreContract, statusList } from '../../../support/store-contract.ts';
import { backendPid, freshDatabase, untilWaitingOnLock, type FreshDatabase } from '../../../support/servers.ts';

afterAll(async () => {
  await contractDatabase?.drop();
});

/** A fresh database, migrated, with `count` pools on it (the instances). */
async function instances(
  count: number,
): Promise<{ dbs: PostgresDb[]; database: FreshDatabase; close(): Promise<void> }> {
  const database = await freshDatabase();
  const dbs: PostgresDb[] = [];
  for (let i = 0; i < count; i++) dbs.push(await openPostgres({ url: database.url, size: 10 }));
  return {
    dbs,
    database,
    close: async () => {
      await Promise.all(dbs.map((db) => db.close()));
      await database.drop();
    },
  };
}

let contractDatabase: FreshDatabase | undefined;
let schemas = 0;

/** A schema of its own for each case, on one database (a database per case costs a copy of template1). */
async function freshSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  contractDatabase ??= await freshDatabase();
  const { url: databaseUrl } = contractDatabase;
  const name = `contract_${++schemas}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${name}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    url: url.href,
    drop: async () => {
      await admin.query(`DROP SCHEMA ${name} CASCADE`);
      await admin.end();
    },
  };
}

describeStoreContract('postgres', async () => {
  const schema = await freshSchema();
  const db = await openPostgres({ url: schema.url, size: 10 });
  return {
    stores: createPostgresStores(db.pool),
    // The writer transaction holds the writer lock (locks.ts) from its BEGIN: a call outside it
    // waits for that lock in the server.
    writerAwaited: () => untilWaitingOnLock(db.pool),
    close: async () => {
      await db.close();
      await schema.drop();
    },
  };
});

const T0 = Date.parse('2026-11-22T10:00:00Z');

/** A step after this code's last, for a database "from a newer issuer" or "before an upgrade". */
const NEXT_STEP: Migration = {
  version: MIGRATIONS.length + 1,
  name: 'test: a column a later issuer adds',
  statements: ['ALTER TABLE settings ADD COLUMN note TEXT'],
};

async function columns(db: PostgresDb, table: string): Promise<string[]> {
  const found = await db.pool.query<{ column_name: string }>(
    'SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position',
    [table],
  );
  return found.rows.map((r) => r.column_name);
}

/**
 * SHA-256 of each shipped step's statements (JSON): a database that had a step never runs it
 * again, so a step edited after shipping would leave databases that differ under one version.
 */
const SHIPPED_STEPS: Record<number, string> = {
  1: '4cad444f665b0cdfc0bda7aa02a93a9a96c326a2060c8c698131f45eb39d2d32',
  2: '6d10be66630e4f806141ded106c88cf875dee88b170245319d199989c30c4e3c',
  3: 'dd171f4cbed9b465cbb9dac1da23aed6fd4035814e97bc3d50d555e753cc7447',
  4: '5631e37cc963b012f1833bca1e24e469d4c5d7d0827fcb1af8777a76da5fdd1f',
  5: '847cc5bcc9947276b0598c698928e292f619a0ad58beac993258d849cbd162eb',
};

describe('postgres schema migrations', () => {
  it('a shipped step is never edited: each hashes as it shipped (a new step adds its hash here)', () => {
    const hashes = Object.fromEntries(
      MIGRATIONS.map((m) => [m.version, createHash('sha256').update(JSON.stringify(m.statements)).digest('hex')]),
    );
    expect(hashes).toEqual(SHIPPED_STEPS);
  });

  it('brings a new database to the current version, recording each step', async () => {
    const database = await freshDatabase();
    const db = await openPostgres({ url: database.url, size: 2 });
    try {
      expect(db.migration).toEqual({ from: 0, to: MIGRATIONS.length, applied: MIGRATIONS.map((m) => m.version) });
      const recorded = await db.pool.query<{ version: number }>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(recorded.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      // A restart finds nothing to do.
      expect(await migrate(db.pool)).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length, applied: [] });
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('upgrades a database an older issuer left, keeping its rows', async () => {
    const database = await freshDatabase();
    const older = await openPostgres({ url: database.url, size: 2 });
    await createPostgresStores(older.pool).settings.set('kept', 'yes');
    await older.close();
    const newer = await openPostgres({ url: database.url, size: 2, migrations: [...MIGRATIONS, NEXT_STEP] });
    try {
      expect(newer.migration).toEqual({ from: MIGRATIONS.length, to: NEXT_STEP.version, applied: [NEXT_STEP.version] });
      expect(await columns(newer, 'settings')).toEqual(['key', 'value', 'note']);
      expect(await createPostgresStores(newer.pool).settings.get('kept')).toBe('yes');
    } finally {
      await newer.close();
      await database.drop();
    }
  });

  it('upgrades a version-1 database (before the one-call audit append and its replay claims): its chain goes on from its head', async () => {
    const database = await freshDatabase();
    const v1 = await openPostgres({ url: database.url, size: 2, migrations: MIGRATIONS.slice(0, 1) });
    const first = { seq: 1, id: 'a1', at: T0, event: 'AGENT_ENROLLED', agentDid: null, actor: 'system' };
    const row1 = { ...first, reason: null, vpId: null, data: null, prevHash: AUDIT_GENESIS_HASH };
    await createPostgresStores(v1.pool).audit.append({ ...row1, hash: auditRecordHash(row1) });
    await v1.close();
    const current = await openPostgres({ url: database.url, size: 2 });
    try {
      expect(current.migration).toEqual({
        from: 1,
        to: MIGRATIONS.length,
        applied: MIGRATIONS.slice(1).map((m) => m.version),
      });
      const log = createAuditLog(createPostgresStores(current.pool));
      const records = await Promise.all([1, 2, 3].map((n) => log.record({ event: 'VP_VERIFIED', actor: `a${n}` })));
      expect(records.map((r) => r.seq)).toEqual([2, 3, 4]);
      const spent = { key: 'vp:urn:uuid:1', expiresAt: Date.now() + 60_000 };
      expect(await log.recordIf({ event: 'VP_VERIFIED', actor: 'a4' }, { keys: [spent] })).toMatchObject({ seq: 5 });
      expect(await log.recordIf({ event: 'VP_VERIFIED', actor: 'a5' }, { keys: [spent] })).toBeUndefined();
      expect(await log.verifyChain()).toMatchObject({ intact: true, count: 5 });
    } finally {
      await current.close();
      await database.drop();
    }
  });

  it('in a rolling upgrade, instances on migration 3 (links built after the head they know) and on 4 extend one chain', async () => {
    const database = await freshDatabase();
    const db = await openPostgres({ url: database.url, size: 4 });
    try {
      const log = createAuditLog(createPostgresStores(db.pool));
      await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          i % 2 ? appendAsVersion3(db.pool, `v3-${i}`) : log.record({ event: 'VP_VERIFIED', actor: `v4-${i}` }),
        ),
      );
      expect(await log.verifyChain()).toMatchObject({ intact: true, count: 24 });
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('refuses a database a newer issuer migrated, with one line (SCHEMA_TOO_NEW)', async () => {
    const database = await freshDatabase();
    const newer = await openPostgres({ url: database.url, size: 2, migrations: [...MIGRATIONS, NEXT_STEP] });
    await newer.close();
    try {
      const refused = openPostgres({ url: database.url, size: 2 });
      await expect(refused).rejects.toBeInstanceOf(SchemaError);
      const error = (await refused.catch((e: unknown) => e)) as SchemaError;
      expect(error.code).toBe('SCHEMA_TOO_NEW');
      expect(error.message).toBe(
        `database schema version ${NEXT_STEP.version} is newer than this issuer's (${MIGRATIONS.length}): run the newer issuer, or restore a backup made before the upgrade`,
      );
      expect(error.message).not.toContain('\n');
    } finally {
      await database.drop();
    }
  });

  it('rolls a failing step back whole and says which (SCHEMA_MIGRATION_FAILED)', async () => {
    const database = await freshDatabase();
    const broken: Migration = {
      version: MIGRATIONS.length + 1,
      name: 'test: half a step',
      statements: ['CREATE TABLE half_done (x INTEGER)', 'ALTER TABLE no_such_table ADD COLUMN y TEXT'],
    };
    try {
      const failed = await openPostgres({ url: database.url, size: 2, migrations: [...MIGRATIONS, broken] }).catch(
        (e: unknown) => e,
      );
      expect(failed).toBeInstanceOf(SchemaError);
      expect((failed as SchemaError).code).toBe('SCHEMA_MIGRATION_FAILED');
      expect((failed as SchemaError).message).toMatch(
        new RegExp(
          `^database schema: migration ${broken.version} \\(test: half a step\\) failed: relation "no_such_table" does not exist$`,
        ),
      );
      const db = await openPostgres({ url: database.url, size: 2 });
      expect(db.migration.from).toBe(MIGRATIONS.length);
      expect(await columns(db, 'half_done')).toEqual([]);
      await db.close();
    } finally {
      await database.drop();
    }
  });

  it('applies each step exactly once when several instances start at once', async () => {
    const database = await freshDatabase();
    // Steps are plain CREATE TABLE (no IF NOT EXISTS): a step applied twice would fail its instance.
    const dbs = await Promise.all(
      Array.from({ length: 4 }, () =>
        openPostgres({ url: database.url, size: 2, migrations: [...MIGRATIONS, NEXT_STEP] }),
      ),
    );
    try {
      const applied = dbs.flatMap((db) => db.migration.applied).sort((a, b) => a - b);
      expect(applied).toEqual([...MIGRATIONS, NEXT_STEP].map((m) => m.version));
      expect(dbs.filter((db) => db.migration.applied.length > 0)).toHaveLength(1);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await database.drop();
    }
  });
});

describe('postgres stores and U+0000 (which PostgreSQL text cannot hold, and SQLite text can)', () => {
  it('finds nothing by a key holding one, and stores and returns such values as written', async () => {
    const opened = await instances(1);
    try {
      const [db] = opened.dbs;
      if (!db) throw new Error('no pool');
      const s = createPostgresStores(db.pool);
      expect(await s.agents.get('did:key:z6Mk\u0000')).toBeUndefined();
      expect(await s.credentials.markRevoked('urn:\u0000', T0)).toBe(false);
      expect(await s.replay.remember('vp:a\u0000b', T0 + 60_000, T0)).toBe(true);
      expect(await s.replay.remember('vp:a\u0000b', T0 + 60_000, T0)).toBe(false);
      expect(await s.replay.remember('vp:a', T0 + 60_000, T0)).toBe(true);
      // The encoding's mark itself, as a value: kept apart from an encoded one.
      for (const value of ['actor\u0000x', '\u0001plain', '\u000161'])
        await s.transaction(async (tx) => {
          const last = await tx.audit.last();
          const seq = (last?.seq ?? 0) + 1;
          await tx.audit.append({
            seq,
            id: `a${seq}`,
            at: T0,
            event: 'TEST_EVENT',
            agentDid: null,
            actor: value,
            reason: null,
            vpId: value,
            data: null,
            prevHash: 'x',
            hash: 'y',
          });
        });
      const rows = await s.audit.list({ limit: 10 });
      expect(rows.map((r) => [r.actor, r.vpId])).toEqual([
        ['actor\u0000x', 'actor\u0000x'],
        ['\u0001plain', '\u0001plain'],
        ['\u000161', '\u000161'],
      ]);
    } finally {
      await opened.close();
    }
  });
});

/** Appends one record as an issuer of migration 3 did: its link built after the head it read, sent again while the head moves. */
async function appendAsVersion3(pool: pg.Pool, actor: string): Promise<void> {
  for (;;) {
    const head = (await pool.query<AuditHead>('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1')).rows[0];
    const entry = testEntry(actor);
    const [row] = linkAfter(head && { seq: Number(head.seq), hash: head.hash }, [entry]) as [AuditRow];
    const answer = await pool.query<{ appended: boolean }>(
      `SELECT appended FROM mandate_audit_append_if($1, $2, $3::bigint[], $4::text[], $5::bigint[], $6::text[],
        $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],
        '{}'::int[], '{}'::text[], '{}'::bigint[], 0, 0, '{}'::int[], '{}'::bigint[])`,
      [
        head?.seq ?? null,
        head?.hash ?? null,
        [row.seq],
        [row.id],
        [row.at],
        [row.event],
        [null],
        [actor],
        [null],
        [null],
        [null],
        [row.prevHash],
        [row.hash],
      ],
    );
    if (answer.rows[0]?.appended === true) return;
  }
}

/** A record of `actor`, before it has a place in the chain. */
function testEntry(actor: string): AuditEntry {
  return {
    id: crypto.randomUUID(),
    at: T0,
    event: 'TEST_EVENT',
    agentDid: null,
    actor,
    reason: null,
    vpId: null,
    data: null,
  };
}

/** Appends one record after the current head, as the audit log does (one transaction). */
async function appendAudit(stores: IssuerStores, actor: string): Promise<void> {
  await stores.transaction(async (tx) => {
    const [row] = linkAfter(await tx.audit.last(), [testEntry(actor)]);
    await tx.audit.append(row as AuditRow);
  });
}

describe('the PostgreSQL audit store against an append function that breaks its contract', () => {
  const entry = { ...testEntry('x'), id: 'e' };
  const answering = (rows: unknown[]) =>
    createPostgresAuditStore({ query: () => Promise.resolve({ rows }) } as unknown as Sql);

  it('fails the batch, nothing answered as placed, when the function answers no row or fewer links than entries', async () => {
    await expect(answering([]).appendEntries([entry])).rejects.toThrow('audit: the append function answered no row');
    const short = [{ first_seq: 1, first_prev: AUDIT_GENESIS_HASH, links: [], refused: [] }];
    await expect(answering(short).appendEntries([entry])).rejects.toThrow(
      'audit: the append function answered fewer links than entries',
    );
  });
});

/**
 * `run` with the stores of one instance and a second connection of it, `racer` (released after),
 * as another instance holding rows in a transaction of its own.
 */
async function withRacer(
  run: (stores: IssuerStores, racer: pg.PoolClient, untilBlocked: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const opened = await instances(1);
  const pool = (opened.dbs[0] as PostgresDb).pool;
  const racer = await pool.connect();
  const pid = await backendPid(racer);
  try {
    // Resolves once a statement of the stores waits for a lock the racer holds.
    await run(createPostgresStores(pool), racer, () => untilWaitingOnLock(pool, pid));
  } finally {
    racer.release();
    await opened.close();
  }
}

/** A replay key the racer records in its open transaction, as `remember` would. */
async function racerTakes(racer: pg.PoolClient, key: string): Promise<void> {
  await racer.query('INSERT INTO replay_keys (key, expires_at) VALUES ($1, $2)', [key, T0 + 60_000]);
}

describe('postgres stores from two instances on one database', () => {
  it('keeps single use and unique allocation across instances, under concurrent attempts', async () => {
    const opened = await instances(2);
    try {
      const [a, b] = opened.dbs.map((db) => createPostgresStores(db.pool)) as [IssuerStores, IssuerStores];
      await a.challenges.insert({
        id: 'c1',
        userDid: 'did:key:z6MkU',
        challenge: 'x',
        createdAt: T0,
        expiresAt: T0 + 60_000,
      });
      const consumed = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          (i % 2 ? a : b).challenges.consume('c1', T0 + 1, { verified: true, evidence: `{"i":${i}}` }),
        ),
      );
      expect(consumed.filter(Boolean)).toHaveLength(1);
      await a.statusLists.insert(statusList('l1'));
      // Each index attempted from both instances at once: 32 indexes, each handed out once.
      const allocated = await Promise.all(
        Array.from({ length: 64 }, (_, i) => (i % 2 ? a : b).statusLists.allocate('l1', i >> 1, T0)),
      );
      expect(allocated.filter(Boolean)).toHaveLength(32);
      expect((await b.statusLists.get('l1'))?.issued).toBe(32);
      const remembered = await Promise.all(
        Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).replay.remember('vp:1', T0 + 60_000, T0)),
      );
      expect(remembered.filter(Boolean)).toHaveLength(1);
    } finally {
      await opened.close();
    }
  });

  it('keeps one linear audit chain under concurrent appends from both instances', async () => {
    const opened = await instances(2);
    try {
      const [a, b] = opened.dbs.map((db) => createPostgresStores(db.pool)) as [IssuerStores, IssuerStores];
      await Promise.all(Array.from({ length: 40 }, (_, i) => appendAudit(i % 2 ? a : b, `instance-${i % 2}`)));
      const rows = await a.audit.list({ limit: 100 });
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      let prev = AUDIT_GENESIS_HASH;
      for (const { hash, ...rest } of rows) {
        expect(rest.prevHash).toBe(prev);
        expect(auditRecordHash(rest)).toBe(hash);
        prev = hash;
      }
      expect(new Set(rows.map((r) => r.actor))).toEqual(new Set(['instance-0', 'instance-1']));
    } finally {
      await opened.close();
    }
  });

  it('an entry whose key is recorded meanwhile outside the writer lock is left out and keeps no key; the others are placed', () =>
    withRacer(async (stores, racer, untilBlocked) => {
      // As ReplayStore.remember does, without the writer lock: uncommitted, so the append's
      // check cannot see it, and its insert waits on the row.
      await racer.query('BEGIN');
      await racerTakes(racer, 'raced');
      const keys = [
        { row: 0, key: 'free', expiresAt: T0 + 60_000 },
        { row: 1, key: 'raced', expiresAt: T0 + 60_000 },
      ];
      const entries = [1, 2].map((n) => ({ ...testEntry('x'), id: `a${n}` }));
      const append = stores.audit.appendEntries(entries, { at: T0, keys, generations: [] });
      await untilBlocked();
      await racer.query('COMMIT');
      expect((await append).map((row) => row?.id)).toEqual(['a1', undefined]);
      expect((await stores.audit.list({ limit: 10 })).map((row) => row.id)).toEqual(['a1']);
      expect(await stores.replay.remember('free', T0 + 60_000, T0)).toBe(false);
    }));

  it('an append and a racer taking overlapping keys in opposite orders both go on (keys taken in key order: no deadlock)', () =>
    withRacer(async (stores, racer, untilBlocked) => {
      await racer.query('BEGIN');
      await racerTakes(racer, 'k1');
      // In batch order the append would take k2, then wait on k1 while holding k2, which the
      // racer asks for next: a cycle. In key order it waits on k1 holding nothing.
      const keys = [
        { row: 0, key: 'k2', expiresAt: T0 + 60_000 },
        { row: 1, key: 'k1', expiresAt: T0 + 60_000 },
      ];
      const entries = [1, 2].map((n) => ({ ...testEntry('x'), id: `d${n}` }));
      const append = stores.audit.appendEntries(entries, { at: T0, keys, generations: [] });
      await untilBlocked();
      await racerTakes(racer, 'k2');
      await racer.query('COMMIT');
      expect(await append).toEqual([undefined, undefined]);
      expect(await stores.audit.list({ limit: 10 })).toEqual([]);
    }));

  it('a remember batch and a racer taking overlapping keys in opposite orders both go on', () =>
    withRacer(async (stores, racer, untilBlocked) => {
      await racer.query('BEGIN');
      await racerTakes(racer, 'k1');
      // Asked in one event-loop turn: one statement, k2 before k1 in the batch.
      const remembered = Promise.all(['k2', 'k1', 'k3'].map((key) => stores.replay.remember(key, T0 + 60_000, T0)));
      await untilBlocked();
      await racerTakes(racer, 'k2');
      await racer.query('COMMIT');
      expect(await remembered).toEqual([false, false, true]);
    }));

  it('an entry whose read generation moves while its append waits for the writer lock is left out, its key freed', () =>
    withRacer(async (stores, writer, untilBlocked) => {
      const generation = await stores.readGeneration.current();
      // A status-list change in flight on another instance: it holds the writer lock and has
      // moved the generation, not yet committed, so the append reads the old one until then.
      await writer.query(`BEGIN; SELECT ${WRITER_LOCK}`);
      await writer.query('UPDATE read_generation SET value = value + 1 WHERE id = 1');
      const entries = [1, 2].map((n) => ({ ...testEntry('x'), id: `g${n}` }));
      const append = stores.audit.appendEntries(entries, {
        at: T0,
        keys: [{ row: 0, key: 'kept-free', expiresAt: T0 + 60_000 }],
        generations: [{ row: 0, generation }],
      });
      await untilBlocked();
      await writer.query('COMMIT');
      expect((await append).map((row) => row?.id)).toEqual([undefined, 'g2']);
      expect(await stores.replay.remember('kept-free', T0 + 60_000, T0)).toBe(true);
    }));

  it('the session key: the first writer of either instance wins', async () => {
    const opened = await instances(2);
    try {
      const [a, b] = opened.dbs.map((db) => createPostgresStores(db.pool)) as [IssuerStores, IssuerStores];
      const saved = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).sessionKey.saveIfAbsent(`key-${i}`)),
      );
      expect(new Set(saved).size).toBe(1);
      expect(await a.sessionKey.load()).toBe(saved[0]);
    } finally {
      await opened.close();
    }
  });
});
