/**
 * The SQLite adapter: the synchronous better-sqlite3 stores behind the async seam (stores.ts).
 *
 * One connection serves every request, and an `await` inside a transaction lets other requests
 * run: their statements would join the open transaction (and vanish with its rollback). So
 * while a transaction is open, calls through the outer stores wait for it to end; the stores
 * handed to its function run at once. Across processes on one file, `BEGIN IMMEDIATE` takes the
 * write lock (busy_timeout waits for it), as before.
 */
import { createSqliteAgentSecretStore } from './agent-secrets-store.ts';
import { createSqliteAgentStore } from './agents-store.ts';
import { createSqliteAuditReceiptsStore } from './audit-receipts-store.ts';
import { createSqliteAuditStore } from './audit-store.ts';
import { createSqliteChallengeStore } from './challenges-store.ts';
import { createSqliteCredentialStore } from './credentials-store.ts';
import type { IssuerDb, Sync } from './db.ts';
import { createSqliteDidStore } from './dids-store.ts';
import { createSqliteReadGenerationStore } from './read-generation-store.ts';
import { createSqliteReplayStore } from './replay-store.ts';
import { createSqliteSessionKeyStore } from './session-key-store.ts';
import { createSqliteSessionStore } from './sessions-store.ts';
import { createSqliteSettingsStore } from './settings-store.ts';
import { createSqliteStatusListStore } from './status-lists-store.ts';
import { groupCommit } from './group-commit.ts';
import type { ReplayStore } from './replay-store.ts';
import type { IssuerStores } from './stores.ts';
import { createSqliteTokenStore } from './tokens-store.ts';
import { createSqliteVcApiCredentialStore } from './vc-api-credentials-store.ts';

type StoreSet = Omit<IssuerStores, 'transaction' | 'ping'>;
type SyncStoreSet = { [K in keyof StoreSet]: Sync<StoreSet[K]> };

function syncStores(db: IssuerDb): SyncStoreSet {
  return {
    tokens: createSqliteTokenStore(db),
    agents: createSqliteAgentStore(db),
    agentSecrets: createSqliteAgentSecretStore(db),
    credentials: createSqliteCredentialStore(db),
    statusLists: createSqliteStatusListStore(db),
    dids: createSqliteDidStore(db),
    audit: createSqliteAuditStore(db),
    auditReceipts: createSqliteAuditReceiptsStore(db),
    settings: createSqliteSettingsStore(db),
    sessionKey: createSqliteSessionKeyStore(db),
    sessions: createSqliteSessionStore(db),
    challenges: createSqliteChallengeStore(db),
    replay: createSqliteReplayStore(db),
    vcApiCredentials: createSqliteVcApiCredentialStore(db),
    readGeneration: createSqliteReadGenerationStore(db),
  };
}

/** Whether a transaction holds the connection, and a promise that settles when it lets go. */
interface Gate {
  held: Promise<void> | undefined;
}

/** `store`'s methods as async ones that first wait for `gate` (when given) to be free. */
function asyncStore(store: object, gate?: Gate): Record<string, unknown> {
  const methods: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(store) as [string, (...args: unknown[]) => unknown][]) {
    methods[name] = gate
      ? async (...args: unknown[]) => {
          // No await between the last check and the call: a transaction cannot start in between.
          while (gate.held) await gate.held;
          return method(...args);
        }
      : // eslint-disable-next-line @typescript-eslint/require-await -- async turns a throw into a rejection
        async (...args: unknown[]) => method(...args);
  }
  return methods;
}

function asyncStores(sync: SyncStoreSet, gate?: Gate): StoreSet {
  const stores: Record<string, unknown> = {};
  for (const [name, store] of Object.entries(sync)) stores[name] = asyncStore(store, gate);
  return stores as StoreSet;
}

/** Reads the schema page: the file itself answers, not just the connection object. */
function pingOf(db: IssuerDb): () => Promise<void> {
  const statement = db.sqlite.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').pluck();
  // eslint-disable-next-line @typescript-eslint/require-await -- async turns a throw into a rejection
  return async () => {
    statement.get();
  };
}

/** Nested transactions of `tx`: savepoints on the open transaction. */
function savepoints(db: IssuerDb, bound: StoreSet): IssuerStores {
  let depth = 0;
  const tx: IssuerStores = {
    ...bound,
    ping: pingOf(db),
    async transaction(fn) {
      const name = `mandate_${++depth}`;
      db.sqlite.exec(`SAVEPOINT ${name}`);
      try {
        const result = await fn(tx);
        db.sqlite.exec(`RELEASE ${name}`);
        return result;
      } catch (error) {
        db.sqlite.exec(`ROLLBACK TO ${name}`);
        db.sqlite.exec(`RELEASE ${name}`);
        throw error;
      } finally {
        depth--;
      }
    },
  };
  return tx;
}

type Remember = ReplayStore['remember'];

/**
 * `replay.remember` group-committed (group-commit.ts): every accepted presentation writes a
 * replay key, and concurrent requests then share one transaction (one WAL commit) instead of
 * one each. Each caller still learns its own key's verdict only after the batch committed.
 */
function groupedRemember(replay: Sync<ReplayStore>, transaction: IssuerStores['transaction']): Remember {
  const grouped = groupCommit((calls: Parameters<Remember>[]) =>
    // eslint-disable-next-line @typescript-eslint/require-await -- the sync store runs inside the open transaction
    transaction(async () => calls.map(([key, expiresAt, now]) => replay.remember(key, expiresAt, now))),
  );
  return (key, expiresAt, now) => grouped([key, expiresAt, now]);
}

export function createSqliteStores(db: IssuerDb): IssuerStores {
  const sync = syncStores(db);
  const gate: Gate = { held: undefined };
  const tx = savepoints(db, asyncStores(sync));
  // Prepared once: exec() would parse the statement again on every transaction.
  const begin = db.sqlite.prepare('BEGIN IMMEDIATE');
  const commit = db.sqlite.prepare('COMMIT');
  const rollback = db.sqlite.prepare('ROLLBACK');
  const transaction: IssuerStores['transaction'] = async (fn) => {
    while (gate.held) await gate.held;
    let release = () => {};
    gate.held = new Promise<void>((resolve) => (release = resolve));
    try {
      begin.run();
      try {
        const result = await fn(tx);
        commit.run();
        return result;
      } catch (error) {
        if (db.sqlite.inTransaction) rollback.run();
        throw error;
      }
    } finally {
      gate.held = undefined;
      release();
    }
  };
  const outer = asyncStores(sync, gate);
  return {
    ...outer,
    replay: { remember: groupedRemember(sync.replay, transaction) },
    ping: pingOf(db),
    transaction,
  };
}
