// The programs the tests run as child processes (the issuer, and small helper processes that
// import its modules), bundled once per run by the global setup (./global-setup.ts), so that each
// child is `node <bundle>.mjs`.
//
// Why not `node --import tsx <file>.ts`, as `npm start` does: tsx resolves and transforms every
// module of the graph through its loader on every start. Measured on the 2-core box: ~4 CPU-s
// and 6 s wall to "issuer started" under tsx, ~1 CPU-s and 1.2 s from the bundle; the quick run
// starts about 25 such children. The bundle is the same sources (packages stay external, so
// node_modules is what production loads), built by esbuild, which tsx and Vite already use.
// The `npm start` path itself, through tsx, keeps its test (test/issuer/http.test.ts).
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Four directories under the package root, as the compiled issuer's files are
 * (dist/issuer/issuer/routes/): issuer/routes/console.ts finds the package root from its own URL.
 */
const OUT_DIR = join(ROOT, 'dist', 'test', 'bundles', 'children');

/** Each bundled program: its output name and its source, relative to the package root. */
const PROGRAMS = {
  issuer: 'issuer/main.ts',
  'load-config-at': 'test/support/load-config-at.ts',
  'verifier-process': 'test/support/verifier-process.ts',
  'crash-on-signal': 'test/support/crash-on-signal.ts',
  'credential-store-file': 'wallet/client/credential-store-file.ts',
} as const;

export type BundledProgram = keyof typeof PROGRAMS;

/** The absolute path of a program's bundle (built by `buildBundles` before any test runs). */
export function bundled(program: BundledProgram): string {
  return join(OUT_DIR, `${program}.mjs`);
}

/**
 * Bundles every program of PROGRAMS into OUT_DIR (about a second). Each file is written beside
 * its place and renamed into it, so a run that starts while another rebuilds (two projects'
 * setups, or two runs in one checkout) never starts a half-written bundle.
 */
export async function buildBundles(): Promise<void> {
  const result = await build({
    write: false,
    absWorkingDir: ROOT,
    entryPoints: Object.entries(PROGRAMS).map(([out, source]) => ({ in: source, out })),
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    logLevel: 'warning',
  });
  for (const file of result.outputFiles) {
    await mkdir(dirname(file.path), { recursive: true });
    const partial = `${file.path}.${process.pid}.partial`;
    await writeFile(partial, file.contents);
    await rename(partial, file.path);
  }
}
