// The page of bench/browser.ts: the wallet's sources, bundled by Vite, and the bench's page-side
// functions over them, on globalThis for Playwright to call: the cases in the page
// (mandateBench), the same cases inside the bench's service worker (mandateBenchInWorker), and
// timed fetches for the worker's added latency (mandateFetchTimes, mandateChallenges).
import * as wallet from '../../wallet/index.ts';
import { benchCases } from './cases.ts';
import { challenges, timeFetches } from './fetch-times.ts';
import { verifyInWorker } from './in-worker.ts';

Object.assign(globalThis, {
  mandateBench: (backend: 'webcrypto' | 'noble', count: number) => benchCases(wallet, backend, count),
  mandateBenchInWorker: verifyInWorker,
  mandateFetchTimes: timeFetches,
  mandateChallenges: challenges,
});
