/**
 * The page side of the service-worker verifier: `registerVerifier` registers the built worker,
 * hands it its configuration, waits until it guards this page, and (optionally) listens to its
 * reports. It imports nothing of the verifier itself: about 1.4 KB gzip on a page.
 *
 * ```ts
 * import { registerVerifier } from '/verifier-register.js'; // dist/, built by npm run build
 * await registerVerifier({
 *   scriptUrl: '/verifier-sw.js',
 *   config: { target: 'https://api.example.com', trustedIssuers: ['did:web:issuer.example.com'],
 *             routes: [{ path: '/api/orders/*', method: 'GET', scopes: ['orders:read'] }] },
 *   onReport: (r) => console.log(r.decision, r.path, r.agentDid ?? r.reason),
 * });
 * ```
 */
import { VerifierWorkerError } from './errors.ts';
import {
  CONFIG_PARAM,
  CONFIGURE_MESSAGE,
  DEFAULT_REPORT_CHANNEL,
  type ConfigureMessage,
  type ConfigureReply,
} from './messages.ts';
import type { VerifierWorkerConfig } from './config.ts';
import { isVerificationReport, type VerificationReport } from './report.ts';

export interface RegisterVerifierOptions {
  /** URL of the built worker (`dist/verifier-sw.js`, served from the origin it guards). */
  scriptUrl: string | URL;
  /** The configuration itself (posted to the worker), or the URL of a JSON file the worker fetches. */
  config: VerifierWorkerConfig | string | URL;
  /** Registration scope (default: the script's directory). It must contain the pages to guard. */
  scope?: string;
  /** Called with each decision the worker reports (never with a presentation). */
  onReport?: (report: VerificationReport) => void;
  /** Channel to listen on (default: the configuration's reportChannel, else "mandate-verifier"). */
  reportChannel?: string;
  /** How long to wait for the worker to install, accept the configuration and take control (default 10 s). */
  timeoutMs?: number;
}

export interface VerifierRegistration {
  registration: ServiceWorkerRegistration;
  /** Stops listening to reports (the worker keeps guarding). */
  close(): void;
}

/** RFC 8032 §7.1 TEST 1 public key: any valid key shows whether WebCrypto can import Ed25519. */
const ED25519_TEST_KEY = /* @__PURE__ */ Uint8Array.from(
  'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'.match(/../g) ?? [],
  (h) => parseInt(h, 16),
);

/** The worker verifies with WebCrypto Ed25519 only (Chromium 137+, Firefox 129+, Safari 17+). */
async function hasWebCryptoEd25519(): Promise<boolean> {
  try {
    await crypto.subtle.importKey('raw', ED25519_TEST_KEY, 'Ed25519', false, ['verify']);
    return true;
  } catch {
    return false;
  }
}

function failed(message: string): VerifierWorkerError {
  return new VerifierWorkerError('REGISTRATION_FAILED', message);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(failed(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The registration's worker once it is activated; REGISTRATION_FAILED if it becomes redundant (failed install). */
function activated(registration: ServiceWorkerRegistration): Promise<ServiceWorker> {
  const candidate = registration.installing ?? registration.waiting ?? registration.active;
  if (!candidate) return Promise.reject(failed('the registration has no worker'));
  if (candidate.state === 'activated') return Promise.resolve(candidate);
  return new Promise((resolve, reject) => {
    const onChange = (): void => {
      if (candidate.state === 'activated') resolve(candidate);
      else if (candidate.state === 'redundant')
        reject(failed('the worker failed to install (is its configuration file reachable and valid?)'));
      else return;
      candidate.removeEventListener('statechange', onChange);
    };
    candidate.addEventListener('statechange', onChange);
    onChange();
  });
}

/** Posts the configuration and waits for the worker's answer; its refusal is rethrown with its code. */
async function configure(worker: ServiceWorker, config: unknown): Promise<void> {
  const channel = new MessageChannel();
  const reply = new Promise<ConfigureReply>((resolve) => {
    channel.port1.onmessage = (event: MessageEvent<ConfigureReply>) => resolve(event.data);
  });
  const message: ConfigureMessage = { type: CONFIGURE_MESSAGE, config };
  worker.postMessage(message, [channel.port2]);
  const answer = await reply.finally(() => channel.port1.close());
  if (!answer.ok) {
    const code =
      answer.code === 'CONFIG_INVALID' || answer.code === 'CONFIG_UNAVAILABLE' ? answer.code : 'CONFIG_INVALID';
    throw new VerifierWorkerError(code, answer.message);
  }
}

/** Resolves once `worker` controls this page (it claims its clients when it activates). */
function controlled(container: ServiceWorkerContainer, worker: ServiceWorker): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (container.controller?.scriptURL !== worker.scriptURL) return;
      container.removeEventListener('controllerchange', check);
      resolve();
    };
    container.addEventListener('controllerchange', check);
    check();
  });
}

/**
 * Registers the verifier worker and resolves when it guards this page with `config`. Throws
 * VerifierWorkerError: SW_UNSUPPORTED (no service workers, or no WebCrypto Ed25519), REGISTRATION_FAILED (script
 * refused, install failed, or a step timed out), CONFIG_INVALID (the worker refused the
 * configuration object).
 */
export async function registerVerifier(options: RegisterVerifierOptions): Promise<VerifierRegistration> {
  const container = typeof navigator === 'undefined' ? undefined : navigator.serviceWorker;
  if (!container || (typeof isSecureContext === 'boolean' && !isSecureContext)) {
    throw new VerifierWorkerError(
      'SW_UNSUPPORTED',
      'service workers are not available here (they need a secure context: https, or http on localhost)',
    );
  }
  if (!(await hasWebCryptoEd25519()))
    throw new VerifierWorkerError(
      'SW_UNSUPPORTED',
      'this browser has no WebCrypto Ed25519, which the verifier worker needs',
    );
  const timeoutMs = options.timeoutMs ?? 10_000;
  const byFile = typeof options.config === 'string' || options.config instanceof URL;
  const scriptUrl = new URL(options.scriptUrl, location.href);
  if (byFile) scriptUrl.searchParams.set(CONFIG_PARAM, new URL(options.config as string | URL, location.href).href);

  let registration: ServiceWorkerRegistration;
  try {
    // updateViaCache 'none': a new build is picked up at the next navigation, not after a day of HTTP caching.
    registration = await container.register(scriptUrl.href, {
      updateViaCache: 'none',
      ...(options.scope ? { scope: options.scope } : {}),
    });
  } catch (error) {
    throw failed(`the browser refused the worker script: ${error instanceof Error ? error.message : 'unknown error'}`);
  }
  const worker = await withTimeout(activated(registration), timeoutMs, "the worker's activation");
  if (!byFile)
    await withTimeout(configure(worker, options.config), timeoutMs, "the worker's answer to the configuration");
  if (location.href.startsWith(registration.scope))
    await withTimeout(controlled(container, worker), timeoutMs, 'the worker taking control of this page');

  let channel: BroadcastChannel | undefined;
  if (options.onReport) {
    const onReport = options.onReport;
    const configured = byFile ? undefined : (options.config as VerifierWorkerConfig).reportChannel;
    channel = new BroadcastChannel(options.reportChannel ?? configured ?? DEFAULT_REPORT_CHANNEL);
    channel.onmessage = (event: MessageEvent) => {
      if (isVerificationReport(event.data)) onReport(event.data);
    };
  }
  return { registration, close: () => channel?.close() };
}
