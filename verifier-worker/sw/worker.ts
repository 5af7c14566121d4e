/**
 * The service worker (Service Workers §4): the entry `npm run build` bundles into one file,
 * `dist/verifier-sw.js`. It wires the browser's events (install, activate, fetch, message) to the
 * runtime (runtime.ts) and the guard (guard.ts); all decisions are made there. Storage writes go
 * to waitUntil (§4.4.1) so a stop cannot lose them. Why each step: docs/verifier.md §How the
 * worker's parts fit.
 */
import { createRuntime } from './runtime.ts';
import { CONFIG_PARAM, isConfigureMessage, type ConfigureReply } from './messages.ts';
import { createIndexedDbStore } from './store.ts';
import { getWebCryptoEd25519 } from '../../wallet/crypto/ed25519-webcrypto.ts';
import { VerifierWorkerError } from './errors.ts';

// This module is only ever a service worker's script (the DOM library types `self` as a window).
declare const self: ServiceWorkerGlobalScope;
const worker = self;

const writes = new Set<Promise<unknown>>();
function track(write: Promise<unknown>): void {
  writes.add(write);
  void write.finally(() => writes.delete(write));
}

/** Resolves when `work` and every storage write started meanwhile have settled. */
async function settled(work: Promise<unknown>): Promise<void> {
  await work.catch(() => undefined);
  while (writes.size > 0) await Promise.allSettled([...writes]);
}

const configParam = new URL(worker.location.href).searchParams.get(CONFIG_PARAM);
const runtime = createRuntime({
  origin: worker.location.origin,
  scope: worker.registration.scope,
  ...(configParam ? { configUrl: new URL(configParam, worker.location.href).href } : {}),
  configStore: createIndexedDbStore('config'),
  guard: { track },
});

/** The bundle verifies Ed25519 with WebCrypto only (shims/ed25519-noble.ts): no install without it. */
async function requireWebCryptoEd25519(): Promise<void> {
  if (!(await getWebCryptoEd25519()))
    throw new VerifierWorkerError('SW_UNSUPPORTED', 'this browser has no WebCrypto Ed25519');
}

worker.addEventListener('install', (event) => {
  event.waitUntil(Promise.all([requireWebCryptoEd25519(), runtime.ready()]).then(() => worker.skipWaiting()));
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(worker.clients.claim());
});

worker.addEventListener('fetch', (event) => {
  if (!runtime.handles(event.request)) return;
  const response = runtime.respond(event.request);
  event.respondWith(response);
  event.waitUntil(settled(response));
});

worker.addEventListener('message', (event) => {
  if (!isConfigureMessage(event.data)) return;
  const port = event.ports[0];
  const work = runtime.configure(event.data.config).then(
    (): ConfigureReply => ({ ok: true }),
    // configure() only rejects with VerifierWorkerError: its code and message are for the page.
    (error: VerifierWorkerError): ConfigureReply => ({ ok: false, code: error.code, message: error.message }),
  );
  event.waitUntil(settled(work.then((reply) => port?.postMessage(reply))));
});
