// The issuer on PostgreSQL: SERVICE_STORAGE_ADAPTER=postgres with SERVICE_DATABASE_URL, validated
// at start-up with one line per mistake (the URL's password never quoted).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Env } from '../../issuer/config.ts';
import { TEST_ADMIN_KEY, tempDir } from '../support/issuer.ts';

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
      'SERVICE_DATABASE_URL: required with SERVICE_STORAGE_ADAPTER=postgres (postgres://user:password@host:5432/database)',
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
    expect(config.warnings).toContain('SERVICE_DATABASE_URL is ignored with SERVICE_STORAGE_ADAPTER=sqlite');
  });
});
