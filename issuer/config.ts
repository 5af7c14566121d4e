/**
 * The issuer's configuration: every environment variable of the issue, validated once at
 * start-up (zod), so a bad value stops the process with one clear line per problem
 * (`ConfigError`) instead of failing on the first request that needs it. Every problem of a
 * start is reported at once: fixing a production environment must not take one restart each.
 *
 * Secrets (`SERVICE_ADMIN_API_KEY`, `SERVICE_SIGNING_KEY`, `SERVICE_KEY_ENCRYPTION_KEY`):
 * - production: required, refused when missing or malformed;
 * - development/test: a missing one is generated ONCE and kept in `issuer-secrets.json` beside
 *   the database (mode 0600), re-read on later starts so a restart keeps the same issuer key,
 *   and announced as a warning that names the file — never the secret itself.
 *
 * URLs: `API_BASE_URL` defaults (development only) to `http://HOST:PORT`, and `DID_DOMAIN` to
 * the host and port of `API_BASE_URL` with the port's ":" percent-encoded (did:web §3.1:
 * `did:web:127.0.0.1%3A8787`). `startIssuer` re-derives both after binding an ephemeral port.
 */
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { bytesToHex, equalBytes, hexToBytes, randomBytes } from '../wallet/crypto/bytes.ts';
import { bytesToBase64url } from '../wallet/crypto/base64url.ts';
import { MandateError } from '../wallet/crypto/errors.ts';
import { exposedFileReason } from '../wallet/keystore/file.ts';
import { classifyHost, type UrlPolicy } from '../wallet/net/url-policy.ts';

export type ConfigErrorCode = 'CONFIG_INVALID' | 'CONFIG_MISSING' | 'SECRETS_FILE_INVALID';

export class ConfigError extends MandateError<ConfigErrorCode> {
  override name = 'ConfigError';
  /**
   * Every problem found, each one line naming its variable (`PORT: …`). The message is that
   * line when there is one, else `N problems: A; B; …`; `code` is the first problem's.
   */
  readonly problems: readonly string[];

  constructor(code: ConfigErrorCode, message: string, problems: readonly string[] = [message]) {
    super(code, problems.length > 1 ? `${problems.length} problems: ${problems.join('; ')}` : message);
    this.problems = problems;
  }
}

/**
 * The problems of one start. Each check still throws its ConfigError at the first thing wrong
 * with its variable; `check` records it and goes on with a stand-in value, so the checks of
 * every other variable run too, and `throwIfAny` reports them together.
 */
class Problems {
  readonly #found: ConfigError[] = [];

  check<T>(fallback: T, run: () => T): T {
    try {
      return run();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.#found.push(error);
      return fallback;
    }
  }

  get any(): boolean {
    return this.#found.length > 0;
  }

  throwIfAny(): void {
    if (this.any) this.report();
  }

  /** Throws one ConfigError carrying every problem recorded (at least one: callers check `any`). */
  report(): never {
    const [first] = this.#found;
    if (first === undefined) invalid('environment: invalid');
    throw new ConfigError(
      first.code,
      first.message,
      this.#found.flatMap((e) => e.problems),
    );
  }
}

export type NodeEnv = 'development' | 'production' | 'test';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type Ed25519BackendChoice = 'node' | 'webcrypto' | 'noble' | 'auto' | 'adaptive';

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

export type Env = Readonly<Record<string, string | undefined>>;

const SECRETS_FILE = 'issuer-secrets.json';
const HEX32 = /^[0-9a-fA-F]{64}$/;
const MIN_ADMIN_KEY_LENGTH = 32;
/** SERVICE_WORKERS' ceiling: beyond the cores of any one machine this runs on. */
const MAX_WORKERS = 64;
/**
 * RFC 6750 §2.1 `b64token` (token68): the characters a Bearer credential can carry. A key with
 * any other character (a space, `!`, `:`) could be configured but never presented.
 */
export const BEARER_TOKEN_CHARACTERS = '[A-Za-z0-9\\-._~+/]+=*';

const blankToUndefined = (value: unknown): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
const optionalString = z.preprocess(blankToUndefined, z.string().optional());
const boolean = (fallback: boolean) =>
  z
    .preprocess(blankToUndefined, z.enum(['true', 'false', '1', '0']).optional())
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));
const integer = (fallback: number, min: number, max: number) =>
  z.preprocess(blankToUndefined, z.coerce.number().int().min(min).max(max).optional()).transform((v) => v ?? fallback);

