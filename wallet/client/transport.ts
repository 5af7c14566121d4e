/**
 * One HTTP exchange with the issuer, the way every IssuerClient call makes it:
 *
 * - a deadline per attempt (`AbortSignal.timeout`) covering headers AND body, combined with the
 *   caller's own AbortSignal;
 * - bounded, strict JSON answers (wallet/net's streaming size cap, the crypto core's safe JSON);
 * - redirects refused (`redirect: 'manual'`): the admin key is never replayed to another URL;
 * - retries ONLY for calls the caller marks idempotent, on a network error, a timeout, a 5xx or a
 *   429, with exponential backoff and full jitter (delay = random(0, min(cap, base·2^n))), or
 *   exactly the server's Retry-After (RFC 9110 §10.2.3) when it sent one and it is not absurd;
 * - events for logging that name the method, path, status and code, never a header or a body,
 *   so no secret reaches a log.
 */
import { bytesToUtf8 } from '../crypto/bytes.ts';
import { parseJson } from '../crypto/json-parse.ts';
import { type JsonValue } from '../crypto/json-value.ts';
import { readBounded, untilAborted, type FetchLike } from '../net/http.ts';
import { classifyHost } from '../net/url-policy.ts';
import { IssuerApiError, IssuerClientError, redact } from './errors.ts';

export interface RetryPolicy {
  /** Retries after the first attempt (default 2: three attempts at most). */
  retries: number;
  /** Backoff base in ms (default 200). */
  baseDelayMs: number;
  /** Backoff cap in ms (default 5000). */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is returned (default 30 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = /* @__PURE__ */ Object.freeze({
  retries: 2,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 30_000,
});

/** What a client reports for logs: never headers, bodies, tokens or keys. */
export type TransportEvent =
  | { type: 'response'; method: string; path: string; attempt: number; status: number; code?: string }
  | { type: 'failure'; method: string; path: string; attempt: number; code: string }
  | { type: 'retry'; method: string; path: string; attempt: number; delayMs: number; reason: string };

export interface TransportOptions {
  baseUrl: string;
  adminKey?: string | undefined;
  /**
   * A server-custody agent's own client secret (POST /v1/agents/{did}/client-secret), sent where
   * the admin key would be. The issuer accepts it only for that agent's /vp and /delegations.
   */
  clientSecret?: string | undefined;
  /** Per-attempt deadline in ms (default 10 000). */
  timeoutMs?: number | undefined;
  retry?: Partial<RetryPolicy> | false | undefined;
  fetch?: FetchLike | undefined;
  /** Largest answer accepted, in bytes (default 4 MiB). */
  maxResponseBytes?: number | undefined;
  /** Allow plain http to a non-loopback host (the admin key would travel in clear). Default false. */
  allowInsecureHttp?: boolean | undefined;
  onEvent?: ((event: TransportEvent) => void) | undefined;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path below the base URL, already percent-encoded where it carries DIDs or ids. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Send the admin key: 'required' fails with ADMIN_KEY_REQUIRED without one, 'optional' sends it when configured. */
  admin?: 'required' | 'optional';
  /** Safe to repeat: only these are retried. */
  idempotent: boolean;
  /** Non-2xx statuses whose JSON body is an answer rather than an error (403 of /v1/vp/verify). */
  answerStatuses?: readonly number[];
  /** Values this call sent that must never appear in an error (an enrollment token, a challenge). */
  secrets?: readonly string[];
  /**
   * 'credential' for a signed credential served as `application/vc` (VC DM 2.0 §6.3), which is
   * JSON too: asked for first and read like JSON. Default 'json'.
   */
  expect?: 'json' | 'credential';
  signal?: AbortSignal | undefined;
}

export interface TransportResponse {
  status: number;
  json: JsonValue;
  headers: Headers;
  /** 1-based attempt that produced this answer. */
  attempt: number;
}

export interface Transport {
  readonly baseUrl: string;
  readonly hasAdminKey: boolean;
  request(spec: RequestSpec): Promise<TransportResponse>;
}

const JSON_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json$/;
const CREDENTIAL_TYPE = 'application/vc';
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

function configInvalid(message: string): IssuerClientError {
  return new IssuerClientError('CONFIG_INVALID', message);
}

function positiveInteger(value: number | undefined, fallback: number, name: string, min = 1): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < min) throw configInvalid(`${name} must be an integer ≥ ${min}`);
  return n;
}

