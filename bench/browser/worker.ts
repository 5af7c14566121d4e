// The bench's own service worker (bench/browser/verification.ts registers it): the same cases
// as the page (bench/browser/cases.ts over the wallet's sources), run inside a real
// ServiceWorkerGlobalScope when the page posts {backend, count} with a MessagePort; the results,
// timed with the worker's performance.now(), go back on that port. It guards nothing (no fetch
// handler). The production worker's shims are not applied: they drop the noble fallback this
// bench times (verifier-worker/vite.sw.config.ts), and the page bundle has none either, so
// page and worker run the same code and differ only in their global.
import * as wallet from '../../wallet/index.ts';
import { benchCases } from './cases.ts';

declare const self: ServiceWorkerGlobalScope;

/** What the page posts: the Ed25519 backend and how many verifications a case. */
export interface WorkerBenchRequest {
  backend: 'webcrypto' | 'noble';
  count: number;
}

self.addEventListener('install', (event) => event.waitUntil(self.skipWaiting()));
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('message', (event) => {
  const port = event.ports[0];
  const { backend, count } = event.data as WorkerBenchRequest;
  // waitUntil keeps the worker alive for the whole run (Service Workers §4.4.1).
  event.waitUntil(
    benchCases(wallet, backend, count).then(
      (cases) => port?.postMessage({ ok: true, cases }),
      (error: unknown) => port?.postMessage({ ok: false, error: String(error) }),
    ),
  );
});
