/**
 * What the issuer runs with: the environment (env-schema.ts) validated, its derived values
 * resolved and its secrets decoded, by `loadConfig` (load.ts).
 */
import type { Ed25519BackendChoice, LogLevel, NodeEnv } from './env-schema.ts';

export interface RateLimitConfig {
  /** Requests per window from one client IP (all endpoints). */
  perIp: number;
  /** Requests per window per credential: an Authorization header or an enrollment token. */
  perToken: number;
  windowMs: number;
  /**
   * SERVICE_INSTANCES_HINT: how many instances share the limits through Redis; while Redis is
   * unreachable each counts alone against limit / instancesHint (http/redis-rate-limit.ts).
   */
  instancesHint: number;
}

export interface IssuerConfig {
  nodeEnv: NodeEnv;
  host: string;
  port: number;
  /** Public base URL, no trailing slash: status list and DID document URLs are built on it. */
  apiBaseUrl: string;
  /** True when API_BASE_URL was not set and derives from HOST/PORT (re-derived after an ephemeral bind). */
  apiBaseUrlDerived: boolean;
  /** SERVICE_STORAGE_ADAPTER: where issuer state lives (docs/operations.md §PostgreSQL). */
  storageAdapter: 'sqlite' | 'postgres';
  /** Path of the SQLite file (or ':memory:'); with `postgres`, only where development secrets are kept. */
  sqlitePath: string;
  /** SERVICE_CACHE_ADAPTER: `redis` shares the rate-limit counters of every instance through SERVICE_REDIS_URL. */
  cacheAdapter: 'memory' | 'redis';
  /** SERVICE_REDIS_URL (redis:// or rediss://); set exactly when cacheAdapter is `redis`. */
  redisUrl: string | undefined;
  /** SERVICE_DATABASE_URL: the PostgreSQL URL (set with `postgres`, undefined with `sqlite`). */
  databaseUrl: string | undefined;
  /** SERVICE_DATABASE_POOL_SIZE: most PostgreSQL connections this process opens (default 10). */
  databasePoolSize: number;
  didMethod: 'web' | 'key';
  /** did:web method-specific host part (port percent-encoded); undefined with DID_METHOD=key. */
  didDomain: string | undefined;
  /** True when DID_DOMAIN was not set and derives from API_BASE_URL. */
  didDomainDerived: boolean;
  adminApiKey: string;
  /** 32-byte Ed25519 seed of the issuer's signing key. */
  signingKey: Uint8Array;
  /**
   * After a signing-key change (did:web): `keep` lists the previous key for verification until
   * the last credential it signed expires; `drop` removes it at once (a compromised key).
   */
  previousSigningKeys: 'keep' | 'drop';
  /** 32-byte AES-256-GCM key that encrypts server-custody keys. */
  keyEncryptionKey: Uint8Array;
  /** Minting enrollment tokens without the admin key (development only). */
  openEnrollment: boolean;
  /** SERVICE_FETCH_PRIVATE_NETWORK: did:web and status-list fetches may reach loopback, private and link-local addresses. */
  fetchPrivateNetwork: boolean;
  /** SERVICE_INTROSPECTION_KEYS: Bearer keys for services that may introspect session tokens (and nothing else). */
  introspectionKeys: string[];
  /** SERVICE_OAUTH_ALLOW_BEARER: the token endpoint may issue Bearer (unbound) tokens to clients that send no DPoP proof (default false). */
  oauthAllowBearer: boolean;
  /** SERVICE_OAUTH_DPOP_NONCE: DPoP proofs must carry a server nonce (RFC 9449 §8; default false). */
  oauthDpopNonce: boolean;
  /** SERVICE_OAUTH_TOKEN_TTL_SECONDS: access-token lifetime, at most 300 (default 300). */
  oauthTokenTtlSeconds: number;
  logLevel: LogLevel;
  bodyLimitBytes: number;
  rateLimit: RateLimitConfig;
  /** Default lifetime of an enrollment token (the issue: 15 minutes). */
  enrollmentTokenTtlSeconds: number;
  /** Lifetime of an onboarding challenge (step 1 → step 2). */
  onboardingTtlSeconds: number;
  /** Default validity of issued AgentCredentials. */
  credentialTtlSeconds: number;
  /** `ttl` of published status lists (Bitstring Status List §2.2), also their Cache-Control max-age. */
  statusListTtlMs: number;
  /** Process-wide Ed25519 backend (wallet/crypto/ed25519.ts setEd25519Backend). */
  ed25519Backend: Ed25519BackendChoice;
  /** SERVICE_WORKERS: issuer processes sharing the port through Node's cluster module (1 = no cluster). */
  workers: number;
  /** SERVICE_SHUTDOWN_TIMEOUT_SECONDS: how long SIGTERM waits for in-flight requests before connections are cut. */
  shutdownTimeoutMs: number;
  /** Where generated development secrets live (undefined when none were needed or for ':memory:'). */
  secretsFile: string | undefined;
  /** Names of the secrets generated on this start (first start of a development issuer). */
  generatedSecrets: string[];
  /** Start-up warnings (generated secrets, open enrollment), printed by main.ts. */
  warnings: string[];
}
