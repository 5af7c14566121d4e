/**
 * The issuer's environment: one entry per variable, holding how its value is parsed (zod, with
 * its default) and what docs/operations.md §Configuration says about it. This table is the one
 * source: the schema `loadConfig` validates with is built from it, and so is the documentation
 * table (`npm run docs:config`; test/docs/config-table.test.ts fails when they disagree).
 *
 * Only each variable's own rule is here. Rules between variables (production requirements,
 * derived URLs, secrets) are in load.ts, urls.ts, dev-secrets.ts and secret-rules.ts.
 */
import { z } from 'zod';
import { invalid, issueLine, type Problems } from './errors.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** One environment variable. */
export interface EnvVariable {
  /** Parses the raw value; an unset or blank value parses as the default. */
  schema: z.ZodType;
  /**
   * The documentation's default when the schema has none, because it is resolved later (from
   * other variables, or generated). A schema default is shown as it parses.
   */
  unsetDefault?: string;
  /** What the default means, shown after it: `7776000` (90 days). */
  defaultNote?: string;
  /** The documentation's "meaning" cell (Markdown, one line). */
  doc: string;
}

const blankToUndefined = (value: unknown): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
const optionalString = z.preprocess(blankToUndefined, z.string().optional());
const string = (fallback: string) => z.preprocess(blankToUndefined, z.string().default(fallback));
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number], error?: string) =>
  z.preprocess(blankToUndefined, z.enum(values, error === undefined ? undefined : { error }).default(fallback));
const boolean = (fallback: boolean) =>
  z
    .preprocess(blankToUndefined, z.enum(['true', 'false', '1', '0']).optional())
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));
const integer = (fallback: number, min: number, max: number) =>
  z.preprocess(blankToUndefined, z.coerce.number().int().min(min).max(max).optional()).transform((v) => v ?? fallback);

/** SERVICE_WORKERS' ceiling: beyond the cores of any one machine this runs on. */
const MAX_WORKERS = 64;
const WORKERS_ERROR = `must be an integer from 1 to ${MAX_WORKERS}`;
const GENERATED = 'generated (development)';