/**
 * The issuer's base URL without a trailing slash: https, or http to a loopback host (local
 * development), or any http with `allowInsecureHttp`. No credentials, query or fragment.
 */
export function normalizeBaseUrl(baseUrl: unknown, allowInsecureHttp = false): string {
  let url: URL;
  try {
    url = new URL(String(baseUrl));
  } catch {
    throw configInvalid('baseUrl must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw configInvalid('baseUrl must be an http(s) URL');
  if (url.protocol === 'http:' && classifyHost(url.hostname) !== 'loopback' && !allowInsecureHttp) {
    throw configInvalid(
      'plain http is refused except to loopback hosts (the admin key and tokens would travel in clear); use https or allowInsecureHttp',
    );
  }
  if (url.username || url.password || url.search || url.hash)
    throw configInvalid('baseUrl must not carry credentials, a query or a fragment');
  return url.href.replace(/\/+$/, '');
}

/** RFC 9110 §10.2.3: delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : undefined;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new IssuerClientError('ABORTED', 'the request was aborted'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new IssuerClientError('ABORTED', 'the request was aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function buildUrl(base: string, spec: RequestSpec): string {
  const query = Object.entries(spec.query ?? {}).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined,
  );
  return (
    base +
    spec.path +
    (query.length === 0 ? '' : '?' + new URLSearchParams(query.map(([k, v]) => [k, String(v)])).toString())
  );
}

/** Whether a failed attempt may be repeated (for an idempotent call), and why. */
type Outcome =
  | { kind: 'answer'; response: TransportResponse }
  | { kind: 'error'; error: Error; retryable: boolean; retryAfterMs?: number };

/** A transport's options with their defaults, checked. */
interface Settings {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly retry: RetryPolicy;
  readonly adminKey: string | undefined;
  readonly fetch: FetchLike;
  readonly emit: (event: TransportEvent) => void;
}

function transportSettings(options: TransportOptions): Settings {
  const baseUrl = normalizeBaseUrl(options.baseUrl, options.allowInsecureHttp === true);
  const timeoutMs = positiveInteger(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const maxBytes = positiveInteger(options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 'maxResponseBytes');
  const retry: RetryPolicy =
    options.retry === false ? { ...DEFAULT_RETRY_POLICY, retries: 0 } : { ...DEFAULT_RETRY_POLICY, ...options.retry };
  positiveInteger(retry.retries, 0, 'retry.retries', 0);
  positiveInteger(retry.baseDelayMs, 0, 'retry.baseDelayMs', 0);
  positiveInteger(retry.maxDelayMs, 0, 'retry.maxDelayMs', 0);
  positiveInteger(retry.maxRetryAfterMs, 0, 'retry.maxRetryAfterMs', 0);
  if (options.adminKey !== undefined && options.clientSecret !== undefined)
    throw configInvalid('pass adminKey or clientSecret, not both');
  const adminKey = options.adminKey ?? options.clientSecret;
  if (adminKey !== undefined && (typeof adminKey !== 'string' || adminKey.length === 0 || /[\r\n]/.test(adminKey))) {
    throw configInvalid(
      `${options.adminKey === undefined ? 'clientSecret' : 'adminKey'} must be a non-empty single-line string`,
    );
  }
  const emit = (event: TransportEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // A broken logger must not change the outcome of a call.
    }
  };
  return {
    baseUrl,
    timeoutMs,
    maxBytes,
    retry,
    adminKey,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    emit,
  };
}

function errorOutcome(error: Error, retryable = false): Outcome {
  return { kind: 'error', error, retryable };
}

/** One attempt's deadline, combined with the caller's signal. */
interface Deadline {
  readonly timeout: AbortSignal;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
}

/** A fetch or body read that threw: the caller's abort, the deadline, or the network. */
function attemptFailure(spec: RequestSpec, deadline: Deadline, error: unknown): Outcome {
  if (spec.signal?.aborted) return errorOutcome(new IssuerClientError('ABORTED', 'the request was aborted'));
  if (deadline.timeout.aborted)
    return errorOutcome(new IssuerClientError('TIMEOUT', `no complete answer within ${deadline.timeoutMs} ms`), true);
  if (error instanceof IssuerClientError) return errorOutcome(error);
  return errorOutcome(new IssuerClientError('NETWORK_ERROR', 'the issuer could not be reached'), true);
}

function requestHeaders(
  spec: RequestSpec,
  body: string | undefined,
  adminKey: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    accept: spec.expect === 'credential' ? `${CREDENTIAL_TYPE}, application/json;q=0.9` : 'application/json',
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (spec.admin !== undefined && adminKey !== undefined) headers.authorization = `Bearer ${adminKey}`;
  return headers;
}

/** The body, within maxBytes (undefined when larger), read before the deadline. */
async function readBody(response: Response, maxBytes: number, signal: AbortSignal): Promise<Uint8Array | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  return untilAborted(readBounded(response.body, maxBytes), signal);
}

/** The answer as safe JSON when it says it is JSON (or a credential, when one was asked for). */
function answerJson(
  response: Response,
  received: Uint8Array,
  spec: RequestSpec,
  maxBytes: number,
): JsonValue | undefined {
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!JSON_TYPE.test(contentType) && !(spec.expect === 'credential' && contentType === CREDENTIAL_TYPE))
    return undefined;
  try {
    return parseJson(bytesToUtf8(received), { maxBytes });
  } catch {
    return undefined;
  }
}

