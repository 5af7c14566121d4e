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
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type InlineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface BundleSpec {
  /** Output file name inside outDir. */
  fileName: string;
  /** Entry module, relative to the repository root. */
  entry: string;
  format: 'iife' | 'es';
  /** Module replacements for this bundle only (see SHIMS and the shims' own notes). */
  shims?: Readonly<Record<string, string>>;
  /** Compile-time constants for this bundle only. */
  define?: Record<string, string>;
}

/**
 * Module replacements of the worker bundle, each explained in its file and in docs/verifier.md
 * §Size: by package specifier, or by the repository path of the module replaced (whatever
 * relative specifier its importers write).
 */
const SHIMS: Readonly<Record<string, string>> = Object.freeze({
  '@noble/curves/ed25519.js': 'verifier-worker/sw/shims/noble-ed25519.ts',
  '@noble/hashes/sha2.js': 'wallet/crypto/sha256-compact.ts', // cryptography stays in the crypto core
  '@noble/hashes/utils.js': 'verifier-worker/sw/shims/noble-utils.ts',
  'wallet/crypto/base58.ts': 'verifier-worker/sw/shims/base58.ts',
  'wallet/crypto/ed25519-noble.ts': 'verifier-worker/sw/shims/ed25519-noble.ts',
  'wallet/crypto/ed25519-node.ts': 'verifier-worker/sw/shims/ed25519-node.ts',
  'wallet/crypto/lru.ts': 'verifier-worker/sw/shims/lru.ts',
  'wallet/http-signatures/web-bot-auth.ts': 'verifier-worker/sw/shims/web-bot-auth.ts',
  'wallet/vc/credential-cache.ts': 'verifier-worker/sw/shims/credential-cache.ts',
  'verifier-worker/option-keys.ts': 'verifier-worker/sw/shims/option-keys.ts',
});

/** Resolves the modules `shims` names to their replacements (not inside the replacements themselves). */
function shimPlugin(shims: Readonly<Record<string, string>>): Plugin {
  const isShim = (path: string) => Object.values(shims).some((shim) => path === `${root}${shim}`);
  return {
    name: 'mandate-worker-shims',
    enforce: 'pre',
    resolveId(source, importer) {
      if (importer === undefined || isShim(importer)) return null;
      const key = source.startsWith('.')
        ? relative(root, resolve(dirname(importer), source))
            .split(sep)
            .join('/')
        : source;
      return Object.hasOwn(shims, key) ? `${root}${shims[key]}` : null;
    },
  };
}

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
    shims: SHIMS,
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
    plugins: spec.shims === undefined ? [] : [shimPlugin(spec.shims)],
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
