/**
 * The verifier side of Bitstring Status List v1.0 (§3.2 Validate Algorithm): fetch the list
 * credential an entry points to, verify its proof and issuer, cache it for its `ttl`, and read
 * the entry's status. Everything fails closed: a list that cannot be fetched is
 * STATUS_LIST_UNAVAILABLE and one that does not verify STATUS_LIST_UNVERIFIED (§3.5's retrieval
 * and verification errors), unless the caller allows a grace period, in which case a list
 * cached earlier is used up to that long past its ttl (and its age is reported).
 *
 * Concurrent checks of one list share one fetch, and a failed fetch is remembered for
 * `negativeTtlMs`: while an issuer's list server is down, every verifier asks it once per
 * period instead of once per presentation, and presentations are refused at once instead of
 * each waiting for a fetch that is likely to fail too.
 */
import { parseDateTimeStamp, verifyProof, type KeyResolver } from '../crypto/data-integrity.ts';
import { isMandateError } from '../crypto/errors.ts';
import { LruCache } from '../crypto/lru.ts';
import { fetchJson, type FetchLike } from '../net/http.ts';
import { checkUrlPolicy, type UrlPolicy } from '../net/url-policy.ts';
import { statusListFromBytes } from './bitstring.ts';
import {
  assertEntryMatchesList,
  parseStatusListCredential,
  parseStatusListEntry,
  readEntryStatus,
  type BitstringStatusListCredential,
} from './credential.ts';
import { inflateEncodedList } from './encoded-list.ts';
import { StatusListError } from './errors.ts';

export interface StatusListClientOptions extends UrlPolicy {
  /** Maps a list credential's verificationMethod to its key (the DID layer's createKeyResolver). */
  resolveKey: KeyResolver;
  fetch?: FetchLike;
  /** Per-fetch deadline (default 3 s). */
  timeoutMs?: number;
  /** Largest list credential accepted, in bytes (default 256 KiB). */
  maxBytes?: number;
  /** Largest decompressed bitstring accepted, in bytes (default 1 MiB = 8,388,608 one-bit entries). */
  maxListBytes?: number;
  /** Cache lifetime when the list states no `ttl` (default 5 minutes). */
  defaultTtlMs?: number;
  /** How long past its ttl a cached list may still be used when a refresh fails (default 0: fail closed). */
  graceMs?: number;
  /** How long a failed fetch or verification is remembered before the list is fetched again (default 5 s; 0: never). */
  negativeTtlMs?: number;
  /** Most lists cached (default 256). */
  max?: number;
  /**
   * Most bytes of decompressed bitstrings cached (default 32 MiB): a 1 MiB bitstring can be a
   * 1.4 KB `encodedList`, so the count alone would let lists someone else signs hold 256 MiB.
   */
  maxCachedBytes?: number;
  /**
   * How far ahead of this clock a list's `validFrom` and its proof's `created` may be (default
   * 60 s, the verifier's default `clockSkewMs`): issuers re-sign a list at every change, so a
   * clock a little behind theirs must still take a fresh one. Set it to the verifier's
   * `clockSkewMs` when that differs.
   */
  clockSkewMs?: number;
  now?: () => number;
}

export interface StatusCheckResult {
  /** The entry's value; 0 means not revoked / not suspended. */
  status: number;
  purpose: string;
  message?: string;
  /** URL of the list relied on. */
  listUrl: string;
  /** How old that list was, in ms. */
  ageMs: number;
}

export interface StatusListClient {
  /**
   * The status of `entry` of a credential issued by `credentialIssuer`; the list must be signed
   * by that same issuer. Throws StatusListError (STATUS_LIST_UNAVAILABLE, STATUS_LIST_UNVERIFIED
   * and the list's own codes) when no trustworthy answer can be given.
   */
  check(entry: unknown, credentialIssuer: string, now?: number): Promise<StatusCheckResult>;
}

interface CachedList {
  credential: BitstringStatusListCredential;
  issuer: string;
  fetchedAt: number;
  freshUntil: number;
  /**
   * The decompressed bitstring, inflated once when the list is fetched (the expensive part) and
   * read at every statusSize without copying; or why it does not inflate, which every check of
   * this version of the list then reports at once.
   */
  bytes: Uint8Array | StatusListError;
}

/** A list's download: shared while it runs, and, when it failed, its refusal until `retryAt`. */
interface Download {
  list: Promise<CachedList>;
  retryAt: number;
}