// The order is the order problems are reported in.
export const ENV_VARIABLES = {
  NODE_ENV: {
    schema: oneOf(['development', 'production', 'test'], 'development'),
    doc: '`production` requires the three secrets, `API_BASE_URL` (https unless loopback) and `DID_DOMAIN`; refuses `SERVICE_OPEN_ENROLLMENT`',
  },
  HOST: { schema: string('127.0.0.1'), doc: 'the address to listen on' },
  PORT: { schema: integer(8787, 0, 65535), doc: 'the port to listen on (`0`: any free port)' },
  API_BASE_URL: {
    schema: optionalString,
    unsetDefault: '`http://HOST:PORT` (development)',
    doc: 'the public URL; status-list URLs and did:web documents are built on it',
  },
  SERVICE_STORAGE_ADAPTER: {
    schema: oneOf(['sqlite', 'postgres'], 'sqlite', 'must be "sqlite" or "postgres"'),
    doc: '`sqlite`: one file, one machine; `postgres`: a PostgreSQL database several issuer instances share (§PostgreSQL)',
  },
  SERVICE_DATABASE_URL: {
    schema: optionalString,
    doc: 'with `postgres`, required: `postgres://user:password@host:5432/database` (libpq URL: `?sslmode=require`, `?options=-c search_path=mandate` for a schema of its own); never printed',
  },
  SERVICE_DATABASE_POOL_SIZE: {
    schema: integer(10, 1, 1000),
    doc: 'most PostgreSQL connections one issuer process opens (1–1000)',
  },
  SERVICE_SQLITE_PATH: {
    schema: string('./data/issuer.db'),
    doc: 'the database file (WAL mode; `-wal` and `-shm` files live beside it); with `postgres`, only where development secrets are kept',
  },
  SERVICE_CACHE_ADAPTER: {
    schema: oneOf(['memory', 'redis'], 'memory', 'must be "memory" or "redis"'),
    doc: '`memory`: DID, status-list and rate-limit caches in process memory (the replay cache of `/v1/vp/verify` is in the database, so it survives restarts); `redis`: the per-address and per-credential rate limits are counted in Redis, shared by every instance, and remote DID documents and status lists are cached there for all of them (§Redis); nothing of record is kept there, so an outage degrades the instances instead of stopping them',
  },
  SERVICE_REDIS_URL: {
    schema: optionalString,
    doc: 'with `SERVICE_CACHE_ADAPTER=redis` (required there, ignored with a warning otherwise): `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS. The issuer stops at start if Redis does not answer within 5 s',
  },
  DID_METHOD: {
    schema: oneOf(['web', 'key'], 'web', 'must be "web" or "key": anchored (ledger) DIDs are resolvable, not issuable'),
    doc: '`web`: the issuer is `did:web:<DID_DOMAIN>`, server-custody agents `did:web:<DID_DOMAIN>:agents:<id>`; `key`: did:key everywhere. Anything else (a ledger method) is refused: anchored DIDs are resolvable, not issuable',
  },
  DID_DOMAIN: {
    schema: optionalString,
    unsetDefault: 'host of `API_BASE_URL` (development)',
    doc: 'did:web host, port percent-encoded (`127.0.0.1%3A8787`); no path (the issuer serves its document at `/.well-known/did.json`, where did:web looks only for a DID without a path); required with `web` in production, and there a DNS name: did:web says the identifier "MUST NOT include IP addresses", so the development default `127.0.0.1%3A8787` is a local exception',
  },
  SERVICE_ADMIN_API_KEY: {
    schema: optionalString,
    unsetDefault: GENERATED,
    doc: "the operator bearer key, ≥ 32 characters of a Bearer token's alphabet (letters, digits, `-._~+/`, `=` only at the end; RFC 6750 §2.1); in production, one with fewer than 6 distinct characters (a placeholder such as `xxxx…`) is refused",
  },
  SERVICE_SIGNING_KEY: {
    schema: optionalString,
    unsetDefault: GENERATED,
    doc: "the issuer's Ed25519 private key (seed), 64 hex characters; in production, 32 bytes with fewer than 16 distinct values (`00…`, `abab…`: not random) are refused, here and for the next key",
  },
  SERVICE_PREVIOUS_SIGNING_KEYS: {
    schema: oneOf(['keep', 'drop'], 'keep', 'must be "keep" or "drop"'),
    doc: 'after the signing key changed (did:web): `keep` lists the previous key for verification until the last credential it signed expires; `drop` removes every previous key at this start (a compromised key). See §Keys',
  },
  SERVICE_KEY_ENCRYPTION_KEY: {
    schema: optionalString,
    unsetDefault: GENERATED,
    doc: 'AES-256 key (64 hex) that encrypts server-held keys; must differ from `SERVICE_SIGNING_KEY`',
  },
  SERVICE_OPEN_ENROLLMENT: {
    schema: boolean(false),
    doc: '`true` lets anyone mint enrollment tokens (development only; warned at start)',
  },
  SERVICE_FETCH_PRIVATE_NETWORK: {
    schema: boolean(false),
    doc: "whether the did:web documents and status lists a request names may be fetched from loopback, private and link-local addresses (any spelling, and host names resolving to them). Off, the issuer fetches public https only — in production whatever `API_BASE_URL` is, so an anonymous caller naming `did:web:127.0.0.1%3A<port>` reaches no local service; outside production an issuer on loopback also reads plain http from loopback. `true` opens the private network (a closed deployment whose providers live there; warned at start). The issuer's own DIDs and lists never go over the network",
  },
  SERVICE_INTROSPECTION_KEYS: {
    schema: optionalString,
    doc: "comma-separated Bearer keys (each held to the admin key's rules, none equal to it) for services that may call `POST /v1/sessions/introspect` and nothing else",
  },
  SERVICE_OAUTH_ALLOW_BEARER: {
    schema: boolean(false),
    doc: 'the OAuth token endpoint issues Bearer (unbound) tokens to clients that send no DPoP proof ([oauth.md](oauth.md) §DPoP)',
  },
  SERVICE_OAUTH_DPOP_NONCE: {
    schema: boolean(false),
    doc: 'DPoP proofs at the token endpoint must carry a server nonce (RFC 9449 §8)',
  },
  SERVICE_OAUTH_TOKEN_TTL_SECONDS: {
    schema: integer(300, 10, 300),
    doc: "OAuth access-token lifetime, 10–300 s: with the resource server's clock skew (60 s for `mcpAuth`), the revocation bound for resource servers that do not introspect ([oauth.md](oauth.md) §Lifetime and the revocation bound)",
  },
  LOG_LEVEL: {
    schema: oneOf(['debug', 'info', 'warn', 'error', 'silent'], 'info'),
    doc: '`debug`, `info`, `warn`, `error`, `silent`',
  },
  SERVICE_BODY_LIMIT_BYTES: {
    schema: integer(64 * 1024, 1024, 16 * 1024 * 1024),
    doc: 'largest request body (413 beyond)',
  },
  SERVICE_RATE_LIMIT_PER_IP: { schema: integer(3000, 1, 10_000_000), doc: 'requests per window per client IP' },
  SERVICE_RATE_LIMIT_PER_TOKEN: {
    schema: integer(600, 1, 10_000_000),
    doc: 'requests per window per credential (Authorization header, enrollment token)',
  },
  SERVICE_RATE_LIMIT_WINDOW_SECONDS: { schema: integer(60, 1, 86_400), doc: 'the fixed window' },
  SERVICE_INSTANCES_HINT: {
    schema: integer(1, 1, 1000),
    doc: 'with `SERVICE_CACHE_ADAPTER=redis`: how many instances share the rate limits (1–1000). While Redis is unreachable each instance counts alone and allows ⌊limit / hint⌋ (at least 1) per window, so the instances together stay near the configured limits (§Redis)',
  },
  SERVICE_ENROLLMENT_TOKEN_TTL_SECONDS: {
    schema: integer(15 * 60, 10, 7 * 86_400),
    doc: 'default enrollment-token lifetime',
  },
  SERVICE_ONBOARDING_TTL_SECONDS: { schema: integer(5 * 60, 10, 86_400), doc: 'onboarding challenge lifetime' },
  SERVICE_CREDENTIAL_TTL_SECONDS: {
    schema: integer(90 * 86_400, 60, 10 * 365 * 86_400),
    defaultNote: '90 days',
    doc: 'default AgentCredential validity',
  },
  SERVICE_STATUS_LIST_TTL_SECONDS: {
    schema: integer(300, 1, 86_400),
    doc: '`ttl` of published status lists, and their `Cache-Control: max-age`',
  },
  // The event loop while it has time, libuv's pool while it is saturated (services/ed25519-adaptive.ts).
  SERVICE_ED25519_BACKEND: {
    schema: oneOf(['node', 'webcrypto', 'noble', 'auto', 'adaptive'], 'adaptive'),
    doc: "`adaptive` (the event loop while it has time to spare, libuv's thread pool while it is saturated and a core is free), `node` (OpenSSL on the event loop), `webcrypto` (libuv thread pool), `noble` (pure JS), `auto` (the library's default: `node`) — see below",
  },
  SERVICE_WORKERS: {
    schema: z.preprocess(
      blankToUndefined,
      z.coerce
        .number({ error: WORKERS_ERROR })
        .int({ error: WORKERS_ERROR })
        .min(1, { error: WORKERS_ERROR })
        .max(MAX_WORKERS, { error: WORKERS_ERROR })
        .default(1),
    ),
    doc: "issuer processes sharing the port (Node's cluster module), an integer 1–64; more than 1 needs a database file (not `:memory:`). See §Several workers",
  },
  SERVICE_SHUTDOWN_TIMEOUT_SECONDS: {
    schema: integer(10, 1, 3600),
    doc: 'how long `SIGTERM` waits for in-flight requests before cutting them (1–3600). See §Shutdown',
  },
} satisfies Record<string, EnvVariable>;

export type EnvName = keyof typeof ENV_VARIABLES;
type EnvShape = { [K in EnvName]: (typeof ENV_VARIABLES)[K]['schema'] };

function envShape(): EnvShape {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, variable] of Object.entries(ENV_VARIABLES)) shape[name] = variable.schema;
  return shape as EnvShape;
}

const envSchema = z.object(envShape());

export type ParsedEnv = z.infer<typeof envSchema>;
export type NodeEnv = ParsedEnv['NODE_ENV'];
export type LogLevel = ParsedEnv['LOG_LEVEL'];
export type Ed25519BackendChoice = ParsedEnv['SERVICE_ED25519_BACKEND'];

/**
 * The parsed environment, every bad value recorded as a problem and parsed as if unset (its
 * default), so the checks that depend on it still run.
 */
export function parseEnv(env: Env, problems: Problems): ParsedEnv {
  const result = envSchema.safeParse(env);
  if (result.success) return result.data;
  for (const issue of result.error.issues) problems.check(undefined, () => invalid(issueLine(issue)));
  const bad = new Set(result.error.issues.map((issue) => String(issue.path[0])));
  const defaults = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([name]) => !bad.has(name))));
  if (defaults.success) return defaults.data;
  return problems.report();
}
