/**
 * The worker's status list client: wallet/status's createStatusListClient (fetch, proof and
 * issuer checks, decoding: Bitstring Status List §3.2), with every signed list credential it
 * accepted kept in IndexedDB, so a restarted or offline worker still knows the lists it met.
 *
 * Freshness counts from the FETCH (§2.2 `ttl`), however often the worker restarts: one client
 * ("slot") per list URL, dropped when the fetch-time TTL ends. Stored bytes are verified again
 * on read, stored only after a successful check, and stand in past the TTL only on host failure
 * (RFC 5861 §4 stale-if-error, default 0). Why: docs/verifier.md §How the worker's parts fit.
 */
import { bytesToUtf8 } from '../../wallet/crypto/bytes.ts';
import type { KeyResolver } from '../../wallet/crypto/data-integrity.ts';
import { parseJson } from '../../wallet/crypto/json-parse.ts';
import { LruCache } from '../../wallet/crypto/lru.ts';
import { globalFetch, readBounded, type FetchLike } from '../../wallet/net/http.ts';
import { createStatusListClient, type StatusListClient } from '../../wallet/status/client.ts';
import { parseStatusListCredential, parseStatusListEntry } from '../../wallet/status/credential.ts';
import { tryStore, type KeyValueStore } from './store.ts';

/** A list credential as stored: its bytes as served (UTF-8 JSON), when, and for how long they are fresh. */
export interface StoredStatusList {
  body: string;
  contentType: string;
  fetchedAt: number;
  ttlMs: number;
}

export interface WorkerStatusListOptions {
  store: KeyValueStore<StoredStatusList>;
  /** Maps a list credential's verificationMethod to its key (the worker's resolver, through createKeyResolver). */
  resolveKey: KeyResolver;
  /** TTL of a list that states none (default 5 min). */
  defaultTtlMs?: number;
  /** How long past its TTL a stored list may stand in while its host fails (default 0). */
  staleIfErrorMs?: number;
  allowHttpLoopback?: boolean;
  /** How far ahead of the clock a list's validFrom and proof created may be (the worker's clockSkewMs; default 60 s). */
  clockSkewMs?: number;
  fetch?: FetchLike;
  now?: () => number;
  /** Most lists held in memory (default 256). */
  max?: number;
  /** Receives every storage write, so a worker can stay alive until it lands. */
  track?: (write: Promise<unknown>) => void;
}

/** Largest list credential read (the wallet client's default limit). */
const MAX_LIST_BYTES = 256 * 1024;
/** While a stored list stands in for a failing host, the host is asked again at most this often. */
const RETRY_AFTER_MS = 10_000;

interface Slot {
  client: StatusListClient;
  /** When this slot's list stops being fresh (fetch time + TTL). */
  expiresAt: number;
  /** A list fetched from the network, stored once a check through it succeeded. */
  unsaved?: StoredStatusList;
}

/** The list's own `ttl` (§2.2), if the body is a list credential that states one. */
function ttlOf(body: string): number | undefined {
  try {
    return parseStatusListCredential(parseJson(body, { maxBytes: MAX_LIST_BYTES })).credentialSubject.ttl;
  } catch {
    return undefined; // the slot's client refuses it with the precise reason
  }
}

function storedResponse(stored: StoredStatusList): Response {
  return new Response(stored.body, { status: 200, headers: { 'content-type': stored.contentType } });
}

export function createWorkerStatusLists(options: WorkerStatusListOptions): StatusListClient {
  const clock = options.now ?? Date.now;
  const defaultTtlMs = options.defaultTtlMs ?? 5 * 60_000;
  const staleIfErrorMs = options.staleIfErrorMs ?? 0;
  const network = options.fetch ?? globalFetch;
  const track = options.track ?? (() => undefined);
  const slots = new LruCache<string, Slot>({ max: options.max ?? 256, now: clock });

  async function load(slot: Slot, url: string, init: RequestInit): Promise<Response> {
    const now = clock();
    const stored = await tryStore(() => options.store.get(url), undefined);
    const freshUntil = stored ? stored.fetchedAt + stored.ttlMs : -Infinity;
    if (stored && now >= stored.fetchedAt && now < freshUntil) {
      slot.expiresAt = freshUntil;
      return storedResponse(stored);
    }
    let response: Response | undefined;
    let failure: unknown;
    try {
      response = await network(url, init);
    } catch (error) {
      failure = error;
    }
    if (response?.ok) {
      const bytes = await readBounded(response.body, MAX_LIST_BYTES);
      if (!bytes) return new Response(null, { status: 413 }); // the client reports it as unavailable
      const body = bytesToUtf8(bytes);
      const ttlMs = ttlOf(body) ?? defaultTtlMs;
      const contentType = response.headers.get('content-type') ?? '';
      slot.unsaved = { body, contentType, fetchedAt: now, ttlMs };
      slot.expiresAt = now + ttlMs;
      return new Response(body, { status: response.status, headers: { 'content-type': contentType } });
    }
    // RFC 5861 §4: only an unreachable or failing host lets a stale copy stand in; a 404, a
    // redirect or a refused request is an answer, and is passed on to be judged.
    const hostFailed = response === undefined || response.status >= 500;
    if (stored && hostFailed && now >= stored.fetchedAt && now < freshUntil + staleIfErrorMs) {
      await response?.body?.cancel().catch(() => undefined);
      slot.expiresAt = Math.min(freshUntil + staleIfErrorMs, now + RETRY_AFTER_MS);
      return storedResponse(stored);
    }
    if (response === undefined) throw failure;
    return response;
  }

  function openSlot(url: string): Slot {
    const slot: Slot = {
      // Its fetch is called only once the slot exists, and reads the slot's state.
      client: createStatusListClient({
        resolveKey: options.resolveKey,
        allowHttpLoopback: options.allowHttpLoopback === true,
        ...(options.clockSkewMs === undefined ? {} : { clockSkewMs: options.clockSkewMs }),
        defaultTtlMs,
        maxBytes: MAX_LIST_BYTES,
        now: clock,
        fetch: (input, init) => load(slot, input, init),
      }),
      expiresAt: Infinity,
    };
    slots.set(url, slot);
    return slot;
  }

  return {
    async check(entry, credentialIssuer, at) {
      // Throws STATUS_ENTRY_MALFORMED exactly as the slot's client would.
      const url = parseStatusListEntry(entry).statusListCredential;
      const current = slots.get(url);
      const slot = current && clock() < current.expiresAt ? current : openSlot(url);
      const result = await slot.client.check(entry, credentialIssuer, at);
      const unsaved = slot.unsaved;
      if (unsaved) {
        slot.unsaved = undefined;
        track(tryStore(() => options.store.set(url, unsaved), undefined));
      }
      return result;
    },
  };
}
