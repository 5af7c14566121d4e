/**
 * The guard: everything the service worker decides about one request, as a plain function of a
 * `Request` (so it runs, and is tested, without a service worker around it).
 *
 * For a request to the worker's own origin:
 * - the challenge endpoint ('endpoint' mode) answers with a fresh single-use nonce;
 * - a guarded path (one a route names) is decided by verifyRequest (verifier-worker/request.ts):
 *   allowed requests go to the network with the verified claims in X-Mandate-* headers and
 *   without the presentation; refused ones are answered here, 400/401/403 with
 *   `{valid:false, reason, message}`, and never reach the network;
 * - any other request that carries X-Mandate-* headers is forwarded with them removed, so a
 *   page cannot hand the server claims the worker did not verify;
 * - everything else, and every other origin, is not the guard's business.
 * Every decision on a guarded path is reported (report.ts) without the presentation.
 */
import type { FetchLike } from '../../wallet/did/http.ts';
import { createKeyResolver } from '../../wallet/did/verification-method.ts';
import {
  denialResponse,
  forwardClaims,
  handleChallengeRequest,
  isMandateHeaderName,
  verifyRequest,
  type VerifyRequestOptions,
} from '../request.ts';
import { isGuarded, parseWorkerConfig, verifierSettings, type ResolvedWorkerConfig } from './config.ts';
import { createWorkerChallengeStore } from './challenges.ts';
import { createWorkerResolver, type StoredDidDocument } from './did-cache.ts';
import { createWorkerReplayCache } from './replay.ts';
import { broadcastReporter, REPORT_TYPE, type Reporter, type VerificationReport } from './report.ts';
import { createWorkerStatusLists, type StoredStatusList } from './status-cache.ts';
import { createIndexedDbStore, type KeyValueStore } from './store.ts';

export interface GuardStores {
  dids: KeyValueStore<StoredDidDocument>;
  statusLists: KeyValueStore<StoredStatusList>;
  replay: KeyValueStore<number>;
  challenges: KeyValueStore<number>;
}

export interface GuardOptions {
  /** The origin whose paths are guarded: the worker's own (`self.location.origin`). */
  origin: string;
  /** Where state that must outlive the worker is kept (default: IndexedDB). */
  stores?: Partial<GuardStores>;
  /** Sends allowed requests on (default: the global fetch). */
  forward?: (request: Request) => Promise<Response>;
  /** Fetches DID documents and status lists (default: the global fetch). */
  fetch?: FetchLike;
  now?: () => number;
  /** Receives every storage write, so the worker can stay alive until it lands (ExtendableEvent.waitUntil). */
  track?: (write: Promise<unknown>) => void;
  /** Where decisions are reported (default: the configuration's BroadcastChannel). */
  report?: Reporter;
}

export interface Guard {
  readonly config: ResolvedWorkerConfig;
  /** True when the worker must answer `request` itself; false: let the browser fetch it untouched. */
  handles(request: Request): boolean;
  /** The answer to a request `handles` accepted. Never rejects: a failing network is `Response.error()`. */
  respond(request: Request): Promise<Response>;
}

export function hasClaimHeaders(headers: Headers): boolean {
  for (const name of headers.keys()) if (isMandateHeaderName(name)) return true;
  return false;
}

/** The request without any X-Mandate-* header (their values were not verified by anyone). */
export function withoutClaimHeaders(request: Request): Request {
  const headers = new Headers(request.headers);
  for (const name of [...headers.keys()]) if (isMandateHeaderName(name)) headers.delete(name);
  return new Request(request, { headers });
}

/** The stores the options name, IndexedDB for the others. */
function guardStores(stores: Partial<GuardStores> | undefined): GuardStores {
  return {
    dids: stores?.dids ?? createIndexedDbStore('dids'),
    statusLists: stores?.statusLists ?? createIndexedDbStore('status-lists'),
    replay: stores?.replay ?? createIndexedDbStore('replay'),
    challenges: stores?.challenges ?? createIndexedDbStore('challenges'),
  };
}

/** What the guard's decisions share. */
interface GuardContext {
  verifier: VerifyRequestOptions;
  forward: (request: Request) => Promise<Response>;
  report: Reporter;
  now: () => number;
}