const MEDIA_TYPES = /* @__PURE__ */ new Set([
  'application/vc',
  'application/vc+ld+json',
  'application/ld+json',
  'application/json',
]);

function unavailable(message: string, cause?: unknown): StatusListError {
  return new StatusListError('STATUS_LIST_UNAVAILABLE', message, { cause });
}

function unverified(message: string, cause?: unknown): StatusListError {
  return new StatusListError('STATUS_LIST_UNVERIFIED', message, { cause });
}

function issuerOf(credential: BitstringStatusListCredential): string {
  return typeof credential.issuer === 'string' ? credential.issuer : credential.issuer.id;
}

/** A client's options with their defaults, checked, and its caches. */
interface Client {
  readonly options: StatusListClientOptions;
  readonly clock: () => number;
  readonly limits: { timeoutMs: number; maxBytes: number };
  readonly maxListBytes: number;
  readonly defaultTtlMs: number;
  readonly graceMs: number;
  readonly negativeTtlMs: number;
  readonly clockSkewMs: number;
  /** Entries outlive their ttl by the grace period, so a failed refresh can fall back to them. */
  readonly cache: LruCache<string, CachedList>;
  readonly downloads: LruCache<string, Download>;
}

function createClient(options: StatusListClientOptions): Client {
  const clock = options.now ?? Date.now;
  const graceMs = options.graceMs ?? 0;
  const negativeTtlMs = options.negativeTtlMs ?? 5_000;
  const clockSkewMs = options.clockSkewMs ?? 60_000;
  // A number of ms, as verifyPresentation's own clockSkewMs (which may carry a fraction).
  if (!(Number.isFinite(clockSkewMs) && clockSkewMs >= 0))
    throw new StatusListError('INVALID_STATUS_ARGUMENT', 'clockSkewMs must be a non-negative number of ms');
  for (const [name, ms] of [
    ['graceMs', graceMs],
    ['negativeTtlMs', negativeTtlMs],
  ] as const) {
    if (!Number.isSafeInteger(ms) || ms < 0)
      throw new StatusListError('INVALID_STATUS_ARGUMENT', `${name} must be a non-negative integer of ms`);
  }
  const cache = new LruCache<string, CachedList>({
    max: options.max ?? 256,
    maxSize: options.maxCachedBytes ?? 32 * 1024 * 1024,
    sizeOf: (list) =>
      (list.bytes instanceof Uint8Array ? list.bytes.byteLength : 0) +
      list.credential.credentialSubject.encodedList.length,
    now: clock,
  });
  return {
    options,
    clock,
    limits: { timeoutMs: options.timeoutMs ?? 3000, maxBytes: options.maxBytes ?? 256 * 1024 },
    maxListBytes: options.maxListBytes ?? 1024 * 1024,
    defaultTtlMs: options.defaultTtlMs ?? 5 * 60_000,
    graceMs,
    negativeTtlMs,
    clockSkewMs,
    cache,
    downloads: new LruCache<string, Download>({ max: options.max ?? 256, now: clock }),
  };
}

/** §3.2 step 4: the list credential's own proof, by a key of its issuer. */
async function verifyList(client: Client, url: string, json: unknown, issuer: string, now: number): Promise<void> {
  const { options } = client;
  try {
    await verifyProof(json, {
      resolveKey: (vm, purpose) =>
        vm.split('#')[0] === issuer
          ? options.resolveKey(vm, purpose)
          : Promise.reject(unverified(`status list ${url} is signed by a key outside its issuer`)),
      expectedProofPurpose: 'assertionMethod',
      now: new Date(now),
      clockSkewMs: client.clockSkewMs,
      // The credential was fetched within this bound; canonical JSON must be allowed as much.
      limits: { maxBytes: client.limits.maxBytes },
    });
  } catch (error) {
    throw unverified(`status list ${url} does not verify: ${isMandateError(error) ? error.code : 'error'}`, error);
  }
}

/** An `Age` header's delta-seconds in ms; 0 when absent or malformed. */
function ageMs(header: string | null): number {
  return header !== null && /^\d{1,9}$/.test(header) ? Number(header) * 1000 : 0;
}