const envSchema = z.object({
  NODE_ENV: z.preprocess(blankToUndefined, z.enum(['development', 'production', 'test']).default('development')),
  HOST: z.preprocess(blankToUndefined, z.string().default('127.0.0.1')),
  PORT: integer(8787, 0, 65535),
  API_BASE_URL: optionalString,
  SERVICE_STORAGE_ADAPTER: z.preprocess(
    blankToUndefined,
    z.enum(['sqlite', 'postgres'], { error: 'must be "sqlite" or "postgres"' }).default('sqlite'),
  ),
  SERVICE_DATABASE_URL: optionalString,
  SERVICE_DATABASE_POOL_SIZE: integer(10, 1, 1000),
  SERVICE_SQLITE_PATH: z.preprocess(blankToUndefined, z.string().default('./data/issuer.db')),
  SERVICE_CACHE_ADAPTER: z.preprocess(
    blankToUndefined,
    z.enum(['memory', 'redis'], { error: 'must be "memory" or "redis"' }).default('memory'),
  ),
  SERVICE_REDIS_URL: optionalString,
  DID_METHOD: z.preprocess(
    blankToUndefined,
    z
      .enum(['web', 'key'], { error: 'must be "web" or "key": anchored (ledger) DIDs are resolvable, not issuable' })
      .default('web'),
  ),
  DID_DOMAIN: optionalString,
  SERVICE_ADMIN_API_KEY: optionalString,
  SERVICE_SIGNING_KEY: optionalString,
  SERVICE_PREVIOUS_SIGNING_KEYS: z.preprocess(
    blankToUndefined,
    z.enum(['keep', 'drop'], { error: 'must be "keep" or "drop"' }).default('keep'),
  ),
  SERVICE_KEY_ENCRYPTION_KEY: optionalString,
  SERVICE_OPEN_ENROLLMENT: boolean(false),
  SERVICE_FETCH_PRIVATE_NETWORK: boolean(false),
  SERVICE_INTROSPECTION_KEYS: optionalString,
  SERVICE_OAUTH_ALLOW_BEARER: boolean(false),
  SERVICE_OAUTH_DPOP_NONCE: boolean(false),
  SERVICE_OAUTH_TOKEN_TTL_SECONDS: integer(300, 10, 300),
  LOG_LEVEL: z.preprocess(blankToUndefined, z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info')),
  SERVICE_BODY_LIMIT_BYTES: integer(64 * 1024, 1024, 16 * 1024 * 1024),
  SERVICE_RATE_LIMIT_PER_IP: integer(3000, 1, 10_000_000),
  SERVICE_RATE_LIMIT_PER_TOKEN: integer(600, 1, 10_000_000),
  SERVICE_RATE_LIMIT_WINDOW_SECONDS: integer(60, 1, 86_400),
  SERVICE_INSTANCES_HINT: integer(1, 1, 1000),
  SERVICE_ENROLLMENT_TOKEN_TTL_SECONDS: integer(15 * 60, 10, 7 * 86_400),
  SERVICE_ONBOARDING_TTL_SECONDS: integer(5 * 60, 10, 86_400),
  SERVICE_CREDENTIAL_TTL_SECONDS: integer(90 * 86_400, 60, 10 * 365 * 86_400),
  SERVICE_STATUS_LIST_TTL_SECONDS: integer(300, 1, 86_400),
  // The event loop while it has time, libuv's pool while it is saturated (services/ed25519-adaptive.ts).
  SERVICE_ED25519_BACKEND: z.preprocess(
    blankToUndefined,
    z.enum(['node', 'webcrypto', 'noble', 'auto', 'adaptive']).default('adaptive'),
  ),
  SERVICE_WORKERS: z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be an integer from 1 to 64' })
      .int({ error: 'must be an integer from 1 to 64' })
      .min(1, { error: 'must be an integer from 1 to 64' })
      .max(MAX_WORKERS, { error: 'must be an integer from 1 to 64' })
      .default(1),
  ),
  SERVICE_SHUTDOWN_TIMEOUT_SECONDS: integer(10, 1, 3600),
});

type ParsedEnv = z.infer<typeof envSchema>;

function invalid(message: string): never {
  throw new ConfigError('CONFIG_INVALID', message);
}

