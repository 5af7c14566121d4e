/**
 * `npm run build:lib`: compiles the package's entry points — `mandate/wallet`,
 * `mandate/wallet/node`, `mandate/verifier` and the `mandate` CLI — to JavaScript with type
 * declarations in `dist/lib/`, so the published package runs in plain Node and in any bundler
 * without a TypeScript loader (tsconfig.lib.json).
 *
 * The sources import each other by their `.ts` names. tsc rewrites those specifiers to `.js`
 * in the JavaScript it emits (`rewriteRelativeImportExtensions`) but leaves them as written in
 * declaration files, where only TypeScript ≥ 5 would follow them; this script rewrites them
 * there too, so the declarations read like any other package's.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
export const LIB_DIR = join(root, 'dist', 'lib');

/** A relative specifier ending in `.ts`, in `from '…'`, `import '…'` or `import('…')`. */
const TS_SPECIFIER = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*?)\.ts\2/g;

/** `source` with its relative `.ts` specifiers pointing at the emitted `.js` files. */
export function rewriteDeclarationSpecifiers(source: string): string {
  return source.replace(TS_SPECIFIER, '$1$2$3.js$2');
}

export interface LibBuildReport {
  outDir: string;
  files: number;
  bytes: number;
}

export interface LibBuildOptions {
  /**
   * Where to compile to (default `dist/lib/`), emptied first. It must lie inside this
   * repository, so the compiled files find its node_modules.
   */
  outDir?: string;
  /** Emit type declarations too (default true; code that only runs the output can skip them, and is not type-checked). */
  declarations?: boolean;
}

/** Empties `outDir` and compiles into it; rejects with tsc's diagnostics when it fails. */
export async function buildLib({
  outDir = LIB_DIR,
  declarations = true,
}: LibBuildOptions = {}): Promise<LibBuildReport> {
  await rm(outDir, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const args = [
    tsc,
    '-p',
    join(root, 'tsconfig.lib.json'),
    '--outDir',
    outDir,
    // Without declarations nothing reads the types here, and `npm run typecheck` checks them:
    // emit alone (TS 5.6 --noCheck; safe under isolatedModules) writes the same JavaScript in
    // about a third of the CPU time (6.5 s against 17.9 s, measured on this tree).
    ...(declarations ? [] : ['--declaration', 'false', '--noCheck']),
  ];
  try {
    await promisify(execFile)(process.execPath, args, { cwd: root });
  } catch (error) {
    const { stdout } = error as { stdout?: string };
    throw new Error(`tsc -p tsconfig.lib.json failed:\n${stdout ?? String(error)}`, { cause: error });
  }
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (path.endsWith('.d.ts')) {
      const source = await readFile(path, 'utf8');
      const rewritten = rewriteDeclarationSpecifiers(source);
      if (rewritten !== source) await writeFile(path, rewritten);
    }
    files += 1;
    bytes += (await readFile(path)).length;
  }
  return { outDir, files, bytes };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const report = await buildLib();
    console.log(`built ${report.files} files (${(report.bytes / 1000).toFixed(0)} KB) into ${report.outDir}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
