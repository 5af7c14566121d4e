// tools/build-issuer.ts refuses a build whose compiled code imports a package `npm ci
// --omit=dev` would not install: it reads the bare specifiers of the emitted import and export
// statements (and dynamic imports), not any `from '…'` in a string. The full path — build, a
// clean copy, `npm ci --omit=dev`, `node dist/issuer/issuer/main.js` — is `npm run check:prod`,
// a CI step (.ci/run), since the install alone takes minutes where better-sqlite3 compiles.
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importedPackages, packageOf, runtimeDependencies } from '../../tools/build-issuer.ts';

describe('the issuer build dependency check', () => {
  it('names the package of a specifier, and nothing for built-ins', () => {
    expect(packageOf('hono/cors')).toBe('hono');
    expect(packageOf('@hono/node-server/conninfo')).toBe('@hono/node-server');
    expect(packageOf('@noble/curves/ed25519.js')).toBe('@noble/curves');
    expect(packageOf('node:fs')).toBeUndefined();
    expect(packageOf('fs')).toBeUndefined();
  });

  it('finds static, re-exported, side-effect and dynamic imports, and ignores SQL in strings', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mandate-build-issuer-'));
    try {
      await mkdir(join(dir, 'nested'));
      await writeFile(
        join(dir, 'a.js'),
        [
          "import { z } from 'zod';",
          "import {\n  serve,\n  type,\n} from '@hono/node-server';",
          "export { x } from 'jose';",
          "import 'side-effect-package';",
          "const lazy = () => import('jsonld');",
          "import { local } from './local.js';",
          "const sql = `SELECT * FROM 'not_a_package' WHERE a = 1`;",
          'const text = \'import from "also-not"\';',
        ].join('\n'),
      );
      await writeFile(
        join(dir, 'nested', 'b.js'),
        "import Database from 'better-sqlite3';\nimport { x } from 'node:fs';\n",
      );
      expect([...(await importedPackages(dir))].sort()).toEqual([
        '@hono/node-server',
        'better-sqlite3',
        'jose',
        'jsonld',
        'side-effect-package',
        'zod',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('counts the root and the issuer workspace dependencies as runtime, and no development tool', async () => {
    const runtime = await runtimeDependencies();
    for (const name of [
      'zod',
      'jose',
      'hono',
      '@hono/node-server',
      '@hono/zod-openapi',
      'better-sqlite3',
      'pg',
      'ioredis',
    ])
      expect(runtime.has(name)).toBe(true);
    for (const name of ['tsx', 'typescript', 'vite']) expect(runtime.has(name)).toBe(false);
  });
});
