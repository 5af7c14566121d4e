// Start-up configuration: every variable validated, a bad value stops start-up with one clear
// line, production refuses missing keys, development generates them once beside the database.
import { execFile } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, fetchPolicy, loadConfig, withBoundPort } from '../../../issuer/config/index.ts';
import { openDatabase } from '../../../issuer/storage/db.ts';
import { bundled } from '../../support/bundles.ts';
import { tempDir } from '../../support/issuer.ts';

const run = promisify(execFile);
const dirs: string[] = [];
function dbIn(): string {
  const dir = tempDir('mandate-config-');
  dirs.push(dir);
  return join(dir, 'issuer.db');
}
/** `npm start` (issuer/main.ts) with `env`, which must stop: how (undefined if it exited 0). */
function startFailure(
  env: Record<string, string | undefined>,
): Promise<{ code: number; stderr: string; stdout: string } | undefined> {
  return run(process.execPath, [bundled('issuer')], { env, cwd: process.cwd() }).then(
    () => undefined,
    (e: { code: number; stderr: string; stdout: string }) => e,
  );
}

const KEY = 'a'.repeat(64);
// Production refuses keys that are not random, so its fixture's keys are (fixed) random bytes.
const production = {
  NODE_ENV: 'production',
  API_BASE_URL: 'https://issuer.example.com',
  DID_DOMAIN: 'issuer.example.com',
  SERVICE_ADMIN_API_KEY: 'Zq3vN8kXe1RbT0yLw7HsUc5mJp2dGf9A',
  SERVICE_SIGNING_KEY: '9f1c4e7a2b8d05f36e91a4c7d2b58e0f13a6c9d4e7f0b2a58c1d6e93f4a7b20c',
  SERVICE_KEY_ENCRYPTION_KEY: '3a7e0c91f5d24b86a1e9c3f70d5b28e4c6a1f93d07b5e28c4f1a69d3e0b7c52f',
};

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

