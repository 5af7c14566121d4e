/**
 * The worker's life around the guard: where its configuration comes from, and what it does
 * before it has one. Kept apart from the service-worker event wiring (worker.ts) so it can be
 * driven by tests with plain Requests.
 *
 * One configuration source per registration: a same-origin JSON file (`?config=<URL>`, fetched at
 * every start, last good copy kept; an invalid file fails closed) or a message from the page
 * (stored under the scope). Unconfigured: nothing guarded, X-Mandate-* still stripped; 'failed':
 * 503 for all but navigations. Why: docs/verifier.md §Configuration, §How the worker's parts fit.
 */
import { bytesToUtf8 } from '../../wallet/crypto/bytes.ts';
import { isMandateError } from '../../wallet/crypto/errors.ts';
import { parseJson } from '../../wallet/crypto/json-parse.ts';
import { readBounded } from '../../wallet/net/http.ts';
import { parseWorkerConfig, type ResolvedWorkerConfig } from './config.ts';
import { VerifierWorkerError } from './errors.ts';
import { createGuard, hasClaimHeaders, withoutClaimHeaders, type Guard, type GuardOptions } from './guard.ts';
import { tryStore, type KeyValueStore } from './store.ts';

/** A configuration as stored: where it came from and the validated document. */
export interface StoredConfig {
  source: 'file' | 'message';
  /** The file's URL (source 'file'). */
  url?: string;
  config: ResolvedWorkerConfig;
}

export interface RuntimeOptions {
  /** The worker's origin: only its requests are guarded. */
  origin: string;
  /** The registration's scope: key of the stored configuration. */
  scope: string;
  /** The configuration file (from the script URL's `config` parameter), if any. */
  configUrl?: string;
  configStore: KeyValueStore<StoredConfig>;
  /** Fetches the configuration file and forwards requests (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Everything else the guard takes. */
  guard?: Omit<GuardOptions, 'origin' | 'forward'>;
}

export interface Runtime {
  /**
   * Settles once the configuration is loaded and the guard built. Rejects (CONFIG_UNAVAILABLE,
   * CONFIG_INVALID) when a configuration file was named and no usable configuration exists.
   */
  ready(): Promise<void>;
  /**
   * Applies a configuration sent by the page and resolves to it as validated (the very object in
   * force, when it equals the current one). Rejects only with VerifierWorkerError CONFIG_INVALID.
   */
  configure(config: unknown): Promise<ResolvedWorkerConfig>;
  /** Whether the worker answers `request` itself; false: the browser fetches it untouched. */
  handles(request: Request): boolean;
  respond(request: Request): Promise<Response>;
}

/** Largest configuration file read. */
const MAX_CONFIG_BYTES = 64 * 1024;

type State =
  { kind: 'loading' } | { kind: 'ready'; guard: Guard | undefined } | { kind: 'failed'; error: VerifierWorkerError };

function failure(error: unknown): VerifierWorkerError {
  if (error instanceof VerifierWorkerError) return error;
  return new VerifierWorkerError(
    'CONFIG_INVALID',
    isMandateError(error) ? error.message : 'the configuration could not be used',
  );
}

