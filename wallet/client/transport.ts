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

export function createTransport(options: TransportOptions): Transport {
  const baseUrl = normalizeBaseUrl(options.baseUrl, options.allowInsecureHttp === true);
  const timeoutMs = positiveInteger(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const maxBytes = positiveInteger(options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 'maxResponseBytes');
  const retry: RetryPolicy =
    options.retry === false ? { ...DEFAULT_RETRY_POLICY, retries: 0 } : { ...DEFAULT_RETRY_POLICY, ...options.retry };
  positiveInteger(retry.retries, 0, 'retry.retries', 0);
  positiveInteger(retry.baseDelayMs, 0, 'retry.baseDelayMs', 0);
  positiveInteger(retry.maxDelayMs, 0, 'retry.maxDelayMs', 0);
  positiveInteger(retry.maxRetryAfterMs, 0, 'retry.maxRetryAfterMs', 0);
  const adminKey = options.adminKey;
  if (adminKey !== undefined && (typeof adminKey !== 'string' || adminKey.length === 0 || /[\r\n]/.test(adminKey))) {
    throw configInvalid('adminKey must be a non-empty single-line string');
  }
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const emit = (event: TransportEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // A broken logger must not change the outcome of a call.
    }
  };

  async function attemptOnce(
    spec: RequestSpec,
    body: string | undefined,
    attempt: number,
    secrets: readonly string[],
  ): Promise<Outcome> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = spec.signal ? AbortSignal.any([timeout, spec.signal]) : timeout;
    const credential = spec.expect === 'credential';
    const headers: Record<string, string> = {
      accept: credential ? `${CREDENTIAL_TYPE}, application/json;q=0.9` : 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (spec.admin !== undefined && adminKey !== undefined) headers.authorization = `Bearer ${adminKey}`;
    const failure = (error: unknown): Outcome => {
      if (spec.signal?.aborted)
        return { kind: 'error', error: new IssuerClientError('ABORTED', 'the request was aborted'), retryable: false };
      if (timeout.aborted)
        return {
          kind: 'error',
          error: new IssuerClientError('TIMEOUT', `no complete answer within ${timeoutMs} ms`),
          retryable: true,
        };
      if (error instanceof IssuerClientError) return { kind: 'error', error, retryable: false };
      return {
        kind: 'error',
        error: new IssuerClientError('NETWORK_ERROR', 'the issuer could not be reached'),
        retryable: true,
      };
    };
    let response: Response;
    try {
      const request = doFetch(buildUrl(baseUrl, spec), {
        method: spec.method,
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
        signal,
      });
      response = await untilAborted(request, signal);
    } catch (error) {
      return failure(error);
    }
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      await response.body?.cancel().catch(() => undefined);
      return {
        kind: 'error',
        error: new IssuerClientError('RESPONSE_INVALID', `redirect (HTTP ${response.status}) refused`),
        retryable: false,
      };
    }
    let received: Uint8Array | undefined;
    try {
      const declared = Number(response.headers.get('content-length') ?? Number.NaN);
      received =
        declared > maxBytes
          ? (await response.body?.cancel().catch(() => undefined), undefined)
          : await untilAborted(readBounded(response.body, maxBytes), signal);
    } catch (error) {
      return failure(error);
    }
    if (received === undefined)
      return {
        kind: 'error',
        error: new IssuerClientError('RESPONSE_TOO_LARGE', `the answer is larger than ${maxBytes} bytes`),
        retryable: false,
      };
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    let json: JsonValue | undefined;
    if (JSON_TYPE.test(contentType) || (credential && contentType === CREDENTIAL_TYPE)) {
      try {
        json = parseJson(bytesToUtf8(received), { maxBytes });
      } catch {
        json = undefined;
      }
    }
    const { status } = response;
    const answer = (status >= 200 && status < 300) || (spec.answerStatuses ?? []).includes(status);
    if (answer && json !== undefined)
      return { kind: 'answer', response: { status, json, headers: response.headers, attempt } };
    if (status >= 200 && status < 300) {
      return {
        kind: 'error',
        error: new IssuerClientError('RESPONSE_INVALID', `the HTTP ${status} answer is not safe JSON`),
        retryable: false,
      };
    }
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

  return {
    baseUrl,
    hasAdminKey: adminKey !== undefined,
    async request(spec) {
      if (spec.admin === 'required' && adminKey === undefined) {
        throw new IssuerClientError(
          'ADMIN_KEY_REQUIRED',
          `${spec.method} ${spec.path.split('/').slice(0, 3).join('/')}… needs the admin key: pass adminKey to the client`,
        );
      }
      const secrets = [...(adminKey === undefined ? [] : [adminKey]), ...(spec.secrets ?? [])];
      let body: string | undefined;
      try {
        body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
      } catch {
        throw configInvalid('the request body cannot be serialized as JSON');
      }
      const attempts = spec.idempotent ? retry.retries + 1 : 1;
      for (let attempt = 1; ; attempt++) {
        const outcome = await attemptOnce(spec, body, attempt, secrets);
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
    },
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