/**
 * verifyRequest's options for `resolved`, with the worker's stored caches behind them: did:web
 * documents, status lists, remembered presentations and outstanding nonces.
 */
function workerVerifier(
  resolved: ResolvedWorkerConfig,
  options: GuardOptions,
  now: () => number,
  track: (write: Promise<unknown>) => void,
): { verifier: VerifyRequestOptions; loaded: Promise<unknown> } {
  const stores = guardStores(options.stores);
  const network = {
    allowHttpLoopback: resolved.allowHttpLoopback,
    now,
    track,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const resolver = createWorkerResolver({
    ...network,
    store: stores.dids,
    ttlMs: resolved.didTtlMs,
    staleIfErrorMs: resolved.didStaleIfErrorMs,
  });
  const statusLists = createWorkerStatusLists({
    ...network,
    store: stores.statusLists,
    resolveKey: createKeyResolver(resolver, { now }),
    defaultTtlMs: resolved.statusListTtlMs,
    staleIfErrorMs: resolved.statusListStaleIfErrorMs,
    clockSkewMs: resolved.clockSkewMs,
  });
  const replayCache = createWorkerReplayCache({
    store: stores.replay,
    max: resolved.replayMax,
    now,
    track,
    durable: resolved.challenge !== 'endpoint',
  });
  const challenges = createWorkerChallengeStore({ store: stores.challenges, now, track });
  const verifier: VerifyRequestOptions = {
    ...verifierSettings(resolved),
    ...(resolved.challenge === 'endpoint' ? { challenges } : {}),
    resolver,
    statusLists,
    replayCache,
    now,
  };
  return { verifier, loaded: Promise.all([replayCache.load(), challenges.load()]) };
}

/** A request on a guarded path: verified, then forwarded with its claims or refused here; reported either way. */
async function decide({ verifier, forward, report, now }: GuardContext, request: Request, url: URL): Promise<Response> {
  const started = performance.now();
  const verdict = await verifyRequest(request, verifier);
  const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  const base = {
    type: REPORT_TYPE as typeof REPORT_TYPE,
    method: request.method,
    path: url.pathname,
    durationMs,
    at: new Date(now()).toISOString(),
    checks: verdict.checks,
  };
  if (!verdict.allowed) {
    report({
      ...base,
      decision: 'deny',
      status: verdict.status,
      reason: verdict.body.reason,
      message: verdict.body.message,
    } satisfies VerificationReport);
    return denialResponse(verdict);
  }
  const { claims } = verdict;
  let response: Response;
  try {
    response = await forward(forwardClaims(request, claims));
  } catch {
    response = Response.error();
  }
  report({
    ...base,
    decision: 'allow',
    status: response.status,
    agentDid: claims.agentDid,
    vpId: claims.vpId,
    effectiveScopes: claims.effectiveScopes,
  } satisfies VerificationReport);
  return response;
}

/**
 * Builds the guard for `config` (validated here: CONFIG_INVALID) and loads the remembered
 * presentation ids and outstanding nonces before it decides anything.
 */
export async function createGuard(config: unknown, options: GuardOptions): Promise<Guard> {
  const resolved = parseWorkerConfig(config);
  const now = options.now ?? Date.now;
  const forward = options.forward ?? ((request: Request) => fetch(request));
  const report = options.report ?? broadcastReporter(resolved.reportChannel);
  const { verifier, loaded } = workerVerifier(resolved, options, now, options.track ?? (() => undefined));
  await loaded;
  const cx: GuardContext = { verifier, forward, report, now };
  const isChallengeEndpoint = (url: URL): boolean =>
    resolved.challenge === 'endpoint' && url.pathname === resolved.challengePath;

  return {
    config: resolved,
    handles(request) {
      const url = new URL(request.url);
      if (url.origin !== options.origin) return false;
      return isChallengeEndpoint(url) || isGuarded(resolved.routes, url) || hasClaimHeaders(request.headers);
    },
    async respond(request) {
      const url = new URL(request.url);
      try {
        if (isChallengeEndpoint(url)) return (await handleChallengeRequest(request, verifier)) ?? Response.error();
        if (isGuarded(resolved.routes, url)) return await decide(cx, request, url);
        return await forward(withoutClaimHeaders(request));
      } catch {
        // Whatever failed, nothing unverified went out: fail closed, as the network would fail.
        return Response.error();
      }
    },
  };
}
