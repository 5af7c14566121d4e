/**
 * The storage adapter seam: services and routes see only these interfaces, never SQL. One
 * `IssuerStores` is created at start-up (issuer/context.ts) and passed down; nothing else opens a
 * table. `sqlite` is the one adapter today (SERVICE_STORAGE_ADAPTER); a Postgres adapter
 * implements the same set and must pass test/support/store-contract.ts.
 *
 * Synchronous, like better-sqlite3: a service reads, decides and writes inside `transaction`
 * with no await in between, and the guarantees below (single use, unique allocation, a linear
 * audit chain) rest on that. An asynchronous adapter needs every method to return a Promise and
 * `transaction` to take an async function bound to one connection (see that method's comment).
 */
import { createSqliteAgentSecretStore, type AgentSecretStore } from './agent-secrets-store.ts';
import { createSqliteAgentStore, type AgentStore } from './agents-store.ts';
import { createSqliteAuditReceiptsStore, type AuditReceiptsStore } from './audit-receipts-store.ts';
import { createSqliteAuditStore, type AuditStore } from './audit-store.ts';
import { createSqliteChallengeStore, type ChallengeStore } from './challenges-store.ts';
import { createSqliteCredentialStore, type CredentialStore } from './credentials-store.ts';
import type { IssuerDb } from './db.ts';
import { createSqliteDidStore, type DidStore } from './dids-store.ts';
import { createSqliteReplayStore, type ReplayStore } from './replay-store.ts';
import { createSqliteSessionKeyStore, type SessionKeyStore } from './session-key-store.ts';
import { createSqliteSessionStore, type SessionStore } from './sessions-store.ts';
import { createSqliteSettingsStore, type SettingsStore } from './settings-store.ts';
import { createSqliteStatusListStore, type StatusListStore } from './status-lists-store.ts';
import { createSqliteTokenStore, type TokenStore } from './tokens-store.ts';
import { createSqliteVcApiCredentialStore, type VcApiCredentialStore } from './vc-api-credentials-store.ts';

/** Atomic units of work over the stores. */
export interface Transactional {
  /**
   * Runs `fn` as one transaction over every store (nested calls join the outer one); a throw
   * rolls all of it back. Serializable with respect to other writers: a read-check-write in
   * `fn` (allocating a status-list index, appending to the audit chain) sees no interleaved
   * write. An async adapter needs `transaction<T>(fn: (tx: IssuerStores) => Promise<T>): Promise<T>`
   * with the stores of `tx` bound to the transaction's connection (and `SELECT … FOR UPDATE` or
   * SERIALIZABLE isolation where SQLite relies on its single writer).
   */
  transaction<T>(fn: () => T): T;
}

export interface IssuerStores extends Transactional {
  /** Enrollment tokens (single-use claim) and onboarding sessions (single-use completion). */
  tokens: TokenStore;
  /** Enrolled agents and server-held keys; the console's agent search. */
  agents: AgentStore;
  /** Server-custody agents' own client secrets (hashed; rotation replaces atomically). */
  agentSecrets: AgentSecretStore;
  /** Issued credentials and their lifecycle; the console's delegations. */
  credentials: CredentialStore;
  /** Bitstring status lists: bitstrings, allocation bitmaps, signed-list cache. */
  statusLists: StatusListStore;
  /** DID documents hosted here. */
  dids: DidStore;
  /** The hash-chained audit trail: append (unique seq) and read. */
  audit: AuditStore;
  /** Receipts of provider-signed audit events (single use per event id). */
  auditReceipts: AuditReceiptsStore;
  /** Small key/value settings. */
  settings: SettingsStore;
  /** The session-token signing key (first writer wins). */
  sessionKey: SessionKeyStore;
  /** Session tokens minted by POST /v1/vp/verify. */
  sessions: SessionStore;
  /** User challenges (single-use consumption). */
  challenges: ChallengeStore;
  /** Accepted presentation ids and challenges (single use until expiry). */
  replay: ReplayStore;
  /** Credentials signed through the VC-API. */
  vcApiCredentials: VcApiCredentialStore;
}

export function createSqliteStores(db: IssuerDb): IssuerStores {
  return {
    transaction: (fn) => db.transaction(fn),
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
