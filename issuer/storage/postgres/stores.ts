/**
 * `IssuerStores` on PostgreSQL: every store over one `Sql` — the pool, or inside `transaction`
 * one pooled client between BEGIN and COMMIT, so that the stores handed to `fn` run on that
 * transaction and nothing else does.
 *
 * Writers take turns, as SQLite's single writer makes them: each transaction takes one advisory
 * lock (`pg_advisory_xact_lock`, released by COMMIT or ROLLBACK, or by the server when the
 * instance dies) right after BEGIN. A read-check-write inside `fn` — the audit chain's head,
 * then the next link — therefore sees no interleaved write from any instance, and since this is
 * the only lock a transaction waits for before its first statement, transactions cannot deadlock
 * on each other. Statements outside a transaction (a claim, a consumption, a replay record) are
 * single conditional writes whose row locks make them single use on their own, and run beside
 * transactions without waiting for the lock.
 *
 * A nested `transaction` is a SAVEPOINT: its throw rolls back its own work only. Strings pass
 * through text.ts (PostgreSQL text cannot hold U+0000; SQLite's can). A server that is not there
 * to answer (down, restarting, out of slots, this connection terminated) is thrown as
 * DatabaseUnavailableError (unavailable.ts), and a transaction whose connection died is not
 * returned to the pool (pool.ts `checkout`).
 */
import type pg from 'pg';
import type { IssuerStores } from '../stores.ts';
import { createPostgresAgentSecretStore } from './agent-secrets-store.ts';
import { createPostgresAgentStore } from './agents-store.ts';
import { createPostgresAuditReceiptsStore } from './audit-receipts-store.ts';
import { createPostgresAuditStore } from './audit-store.ts';
import { createPostgresChallengeStore } from './challenges-store.ts';
import { createPostgresCredentialStore } from './credentials-store.ts';
import { batchedDidGet, createPostgresDidStore } from './dids-store.ts';
import { WRITER_LOCK } from './locks.ts';
import { checkout, type PreparingSql } from './pool.ts';
import { textSafe } from './text.ts';
import { guarded, unlessUnavailable } from './unavailable.ts';
import { createPostgresReadGenerationStore } from './read-generation-store.ts';
import { createGroupedPostgresReplayStore, createPostgresReplayStore } from './replay-store.ts';
import { createPostgresSessionKeyStore } from './session-key-store.ts';
import { createPostgresSessionStore } from './sessions-store.ts';
import { createPostgresSettingsStore } from './settings-store.ts';
import { batchedListVersion, createPostgresStatusListStore } from './status-lists-store.ts';
import { createPostgresTokenStore } from './tokens-store.ts';
import { createPostgresVcApiCredentialStore } from './vc-api-credentials-store.ts';

type Transaction = IssuerStores['transaction'];

/** BEGIN and the writer lock in one round trip (simple query protocol: two statements). */
const BEGIN_WRITER = `BEGIN; SELECT ${WRITER_LOCK}`;

function storesOn(connection: PreparingSql, transaction: Transaction): IssuerStores {
  const sql = textSafe(connection);
  return {
    transaction,
    // The readiness probe: a round trip to the server (inside a transaction, on its connection).
    ping: async () => {
      await connection.query('SELECT 1');
    },
    tokens: createPostgresTokenStore(sql),
    agents: createPostgresAgentStore(sql),
    agentSecrets: createPostgresAgentSecretStore(sql),
    credentials: createPostgresCredentialStore(sql),
    statusLists: createPostgresStatusListStore(sql),
    dids: createPostgresDidStore(sql),
    audit: createPostgresAuditStore(sql),
    auditReceipts: createPostgresAuditReceiptsStore(sql),
    settings: createPostgresSettingsStore(sql),
    sessionKey: createPostgresSessionKeyStore(sql),
    sessions: createPostgresSessionStore(sql),
    challenges: createPostgresChallengeStore(sql),
    replay: createPostgresReplayStore(sql),
    vcApiCredentials: createPostgresVcApiCredentialStore(sql),
    readGeneration: createPostgresReadGenerationStore(sql),
  };
}

/** The stores of an open transaction on `client`; their `transaction` nests as savepoints. */
function transactionStores(client: PreparingSql): IssuerStores {
  let depth = 0;
  const nested: Transaction = async (fn) => {
    const name = `mandate_${++depth}`;
    await client.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn(tx);
      await client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    } finally {
      depth--;
    }
  };
  const tx = storesOn(client, nested);
  return tx;
}

export function createPostgresStores(pool: pg.Pool): IssuerStores {
  const transaction: Transaction = async (fn) => {
    const out = await unlessUnavailable(checkout(pool));
    const client = guarded(out.client);
    // A client whose ROLLBACK failed is in an unknown state: destroyed, not returned to the pool.
    let broken: Error | undefined;
    try {
      await client.query(BEGIN_WRITER);
      const result = await fn(transactionStores(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollback: unknown) => {
        broken = rollback instanceof Error ? rollback : new Error('ROLLBACK failed');
      });
      throw error;
    } finally {
      out.release(broken);
    }
  };
  // Outside transactions, what concurrent verifications write and read — replay records, the
  // lists' versions, hosted DIDs — shares one statement per event-loop turn.
  // Every query's unavailability failure becomes a DatabaseUnavailableError (unavailable.ts).
  const shared = guarded(pool);
  const outer = storesOn(shared, transaction);
  const sql = textSafe(shared);
  return {
    ...outer,
    replay: createGroupedPostgresReplayStore(sql),
    statusLists: { ...outer.statusLists, version: batchedListVersion(sql) },
    dids: { ...outer.dids, get: batchedDidGet(sql) },
  };
}