function unavailableResponse(error: VerifierWorkerError): Response {
  return new Response(JSON.stringify({ valid: false, reason: error.code, message: error.message }), {
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/** What the runtime's steps share: its options, the network, and the options every guard is built with. */
interface RuntimeContext {
  options: RuntimeOptions;
  network: (request: Request) => Promise<Response>;
  guardOptions: GuardOptions;
}

async function fetchConfigFile(network: RuntimeContext['network'], url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await network(new Request(url, { cache: 'no-store', credentials: 'same-origin', redirect: 'error' }));
  } catch {
    throw new VerifierWorkerError('CONFIG_UNAVAILABLE', `${url}: network error`);
  }
  if (!response.ok) throw new VerifierWorkerError('CONFIG_UNAVAILABLE', `${url}: HTTP ${response.status}`);
  const bytes = await readBounded(response.body, MAX_CONFIG_BYTES);
  try {
    return parseJson(bytesToUtf8(bytes ?? new Uint8Array()), { maxBytes: MAX_CONFIG_BYTES });
  } catch {
    throw new VerifierWorkerError('CONFIG_INVALID', `${url}: not JSON of at most ${MAX_CONFIG_BYTES} bytes`);
  }
}

/** The guard of the configuration file; its last good copy stands in only when the file cannot be fetched. */
async function fromFile({ options, network, guardOptions }: RuntimeContext, url: string): Promise<Guard> {
  if (new URL(url).origin !== options.origin)
    throw new VerifierWorkerError('CONFIG_INVALID', `${url}: not on the worker's origin`);
  let document: unknown;
  try {
    document = await fetchConfigFile(network, url);
  } catch (error) {
    const stored = await tryStore(() => options.configStore.get(options.scope), undefined);
    if (failure(error).code !== 'CONFIG_UNAVAILABLE' || stored?.source !== 'file' || stored.url !== url) throw error;
    document = stored.config;
  }
  const guard = await createGuard(document, guardOptions);
  await tryStore(
    () => options.configStore.set(options.scope, { source: 'file', url, config: guard.config }),
    undefined,
  );
  return guard;
}

/** The guard the worker starts with: from its file, from a stored message, or none yet. */
async function load(cx: RuntimeContext): Promise<Guard | undefined> {
  const { options } = cx;
  if (options.configUrl !== undefined) return fromFile(cx, options.configUrl);
  const stored = await tryStore(() => options.configStore.get(options.scope), undefined);
  if (stored?.source !== 'message') return undefined;
  // A stored configuration that no longer validates (an older worker version wrote it) is dropped.
  return createGuard(stored.config, cx.guardOptions).catch(() => undefined);
}

/** The guard of a configuration the page sent (validated already), stored for the next start. */
async function fromMessage({ options, guardOptions }: RuntimeContext, config: ResolvedWorkerConfig): Promise<Guard> {
  const guard = await createGuard(config, guardOptions);
  await tryStore(() => options.configStore.set(options.scope, { source: 'message', config: guard.config }), undefined);
  return guard;
}

/** A request the guard does not decide, on its way to the network without X-Mandate-* headers. */
async function passThrough(network: RuntimeContext['network'], request: Request): Promise<Response> {
  try {
    return await network(hasClaimHeaders(request.headers) ? withoutClaimHeaders(request) : request);
  } catch {
    return Response.error();
  }
}

export function createRuntime(options: RuntimeOptions): Runtime {
  const network = options.fetch ?? ((request: Request) => fetch(request));
  const cx: RuntimeContext = {
    options,
    network,
    guardOptions: { ...options.guard, origin: options.origin, forward: network },
  };
  let state: State = { kind: 'loading' };
  const loaded = load(cx).then(
    (guard) => {
      state = { kind: 'ready', guard };
    },
    (error: unknown) => {
      state = { kind: 'failed', error: failure(error) };
    },
  );

  return {
    async ready() {
      await loaded;
      if (state.kind === 'failed') throw state.error;
    },

    async configure(config) {
      await loaded;
      if (options.configUrl !== undefined) {
        throw new VerifierWorkerError('CONFIG_INVALID', `this worker is configured by ${options.configUrl}`);
      }
      try {
        const parsed = parseWorkerConfig(config);
        const current = state.kind === 'ready' ? state.guard : undefined;
        // The same configuration again (every page load sends it): keep the warm caches.
        if (current && JSON.stringify(current.config) === JSON.stringify(parsed)) return current.config;
        const guard = await fromMessage(cx, parsed);
        state = { kind: 'ready', guard };
        return guard.config;
      } catch (error) {
        throw failure(error);
      }
    },

    handles(request) {
      if (new URL(request.url).origin !== options.origin) return false;
      if (state.kind === 'loading') return true; // decided in respond(), once loaded
      if (state.kind === 'failed') return request.mode !== 'navigate' || hasClaimHeaders(request.headers);
      return state.guard ? state.guard.handles(request) : hasClaimHeaders(request.headers);
    },

    async respond(request) {
      await loaded;
      const current = state as Exclude<State, { kind: 'loading' }>;
      if (current.kind === 'failed') {
        return request.mode === 'navigate' ? passThrough(network, request) : unavailableResponse(current.error);
      }
      if (current.guard?.handles(request)) return current.guard.respond(request);
      return passThrough(network, request);
    },
  };
}