afterAll(async () => {
  const { rmSync } = await import('node:fs');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('what the issuer fetches, and who may introspect', () => {
  it('fetches only public https in production, whatever API_BASE_URL is; SERVICE_FETCH_PRIVATE_NETWORK opens the private network, with a warning', () => {
    const loopbackProduction = loadConfig({ ...production, API_BASE_URL: 'http://127.0.0.1:8787', DID_METHOD: 'key' });
    expect(fetchPolicy(loopbackProduction)).toEqual({ allowHttpLoopback: false, allowPrivateNetwork: false });
    // Development on loopback reads plain http from loopback (its own did:web, a local provider).
    expect(fetchPolicy(loadConfig({ SERVICE_SQLITE_PATH: dbIn() }))).toEqual({
      allowHttpLoopback: true,
      allowPrivateNetwork: false,
    });
    const opened = loadConfig({ ...production, SERVICE_FETCH_PRIVATE_NETWORK: 'true' });
    expect(fetchPolicy(opened)).toEqual({ allowHttpLoopback: true, allowPrivateNetwork: true });
    expect(opened.warnings.join('\n')).toContain('SERVICE_FETCH_PRIVATE_NETWORK=true');
  });

  it("takes introspection keys held to the admin key's rules, none of them the admin key", () => {
    const other = 'Kp4wQ9zRt2VnX7cLm3HbJ8sFd6Ga1YeU';
    expect(
      loadConfig({ ...production, SERVICE_INTROSPECTION_KEYS: ` ${other} ,Wm5tR8pLq2ZxC7vN4bH1jK9sD3fG6aYe` })
        .introspectionKeys,
    ).toEqual([other, 'Wm5tR8pLq2ZxC7vN4bH1jK9sD3fG6aYe']);
    expect(loadConfig({ ...production }).introspectionKeys).toEqual([]);
    expect(configError({ ...production, SERVICE_INTROSPECTION_KEYS: 'short' }).message).toMatch(
      /^SERVICE_INTROSPECTION_KEYS \(key 1\): must be at least 32 characters/,
    );
    expect(
      configError({ ...production, SERVICE_INTROSPECTION_KEYS: `${other},${production.SERVICE_ADMIN_API_KEY}` })
        .message,
    ).toMatch(/^SERVICE_INTROSPECTION_KEYS \(key 2\): must differ from SERVICE_ADMIN_API_KEY/);
    expect(configError({ ...production, SERVICE_INTROSPECTION_KEYS: 'ab'.repeat(20) }).message).toMatch(
      /^SERVICE_INTROSPECTION_KEYS \(key 1\): is not random/,
    );
  });
});

describe('issuer configuration', () => {
  it('defaults to a development issuer on 127.0.0.1:8787 whose did:web names host and port', () => {
    const config = loadConfig({ SERVICE_SQLITE_PATH: dbIn() });
    expect(config.nodeEnv).toBe('development');
    expect(config.apiBaseUrl).toBe('http://127.0.0.1:8787');
    expect(config.didMethod).toBe('web');
    expect(config.didDomain).toBe('127.0.0.1%3A8787');
    expect(config.storageAdapter).toBe('sqlite');
    expect(config.cacheAdapter).toBe('memory');
    expect(config.bodyLimitBytes).toBe(64 * 1024);
    expect(config.enrollmentTokenTtlSeconds).toBe(900);
    expect(config.ed25519Backend).toBe('adaptive');
    // An ephemeral bind re-derives both from the real port.
    const bound = withBoundPort(config, 40123);
    expect(bound.apiBaseUrl).toBe('http://127.0.0.1:40123');
    expect(bound.didDomain).toBe('127.0.0.1%3A40123');
  });

  it('keeps explicit API_BASE_URL and DID_DOMAIN when the port is bound', () => {
    const config = loadConfig({
      SERVICE_SQLITE_PATH: dbIn(),
      API_BASE_URL: 'https://issuer.example.com/',
      DID_DOMAIN: 'issuer.example.com',
    });
    expect(config.apiBaseUrl).toBe('https://issuer.example.com');
    const bound = withBoundPort(config, 40123);
    expect(bound.apiBaseUrl).toBe('https://issuer.example.com');
    expect(bound.didDomain).toBe('issuer.example.com');
  });

  it('refuses any DID method other than web and key, naming why', () => {
    for (const method of ['ledger', 'ion', 'WEB']) {
      const error = configError({ SERVICE_SQLITE_PATH: dbIn(), DID_METHOD: method });
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toMatch(
        /^DID_METHOD: must be "web" or "key": anchored \(ledger\) DIDs are resolvable, not issuable$/,
      );
    }
    expect(loadConfig({ SERVICE_SQLITE_PATH: dbIn(), DID_METHOD: 'key' }).didDomain).toBeUndefined();
  });

  it('names the variable of every bad value in one line', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: '70000' }, /^PORT: /],
      [{ PORT: 'eighty' }, /^PORT: /],
      [{ NODE_ENV: 'staging' }, /^NODE_ENV: /],
      [{ SERVICE_STORAGE_ADAPTER: 'mysql' }, /^SERVICE_STORAGE_ADAPTER: must be "sqlite" or "postgres"$/],
      [{ SERVICE_CACHE_ADAPTER: 'memcached' }, /^SERVICE_CACHE_ADAPTER: must be "memory" or "redis"$/],
      [{ SERVICE_CACHE_ADAPTER: 'redis' }, /^SERVICE_REDIS_URL: required when SERVICE_CACHE_ADAPTER=redis$/],
      [{ API_BASE_URL: 'not a url' }, /^API_BASE_URL: must be an absolute/],
      [{ API_BASE_URL: 'ftp://example.com' }, /^API_BASE_URL: must use http or https/],
      [{ DID_DOMAIN: 'bad domain/with/slashes' }, /^DID_DOMAIN: /],
      // A path would name a DID whose document did:web looks for at /tenants/acme/did.json, which the issuer does not serve.
      [
        { DID_DOMAIN: 'issuer.example.com:tenants:acme' },
        /^DID_DOMAIN: must be a host with an optional %3A-encoded port and no path/,
      ],
      [{ SERVICE_SIGNING_KEY: 'abcd' }, /^SERVICE_SIGNING_KEY: must be 32 bytes/],
      [{ SERVICE_PREVIOUS_SIGNING_KEYS: 'forget' }, /^SERVICE_PREVIOUS_SIGNING_KEYS: must be "keep" or "drop"/],
      [{ SERVICE_KEY_ENCRYPTION_KEY: 'z'.repeat(64) }, /^SERVICE_KEY_ENCRYPTION_KEY: must be 32 bytes/],
      [
        { SERVICE_SIGNING_KEY: 'c'.repeat(64), SERVICE_KEY_ENCRYPTION_KEY: 'C'.repeat(64) },
        /^SERVICE_KEY_ENCRYPTION_KEY: must differ from SERVICE_SIGNING_KEY/,
      ],
      [{ SERVICE_ADMIN_API_KEY: 'short' }, /^SERVICE_ADMIN_API_KEY: must be at least 32 characters/],
      [
        { SERVICE_ADMIN_API_KEY: 'correct horse battery staple and more words' },
        /^SERVICE_ADMIN_API_KEY: may hold only letters, digits/,
      ],
      [
        { SERVICE_ADMIN_API_KEY: 'key=with=equals=in=the=middle=0123456789ab' },
        /^SERVICE_ADMIN_API_KEY: may hold only letters, digits/,
      ],
      [{ SERVICE_OPEN_ENROLLMENT: 'yes' }, /^SERVICE_OPEN_ENROLLMENT: /],
      [{ LOG_LEVEL: 'verbose' }, /^LOG_LEVEL: /],
      [{ SERVICE_ED25519_BACKEND: 'openssl' }, /^SERVICE_ED25519_BACKEND: /],
    ];
    for (const [env, message] of cases) {
      const error = configError({ SERVICE_SQLITE_PATH: dbIn(), ...env });
      expect(error.code, JSON.stringify(env)).toBe('CONFIG_INVALID');
      expect(error.message, JSON.stringify(env)).toMatch(message);
      expect(error.message).not.toContain('\n');
    }
  });

  it('reports every problem of a start at once, one line each naming its variable', () => {
    // Eight mistakes in one production environment: all of them in one error, in one start.
    const { API_BASE_URL: _a, SERVICE_SIGNING_KEY: _s, ...partial } = production;
    const error = configError({
      ...partial,
      SERVICE_SQLITE_PATH: dbIn(),
      PORT: 'eighty',
      LOG_LEVEL: 'verbose',
      DID_DOMAIN: '203.0.113.7',
      SERVICE_OPEN_ENROLLMENT: 'true',
      SERVICE_ADMIN_API_KEY: 'short',
      SERVICE_KEY_ENCRYPTION_KEY: 'abcd',
      SERVICE_CACHE_ADAPTER: 'redis',
    });
    const variables = error.problems.map((problem) => problem.split(':')[0]).sort();
    expect(variables).toEqual(
      [
        'API_BASE_URL',
        'DID_DOMAIN',
        'LOG_LEVEL',
        'PORT',
        'SERVICE_ADMIN_API_KEY',
        'SERVICE_KEY_ENCRYPTION_KEY',
        'SERVICE_OPEN_ENROLLMENT',
        'SERVICE_REDIS_URL',
        'SERVICE_SIGNING_KEY',
      ].sort(),
    );
    for (const problem of error.problems) expect(problem).not.toContain('\n');
    expect(error.problems).toContain(
      "SERVICE_SIGNING_KEY: required in production (generate with: node -e \"console.log(require('crypto').randomBytes(32).toString('hex'))\")",
    );
    expect(error.message).toBe(`9 problems: ${error.problems.join('; ')}`);
    // Development: two bad values, and the secrets generated meanwhile are not written.
    const dbPath = dbIn();
    const dev = configError({ SERVICE_SQLITE_PATH: dbPath, PORT: '70000', SERVICE_WORKERS: '0' });
    expect(dev.problems.map((problem) => problem.split(':')[0])).toEqual(['PORT', 'SERVICE_WORKERS']);
    expect(() => statSync(join(dbPath, '..', 'issuer-secrets.json'))).toThrow();
  });

  it('requires the keys, API_BASE_URL and DID_DOMAIN in production and never generates them', () => {
    const dbPath = dbIn();
    for (const name of ['SERVICE_ADMIN_API_KEY', 'SERVICE_SIGNING_KEY', 'SERVICE_KEY_ENCRYPTION_KEY'] as const) {
      const env: Record<string, string> = { ...production, SERVICE_SQLITE_PATH: dbPath };
      delete env[name];
      const error = configError(env);
      expect(error.code).toBe('CONFIG_MISSING');
      expect(error.message).toMatch(new RegExp(`^${name}: required in production`));
    }
    const { API_BASE_URL: _a, ...noBase } = production;
    expect(configError({ ...noBase, SERVICE_SQLITE_PATH: dbPath }).message).toMatch(
      /^API_BASE_URL: required in production/,
    );
    const { DID_DOMAIN: _d, ...noDomain } = production;
    expect(configError({ ...noDomain, SERVICE_SQLITE_PATH: dbPath }).message).toMatch(
      /^DID_DOMAIN: required with DID_METHOD=web in production/,
    );
    expect(
      configError({ ...production, SERVICE_SQLITE_PATH: dbPath, API_BASE_URL: 'http://issuer.example.com' }).message,
    ).toMatch(/must be https in production/);
    expect(
      configError({ ...production, SERVICE_SQLITE_PATH: dbPath, SERVICE_OPEN_ENROLLMENT: 'true' }).message,
    ).toMatch(/^SERVICE_OPEN_ENROLLMENT: must not be true in production/);
    for (const domain of ['203.0.113.7', '10.0.0.5%3A8443']) {
      expect(configError({ ...production, SERVICE_SQLITE_PATH: dbPath, DID_DOMAIN: domain }).message).toMatch(
        /^DID_DOMAIN: must be a DNS name in production/,
      );
    }
    // A placeholder left in the environment: a repeated character, all-zero or two alternating bytes.
    for (const [name, value] of [
      ['SERVICE_ADMIN_API_KEY', 'x'.repeat(40)],
      ['SERVICE_ADMIN_API_KEY', 'abc12'.repeat(8)],
      ['SERVICE_SIGNING_KEY', '00'.repeat(32)],
      ['SERVICE_KEY_ENCRYPTION_KEY', 'ab01'.repeat(16)],
    ] as const) {
      const error = configError({ ...production, SERVICE_SQLITE_PATH: dbPath, [name]: value });
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toMatch(new RegExp(`^${name}: is not random \\(a placeholder\\?\\); generate one with`));
    }
    // Development accepts them: tests and demos use fixed, readable keys.
    expect(
      loadConfig({
        SERVICE_SQLITE_PATH: ':memory:',
        SERVICE_ADMIN_API_KEY: 'x'.repeat(40),
        SERVICE_SIGNING_KEY: '00'.repeat(32),
        SERVICE_KEY_ENCRYPTION_KEY: 'ab01'.repeat(16),
      }).adminApiKey,
    ).toBe('x'.repeat(40));
    const config = loadConfig({ ...production, SERVICE_SQLITE_PATH: dbPath });
    expect(config.generatedSecrets).toEqual([]);
    expect(config.secretsFile).toBeUndefined();
    expect(() => statSync(join(dbPath, '..', 'issuer-secrets.json'))).toThrow();
  });

  it('generates missing development keys once, beside the database, mode 0600, and re-reads them', () => {
    const dbPath = dbIn();
    const first = loadConfig({ SERVICE_SQLITE_PATH: dbPath });
    const file = join(dbPath, '..', 'issuer-secrets.json');
    expect(first.secretsFile).toBe(file);
    expect(first.generatedSecrets).toEqual([
      'SERVICE_ADMIN_API_KEY',
      'SERVICE_SIGNING_KEY',
      'SERVICE_KEY_ENCRYPTION_KEY',
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The warning names the file, never the admin key itself.
    expect(first.warnings.join(' ')).toContain(file);
    expect(first.warnings.join(' ')).not.toContain(first.adminApiKey);
    const second = loadConfig({ SERVICE_SQLITE_PATH: dbPath });
    expect(second.generatedSecrets).toEqual([]);
    expect(second.adminApiKey).toBe(first.adminApiKey);
    expect(second.signingKey).toEqual(first.signingKey);
    expect(second.keyEncryptionKey).toEqual(first.keyEncryptionKey);
    // A key given in the environment wins over the file.
    expect(loadConfig({ SERVICE_SQLITE_PATH: dbPath, SERVICE_SIGNING_KEY: KEY }).signingKey).toEqual(
      new Uint8Array(32).fill(0xaa),
    );
  });

  it('two issuers started at once on a fresh directory keep the same secrets: the file is created once, never overwritten', async () => {
    const dbPath = dbIn();
    const file = join(dbPath, '..', 'issuer-secrets.json');
    // Each process loads the configuration module first, then all read and write at one instant.
    const startAt = Date.now() + 4000;
    const outputs = await Promise.all(
      Array.from({ length: 6 }, () =>
        run(process.execPath, [bundled('load-config-at'), dbPath, String(startAt)], {
          cwd: process.cwd(),
        }),
      ),
    );
    const onDisk = JSON.parse(readFileSync(file, 'utf8')) as {
      signingKey: string;
      keyEncryptionKey: string;
      adminApiKey: string;
    };
    for (const { stdout } of outputs) expect(JSON.parse(stdout)).toEqual(onDisk);
  });

  it('keeps the database readable by its user only: a new directory 0700, the file and its WAL 0600', () => {
    const path = join(dbIn(), '..', 'data', 'issuer.db');
    const db = openDatabase(path);
    db.sqlite.exec('CREATE TABLE probe (x); INSERT INTO probe VALUES (1)');
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
    db.close();
    // A file left readable by an older version is tightened on the next open.
    chmodSync(path, 0o644);
    openDatabase(path).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('refuses a corrupt secrets file with one line naming it', () => {
    const dbPath = dbIn();
    const file = join(dbPath, '..', 'issuer-secrets.json');
    writeFileSync(file, '{not json', { mode: 0o600 });
    const error = configError({ SERVICE_SQLITE_PATH: dbPath });
    expect(error.code).toBe('SECRETS_FILE_INVALID');
    expect(error.message).toContain(file);
    expect(error.message).toContain('restore it');
    writeFileSync(file, JSON.stringify({ signingKey: 42 }));
    expect(configError({ SERVICE_SQLITE_PATH: dbPath }).code).toBe('SECRETS_FILE_INVALID');
    writeFileSync(file, JSON.stringify({ signingKey: 'nothex' }));
    expect(configError({ SERVICE_SQLITE_PATH: dbPath }).message).toMatch(
      new RegExp(`^SERVICE_SIGNING_KEY: must be 32 bytes .*\\(${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\)$`),
    );
    expect(readFileSync(file, 'utf8')).toContain('nothex');
  });

  it('refuses a secrets file others may read or write (someone else could have planted or read it)', () => {
    const dbPath = dbIn();
    const file = join(dbPath, '..', 'issuer-secrets.json');
    writeFileSync(file, JSON.stringify({ adminApiKey: 'planted-by-someone-else-0123456789abcdef' }), { mode: 0o644 });
    chmodSync(file, 0o644);
    const error = configError({ SERVICE_SQLITE_PATH: dbPath });
    expect(error.code).toBe('SECRETS_FILE_INVALID');
    expect(error.message).toMatch(/is not used: its group or others have access \(mode 644; chmod 600 it\)/);
    chmodSync(file, 0o600);
    expect(loadConfig({ SERVICE_SQLITE_PATH: dbPath }).adminApiKey).toBe('planted-by-someone-else-0123456789abcdef');
  });

  it('warns when enrollment is open (development only)', () => {
    const config = loadConfig({ SERVICE_SQLITE_PATH: dbIn(), SERVICE_OPEN_ENROLLMENT: 'true' });
    expect(config.openEnrollment).toBe(true);
    expect(config.warnings.some((w) => w.startsWith('SERVICE_OPEN_ENROLLMENT=true'))).toBe(true);
  });

  it('npm start stops with exactly one line on stderr and exit code 1 for a bad value', async () => {
    const env = { ...process.env, SERVICE_SQLITE_PATH: dbIn(), DID_METHOD: 'ledger', LOG_LEVEL: 'silent' };
    const error = await startFailure(env);
    expect(error?.code).toBe(1);
    expect(error?.stdout).toBe('');
    const lines = (error?.stderr ?? '').trimEnd().split('\n');
    expect(lines).toEqual([
      'mandate-issuer: configuration error: DID_METHOD: must be "web" or "key": anchored (ledger) DIDs are resolvable, not issuable',
    ]);
  });

  it('npm start in production with several bad variables names every one, one line each, in one start', async () => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ...production,
      SERVICE_SQLITE_PATH: dbIn(),
      PORT: 'eighty',
      DID_DOMAIN: '10.0.0.5',
      SERVICE_ADMIN_API_KEY: 'short',
      SERVICE_OPEN_ENROLLMENT: 'true',
      SERVICE_STORAGE_ADAPTER: 'postgres',
      SERVICE_CACHE_ADAPTER: 'redis',
      SERVICE_INTROSPECTION_KEYS: 'too-short',
    };
    delete env.API_BASE_URL;
    delete env.SERVICE_DATABASE_URL;
    delete env.SERVICE_REDIS_URL;
    const error = await startFailure(env);
    expect(error?.code).toBe(1);
    expect(error?.stdout).toBe('');
    const lines = (error?.stderr ?? '').trimEnd().split('\n');
    const prefix = 'mandate-issuer: configuration error: ';
    for (const line of lines) expect(line.startsWith(prefix), line).toBe(true);
    expect(lines.map((line) => line.slice(prefix.length).split(/[: ]/)[0]).sort()).toEqual(
      [
        'API_BASE_URL',
        'DID_DOMAIN',
        'PORT',
        'SERVICE_ADMIN_API_KEY',
        'SERVICE_DATABASE_URL',
        'SERVICE_INTROSPECTION_KEYS',
        'SERVICE_OPEN_ENROLLMENT',
        'SERVICE_REDIS_URL',
      ].sort(),
    );
  });

  it('npm start in production without keys stops with one line', async () => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ...production,
      SERVICE_SQLITE_PATH: dbIn(),
      SERVICE_SIGNING_KEY: undefined,
    };
    delete env.SERVICE_SIGNING_KEY;
    const error = await startFailure(env);
    expect(error?.code).toBe(1);
    const lines = (error?.stderr ?? '').trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mandate-issuer: configuration error: SERVICE_SIGNING_KEY: required in production/);
  });
});
