/**
 * `npm run build:issuer`: compiles the issuer (issuer/main.ts and everything it imports) to
 * JavaScript in dist/issuer/ (tsconfig.issuer.json), so `npm run start:prod` — `node
 * dist/issuer/issuer/main.js` — runs it with plain Node: no tsx, vite or TypeScript at runtime,
 * after `npm ci --omit=dev`.
 *
 * tsc rather than a bundler, as tools/build-lib.ts does: the sources import each other by their
 * `.ts` names and tsc rewrites those to `.js` (`rewriteRelativeImportExtensions`), it type-checks
 * what it emits, and one emitted file per source keeps stack traces pointing at the code. esbuild
 * would be faster but is only a transitive dev dependency (of tsx).
 *
 * The build then reads every package the emitted code imports and fails if one is not a runtime
 * dependency (the root's `dependencies` or the issuer workspace's): `npm ci --omit=dev` would
 * not install it, and the issuer would fail on its first import in production.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
export const ISSUER_DIR = join(root, 'dist', 'issuer');
/** The entry point of the build, relative to the package root. */
export const ISSUER_MAIN = join('dist', 'issuer', 'issuer', 'main.js');

/**
 * Bare specifiers of the statements tsc emits: `import … from '…'` and `export … from '…'` at the
 * start of a line, `import '…'`, and dynamic `import('…')`. (Not any `from '…'`: SQL in template
 * strings has those too.)
 */
const SPECIFIERS = [
  /^\s*(?:import|export)\b[^'";]*?\bfrom\s*(['"])([^'"./][^'"]*)\1/gm,
  /^\s*import\s*(['"])([^'"./][^'"]*)\1/gm,
  /\bimport\(\s*(['"])([^'"./][^'"]*)\1\s*\)/g,
];

/** The package a bare specifier names: `@scope/name` or `name` (a subpath dropped); undefined for a built-in. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Every package imported by the JavaScript files under `dir`. */
export async function importedPackages(dir: string): Promise<Set<string>> {
  const packages = new Set<string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const source = await readFile(join(entry.parentPath, entry.name), 'utf8');
    for (const pattern of SPECIFIERS) {
      for (const match of source.matchAll(pattern)) {
        const name = packageOf(match[2] ?? '');
        if (name !== undefined) packages.add(name);
      }
    }
  }
  return packages;
}

/** The packages `npm ci --omit=dev` installs for the issuer: the root's and the workspace's `dependencies`. */
export async function runtimeDependencies(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const manifest of ['package.json', join('issuer', 'package.json')]) {
    const parsed = JSON.parse(await readFile(join(root, manifest), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const name of Object.keys(parsed.dependencies ?? {})) names.add(name);
  }
  return names;
}

export interface IssuerBuildReport {
  outDir: string;
  files: number;
  packages: string[];
}

/** Empties dist/issuer/ and compiles into it; rejects with tsc's diagnostics or the missing dependencies. */
export async function buildIssuer(): Promise<IssuerBuildReport> {
  await rm(ISSUER_DIR, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', join(root, 'tsconfig.issuer.json')], { cwd: root });
  } catch (error) {
    const { stdout } = error as { stdout?: string };
    throw new Error(`tsc -p tsconfig.issuer.json failed:\n${stdout ?? String(error)}`, { cause: error });
  }
  const imported = await importedPackages(ISSUER_DIR);
  const runtime = await runtimeDependencies();
  const missing = [...imported].filter((name) => !runtime.has(name)).sort();
  if (missing.length > 0)
    throw new Error(
      `the compiled issuer imports ${missing.join(', ')}, which npm ci --omit=dev does not install: add to issuer/package.json dependencies`,
    );
  const files = (await readdir(ISSUER_DIR, { recursive: true })).filter((name) => String(name).endsWith('.js')).length;
  return { outDir: ISSUER_DIR, files, packages: [...imported].sort() };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const report = await buildIssuer();
    console.log(
      `built the issuer: ${report.files} files into ${report.outDir} (imports ${report.packages.join(', ')})`,
    );
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
