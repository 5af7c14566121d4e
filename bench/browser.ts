// Verification in real Chromium, and what the service-worker verifier adds to a request (issue
// 41 §5), each in three alternated rounds so that every figure sees the shared machine's load
// of the moment; medians over rounds are reported with every round's figure beside them.
//
// 1. Rates (bench/browser/verification.ts): a presentation and a signed request with a cached
//    chain (bench/browser/cases.ts, the two cases of bench/signed-request.ts) verified in this
//    Node process (compiled package, default backend), in a page, and inside a service worker
//    (the bench's own, bench/browser/worker.ts), the browser with the wallet's WebCrypto Ed25519
//    backend and with its noble fallback. Ratios: each rate over Node's, the worker's over the
//    page's. BENCH_BROWSER_COUNT verifications a case (default 600; noble a sixth of it).
// 2. Added latency (bench/browser/latency.ts): fetches from a page through the production worker
//    (dist/verifier-sw.js, built as `npm run build` builds it), which verifies a presentation or
//    a signed request and forwards it, against the same fetch on an origin with no worker; one at
//    a time, then four at a time; median and p95 per request. BENCH_BROWSER_REQUESTS a batch
//    (default 200). A kind the worker build refuses is reported as not supported, by commit.
//
// Everything is served on 127.0.0.1 (a secure context: WebCrypto Ed25519 and service workers are
// there) by bench/browser/server.ts, built fresh by Vite (bench/browser/bundles.ts); Chromium is
// CHROMIUM_PATH or /usr/bin/chromium, driven by Playwright.
//
//   npm run bench -- browser
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Browser } from 'playwright';
import { benchCases } from './browser/cases.ts';
import { buildScripts, type Built } from './browser/bundles.ts';
import { CHROMIUM, launchChromium } from './browser/chromium.ts';
import { latencyRound, type LatencyRounds } from './browser/latency.ts';
import { benchRequests, workerConfig } from './browser/latency-requests.ts';
import { latencySummary } from './browser/latency-summary.ts';
import { openBenchPage, registerMandateWorker } from './browser/pages.ts';
import { serveOrigin, type Origin } from './browser/server.ts';
import { emptyRounds, verificationRound, verificationSummary, type Counts } from './browser/verification.ts';
import { shippedWallet } from './library.ts';
import { round } from './measure.ts';

const COUNT = Number(process.env.BENCH_BROWSER_COUNT ?? 600);
const COUNTS: Counts = { native: COUNT, noble: Math.ceil(COUNT / 6) };
const REQUESTS = Number(process.env.BENCH_BROWSER_REQUESTS ?? 200);
const ROUNDS = 3;

type Wallet = Awaited<ReturnType<typeof shippedWallet>>;

/** The bench's origins: one for the verification pages, one the Mandate worker guards, one bare. */
type Origins = Record<'verifying' | 'guarded' | 'bare', Origin>;

/** ROUNDS rounds of both halves, in one browser context. */
async function rounds(browser: Browser, wallet: Wallet, origins: Origins) {
  const context = await browser.newContext();
  const verificationPage = await openBenchPage(context, origins.verifying.url);
  const requests = await benchRequests(wallet);
  const pages = {
    guarded: await openBenchPage(context, origins.guarded.url),
    guardedOrigin: origins.guarded.url,
    bare: await openBenchPage(context, origins.bare.url),
  };
  await registerMandateWorker(pages.guarded, workerConfig(requests.issuerDid));
  const verification = emptyRounds();
  const latency: LatencyRounds = { batches: {}, refused: {} };
  for (let i = 0; i < ROUNDS; i++) {
    await verificationRound(verificationPage, () => benchCases(wallet, 'auto', COUNT), COUNTS, verification);
    await latencyRound(pages, requests, REQUESTS, latency);
  }
  await context.close();
  return { verification, latency };
}

async function measured(wallet: Wallet, built: Built) {
  const origins: Origins = {
    verifying: await serveOrigin(built.scripts),
    guarded: await serveOrigin(built.scripts),
    bare: await serveOrigin(built.scripts),
  };
  const browser = await launchChromium();
  try {
    return { chromium: browser.version(), ...(await rounds(browser, wallet, origins)) };
  } finally {
    await browser.close();
    for (const origin of Object.values(origins)) await origin.close();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  // `npm run bench` runs every bench: on a machine without Chromium this one says so instead.
  if (!existsSync(CHROMIUM)) return { skipped: `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)` };
  const wallet = await shippedWallet();
  const built = await buildScripts();
  const loadBefore = loadavg();
  const { chromium, verification, latency } = await measured(wallet, built);
  const loadAfter = loadavg();
  return {
    chromium,
    bundleKB: built.sizesKB,
    workerCommit: built.workerCommit,
    rounds: ROUNDS,
    verificationsPerCase: { native: COUNTS.native, noble: COUNTS.noble },
    requestsPerBatch: REQUESTS,
    loadAverage1m: { before: round(loadBefore[0] ?? 0), after: round(loadAfter[0] ?? 0) },
    ...verificationSummary(verification),
    latency: latencySummary(latency, built.workerCommit),
  };
}
