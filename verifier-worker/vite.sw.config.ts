/**
 * Vite builds of the browser-side verifier, kept apart from the root vite.config.ts (which
 * configures the test projects). Each bundle is ONE minified file:
 * - `verifier-sw.js`: the service worker, a classic script (IIFE). A module worker
 *   (`type: 'module'`) would allow static imports, but dynamic `import()` is refused in service
 *   workers either way (HTML §8.1.5.1 "HostLoadImportedModule": ServiceWorkerGlobalScope), so
 *   every dependency is inlined and nothing can be loaded lazily;
 * - `verifier-register.js`: the page helper (ES module);
 * - `verify-only.js`: the "verify only" wallet entry (ES module), built to watch its size.
 *
 * `npm run build` (verifier-worker/build.ts) runs all three and prints their sizes; this file
 * also works alone: `npx vite build -c verifier-worker/vite.sw.config.ts` builds the worker.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type InlineConfig } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface BundleSpec {
  /** Output file name inside outDir. */
  fileName: string;
  /** Entry module, relative to the repository root. */
  entry: string;
  format: 'iife' | 'es';
  /** Module replacements for this bundle only (see the shims' own notes). */
  aliases?: Record<string, string>;
  /** Compile-time constants for this bundle only. */
  define?: Record<string, string>;
}

/**
 * Module replacements of the worker bundle (noble's Ed25519, the node:crypto backend, the
 * verified-credential cache, signed-request verification), each explained in its file and in
 * docs/verifier.md §Size.
 */
const SHIMS = Object.freeze({
  '@noble/curves/ed25519.js': `${root}verifier-worker/sw/shims/noble-ed25519.ts`,
  // The specifiers as their only importers write them (wallet/crypto/ed25519.ts, request.ts).
  './ed25519-noble.ts': `${root}verifier-worker/sw/shims/ed25519-noble.ts`,
  './ed25519-node.ts': `${root}verifier-worker/sw/shims/ed25519-node.ts`,
  '../wallet/vc/credential-cache.ts': `${root}verifier-worker/sw/shims/credential-cache.ts`,
  // As request.ts and options.ts write it: the worker does not verify signed requests (yet).
  '../wallet/vc/signed-request.ts': `${root}verifier-worker/sw/shims/signed-request.ts`,
});

/**
 * A service worker has no `process` (Service Workers §4.1: a WorkerGlobalScope), so the
 * wallet's node:crypto probes (`globalThis.process?.getBuiltinModule?.(…)`, crypto/hash.ts and
 * crypto/ed25519-node.ts) are known to find nothing; saying so lets the minifier drop them.
 */
const WORKER_GLOBALS = Object.freeze({ 'globalThis.process': 'undefined' });

export const BUNDLES: readonly BundleSpec[] = Object.freeze([
  {
    fileName: 'verifier-sw.js',
    entry: 'verifier-worker/sw/worker.ts',
    format: 'iife',
    aliases: SHIMS,
    define: WORKER_GLOBALS,
  },
  { fileName: 'verifier-register.js', entry: 'verifier-worker/sw/register.ts', format: 'es' },
  { fileName: 'verify-only.js', entry: 'wallet/verify-only.ts', format: 'es' },
]);

/** The Vite configuration of one bundle, written to `outDir` (absolute, or relative to the repository root). */
export function bundleConfig(spec: BundleSpec, outDir = 'dist'): InlineConfig {
  return {
    configFile: false,
    root,
    logLevel: 'warn',
    publicDir: false,
    resolve: { alias: spec.aliases ?? {} },
    define: spec.define ?? {},
    build: {
      outDir,
      emptyOutDir: false,
      copyPublicDir: false,
      // Chromium, Firefox and Safari versions with WebCrypto Ed25519 all run ES2022.
      target: 'es2022',
      minify: 'oxc',
      sourcemap: false,
      reportCompressedSize: false,
      lib: {
        entry: `${root}${spec.entry}`,
        formats: [spec.format],
        // An IIFE needs a global name; the worker exports nothing, so it stays unused.
        name: 'MandateVerifier',
        fileName: () => spec.fileName,
      },
      // Vite keeps whitespace in ES library output (for consumers' tree shaking); these bundles
      // are measured and served as they are, so they are minified completely.
      rolldownOptions: { output: { codeSplitting: false, minify: true } },
    },
  };
}

export default defineConfig(bundleConfig(BUNDLES[0] as BundleSpec));
