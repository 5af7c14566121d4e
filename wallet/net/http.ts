/**
 * Bounded HTTP reads of JSON documents that someone else chose the URL of (did:web documents,
 * ledger mirrors, status lists). Every read is:
 * - time-boxed (one AbortSignal covering headers AND body, and raced too: a caller's own fetch
 *   may ignore the signal),
 * - size-capped while streaming (Content-Length is the sender's claim, not a limit),
 * - redirect-free (`redirect: 'manual'`: a 3xx, or a browser's opaque redirect, is refused, so
 *   a host cannot bounce the reader to another host or into its own network),
 * - cookie- and referrer-free in browsers,
 * - parsed with the crypto core's strict JSON (no `__proto__`, bounded depth and size),
 * - in Node, connected only to addresses the URL policy allows, judged after DNS resolution
 *   (node-fetch.ts), unless the caller brings its own fetch.
 * Failures come back as values, never as throws: callers translate them into their own
 * vocabulary (DID resolution metadata, STATUS_UNAVAILABLE).
 */
import { bytesToUtf8 } from '../crypto/bytes.ts';
import { parseJson } from '../crypto/json-parse.ts';
import { type JsonValue } from '../crypto/json-value.ts';
import { isMandateError } from '../crypto/errors.ts';
import { type GetBuiltinModule, guardedNodeFetch } from './node-fetch.ts';
import type { UrlPolicy } from './url-policy.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface HttpLimits {
  /** Whole-request deadline in ms (headers and body). */
  timeoutMs: number;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
}

export type HttpFailure =
  'redirect' | 'not-found' | 'status' | 'content-type' | 'too-large' | 'json' | 'timeout' | 'network';

export type HttpJsonResult =
  | { ok: true; status: number; contentType: string; headers: Headers; json: JsonValue }
  | { ok: false; failure: HttpFailure; message: string; status?: number };

/** The global fetch, resolved at call time so polyfills installed later are seen. */
export const globalFetch: FetchLike = (input, init) => fetch(input, init);

/**
 * Reads a byte stream to its end, or stops (cancelling the stream) as soon as more than
 * `maxBytes` arrived: returns undefined then, having buffered at most `maxBytes`.
 */
export async function readBounded(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxBytes) {
        // Not awaited: the cancel of one branch of a tee (a Request clone's body) settles only
        // once the other branch is cancelled too (WHATWG Streams, ReadableStreamDefaultTee).
        void reader.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

export interface FetchJsonOptions {
  limits: HttpLimits;
  /** The caller's own fetch: it then answers for where requests go. */
  fetch?: FetchLike;
  /**
   * The policy `url` was checked against (url-policy.ts), for a URL someone else chose. Without
   * `fetch`, Node then applies it again to the addresses the host resolves to. Absent for URLs
   * the operator configured (a ledger mirror).
   */
  urlPolicy?: UrlPolicy;
  accept: string;
  /** Media types accepted for the body (lower case, without parameters). */
  mediaTypes: ReadonlySet<string>;
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** The caller's fetch; else, in Node and under a policy, the guarded transport; else the global fetch. */
function fetchFor(options: FetchJsonOptions): FetchLike {
  if (options.fetch !== undefined) return options.fetch;
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: GetBuiltinModule } }).process
    ?.getBuiltinModule;
  return getBuiltinModule !== undefined && options.urlPolicy !== undefined
    ? guardedNodeFetch(getBuiltinModule, options.urlPolicy)
    : globalFetch;
}

/**
 * `work`, or `signal`'s abort as soon as it comes: a caller's own fetch (or its body stream) may
 * ignore the signal, and the time box must hold all the same. Work left behind settles unheard
 * (the race still listens to it), and the listener goes with the signal once it fires.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  const aborted = new Promise<never>((_, reject) => {
    signal.throwIfAborted();
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an abort rejects with the signal's own reason, as fetch does
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  return Promise.race([work, aborted]);
}

/** GETs `url` and parses its body as JSON within `limits`; every failure is a value. */
export async function fetchJson(url: string, options: FetchJsonOptions): Promise<HttpJsonResult> {
  const { limits } = options;
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  try {
    const request = fetchFor(options)(url, {
      method: 'GET',
      headers: { accept: options.accept },
      redirect: 'manual',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      signal: timeout,
    });
    const response = await untilAborted(request, timeout);
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      await discard(response);
      return { ok: false, failure: 'redirect', message: 'redirect refused', status: response.status };
    }
    if (response.status === 404 || response.status === 410) {
      await discard(response);
      return { ok: false, failure: 'not-found', message: `HTTP ${response.status}`, status: response.status };
    }
    if (response.status < 200 || response.status >= 300) {
      await discard(response);
      return {
        ok: false,
        failure: 'status',
        message: `HTTP ${response.status} from the host`,
        status: response.status,
      };
    }
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!options.mediaTypes.has(contentType)) {
      await discard(response);
      return {
        ok: false,
        failure: 'content-type',
        message: `content type "${contentType.slice(0, 64)}" is not accepted`,
      };
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    const body =
      declared > limits.maxBytes
        ? (await discard(response), undefined)
        : await untilAborted(readBounded(response.body, limits.maxBytes), timeout);
    if (!body)
      return { ok: false, failure: 'too-large', message: `response too large (limit ${limits.maxBytes} bytes)` };
    let json: JsonValue;
    try {
      json = parseJson(bytesToUtf8(body), { maxBytes: limits.maxBytes });
    } catch {
      return {
        ok: false,
        failure: 'json',
        message: 'response body is not safe JSON (syntax, depth, size or a forbidden key)',
      };
    }
    return { ok: true, status: response.status, contentType, headers: response.headers, json };
  } catch (error) {
    if (timeout.aborted) return { ok: false, failure: 'timeout', message: `timed out after ${limits.timeoutMs} ms` };
    if (isMandateError(error, 'ADDRESS_REFUSED'))
      return { ok: false, failure: 'network', message: `address refused: ${error.message}` };
    return { ok: false, failure: 'network', message: 'network error while fetching' };
  }
}
