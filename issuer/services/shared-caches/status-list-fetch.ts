/**
 * Status-list credentials shared by every issuer instance through Redis, at the status-list
 * client's `fetch` seam: this fetch answers from Redis while a list is within its ttl, and puts
 * every list it fetched (HTTP 200, within the size bound) there. What is shared is the list
 * credential's text as its issuer signed it, so the wallet's client verifies its proof, issuer
 * and validity on every read exactly as after a fetch: whoever writes to Redis cannot forge a
 * list, only deny service or replay an older list its issuer signed (docs/operations.md §Redis).
 *
 * The answer carries an `Age` header (RFC 9111 §5.1): the client counts the list's ttl from when
 * it was fetched from its issuer, not from when it was read from Redis.
 */
import type { FetchLike } from '../../../wallet/net/http.ts';
import { readBounded } from '../../../wallet/net/http.ts';
import { guardedNodeFetch } from '../../../wallet/net/node-fetch.ts';
import type { UrlPolicy } from '../../../wallet/net/url-policy.ts';
import type { SharedCache } from './redis-cache.ts';

export interface SharedListFetchOptions {
  /** The `mandate:sl:` cache. */
  cache: SharedCache;
  /** The network: the guarded transport of the issuer's fetch policy. */
  fetch: FetchLike;
  /** Largest list credential fetched, in bytes (the status-list client's maxBytes). */
  maxBytes: number;
  /** A list's lifetime when it states no `ttl` (the status-list client's defaultTtlMs). */
  defaultTtlMs: number;
  now: () => number;
}

const UTF8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

/** What is stored under the list's URL: its text, media type, and when it was fetched. */
interface StoredList {
  fetchedAt: number;
  ttlMs: number;
  contentType: string;
  body: string;
}

function parseStored(value: string | undefined): StoredList | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<StoredList> | null;
    const { fetchedAt, ttlMs, contentType, body } = parsed ?? {};
    if (typeof fetchedAt !== 'number' || typeof ttlMs !== 'number') return undefined;
    if (typeof contentType !== 'string' || typeof body !== 'string') return undefined;
    return { fetchedAt, ttlMs, contentType, body };
  } catch {
    return undefined;
  }
}

/**
 * The list's ttl when `body` is a list credential naming `url` (the rest is the client's to
 * check); undefined for anything else, which is then not shared.
 */
function listTtl(bytes: Uint8Array, url: string, defaultTtlMs: number): number | undefined {
  try {
    // Text that is not UTF-8 is not shared: its decoding would not be the bytes that were signed.
    const json = JSON.parse(UTF8.decode(bytes)) as { id?: unknown; credentialSubject?: { ttl?: unknown } } | null;
    if (json?.id !== url) return undefined;
    const ttl = json.credentialSubject?.ttl;
    if (ttl === undefined) return defaultTtlMs;
    return typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl > 0 ? ttl : undefined;
  } catch {
    return undefined;
  }
}

/** A fetch in front of `options.fetch` that shares status-list credentials through Redis. */
export function createSharedListFetch(options: SharedListFetchOptions): FetchLike {
  const { cache, maxBytes, defaultTtlMs, now } = options;
  return async (url, init) => {
    const stored = parseStored(await cache.get(url));
    const age = stored === undefined ? Infinity : Math.max(0, now() - stored.fetchedAt);
    if (stored !== undefined && age < stored.ttlMs) {
      const headers = { 'content-type': stored.contentType, age: String(Math.floor(age / 1000)) };
      return new Response(stored.body, { status: 200, headers });
    }
    const response = await options.fetch(url, init);
    if (response.status !== 200) return response;
    const contentType = response.headers.get('content-type') ?? '';
    const bytes = await readBounded(response.body, maxBytes);
    // Too large: the client refuses it as it would the original (by its declared length).
    if (bytes === undefined)
      return new Response(null, { status: 200, headers: { 'content-length': `${maxBytes + 1}` } });
    const ttlMs = listTtl(bytes, url, defaultTtlMs);
    if (ttlMs !== undefined) {
      const value: StoredList = { fetchedAt: now(), ttlMs, contentType, body: UTF8.decode(bytes) };
      await cache.set(url, JSON.stringify(value), ttlMs);
    }
    return new Response(new Uint8Array(bytes), { status: 200, headers: { 'content-type': contentType } });
  };
}

/** Bounds of remote lists when shared: the status-list client's defaults, given to both sides. */
export const SHARED_LIST_LIMITS = /* @__PURE__ */ Object.freeze({ maxBytes: 256 * 1024, defaultTtlMs: 5 * 60_000 });

/**
 * The status-list client options that share lists through `cache`: its fetch over the guarded
 * transport of `policy` (the one the client would use itself), and the bounds both sides use.
 */
export function sharedListClientOptions(
  cache: SharedCache,
  policy: UrlPolicy,
  now: () => number,
): { fetch: FetchLike; maxBytes: number; defaultTtlMs: number } {
  const network = guardedNodeFetch((id) => process.getBuiltinModule(id), policy);
  return { ...SHARED_LIST_LIMITS, fetch: createSharedListFetch({ cache, fetch: network, ...SHARED_LIST_LIMITS, now }) };
}
