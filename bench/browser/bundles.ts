// What the browser bench serves, built fresh by Vite on every run so it matches the sources:
// - bench-page.js: the wallet's sources and the page-side bench (bench/browser/page.ts);
// - bench-sw.js: the bench's own service worker (bench/browser/worker.ts), the same cases in a
//   ServiceWorkerGlobalScope, a classic script like the production worker;
// - verifier-sw.js and verifier-register.js: the production worker and its page helper, built
//   exactly as `npm run build` builds them (verifier-worker/vite.sw.config.ts BUNDLES).
import { execFileSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { BUNDLES, bundleConfig, type BundleSpec } from '../../verifier-worker/vite.sw.config.ts';
import type { Scripts } from './server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT_DIR = join(ROOT, 'dist/bench-browser/');

const BENCH_BUNDLES: readonly BundleSpec[] = [
  { fileName: 'bench-page.js', entry: 'bench/browser/page.ts', format: 'es' },
  { fileName: 'bench-sw.js', entry: 'bench/browser/worker.ts', format: 'iife' },
];
const PRODUCTION = new Set(['verifier-sw.js', 'verifier-register.js']);

export interface Built {
  /** Every script by the path it is served at. */
  scripts: Scripts;
  /** Minified sizes, KB (1000 bytes). */
  sizesKB: Record<string, number>;
  /** The commit the production worker was built from ("+dirty": with uncommitted changes). */
  workerCommit: string;
}

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

/** HEAD, marked when the worker's or the wallet's sources differ from it. */
function sourceCommit(): string {
  const head = git('rev-parse', '--short', 'HEAD');
  return git('status', '--porcelain', '--', 'verifier-worker', 'wallet') === '' ? head : `${head}+dirty`;
}

/** Builds `spec` into OUT_DIR and returns its code. */
async function bundle(spec: BundleSpec): Promise<string> {
  await rm(join(OUT_DIR, spec.fileName), { force: true });
  await build(bundleConfig(spec, OUT_DIR));
  return readFile(join(OUT_DIR, spec.fileName), 'utf8');
}

/** One build after another: the machine is shared, and the builds share most modules. */
export async function buildScripts(): Promise<Built> {
  const specs = [...BENCH_BUNDLES, ...BUNDLES.filter((spec) => PRODUCTION.has(spec.fileName))];
  const built: Built = { scripts: {}, sizesKB: {}, workerCommit: sourceCommit() };
  for (const spec of specs) {
    const code = await bundle(spec);
    built.scripts[`/${spec.fileName}`] = code;
    built.sizesKB[spec.fileName] = Math.round(code.length / 100) / 10;
  }
  return built;
}