async function fetchList(client: Client, url: string, now: number): Promise<CachedList> {
  const result = await fetchJson(url, {
    limits: client.limits,
    fetch: client.options.fetch,
    urlPolicy: client.options,
    accept: 'application/vc, application/json',
    mediaTypes: MEDIA_TYPES,
  });
  if (!result.ok) throw unavailable(`status list ${url}: ${result.message}`);
  const credential = parseStatusListCredential(result.json);
  // §3.2 and docs/status-lists.md step 4: the list names itself by the URL it was fetched from.
  if (credential.id !== url) throw unverified(`status list ${url} names itself ${credential.id ?? '(no id)'}`);
  const issuer = issuerOf(credential);
  await verifyList(client, url, result.json, issuer, now);
  // Inflated here, once. A signed list that does not inflate is its issuer's statement for its
  // ttl like any other: cached with the refusal, not inflated again at every check.
  let bytes: Uint8Array | StatusListError;
  try {
    bytes = await inflateEncodedList(credential.credentialSubject.encodedList, { maxBytes: client.maxListBytes });
  } catch (error) {
    bytes = error instanceof StatusListError ? error : unavailable(`status list ${url} does not decode`, error);
  }
  const ttl = credential.credentialSubject.ttl ?? client.defaultTtlMs;
  // RFC 9111 §5.1: a cache in front of the list's server (a CDN, or issuer instances sharing
  // lists) says how long it has held it; the ttl counts from the issuer's answer, not the cache's.
  const fetchedAt = now - Math.min(ttl, ageMs(result.headers.get('age')));
  return { credential, issuer, fetchedAt, freshUntil: fetchedAt + ttl, bytes };
}

async function listFor(client: Client, url: string, now: number): Promise<CachedList> {
  const { cache, downloads, clock } = client;
  const cached = cache.get(url);
  if (cached && now < cached.freshUntil) return cached;
  let started = downloads.get(url);
  // The refusal's period runs on the client's own clock from when the failure was known, not
  // from a caller's `now` or from when the fetch started (a 3 s timeout would eat into it).
  if (!started || clock() >= started.retryAt) {
    const download: Download = { list: fetchList(client, url, now), retryAt: Infinity };
    // Done: forgotten at once when it succeeded, else answered again until retryAt.
    download.list.then(
      () => downloads.delete(url),
      () => (download.retryAt = clock() + client.negativeTtlMs),
    );
    downloads.set(url, (started = download));
  }
  try {
    const fresh = await started.list;
    cache.set(url, fresh, fresh.freshUntil - now + client.graceMs);
    return fresh;
  } catch (error) {
    if (cached && now <= cached.freshUntil + client.graceMs) return cached;
    throw error instanceof StatusListError ? error : unavailable(`status list ${url} is unavailable`, error);
  }
}

async function checkEntry(
  client: Client,
  entry: unknown,
  credentialIssuer: string,
  at: number | undefined,
): Promise<StatusCheckResult> {
  const { clock } = client;
  const now = at ?? clock();
  const parsed = parseStatusListEntry(entry);
  checkUrlPolicy(parsed.statusListCredential, client.options, (message) =>
    unavailable(`status list URL refused: ${message}`),
  );
  const list = await listFor(client, parsed.statusListCredential, now);
  if (list.issuer !== credentialIssuer) {
    throw unverified(
      `status list ${parsed.statusListCredential} is issued by ${list.issuer}, not by the credential's issuer`,
    );
  }
  // VC DM 2.0 §4.9: the list is in force from validFrom until validUntil. Lists are re-signed
  // at every change, so a clock behind the issuer's by up to clockSkewMs takes them.
  const { validFrom, validUntil } = list.credential;
  if (validUntil !== undefined && (parseDateTimeStamp(validUntil) ?? -Infinity) < now)
    throw unverified(`status list ${parsed.statusListCredential} has expired`);
  if (validFrom !== undefined && (parseDateTimeStamp(validFrom) ?? Infinity) > now + client.clockSkewMs)
    throw unverified(`status list ${parsed.statusListCredential} is not valid yet`);
  assertEntryMatchesList(parsed, list.credential);
  if (!(list.bytes instanceof Uint8Array)) throw list.bytes;
  const entries = statusListFromBytes(list.bytes, parsed.statusSize ?? 1);
  const result = readEntryStatus(parsed, entries, list.credential.credentialSubject.statusMessage);
  return {
    status: result.status,
    purpose: result.purpose,
    ...(result.message === undefined ? {} : { message: result.message }),
    listUrl: parsed.statusListCredential,
    ageMs: Math.max(0, now - list.fetchedAt),
  };
}

export function createStatusListClient(options: StatusListClientOptions): StatusListClient {
  const client = createClient(options);
  return {
    check: (entry, credentialIssuer, at) => checkEntry(client, entry, credentialIssuer, at),
  };
}
