/**
 * The service worker (Service Workers §4): the entry `npm run build` bundles into one file,
 * `dist/verifier-sw.js`. It wires the browser's events to the runtime (runtime.ts) and the
 * guard (guard.ts); all decisions are made there.
 *
 * - install: checks that WebCrypto has Ed25519 (the bundle has no other verifier, see
 *   shims/ed25519-noble.ts) and waits for the configuration (a configuration file that is missing or
 *   invalid fails the installation, so a broken verifier never replaces a working one), then
 *   skipWaiting();
 * - activate: clients.claim(), so the page that registered the worker is guarded without a reload;
 * - fetch: requests the runtime handles are answered by it; the others are left to the browser;
 * - message: a configuration posted by the page (registerVerifier), answered on its port.
 *
 * Storage writes (replay cache, nonces, DID documents, status lists) are handed to waitUntil
 * (Service Workers §4.4.1 "extend lifetime promises"), so the browser does not stop the worker
 * before they land; a presentation accepted just before a stop is still remembered after it.
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
