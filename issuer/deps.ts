/**
 * `IssuerDeps`: what start-up (boot.ts, the composition root) builds for the services —
 * configuration, the stores, the issuer's signing identity, the key-encryption key, resolvers,
 * caches, the audit log, rate limiters, readiness checks, a clock and a logger. Each service
 * function declares the part it uses (`deps: Pick<IssuerDeps, 'stores' | 'now'>`), so a service
 * is called, and tested, with only that, and no service imports the module that builds it.
 *
 * Type-only imports: this module is a description, it builds nothing. The raw database
 * connections are not here: product code reaches storage through `stores` (boot.ts keeps the
 * connections for start-up, close and operator tooling).
 */
import type { StatusListClient } from '../wallet/status/client.ts';
import type { ReplayCache } from '../wallet/vc/replay-cache.ts';
import type { SigningIdentity } from '../wallet/vc/identity.ts';
import type { AuditLog } from './audit.ts';
import type { IssuerConfig } from './config/index.ts';
import type { Logger } from './log.ts';
import type { RateLimits } from './rate-limiter.ts';
import type { ReadinessCheck } from './services/readiness.ts';
import type { ReadCache } from './services/read-cache.ts';
import type { IssuerResolver } from './services/resolver.ts';
import type { StatusListStore } from './storage/status-lists-store.ts';
import type { IssuerStores } from './storage/stores.ts';

export interface IssuerDeps {
  readonly config: IssuerConfig;
  /** Every read and write of issuer state (issuer/storage/stores.ts), created once at boot. */
  readonly stores: IssuerStores;
  /** did:web:<DID_DOMAIN> with its signing key's `#key-<n>`, or the did:key of the signing key (DID_METHOD). */
  readonly issuer: SigningIdentity;
  /** 32-byte AES-256-GCM key for server-custody seeds. */
  readonly keyEncryptionKey: Uint8Array;
  /** Cached did:key + did:web (HTTP) resolver; DIDs hosted here are read from the database, uncached. */
  readonly resolver: IssuerResolver;
  /** This issuer's lists in-process (always current); other issuers' lists over HTTP, cached for their ttl. */
  readonly statusLists: IssuerStatusClient;
  /** Hosted DIDs and list versions kept while the read generation holds (services/read-cache.ts). */
  readonly readCache: ReadCache;
  readonly replayCache: ReplayCache;
  readonly audit: AuditLog;
  readonly rateLimits: RateLimits;
  /** What GET /v1/ready probes: the database, and Redis (`cache`) when there is one. */
  readonly readinessChecks: readonly ReadinessCheck[];
  /** The clock in epoch ms (Date.now, or a test's). */
  now(): number;
  readonly log: Logger;
}

/**
 * The issuer's StatusListClient (built by services/status-lists.ts). This issuer's own lists are served to the wallet's client
 * in-process (same proof, issuer and §3.2 checks as any verifier runs), with one client per
 * list version: a status change makes the next check fetch the new version. Other issuers'
 * lists are fetched over HTTP and cached for their ttl; with `shared` (SERVICE_CACHE_ADAPTER=redis)
 * the signed lists are also shared with the other instances and verified again by each
 * (shared-caches/status-list-fetch.ts).
 */
export interface IssuerStatusClient extends StatusListClient {
  /** This client with this issuer's list versions read through `version` (a read cache, services/read-cache.ts). */
  over(version: StatusListStore['version']): StatusListClient;
}
