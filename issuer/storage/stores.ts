/**
 * The storage adapter seam: services and routes see only these interfaces, never SQL. One
 * `IssuerStores` is created at start-up (issuer/context.ts) and passed down; nothing else opens a
 * table. Adapters: `sqlite` (the default, sqlite-stores.ts) and `postgres`; each must pass
 * test/support/store-contract.ts.
 *
 * Asynchronous, so that a network database fits: every method returns a promise. A service
 * that reads, decides and writes does it inside `transaction`, through the stores handed to
 * its function, and the guarantees below (single use, unique allocation, a linear audit chain)
 * rest on that — across processes sharing one database, not only within one.
 */
import type { AgentSecretStore } from './agent-secrets-store.ts';
import type { AgentStore } from './agents-store.ts';
import type { AuditReceiptsStore } from './audit-receipts-store.ts';
import type { AuditStore } from './audit-store.ts';
import type { ChallengeStore } from './challenges-store.ts';
import type { CredentialStore } from './credentials-store.ts';
import type { DidStore } from './dids-store.ts';
import type { ReadGenerationStore } from './read-generation-store.ts';
import type { ReplayStore } from './replay-store.ts';
import type { SessionKeyStore } from './session-key-store.ts';
import type { SessionStore } from './sessions-store.ts';
import type { SettingsStore } from './settings-store.ts';
import type { StatusListStore } from './status-lists-store.ts';
import type { TokenStore } from './tokens-store.ts';
import type { VcApiCredentialStore } from './vc-api-credentials-store.ts';

/** Atomic units of work over the stores. */
export interface Transactional {
  /**
   * Runs `fn` as one transaction over every store and settles with its result; a throw (or a
   * rejection) rolls all of it back. `fn` must reach the stores through `tx` only — the stores
   * bound to the transaction's connection; the outer stores wait for the transaction to end
   * (SQLite) or run on another connection (PostgreSQL). `tx.transaction` nests (a savepoint).
   * Serializable with respect to other writers where the contract says so: a read-check-write
   * in `fn` (allocating a status-list index, appending to the audit chain) sees no interleaved
   * write, from this process or another.
   */
  transaction<T>(fn: (tx: IssuerStores) => Promise<T>): Promise<T>;
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
  /** The counter of changes to what verifications read (hosted DIDs, status-list versions). */
  readGeneration: ReadGenerationStore;
  /**
   * Resolves when the database answers a trivial query, rejects when it does not: the readiness
   * probe (GET /v1/ready) calls it, so it must be cheap and touch the database itself.
   */
  ping(): Promise<void>;
}
