// docs/operations.md §Configuration documents every environment variable of the issuer. Its
// table is generated from issuer/config/env-schema.ts (`npm run docs:config`), the same entries
// loadConfig validates with, so a variable, default or range changed in one place only fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES, type EnvVariable } from '../../issuer/config/env-schema.ts';
import { loadConfig } from '../../issuer/config/index.ts';
import { configTable, OPERATIONS_DOC, withConfigTable } from '../../tools/config-docs.ts';

const variables: [string, EnvVariable][] = Object.entries(ENV_VARIABLES);

describe('the configuration table of docs/operations.md', () => {
  it('is the one generated from the environment schema (run `npm run docs:config` after changing it)', () => {
    const doc = readFileSync(OPERATIONS_DOC, 'utf8');
    expect(withConfigTable(doc)).toBe(doc);
  });

  it('has one row per variable, in the schema order', () => {
    const names = [...configTable().matchAll(/^\| `([A-Z_0-9]+)` \|/gm)].map((m) => m[1]);
    expect(names).toEqual(Object.keys(ENV_VARIABLES));
  });

  it('states the ranges the schema enforces: each bound accepted, one beyond it refused', () => {
    const ranged = variables.flatMap(([name, variable]) => {
      const range = /(\d+)–(\d+)/.exec(variable.doc);
      return range === null ? [] : [{ name, variable, min: Number(range[1]), max: Number(range[2]) }];
    });
    expect(ranged.map((r) => r.name)).toContain('SERVICE_WORKERS');
    for (const { name, variable, min, max } of ranged) {
      const accepts = (value: number) => variable.schema.safeParse(String(value)).success;
      expect([accepts(min - 1), accepts(min), accepts(max), accepts(max + 1)], name).toEqual([
        false,
        true,
        true,
        false,
      ]);
    }
  });

  it('shows the defaults loadConfig applies', () => {
    const config = loadConfig({ NODE_ENV: 'test', SERVICE_SQLITE_PATH: ':memory:' });
    const table = configTable();
    const shown = (name: string) => new RegExp(`^\\| \`${name}\` \\| ([^|]+) \\|`, 'm').exec(table)?.[1];
    expect(shown('PORT')).toBe(`\`${config.port}\``);
    expect(shown('SERVICE_BODY_LIMIT_BYTES')).toBe(`\`${config.bodyLimitBytes}\``);
    expect(shown('SERVICE_CREDENTIAL_TTL_SECONDS')).toBe(`\`${config.credentialTtlSeconds}\` (90 days)`);
    expect(shown('SERVICE_WORKERS')).toBe(`\`${config.workers}\``);
    expect(shown('SERVICE_OPEN_ENROLLMENT')).toBe(`\`${config.openEnrollment}\``);
    expect(shown('SERVICE_SIGNING_KEY')).toBe('generated (development)');
    expect(shown('SERVICE_REDIS_URL')).toBe('none');
  });
});
