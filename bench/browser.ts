// Verification in real Chromium (issue 41 §5): a presentation and a signed request with a cached
// chain (bench/browser/cases.ts, the two cases of bench/signed-request.ts), verified in a page
// with the wallet's WebCrypto Ed25519 backend and with its noble fallback, and the same cases in
// this Node process (compiled package, default backend) in the same run: the ratios are
// Chromium's rate over Node's, each the median of three alternated rounds.
//
// The page loads the wallet's sources bundled by Vite (bench/browser/page.ts) from a local
// server on 127.0.0.1 (a secure context, so WebCrypto Ed25519 is there). Chromium is
// CHROMIUM_PATH or /usr/bin/chromium, driven by Playwright. Counts are fixed (not timed
// budgets): BENCH_BROWSER_COUNT verifications per case (default 600; noble a sixth of it).
// Not measured here: verification inside the service worker, and the worker's added latency
// per intercepted request.
//
//   npm run bench -- browser
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { build } from 'vite';
import { bundleConfig } from '../verifier-worker/vite.sw.config.ts';
import { benchCases, type Timed } from './browser/cases.ts';
import { shippedWallet } from './library.ts';
import { median, round } from './measure.ts';

const OUT_DIR = fileURLToPath(new URL('../dist/bench-browser/', import.meta.url));
const PAGE_BUNDLE = 'bench-page.js';
const COUNT = Number(process.env.BENCH_BROWSER_COUNT ?? 600);
const NOBLE_COUNT = Math.ceil(COUNT / 6);
const ROUNDS = 3;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
];

type Cases = { presentation: Timed; cachedChain: Timed };

/** The page bundle: the wallet's sources and the cases, one minified ES module. */
async function bundlePage(): Promise<string> {
  await rm(join(OUT_DIR, PAGE_BUNDLE), { force: true });
  await build(bundleConfig({ fileName: PAGE_BUNDLE, entry: 'bench/browser/page.ts', format: 'es' }, OUT_DIR));
  return readFile(join(OUT_DIR, PAGE_BUNDLE), 'utf8');
}

/** Serves an empty page and the bundle on 127.0.0.1; runs `body` against its origin. */
async function serving<T>(code: string, body: (origin: string) => Promise<T>): Promise<T> {
  const server = createServer((req, res) => {
    if (req.url === `/${PAGE_BUNDLE}`) {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bench</title>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

interface Rounds {
  version: string;
  node: Cases[];
  webcrypto: Cases[];
  noble: Cases[];
}

/**
 * ROUNDS rounds of Node, then Chromium with WebCrypto, then Chromium with noble, alternated in
 * one run so that each sees the shared machine's load of the moment; the rates reported are
 * the medians over rounds.
 */
async function alternated(origin: string, node: () => Promise<Cases>): Promise<Rounds> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    await page.addScriptTag({ url: `/${PAGE_BUNDLE}`, type: 'module' });
    await page.waitForFunction(() => 'mandateBench' in globalThis);
    const inPage = (backend: 'webcrypto' | 'noble', count: number) =>
      page.evaluate(
        ([b, n]) =>
          (globalThis as unknown as { mandateBench: (b: string, n: number) => Promise<Cases> }).mandateBench(b, n),
        [backend, count] as const,
      );
    const rounds: Rounds = { version: browser.version(), node: [], webcrypto: [], noble: [] };
    for (let round = 0; round < ROUNDS; round++) {
      rounds.node.push(await node());
      rounds.webcrypto.push(await inPage('webcrypto', COUNT));
      rounds.noble.push(await inPage('noble', NOBLE_COUNT));
    }
    return rounds;
  } finally {
    await browser.close();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  // `npm run bench` runs every bench: on a machine without Chromium this one says so instead.
  if (!existsSync(CHROMIUM)) return { skipped: `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)` };
  const wallet = await shippedWallet();
  const code = await bundlePage();
  const loadBefore = loadavg();
  const rounds = await serving(code, (origin) => alternated(origin, () => benchCases(wallet, 'auto', COUNT)));
  const loadAfter = loadavg();
  const rates = (runs: Cases[]) => ({
    presentation: median(runs.map((c) => c.presentation.opsPerSec)),
    cachedChain: median(runs.map((c) => c.cachedChain.opsPerSec)),
  });
  const node = rates(rounds.node);
  const over = (runs: Cases[]) => {
    const r = rates(runs);
    return {
      presentation: round(r.presentation / node.presentation),
      cachedChain: round(r.cachedChain / node.cachedChain),
    };
  };
  const each = (runs: Cases[]) => runs.map((c) => [c.presentation.opsPerSec, c.cachedChain.opsPerSec]);
  return {
    chromium: rounds.version,
    pageBundleKB: round(code.length / 1000, 1),
    rounds: ROUNDS,
    verificationsPerCase: { node: COUNT, webcrypto: COUNT, noble: NOBLE_COUNT },
    loadAverage1m: { before: round(loadBefore[0] ?? 0), after: round(loadAfter[0] ?? 0) },
    opsPerSec: { node, chromiumWebcrypto: rates(rounds.webcrypto), chromiumNoble: rates(rounds.noble) },
    /** Every round's [presentation, cachedChain] rates: the spread shows the machine's load. */
    byRound: { node: each(rounds.node), chromiumWebcrypto: each(rounds.webcrypto), chromiumNoble: each(rounds.noble) },
    ratios: { chromiumWebcrypto_over_node: over(rounds.webcrypto), chromiumNoble_over_node: over(rounds.noble) },
  };
}