/** An error status: the issuer's error envelope (redacted), retryable on a 5xx or 429. */
function apiErrorOutcome(response: Response, json: JsonValue | undefined, secrets: readonly string[]): Outcome {
  const { status } = response;
  const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const envelope = isErrorEnvelope(json) ? json.error : undefined;
  const error = new IssuerApiError(
    status,
    envelope?.code ?? 'HTTP_ERROR',
    envelope ? redact(envelope.message, secrets) : `HTTP ${status} from the issuer`,
    {
      ...(envelope?.details === undefined ? {} : { details: redact(envelope.details, secrets) }),
      ...(requestId === undefined ? {} : { requestId: requestId.slice(0, 128) }),
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    },
  );
  const retryable = status >= 500 || status === 429;
  return {
    kind: 'error',
    error,
    retryable,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterMs: retryAfterSeconds * 1000 }),
  };
}

/** What the issuer answered, once it answered within limits. */
function outcomeOf(
  response: Response,
  received: Uint8Array,
  spec: RequestSpec,
  attempt: number,
  settings: Settings,
  secrets: readonly string[],
): Outcome {
  const json = answerJson(response, received, spec, settings.maxBytes);
  const { status } = response;
  const answer = (status >= 200 && status < 300) || (spec.answerStatuses ?? []).includes(status);
  if (answer && json !== undefined)
    return { kind: 'answer', response: { status, json, headers: response.headers, attempt } };
  if (status >= 200 && status < 300)
    return errorOutcome(new IssuerClientError('RESPONSE_INVALID', `the HTTP ${status} answer is not safe JSON`));
  return apiErrorOutcome(response, json, secrets);
}

