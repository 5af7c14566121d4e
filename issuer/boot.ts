/**
 * The composition root: start-up builds, once and with no module-level state, everything the
 * services are handed (`IssuerDeps`, deps.ts) — configuration, the stores over the database
 * (SQLite, or PostgreSQL with SERVICE_STORAGE_ADAPTER=postgres), the issuer's signing identity,
 * the key-encryption key, a DID resolver, a status-list client, the replay cache, the audit
 * log, rate limiters, a clock and a logger — and `close()`; the raw connections stay inside.
 * No service imports this module: each declares the part of IssuerDeps it uses.
 *
 * Resolution and status checks of this issuer's OWN DIDs and lists never go over HTTP:
 * hosted DID documents are read from the database (so a deactivation is seen at once), and
 * this issuer's status lists are served to the wallet's status-list client in-process.
 */
import { createAuditLog } from './audit.ts';
import { ConfigError, type IssuerConfig } from './config/index.ts';
import type { IssuerDeps, IssuerStatusClient } from './deps.ts';
import { createLogger, type Logger } from './log.ts';
import { createRateLimits } from './http/rate-limits.ts';
import { completeLegacyRevocations } from './services/credentials.ts';
import { useEd25519Backend } from './services/ed25519-adaptive.ts';
import { ensureIssuerIdentity } from './services/issuer-identity.ts';
import { createIssuerResolver } from './services/resolver.ts';
import { createReadCache } from './services/read-cache.ts';
import { createIssuerStatusClient, ensureDefaultStatusLists } from './services/status-lists.ts';
import { openDatabase } from './storage/db.ts';
import { openPostgres } from './storage/postgres/db.ts';
import { createPostgresStores } from './storage/postgres/stores.ts';
import { createSqliteStores } from './storage/sqlite-stores.ts';
import type { IssuerStores } from './storage/stores.ts';
import { replayCacheOver } from './storage/replay-store.ts';
import { assertKeyEncryptionKeyOpens } from './services/custody.ts';
import { connectRedis } from './redis.ts';
import { createIssuerSharedCaches } from './services/shared-caches/redis-cache.ts';
import { issuerReadinessChecks } from './services/readiness.ts';

/**
 * What boot builds: the services' dependencies and `close()`. The database connections stay
 * inside (openStorage below): product code and tests reach issuer state through `stores`.
 */
export interface IssuerContext extends IssuerDeps {
  /** Closes the database, or ends the PostgreSQL pool (the server closes first). */
  close(): Promise<void>;
}

export interface IssuerContextOptions {
  /** Clock in epoch ms (default Date.now); tests move time with it. */
  now?: () => number;
  log?: Logger;
}

/** The database SERVICE_STORAGE_ADAPTER names, opened (PostgreSQL: migrated), and its stores. */
interface OpenedStorage {
  stores: IssuerStores;
  /** A SQLite file older than this code (upgrade.ts); a PostgreSQL database is migrated whole on open. */
  upgradedFrom: number | undefined;
  close(): Promise<void>;
}

async function openStorage(config: IssuerConfig, log: Logger): Promise<OpenedStorage> {
  if (config.storageAdapter === 'postgres') {
    if (config.databaseUrl === undefined)
      throw new ConfigError('CONFIG_MISSING', 'SERVICE_DATABASE_URL: required when SERVICE_STORAGE_ADAPTER=postgres');
    const postgres = await openPostgres({
      url: config.databaseUrl,
      size: config.databasePoolSize,
      onIdleError: (error) => log.warn('database: an idle connection failed', { error: error.message }),
    });
    if (postgres.migration.applied.length > 0)
      log.info('database schema migrated', { from: postgres.migration.from, to: postgres.migration.to });
    const stores = createPostgresStores(postgres.pool);
    return { stores, upgradedFrom: undefined, close: () => postgres.close() };
  }
  const sqlite = openDatabase(config.sqlitePath);
  return {
    stores: createSqliteStores(sqlite),
    upgradedFrom: sqlite.upgradedFrom,
    close: () => Promise.resolve(sqlite.close()),
  };
}

/** Boots an issuer: opens storage, checks the key-encryption key, builds IssuerDeps (`boot` is its other name). */
export async function createIssuerContext(
  config: IssuerConfig,
  options: IssuerContextOptions = {},
): Promise<IssuerContext> {
  const now = options.now ?? Date.now;
  const log = options.log ?? createLogger({ level: config.logLevel, now });
  const redis = config.redisUrl === undefined ? undefined : await connectRedis(config.redisUrl, log);
  const shared = redis && createIssuerSharedCaches(redis, log);
  const storage = await openStorage(config, log).catch((error: unknown) => {
    redis?.disconnect();
    throw error;
  });
  const ed25519 = useEd25519Backend(config.ed25519Backend);
  try {
    const rateLimits = createRateLimits(config, log, now, redis);
    const { stores } = storage;
    await assertKeyEncryptionKeyOpens(stores.agents, config.keyEncryptionKey);
    const audit = createAuditLog(stores, now);
    // Before anything is signed: the DID document names the signing key (and keys it replaced).
    const issuer = await ensureIssuerIdentity({ config, stores, audit, log, now });
    const resolver = createIssuerResolver({ config, dids: stores.dids, now, ...(shared && { shared: shared.dids }) });
    // The client serves this issuer's lists through services that take the context: it reaches
    // the context through this binding, set once the context exists.
    let statusLists: IssuerStatusClient | undefined;
    const lists = (): IssuerStatusClient => (statusLists ??= createIssuerStatusClient(ctx, shared?.lists));
    const ctx: IssuerContext = {
      config,
      stores,
      issuer,
      keyEncryptionKey: config.keyEncryptionKey,
      resolver,
      statusLists: {
        check: (entry, credentialIssuer, at) => lists().check(entry, credentialIssuer, at),
        over: (version) => lists().over(version),
      },
      readCache: createReadCache(stores),
      replayCache: replayCacheOver(stores.replay, now),
      audit,
      rateLimits,
      readinessChecks: issuerReadinessChecks(stores, redis),
      now,
      log,
      close: async () => {
        ed25519.stop();
        redis?.disconnect();
        await storage.close();
      },
    };
    lists(); // created now that the context exists, not on the first check
    await ensureDefaultStatusLists(ctx);
    if (storage.upgradedFrom !== undefined) {
      const completed = await completeLegacyRevocations(ctx);
      if (completed.length > 0)
        log.warn('upgrade: revoked credentials that revocations by an older issuer had left working', {
          count: completed.length,
        });
    }
    return ctx;
  } catch (error) {
    ed25519.stop();
    redis?.disconnect();
    await storage.close();
    throw error;
  }
}

export { createIssuerContext as boot };
