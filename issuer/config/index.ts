/**
 * The issuer's configuration: every environment variable (env-schema.ts), validated once at
 * start-up, so a bad value stops the process with one clear line per problem (`ConfigError`)
 * instead of failing on the first request that needs it. Every problem of a start is reported at
 * once: fixing a production environment must not take one restart each.
 *
 * The parts: env-schema.ts (each variable's rule, default and documentation), urls.ts (the
 * issuer's URLs, the databases', what a request may make it fetch), dev-secrets.ts (where the
 * secrets come from, the development secrets file), secret-rules.ts (their shape), errors.ts.
 */
import { gatherSecrets, secretsWarning, storeGeneratedSecrets, usedSecretsFile } from './dev-secrets.ts';
import { parseEnv, type Env, type ParsedEnv } from './env-schema.ts';
import { invalid, Problems } from './errors.ts';
import type { IssuerConfig } from './issuer-config.ts';
import { checkSecrets, parseIntrospectionKeys, type CheckedSecrets } from './secret-rules.ts';
import {
  baseUrlFor,
  resolveBaseUrl,
  resolveDatabaseUrl,
  resolveDidDomain,
  resolveRedisUrl,
  type BaseUrl,
  type DidDomain,
} from './urls.ts';

export type { Ed25519BackendChoice, Env, LogLevel, NodeEnv } from './env-schema.ts';
export { ConfigError, type ConfigErrorCode } from './errors.ts';
export type { IssuerConfig, RateLimitConfig } from './issuer-config.ts';
export { BEARER_TOKEN_CHARACTERS } from './secret-rules.ts';
export { baseUrlFor, didDomainFor, fetchPolicy, withBoundPort } from './urls.ts';

/** Warnings about development-only switches; throws when one is set in production. */
function switchWarnings(e: ParsedEnv, production: boolean, warnings: string[]): void {
  if (e.SERVICE_OPEN_ENROLLMENT) {
    if (production)
      invalid('SERVICE_OPEN_ENROLLMENT: must not be true in production (anyone could mint their own authority)');
    warnings.push('SERVICE_OPEN_ENROLLMENT=true: anyone can mint enrollment tokens (development only)');
  }
}

type ResolvedParts = BaseUrl &
  DidDomain &
  CheckedSecrets & {
    introspectionKeys: string[];
    redisUrl: string | undefined;
    databaseUrl: string | undefined;
    secretsFile: string | undefined;
    generatedSecrets: string[];
    warnings: string[];
  };

/** The configuration from the parsed environment and what was resolved from it. */
function assembleConfig(e: ParsedEnv, parts: ResolvedParts): IssuerConfig {
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
    secretsFile: parts.secretsFile,
    generatedSecrets: parts.generatedSecrets,
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
  // Another issuer created the secrets file first: use what it stored.
  if (!storeGeneratedSecrets(secrets)) return loadConfig(env);
  const told = secretsWarning(secrets);
  if (told !== undefined) warnings.push(told);
  return assembleConfig(e, {
    ...base,
    ...did,
    ...checked,
    introspectionKeys,
    redisUrl,
    databaseUrl,
    secretsFile: usedSecretsFile(secrets),
    generatedSecrets: secrets.generatedSecrets,
    warnings,
  });
}