async function attemptOnce(
  settings: Settings,
  spec: RequestSpec,
  body: string | undefined,
  attempt: number,
  secrets: readonly string[],
): Promise<Outcome> {
  // Called unbound, as a plain function: a browser's own fetch refuses any other `this`.
  const { timeoutMs, maxBytes, fetch: doFetch } = settings;
  const timeout = AbortSignal.timeout(timeoutMs);
  const deadline: Deadline = {
    timeout,
    signal: spec.signal ? AbortSignal.any([timeout, spec.signal]) : timeout,
    timeoutMs,
  };
  const { signal } = deadline;
  let response: Response;
  try {
    const request = doFetch(buildUrl(settings.baseUrl, spec), {
      method: spec.method,
      headers: requestHeaders(spec, body, settings.adminKey),
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      signal,
    });
    response = await untilAborted(request, signal);
  } catch (error) {
    return attemptFailure(spec, deadline, error);
  }
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
    await response.body?.cancel().catch(() => undefined);
    return errorOutcome(new IssuerClientError('RESPONSE_INVALID', `redirect (HTTP ${response.status}) refused`));
  }
  let received: Uint8Array | undefined;
  try {
    received = await readBody(response, maxBytes, signal);
  } catch (error) {
    return attemptFailure(spec, deadline, error);
  }
  if (received === undefined)
    return errorOutcome(new IssuerClientError('RESPONSE_TOO_LARGE', `the answer is larger than ${maxBytes} bytes`));
  return outcomeOf(response, received, spec, attempt, settings, secrets);
}

/** The request body as JSON text, checked before any attempt. */
function requestBody(spec: RequestSpec): string | undefined {
  try {
    return spec.body === undefined ? undefined : JSON.stringify(spec.body);
  } catch {
    throw configInvalid('the request body cannot be serialized as JSON');
  }
}

/** Attempts `spec` until it is answered, or fails in a way (or as often as) it may not be retried. */
async function request(settings: Settings, spec: RequestSpec): Promise<TransportResponse> {
  const { adminKey, retry, emit } = settings;
  if (spec.admin === 'required' && adminKey === undefined) {
    throw new IssuerClientError(
      'ADMIN_KEY_REQUIRED',
      `${spec.method} ${spec.path.split('/').slice(0, 3).join('/')}… needs the admin key: pass adminKey to the client`,
    );
  }
  const secrets = [...(adminKey === undefined ? [] : [adminKey]), ...(spec.secrets ?? [])];
  const body = requestBody(spec);
  const attempts = spec.idempotent ? retry.retries + 1 : 1;
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(settings, spec, body, attempt, secrets);
    if (outcome.kind === 'answer') {
      emit({ type: 'response', method: spec.method, path: spec.path, attempt, status: outcome.response.status });
      return outcome.response;
    }
    const { error } = outcome;
    const code = (error as IssuerApiError | IssuerClientError).code;
    if (error instanceof IssuerApiError)
      emit({ type: 'response', method: spec.method, path: spec.path, attempt, status: error.status, code });
    else emit({ type: 'failure', method: spec.method, path: spec.path, attempt, code });
    if (!outcome.retryable || attempt >= attempts) throw error;
    let delayMs = Math.floor(Math.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1)));
    if (outcome.retryAfterMs !== undefined) {
      if (outcome.retryAfterMs > retry.maxRetryAfterMs) throw error;
      delayMs = outcome.retryAfterMs;
    }
    emit({ type: 'retry', method: spec.method, path: spec.path, attempt, delayMs, reason: code });
    await sleep(delayMs, spec.signal);
  }
}

export function createTransport(options: TransportOptions): Transport {
  const settings = transportSettings(options);
  return {
    baseUrl: settings.baseUrl,
    hasAdminKey: settings.adminKey !== undefined,
    request: (spec) => request(settings, spec),
  };
}

function isErrorEnvelope(
  json: JsonValue | undefined,
): json is { error: { code: string; message: string; details?: JsonValue } } {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return false;
  const error = json.error;
  return (
    error !== null &&
    typeof error === 'object' &&
    !Array.isArray(error) &&
    typeof error.code === 'string' &&
    typeof error.message === 'string'
  );
}