/** One line for a zod issue, named by its variable. */
function issueLine(issue: z.core.$ZodIssue | undefined): string {
  const name = issue?.path.join('.') || 'environment';
  return `${name}: ${issue?.message ?? 'invalid value'}`;
}

/** One line for a zod failure: the first issue. */
function firstIssue(error: z.ZodError): string {
  return issueLine(error.issues[0]);
}

/**
 * The parsed environment, every bad value recorded as a problem and parsed as if unset (its
 * default), so the checks that depend on it still run.
 */
function parseEnv(env: Env, problems: Problems): ParsedEnv {
  const result = envSchema.safeParse(env);
  if (result.success) return result.data;
  for (const issue of result.error.issues) problems.check(undefined, () => invalid(issueLine(issue)));
  const bad = new Set(result.error.issues.map((issue) => String(issue.path[0])));
  const defaults = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([name]) => !bad.has(name))));
  if (defaults.success) return defaults.data;
  return problems.report();
}

function isLoopbackUrl(url: string): boolean {
  try {
    return classifyHost(new URL(url).hostname) === 'loopback';
  } catch {
    return false;
  }
}

/** `http://HOST:PORT` with IPv6 literals bracketed. */
export function baseUrlFor(host: string, port: number): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

/** did:web §3.1: the host of `apiBaseUrl`, with the ":" before a port percent-encoded. */
export function didDomainFor(apiBaseUrl: string): string {
  const url = new URL(apiBaseUrl);
  const host = url.hostname;
  return url.port === '' ? host : `${host}%3A${url.port}`;
}

function normalizeBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    invalid(`API_BASE_URL: must be an absolute http(s) URL (got "${value.slice(0, 80)}")`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') invalid('API_BASE_URL: must use http or https');
  if (url.username || url.password || url.search || url.hash)
    invalid('API_BASE_URL: must not carry credentials, a query or a fragment');
  return url.href.replace(/\/+$/, '');
}

// did:web §3.1: a host with an optional percent-encoded port. No ":"-separated path: the issuer
// serves its document at /.well-known/did.json, where did:web looks only for a DID without one.
const DID_DOMAIN_SYNTAX = /^[A-Za-z0-9.-]+(?:%3A\d{1,5})?$/;
/** An IPv4 literal host (the syntax above admits no IPv6 literal). */
const IP_HOST = /^[\d.]+(?:%3A|$)/;

interface StoredSecrets {
  adminApiKey?: string;
  signingKey?: string;
  keyEncryptionKey?: string;
}

