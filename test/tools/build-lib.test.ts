// buildLib compiles where it is told. The benches compile their own copy of the library
// (bench/library.ts) with it: into a directory of their own, so `dist/lib`, which `npm pack`
// ships, is left alone, and without type declarations, which only consumers of the package need.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildLib } from '../../tools/build-lib.ts';

// Inside the repository, so the compiled files find its node_modules (test/**/.tmp-* is ignored by git).
const here = fileURLToPath(new URL('.', import.meta.url));

describe('buildLib', () => {
  it('compiles into the directory it is given, without declarations when asked, and the result runs', async () => {
    const outDir = await mkdtemp(join(here, '.tmp-build-lib-'));
    try {
      const report = await buildLib({ outDir, declarations: false });
      expect(report.outDir).toBe(outDir);
      const files = (await readdir(outDir, { recursive: true })).map(String);
      expect(files).toContain(join('wallet', 'index.js'));
      expect(files.filter((file) => file.endsWith('.d.ts'))).toEqual([]);
      const wallet = (await import(pathToFileURL(join(outDir, 'wallet', 'index.js')).href)) as {
        canonicalizeJson: (value: unknown) => string;
      };
      expect(wallet.canonicalizeJson({ b: 1, a: [true, null] })).toBe('{"a":[true,null],"b":1}');
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  }, 120_000);
});
