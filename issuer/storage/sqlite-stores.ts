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
import { createSqliteReplayStore } from './replay-store.ts';
import { createSqliteSessionKeyStore } from './session-key-store.ts';
import { createSqliteSessionStore } from './sessions-store.ts';
import { createSqliteSettingsStore } from './settings-store.ts';
import { createSqliteStatusListStore } from './status-lists-store.ts';
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

export function createSqliteStores(db: IssuerDb): IssuerStores {
  const sync = syncStores(db);
  const gate: Gate = { held: undefined };
  const tx = savepoints(db, asyncStores(sync));
  return {
    ...asyncStores(sync, gate),
    ping: pingOf(db),
    async transaction(fn) {
      while (gate.held) await gate.held;
      let release = () => {};
      gate.held = new Promise<void>((resolve) => (release = resolve));
      try {
        db.sqlite.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(tx);
          db.sqlite.exec('COMMIT');
          return result;
        } catch (error) {
          if (db.sqlite.inTransaction) db.sqlite.exec('ROLLBACK');
          throw error;
        }
      } finally {
        gate.held = undefined;
        release();
      }
    },
  };
}