/** The stored secrets, or undefined when there is no file. */
function readSecretsFile(path: string): StoredSecrets | undefined {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  // Another user's file, or one others may read or write, could hold keys someone else knows.
  const exposed = exposedFileReason(stat);
  if (exposed !== undefined) throw new ConfigError('SECRETS_FILE_INVALID', `${path} is not used: ${exposed}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new ConfigError(
      'SECRETS_FILE_INVALID',
      `${path} is not valid JSON; restore it (deleting it generates new secrets, and keys encrypted under the old key-encryption key can no longer be read)`,
    );
  }
  const schema = z.object({
    adminApiKey: z.string().optional(),
    signingKey: z.string().optional(),
    keyEncryptionKey: z.string().optional(),
  });
  const result = schema.safeParse(parsed);
  if (!result.success) throw new ConfigError('SECRETS_FILE_INVALID', `${path}: ${firstIssue(result.error)}`);
  return result.data;
}

/**
 * Written whole or not at all (temporary file, flush, put in place); a new file is linked, so of
 * two issuers racing, false tells the loser to read the winner's file (docs/operations.md §Development secrets file).
 */
function writeSecretsFile(path: string, secrets: StoredSecrets, create: boolean): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${bytesToHex(randomBytes(8))}.tmp`;
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeFileSync(fd, `${JSON.stringify(secrets, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (!create) {
      renameSync(temporary, path);
      return true;
    }
    try {
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    return true;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Fewer distinct values than any random secret of its size would show (chance below 1e-12): a
 * placeholder left in production. The numbers: docs/operations.md §Configuration.
 */
const MIN_DISTINCT_KEY_BYTES = 16;
const MIN_DISTINCT_ADMIN_KEY_CHARACTERS = 6;

function looksPlaceholder(values: Iterable<unknown>, minDistinct: number): boolean {
  return new Set(values).size < minDistinct;
}

function parseKey(value: string, name: string, source: string): Uint8Array {
  if (!HEX32.test(value)) invalid(`${name}: must be 32 bytes as 64 hexadecimal characters (${source})`);
  return hexToBytes(value, 32, name);
}

/** SERVICE_INTROSPECTION_KEYS: comma-separated keys, each held to the admin key's rules and none the admin key. */
function parseIntrospectionKeys(
  value: string | undefined,
  adminApiKey: string | undefined,
  production: boolean,
  problems: Problems,
): string[] {
  if (value === undefined) return [];
  const keys = value.split(',').map((key) => key.trim());
  const bearer = new RegExp(`^${BEARER_TOKEN_CHARACTERS}$`);
  for (const [i, key] of keys.entries()) {
    const name = `SERVICE_INTROSPECTION_KEYS (key ${i + 1})`;
    problems.check(undefined, () => {
      if (key.length < MIN_ADMIN_KEY_LENGTH || !bearer.test(key))
        invalid(`${name}: must be at least ${MIN_ADMIN_KEY_LENGTH} characters a Bearer token can hold (RFC 6750 §2.1)`);
      if (key === adminApiKey)
        invalid(`${name}: must differ from SERVICE_ADMIN_API_KEY (it grants introspection only)`);
      if (production && looksPlaceholder(key, MIN_DISTINCT_ADMIN_KEY_CHARACTERS))
        invalid(`${name}: is not random (a placeholder?)`);
    });
  }
  return keys;
}

/** API_BASE_URL, or one derived from HOST and PORT outside production. */
function resolveBaseUrl(e: ParsedEnv, production: boolean): { apiBaseUrl: string; apiBaseUrlDerived: boolean } {
  const apiBaseUrlDerived = e.API_BASE_URL === undefined;
  if (apiBaseUrlDerived && production)
    throw new ConfigError('CONFIG_MISSING', 'API_BASE_URL: required in production (the public URL of this issuer)');
  const apiBaseUrl = e.API_BASE_URL === undefined ? baseUrlFor(e.HOST, e.PORT) : normalizeBaseUrl(e.API_BASE_URL);
  if (production && new URL(apiBaseUrl).protocol !== 'https:' && !isLoopbackUrl(apiBaseUrl))
    invalid('API_BASE_URL: must be https in production');
  return { apiBaseUrl, apiBaseUrlDerived };
}

/**
 * SERVICE_DATABASE_URL with SERVICE_STORAGE_ADAPTER=postgres: required, a postgres:// URL. The
 * value is never quoted in a message (it usually carries the database password).
 */
function resolveDatabaseUrl(e: ParsedEnv, warnings: string[]): string | undefined {
  const url = e.SERVICE_DATABASE_URL;
  if (e.SERVICE_STORAGE_ADAPTER !== 'postgres') {
    if (url !== undefined)
      warnings.push('SERVICE_DATABASE_URL is set but not used: SERVICE_STORAGE_ADAPTER is "sqlite"');
    return undefined;
  }
  if (url === undefined) {
    throw new ConfigError(
      'CONFIG_MISSING',
      'SERVICE_DATABASE_URL: required when SERVICE_STORAGE_ADAPTER=postgres (postgres://user:password@host:5432/database)',
    );
  }
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    invalid('SERVICE_DATABASE_URL: must be a URL like postgres://user:password@host:5432/database');
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:')
    invalid('SERVICE_DATABASE_URL: must be a postgres:// or postgresql:// URL');
  return url;
}

/** DID_DOMAIN for DID_METHOD=web (derived from API_BASE_URL outside production). */
function resolveDidDomain(
  e: ParsedEnv,
  apiBaseUrl: string,
  production: boolean,
  warnings: string[],
): { didDomain: string | undefined; didDomainDerived: boolean } {
  const didDomainDerived = e.DID_METHOD === 'web' && e.DID_DOMAIN === undefined;
  if (e.DID_METHOD !== 'web') {
    if (e.DID_DOMAIN !== undefined) warnings.push('DID_DOMAIN is ignored with DID_METHOD=key');
    return { didDomain: undefined, didDomainDerived };
  }
  if (e.DID_DOMAIN === undefined && production)
    throw new ConfigError('CONFIG_MISSING', 'DID_DOMAIN: required with DID_METHOD=web in production');
  const didDomain = e.DID_DOMAIN ?? didDomainFor(apiBaseUrl);
  if (!DID_DOMAIN_SYNTAX.test(didDomain))
    invalid(
      `DID_DOMAIN: must be a host with an optional %3A-encoded port and no path, e.g. issuer.example.com or 127.0.0.1%3A8787`,
    );
  // did:web §3.1: the identifier "MUST NOT include IP addresses". Development's loopback default is the exception.
  if (production && IP_HOST.test(didDomain))
    invalid('DID_DOMAIN: must be a DNS name in production (did:web: the identifier must not include IP addresses)');
  return { didDomain, didDomainDerived };
}

const SECRET_NAMES = ['SERVICE_ADMIN_API_KEY', 'SERVICE_SIGNING_KEY', 'SERVICE_KEY_ENCRYPTION_KEY'] as const;
type SecretName = (typeof SECRET_NAMES)[number];
const STORED_AS: Record<SecretName, keyof StoredSecrets> = {
  SERVICE_ADMIN_API_KEY: 'adminApiKey',
  SERVICE_SIGNING_KEY: 'signingKey',
  SERVICE_KEY_ENCRYPTION_KEY: 'keyEncryptionKey',
};

interface GatheredSecrets {
  /** Undefined only for a secret production is missing (a problem recorded already). */
  values: Record<SecretName, string | undefined>;
  /** Secrets the environment does not set. */
  missing: SecretName[];
  secretsFile: string | undefined;
  secretsFileExisted: boolean;
  /** What the secrets file holds afterwards (with the generated secrets). */
  stored: StoredSecrets;
  generatedSecrets: string[];
  /** Where a secret came from, for error messages. */
  source: (name: SecretName) => string;
}

/** Secrets: from the environment; in production, nothing else; otherwise read from (or generated into) the secrets file. */
function gatherSecrets(e: ParsedEnv, production: boolean, problems: Problems): GatheredSecrets {
  const missing = SECRET_NAMES.filter((name) => e[name] === undefined);
  const source = (name: SecretName) => (e[name] !== undefined ? 'environment' : (secretsFile ?? 'generated'));
  if (production) {
    if (missing.length > 0)
      problems.check(undefined, () => {
        throw new ConfigError(
          'CONFIG_MISSING',
          `${missing.join(', ')}: required in production (generate with: node -e "console.log(require('crypto').randomBytes(32).toString('hex'))")`,
        );
      });
    const values = {
      SERVICE_ADMIN_API_KEY: e.SERVICE_ADMIN_API_KEY,
      SERVICE_SIGNING_KEY: e.SERVICE_SIGNING_KEY,
      SERVICE_KEY_ENCRYPTION_KEY: e.SERVICE_KEY_ENCRYPTION_KEY,
    };
    return {
      values,
      missing,
      secretsFile: undefined,
      secretsFileExisted: false,
      stored: {},
      generatedSecrets: [],
      source,
    };
  }
  let secretsFile: string | undefined;
  let stored: StoredSecrets = {};
  let secretsFileExisted = false;
  if (missing.length > 0 && e.SERVICE_SQLITE_PATH !== ':memory:') {
    const path = join(dirname(resolve(e.SERVICE_SQLITE_PATH)), SECRETS_FILE);
    secretsFile = path;
    const existing = problems.check(undefined, () => readSecretsFile(path));
    secretsFileExisted = existing !== undefined;
    stored = existing ?? {};
  }
  const generatedSecrets: string[] = [];
  const fill = (name: SecretName, make: () => string): string => {
    const key = STORED_AS[name];
    const value = e[name] ?? stored[key];
    if (value !== undefined) return value;
    generatedSecrets.push(name);
    const made = make();
    stored = { ...stored, [key]: made };
    return made;
  };
  const values = {
    SERVICE_ADMIN_API_KEY: fill('SERVICE_ADMIN_API_KEY', () => bytesToBase64url(randomBytes(32))),
    SERVICE_SIGNING_KEY: fill('SERVICE_SIGNING_KEY', () => bytesToHex(randomBytes(32))),
    SERVICE_KEY_ENCRYPTION_KEY: fill('SERVICE_KEY_ENCRYPTION_KEY', () => bytesToHex(randomBytes(32))),
  };
  return { values, missing, secretsFile, secretsFileExisted, stored, generatedSecrets, source };
}

interface CheckedSecrets {
  adminApiKey: string;
  signingKey: Uint8Array;
  keyEncryptionKey: Uint8Array;
}

const PLACEHOLDER =
  "is not random (a placeholder?); generate one with: node -e \"console.log(require('crypto').randomBytes(32).toString('hex'))\"";

/** The admin key's shape rules, and in production that it does not look like a placeholder. */
function checkAdminKey(adminApiKey: string, source: string, production: boolean): string {
  if (adminApiKey.length < MIN_ADMIN_KEY_LENGTH)
    invalid(`SERVICE_ADMIN_API_KEY: must be at least ${MIN_ADMIN_KEY_LENGTH} characters (${source})`);
  if (!new RegExp(`^${BEARER_TOKEN_CHARACTERS}$`).test(adminApiKey)) {
    invalid(
      `SERVICE_ADMIN_API_KEY: may hold only letters, digits and - . _ ~ + /, with = only at the end, as a Bearer token can (RFC 6750 §2.1) (${source})`,
    );
  }
  if (production && looksPlaceholder(adminApiKey, MIN_DISTINCT_ADMIN_KEY_CHARACTERS))
    invalid(`SERVICE_ADMIN_API_KEY: ${PLACEHOLDER}`);
  return adminApiKey;
}

/** A 32-byte key in hex, and in production one that does not look like a placeholder. */
function checkKey(value: string, name: SecretName, source: string, production: boolean): Uint8Array {
  const key = parseKey(value, name, source);
  if (production && looksPlaceholder(key, MIN_DISTINCT_KEY_BYTES)) invalid(`${name}: ${PLACEHOLDER}`);
  return key;
}

/**
 * The secrets' shape rules, and in production that none looks like a placeholder. A secret that
 * is missing or wrong is a recorded problem, and stands in as empty: nothing is assembled then.
 */
function checkSecrets(secrets: GatheredSecrets, production: boolean, problems: Problems): CheckedSecrets {
  const { values, source } = secrets;
  const admin = values.SERVICE_ADMIN_API_KEY;
  const adminApiKey =
    admin === undefined
      ? undefined
      : problems.check(undefined, () => checkAdminKey(admin, source('SERVICE_ADMIN_API_KEY'), production));
  const key = (name: 'SERVICE_SIGNING_KEY' | 'SERVICE_KEY_ENCRYPTION_KEY'): Uint8Array | undefined => {
    const value = values[name];
    return value === undefined
      ? undefined
      : problems.check(undefined, () => checkKey(value, name, source(name), production));
  };
  const signingKey = key('SERVICE_SIGNING_KEY');
  const keyEncryptionKey = key('SERVICE_KEY_ENCRYPTION_KEY');
  // One secret as both an AES key and an Ed25519 seed: whoever learns one learns both.
  if (signingKey !== undefined && keyEncryptionKey !== undefined && equalBytes(signingKey, keyEncryptionKey))
    problems.check(undefined, () => invalid('SERVICE_KEY_ENCRYPTION_KEY: must differ from SERVICE_SIGNING_KEY'));
  return {
    adminApiKey: adminApiKey ?? '',
    signingKey: signingKey ?? new Uint8Array(32),
    keyEncryptionKey: keyEncryptionKey ?? new Uint8Array(32),
  };
}

/** What the operator is told about development secrets, if anything. */
function secretsWarning(secrets: GatheredSecrets): string | undefined {
  const { generatedSecrets, secretsFile, missing } = secrets;
  if (generatedSecrets.length > 0) {
    return secretsFile === undefined
      ? `development secrets generated in memory (${generatedSecrets.join(', ')}); they are lost on exit`
      : `development secrets generated (${generatedSecrets.join(', ')}) and stored in ${secretsFile}; set them in the environment for production`;
  }
  if (secretsFile !== undefined && missing.length > 0)
    return `development secrets (${missing.join(', ')}) read from ${secretsFile}`;
  return undefined;
}

/**
 * SERVICE_REDIS_URL, required by (and only used with) SERVICE_CACHE_ADAPTER=redis: a redis:// or
 * rediss:// URL with a host (ioredis' syntax: `redis://[user:password@]host[:port][/db]`).
 */
function resolveRedisUrl(e: ParsedEnv, warnings: string[]): string | undefined {
  const value = e.SERVICE_REDIS_URL;
  if (e.SERVICE_CACHE_ADAPTER !== 'redis') {
    if (value !== undefined) warnings.push('SERVICE_REDIS_URL is set but not used: SERVICE_CACHE_ADAPTER is "memory"');
    return undefined;
  }
  if (value === undefined) invalid('SERVICE_REDIS_URL: required when SERVICE_CACHE_ADAPTER=redis');
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // The value may carry a password: never echo it.
  if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '')
    invalid('SERVICE_REDIS_URL: must be a redis:// or rediss:// URL with a host (redis://host:6379)');
  if (!/^\/?(\d{1,2})?$/.test(url.pathname)) invalid('SERVICE_REDIS_URL: the path may only name a database number');
  return value;
}

/** Warnings about development-only switches; throws when one is set in production. */
function switchWarnings(e: ParsedEnv, production: boolean, warnings: string[]): void {
  if (e.SERVICE_OPEN_ENROLLMENT) {
    if (production)
      invalid('SERVICE_OPEN_ENROLLMENT: must not be true in production (anyone could mint their own authority)');
    warnings.push('SERVICE_OPEN_ENROLLMENT=true: anyone can mint enrollment tokens (development only)');
  }
}

type ResolvedParts = ReturnType<typeof resolveBaseUrl> &
  ReturnType<typeof resolveDidDomain> &
  CheckedSecrets & {
    introspectionKeys: string[];
    redisUrl: string | undefined;
    databaseUrl: string | undefined;
    secrets: GatheredSecrets;
    warnings: string[];
  };

/** The configuration from the parsed environment and what was resolved from it. */
function assembleConfig(e: ParsedEnv, parts: ResolvedParts): IssuerConfig {
  const { secrets } = parts;
  return {
    nodeEnv: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    apiBaseUrl: parts.apiBaseUrl,
    apiBaseUrlDerived: parts.apiBaseUrlDerived,
    storageAdapter: e.SERVICE_STORAGE_ADAPTER,
    sqlitePath: e.SERVICE_SQLITE_PATH,
    databaseUrl: parts.databaseUrl,
    databasePoolSize: e.SERVICE_DATABASE_POOL_SIZE,
    cacheAdapter: e.SERVICE_CACHE_ADAPTER,
    redisUrl: parts.redisUrl,
    didMethod: e.DID_METHOD,
    didDomain: parts.didDomain,
    didDomainDerived: parts.didDomainDerived,
    adminApiKey: parts.adminApiKey,
    signingKey: parts.signingKey,
    previousSigningKeys: e.SERVICE_PREVIOUS_SIGNING_KEYS,
    keyEncryptionKey: parts.keyEncryptionKey,
    openEnrollment: e.SERVICE_OPEN_ENROLLMENT,
    fetchPrivateNetwork: e.SERVICE_FETCH_PRIVATE_NETWORK,
    introspectionKeys: parts.introspectionKeys,
    oauthAllowBearer: e.SERVICE_OAUTH_ALLOW_BEARER,
    oauthDpopNonce: e.SERVICE_OAUTH_DPOP_NONCE,
    oauthTokenTtlSeconds: e.SERVICE_OAUTH_TOKEN_TTL_SECONDS,
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.SERVICE_BODY_LIMIT_BYTES,
    rateLimit: {
      perIp: e.SERVICE_RATE_LIMIT_PER_IP,
      perToken: e.SERVICE_RATE_LIMIT_PER_TOKEN,
      windowMs: e.SERVICE_RATE_LIMIT_WINDOW_SECONDS * 1000,
      instancesHint: e.SERVICE_INSTANCES_HINT,
    },
    enrollmentTokenTtlSeconds: e.SERVICE_ENROLLMENT_TOKEN_TTL_SECONDS,
    onboardingTtlSeconds: e.SERVICE_ONBOARDING_TTL_SECONDS,
    credentialTtlSeconds: e.SERVICE_CREDENTIAL_TTL_SECONDS,
    statusListTtlMs: e.SERVICE_STATUS_LIST_TTL_SECONDS * 1000,
    ed25519Backend: e.SERVICE_ED25519_BACKEND,
    workers: e.SERVICE_WORKERS,
    shutdownTimeoutMs: e.SERVICE_SHUTDOWN_TIMEOUT_SECONDS * 1000,
    secretsFile: secrets.generatedSecrets.length > 0 || secrets.missing.length > 0 ? secrets.secretsFile : undefined,
    generatedSecrets: secrets.generatedSecrets,
    warnings: parts.warnings,
  };
}

/**
 * Validates `env` and returns the issuer's configuration. In development and test, missing
 * secrets are read from (or generated into) `issuer-secrets.json` beside the database.
 * Throws one ConfigError listing every problem found (`problems`, one line each); nothing is
 * written to the secrets file then.
 */
export function loadConfig(env: Env = process.env): IssuerConfig {
  const problems = new Problems();
  const e = parseEnv(env, problems);
  const production = e.NODE_ENV === 'production';
  const warnings: string[] = [];
  const base = problems.check(
    { apiBaseUrl: baseUrlFor(e.HOST, e.PORT), apiBaseUrlDerived: e.API_BASE_URL === undefined },
    () => resolveBaseUrl(e, production),
  );
  const did = problems.check({ didDomain: undefined, didDomainDerived: false }, () =>
    resolveDidDomain(e, base.apiBaseUrl, production, warnings),
  );
  problems.check(undefined, () => switchWarnings(e, production, warnings));
  // Each process would open its own empty database (and generate its own development secrets).
  if (e.SERVICE_WORKERS > 1 && e.SERVICE_SQLITE_PATH === ':memory:')
    problems.check(undefined, () =>
      invalid(
        'SERVICE_WORKERS: must be 1 with SERVICE_SQLITE_PATH=:memory: (each process would have its own database)',
      ),
    );
  const databaseUrl = problems.check(undefined, () => resolveDatabaseUrl(e, warnings));
  const secrets = gatherSecrets(e, production, problems);
  const checked = checkSecrets(secrets, production, problems);
  const introspectionKeys = parseIntrospectionKeys(
    e.SERVICE_INTROSPECTION_KEYS,
    checked.adminApiKey,
    production,
    problems,
  );
  const redisUrl = problems.check(undefined, () => resolveRedisUrl(e, warnings));
  problems.throwIfAny();
  if (e.SERVICE_FETCH_PRIVATE_NETWORK) {
    warnings.push(
      'SERVICE_FETCH_PRIVATE_NETWORK=true: DIDs and status lists anyone names are fetched from private and loopback addresses too',
    );
  }
  if (
    secrets.generatedSecrets.length > 0 &&
    secrets.secretsFile !== undefined &&
    !writeSecretsFile(secrets.secretsFile, secrets.stored, !secrets.secretsFileExisted)
  ) {
    // Another issuer created the file first: use what it stored.
    return loadConfig(env);
  }
  const told = secretsWarning(secrets);
  if (told !== undefined) warnings.push(told);
  return assembleConfig(e, {
    ...base,
    ...did,
    ...checked,
    introspectionKeys,
    redisUrl,
    databaseUrl,
    secrets,
    warnings,
  });
}

/**
 * The configuration once the real port is known: with `port: 0` the OS picks one, and the
 * derived API_BASE_URL / DID_DOMAIN must name it (status list URLs and the did:web are built on them).
 */
export function withBoundPort(config: IssuerConfig, port: number): IssuerConfig {
  const apiBaseUrl = config.apiBaseUrlDerived ? baseUrlFor(config.host, port) : config.apiBaseUrl;
  const didDomain = config.didMethod === 'web' && config.didDomainDerived ? didDomainFor(apiBaseUrl) : config.didDomain;
  return { ...config, port, apiBaseUrl, didDomain };
}

/**
 * What this issuer may fetch when a request names the URL (did:web documents, status lists):
 * public https only, unless SERVICE_FETCH_PRIVATE_NETWORK says otherwise. Outside production an
 * issuer on loopback may also read plain http from loopback (development, tests). In production
 * never by default, whatever API_BASE_URL is: an anonymous caller names the did:web, and could
 * otherwise reach every port of the machine. The issuer's own DIDs and lists are read in-process.
 */
export function fetchPolicy(config: Pick<IssuerConfig, 'apiBaseUrl' | 'nodeEnv' | 'fetchPrivateNetwork'>): UrlPolicy {
  if (config.fetchPrivateNetwork) return { allowHttpLoopback: true, allowPrivateNetwork: true };
  return {
    allowHttpLoopback: config.nodeEnv !== 'production' && isLoopbackUrl(config.apiBaseUrl),
    allowPrivateNetwork: false,
  };
}
