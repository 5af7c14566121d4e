// The issuer on PostgreSQL: SERVICE_STORAGE_ADAPTER=postgres with SERVICE_DATABASE_URL, validated
// at start-up with one line per mistake (the URL's password never quoted); then two real issuers
// on one throwaway database acting as one: an agent enrolled through one is known to the other,
// one token onboards one agent whichever instances the attempts reach, and the audit chain both
// wrote verifies.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Env } from '../../../../issuer/config/index.ts';
import { ISSUED_PURPOSES } from '../../../../issuer/services/status-lists.ts';
import { SchemaError } from '../../../../issuer/storage/postgres/migrate.ts';
import { outsideQuery } from '../../../support/database.ts';
import {
  agentPath,
  mintToken,
  onboardServerAgent,
  startTestIssuer,
  TEST_ADMIN_KEY,
  tempDir,
  type TestIssuer,
} from '../../../support/issuer.ts';
import { freshDatabase } from '../../../support/servers.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function env(extra: Env): Env {
  const dir = tempDir('mandate-pg-config-');
  dirs.push(dir);
  return {
    NODE_ENV: 'test',
    SERVICE_SQLITE_PATH: join(dir, 'issuer.db'),
    SERVICE_ADMIN_API_KEY: TEST_ADMIN_KEY,
    ...extra,
  };
}

function configError(extra: Env): ConfigError {
  try {
    loadConfig(env(extra));
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('SERVICE_STORAGE_ADAPTER=postgres configuration', () => {
  it('takes the database URL and a pool size (default 10)', () => {
    const url = 'postgres://mandate:secret@db.internal:5432/mandate';
    const config = loadConfig(env({ SERVICE_STORAGE_ADAPTER: 'postgres', SERVICE_DATABASE_URL: url }));
    expect(config).toMatchObject({ storageAdapter: 'postgres', databaseUrl: url, databasePoolSize: 10 });
    const sized = loadConfig(
      env({ SERVICE_STORAGE_ADAPTER: 'postgres', SERVICE_DATABASE_URL: url, SERVICE_DATABASE_POOL_SIZE: '25' }),
    );
    expect(sized.databasePoolSize).toBe(25);
    expect(loadConfig(env({})).storageAdapter).toBe('sqlite');
  });

  it('refuses postgres without a URL, or with a URL of another kind, in one line without the password', () => {
    const missing = configError({ SERVICE_STORAGE_ADAPTER: 'postgres' });
    expect(missing.code).toBe('CONFIG_MISSING');
    expect(missing.message).toBe(
      'SERVICE_DATABASE_URL: required when SERVICE_STORAGE_ADAPTER=postgres (postgres://user:password@host:5432/database)',
    );
    const other = configError({ SERVICE_STORAGE_ADAPTER: 'postgres', SERVICE_DATABASE_URL: 'mysql://u:hunter2@db/x' });
    expect(other.code).toBe('CONFIG_INVALID');
    expect(other.message).toBe('SERVICE_DATABASE_URL: must be a postgres:// or postgresql:// URL');
    const garbled = configError({ SERVICE_STORAGE_ADAPTER: 'postgres', SERVICE_DATABASE_URL: 'hunter2 at db' });
    expect(garbled.message).toBe(
      'SERVICE_DATABASE_URL: must be a URL like postgres://user:password@host:5432/database',
    );
    for (const error of [missing, other, garbled]) {
      expect(error.message).not.toContain('hunter2');
      expect(error.message).not.toContain('\n');
    }
  });

  it('refuses an unknown adapter and a pool size out of range, naming the variable', () => {
    expect(configError({ SERVICE_STORAGE_ADAPTER: 'mysql' }).message).toBe(
      'SERVICE_STORAGE_ADAPTER: must be "sqlite" or "postgres"',
    );
    expect(configError({ SERVICE_DATABASE_POOL_SIZE: '0' }).message).toMatch(/^SERVICE_DATABASE_POOL_SIZE: /);
  });

  it('warns that a database URL is ignored on SQLite', () => {
    const config = loadConfig(env({ SERVICE_DATABASE_URL: 'postgres://db.internal/mandate' }));
    expect(config.databaseUrl).toBeUndefined();
    expect(config.warnings).toContain('SERVICE_DATABASE_URL is set but not used: SERVICE_STORAGE_ADAPTER is "sqlite"');
  });
});

describe('two issuers on one PostgreSQL database', () => {
  it('act as one issuer: shared agents, one agent per token across instances, one audit chain', async () => {
    const database = await freshDatabase();
    // One issuer behind a load balancer: the same keys and DID on every instance.
    const shared: Env = {
      SERVICE_STORAGE_ADAPTER: 'postgres',
      SERVICE_DATABASE_URL: database.url,
      SERVICE_DATABASE_POOL_SIZE: '5',
      SERVICE_SIGNING_KEY: '9f1c4e7a2b8d05f36e91a4c7d2b58e0f13a6c9d4e7f0b2a58c1d6e93f4a7b20c',
      SERVICE_KEY_ENCRYPTION_KEY: '3a7e0c91f5d24b86a1e9c3f70d5b28e4c6a1f93d07b5e28c4f1a69d3e0b7c52f',
      DID_METHOD: 'key',
    };
    const instances: TestIssuer[] = [];
    try {
      // Started together on the empty database: one migrates, and the start-up writes (the
      // issuer's identity, the default status lists) happen once.
      instances.push(...(await Promise.all([startTestIssuer(shared), startTestIssuer(shared)])));
      const [a, b] = instances as [TestIssuer, TestIssuer];
      expect(a.running.ctx.issuer.did).toBe(b.running.ctx.issuer.did);
      const lists = await outsideQuery<{ n: number }>(a, 'SELECT count(*)::int AS n FROM status_lists');
      expect(lists[0]?.n).toBe(ISSUED_PURPOSES.length);

      // Readiness asks the database itself (IssuerStores.ping).
      expect((await b.call('/v1/ready')).status).toBe(200);

      const { agentDid } = await onboardServerAgent(a);
      expect((await b.call(agentPath(agentDid), { admin: true })).status).toBe(200);

      const token = await mintToken(b);
      const on = (i: number) => (i % 2 === 0 ? a : b);
      const sessions = await Promise.all(
        Array.from({ length: 10 }, (_, i) => on(i).call('/v1/onboard', { body: { token, custody: 'server' } })),
      );
      expect(sessions.map((s) => s.status)).toEqual(Array.from({ length: 10 }, () => 201));
      const results = await Promise.all(
        sessions.map((s, i) =>
          on(i + 1).call('/v1/onboard/verify', {
            body: { challengeId: s.json.challengeId, challenge: s.json.challenge },
          }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409 && r.json.error.code === 'TOKEN_USED')).toHaveLength(9);

      const agents = await outsideQuery<{ n: number }>(a, 'SELECT count(*)::int AS n FROM agents');
      expect(agents[0]?.n).toBe(2);

      for (const instance of [a, b]) {
        const chain = await instance.call('/v1/audit/verify', { admin: true });
        expect(chain.json).toMatchObject({ intact: true });
      }

      // A database a newer issuer migrated: this code refuses to start on it, in one line.
      await outsideQuery(
        a,
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'from a newer issuer', 0)",
      );
      const refused = await startTestIssuer(shared).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SchemaError);
      expect((refused as SchemaError).code).toBe('SCHEMA_TOO_NEW');
    } finally {
      for (const instance of instances) await instance.dispose();
      await database.drop();
    }
  }, 60_000);
});
