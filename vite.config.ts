/// <reference types="vitest/config" />
// One config for building (later: the verifier worker, the console) and for the Vitest
// projects. Test files live in folders that mirror the product (test/wallet/crypto/…,
// test/issuer/oauth/…, test/verifier/mcp/…, test/cli, test/console, test/docs, test/tools,
// test/conformance: the W3C suites' replays) plus test/e2e (whole systems that need a browser,
// PostgreSQL and Redis deployments, or the packed tarball installed from the npm registry).
// Where a file runs is in its name:
//   x.test.ts          Node only (the `node` project): servers, files, child processes.
//   x.shared.test.ts   BOTH Node and real Chromium, so an isomorphic module is proven identical.
//   x.browser.test.ts  Chromium only (the `browser` project): IndexedDB, service workers, the DOM.
//   x.types.ts         Node, type-checking with the compiler: imported by test/types.test.ts.
// `npm run test:quick` (test/run.mjs --quick) runs the node project without what needs the
// run's PostgreSQL or Redis or a Chromium: test/e2e/**, and files whose name says `postgres`
// or `redis`. A new test that needs one of those goes in test/e2e or says so in its name.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { playwright } from '@vitest/browser-playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './test/support/chromium.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const vectors = fileURLToPath(new URL('../shared/vectors', import.meta.url));

/**
 * The issuer's tests run on both storage adapters: once on SQLite (`node`), once with every test
 * issuer on a fresh PostgreSQL database (`node-postgres`, test/support/issuer.ts). They arrange
 * state through the stores, the API and the clock, never through one adapter's SQL. Left out of
 * the second run, by folder, what it would only repeat: the storage tests bound to one adapter
 * (its file, its schema, its store-contract run), which open their database themselves, and
 * test/issuer/process (configuration, signals, workers), whose issuers are child processes
 * built from their own environment.
 */
const ISSUER_TESTS = ['test/issuer/**/*.test.ts'];
const SAME_ON_EITHER_ADAPTER = [
  'test/issuer/storage/sqlite/**',
  'test/issuer/storage/postgres/**',
  'test/issuer/process/**',
];

/** What `npm run test:quick` leaves out (see the top of this file). */
const NEEDS_SERVERS = ['test/e2e/**', 'test/**/*postgres*.test.ts', 'test/**/*redis*.test.ts'];
const quick = process.env.MANDATE_TEST_QUICK === '1';

export default defineConfig({
  resolve: { alias: { '@vectors': vectors } },
  server: { fs: { allow: [root, vectors] } },
  // Pre-bundle what browser tests import lazily, so Vite does not re-optimize mid-run.
  optimizeDeps: {
    include: [
      '@noble/hashes/scrypt.js',
      '@noble/curves/abstract/edwards.js',
      'idb-keyval',
      'fast-check',
      'canonicalize',
      'multiformats/hashes/sha2',
    ],
  },
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Vitest's default is one file at a time on a 2-core machine (cores - 1), and the node and
    // node-postgres files share that one worker. Much of a file's time is spent waiting on
    // sockets, child processes and the servers it started, so three at a time keep both cores
    // busy (the quick run on 2 cores, quiet: 95 s with two workers, 81 s with three).
    maxWorkers: Math.max(3, availableParallelism() - 1),
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          // One module graph per worker, not per file: re-evaluating the issuer's graph (zod
          // schemas, Hono, drivers) for each of ~100 files cost ~1.3 s a file, 40 % of the run's
          // CPU. Files own their state (servers, temp dirs, clocks) and put back what they replace.
          isolate: false,
          // Added to the root's fixture servers: one PostgreSQL and one Redis for the run.
          globalSetup: quick ? [] : ['test/support/global-servers.ts'],
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.browser.test.ts', ...(quick ? NEEDS_SERVERS : [])],
          testTimeout: 30_000,
        },
      },
      {
        // The issuer's tests again, each test issuer on a fresh PostgreSQL database
        // (test/support/issuer.ts): the same behaviour from both storage adapters.
        extends: true,
        test: {
          name: 'node-postgres',
          environment: 'node',
          isolate: false, // as in `node`
          globalSetup: ['test/support/global-servers.ts'],
          env: { MANDATE_TEST_STORAGE: 'postgres' },
          include: ISSUER_TESTS,
          exclude: ['test/**/*.browser.test.ts', ...SAME_ON_EITHER_ADAPTER],
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/**/*.shared.test.ts', 'test/**/*.browser.test.ts'],
          testTimeout: 30_000,
          browser: {
            enabled: true,
            headless: true,
            // One page at a time, as before maxWorkers was raised: files share the origin's
            // IndexedDB and service-worker registrations.
            fileParallelism: false,
            screenshotFailures: false,
            provider: playwright({
              launchOptions: {
                executablePath: CHROMIUM_PATH,
                args: [...CHROMIUM_ARGS],
              },
            }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
    ],
  },
});
