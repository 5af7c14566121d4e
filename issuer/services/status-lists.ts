/**
 * The issuer side of Bitstring Status List v1.0: lists as database rows, random index
 * allocation (§2.1 statusListIndex: indexes SHOULD be assigned randomly; wallet/status/allocate.ts),
 * status changes, and the signed BitstringStatusListCredential (§2.2) published at
 * `<API_BASE_URL>/v1/status-list/<listId>`.
 *
 * The signed credential is cached per list version (bumped by every status change), so the
 * first fetch after a revocation re-signs and every later one is served from the cache: a
 * revocation is visible in the next fetch.
 *
 * Allocation is two-phase so that issuance needs no lock across its awaits: `reserveIndex`
 * picks a free index from a snapshot, the credential is signed with it, and
 * `commitReservation` (inside the issuing transaction) re-checks the index is still free; a
 * lost race throws IndexTaken and the issuance retries with a fresh snapshot.
 */
import { bytesToHex } from '../../wallet/crypto/bytes.ts';
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { isMandateError, MandateError } from '../../wallet/crypto/errors.ts';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';
import { createKeyResolver } from '../../wallet/did/verification-method.ts';
import { allocateIndex } from '../../wallet/status/allocate.ts';
import { createStatusList, getStatus, setStatus } from '../../wallet/status/bitstring.ts';
import { createStatusListClient, type StatusCheckResult, type StatusListClient } from '../../wallet/status/client.ts';
import {
  buildStatusListCredential,
  buildStatusListEntry,
  type BitstringStatusListEntry,
} from '../../wallet/status/credential.ts';
import { encodeStatusList } from '../../wallet/status/encoded-list.ts';
import { statusListEndpoints, type StatusListInfo } from '../../wallet/contract/status-lists.ts';
import { fetchPolicy } from '../config/index.ts';
import type { IssuerDeps, IssuerStatusClient } from '../deps.ts';
import { refuse } from '../refusal.ts';
import type { StatusListRecord, StatusListStore, StatusMessageRecord } from '../storage/status-lists-store.ts';
import type { IssuerStores } from '../storage/stores.ts';
import { watchDatabase, type DatabaseWatch } from './database-watch.ts';
import type { SharedCache } from './shared-caches/redis-cache.ts';
import { sharedListClientOptions } from './shared-caches/status-list-fetch.ts';

/** What signing a status list uses of the issuer's dependencies. */
export type ListSigningDeps = Pick<IssuerDeps, 'config' | 'stores' | 'issuer' | 'now'>;

/** What the issuer's status-list client uses of the issuer's dependencies. */
export type StatusClientDeps = Pick<IssuerDeps, 'config' | 'stores' | 'issuer' | 'resolver' | 'now'>;

/** Purposes every issued AgentCredential carries an entry for (docs/protocol.md §Agent credential). */
export const ISSUED_PURPOSES = ['revocation', 'suspension'] as const;
export type IssuedPurpose = (typeof ISSUED_PURPOSES)[number];

const DEFAULT_LIST_SETTING = (purpose: string) => `status_list.default.${purpose}`;
/** `/v1/status-list/`: the list's path in the route table, without its id. */
const LIST_PATH = statusListEndpoints.getStatusList.path.replace('{listId}', '');

/** Thrown inside an issuing transaction when a reserved index was taken meanwhile; the caller retries. */
export class IndexTaken extends MandateError<'STATUS_INDEX_TAKEN'> {
  override name = 'IndexTaken';

  constructor(listId: string) {
    super('STATUS_INDEX_TAKEN', `a reserved index of status list ${listId} was taken meanwhile`);
  }
}

export function statusListUrl(deps: Pick<IssuerDeps, 'config'>, listId: string): string {
  return `${deps.config.apiBaseUrl}${LIST_PATH}${encodeURIComponent(listId)}`;
}

/** Purposes a list may be created for (Bitstring Status List §2.1 statusPurpose). */
export const LIST_PURPOSES = ['revocation', 'suspension', 'message', 'refresh'] as const;

export interface CreateListInput {
  purpose: string;
  /** Default `<purpose>-<n>`. */
  id?: string;
  /** Make it the list new credentials get entries on (default true). */
  makeDefault?: boolean;
  /** Bits per entry (§2.1 statusSize; default 1). */
  statusSize?: number;
  /** What each value means (§2.1 statusMessage): required above statusSize 1, 2^statusSize of them. */
  statusMessages?: StatusMessageRecord[] | null;
}

/** The §2.1 rules on statusSize and statusMessage, as the wallet applies them to every entry built. */
function checkSizeAndMessages(input: CreateListInput): void {
  try {
    buildStatusListEntry({
      statusListCredential: 'https://example.invalid/list',
      statusListIndex: 0,
      statusPurpose: input.purpose,
      statusSize: input.statusSize ?? 1,
      ...(input.statusMessages ? { statusMessage: input.statusMessages } : {}),
    });
  } catch (error) {
    throw refuse('VALIDATION_FAILED', isMandateError(error) ? error.message : 'invalid statusSize or statusMessages');
  }
}

/** Creates an empty list (131,072 entries, the §6.1 herd-privacy minimum) in the transaction `tx`. */
export async function createStatusListRecord(
  deps: Pick<IssuerDeps, 'now'>,
  tx: IssuerStores,
  input: CreateListInput,
): Promise<StatusListRecord> {
  checkSizeAndMessages(input);
  const existing = await tx.statusLists.list();
  let id = input.id;
  if (id === undefined) {
    let n = existing.filter((l) => l.purpose === input.purpose).length + 1;
    while (existing.some((l) => l.id === `${input.purpose}-${n}`)) n++;
    id = `${input.purpose}-${n}`;
  } else if (existing.some((l) => l.id === id)) {
    throw refuse('STATUS_LIST_EXISTS', `status list ${id} already exists`);
  }
  const list = createStatusList({ statusSize: input.statusSize ?? 1 });
  const at = deps.now();
  await tx.statusLists.insert({
    id,
    purpose: input.purpose,
    length: list.length,
    statusSize: list.statusSize,
    statusMessages: input.statusMessages ?? null,
    bitstring: list.bytes,
    // One bit per entry, whatever its size: which indexes are handed out.
    allocated: new Uint8Array(Math.ceil(list.length / 8)),
    createdAt: at,
  });
  if (input.makeDefault ?? true) await tx.settings.set(DEFAULT_LIST_SETTING(input.purpose), id);
  return (await tx.statusLists.get(id)) as StatusListRecord;
}

/** `POST /v1/status-list`: a new list and its audit record, in one transaction; answered as the contract's StatusList. */
export async function createStatusListFor(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'audit' | 'now'>,
  input: CreateListInput,
  actor: string,
): Promise<StatusListInfo> {
  const list = await deps.stores.transaction(async (tx) => {
    const created = await createStatusListRecord(deps, tx, { ...input, statusMessages: input.statusMessages ?? null });
    const data = { listId: created.id, purpose: created.purpose };
    await deps.audit.record({ event: 'STATUS_LIST_CREATED', actor, data }, tx);
    return created;
  });
  return statusListView(deps, list);
}

/** `GET /v1/status-lists`: every list, as the contract's StatusList. */
export async function listStatusLists(
  deps: Pick<IssuerDeps, 'config' | 'stores'>,
): Promise<{ statusLists: StatusListInfo[] }> {
  return { statusLists: (await deps.stores.statusLists.list()).map((list) => statusListView(deps, list)) };
}

/** A list as the contract's StatusList describes it (docs/api.md §Status lists). */
function statusListView(deps: Pick<IssuerDeps, 'config'>, list: StatusListRecord): StatusListInfo {
  return {
    listId: list.id,
    purpose: list.purpose,
    url: statusListUrl(deps, list.id),
    length: list.length,
    statusSize: list.statusSize,
    ...(list.statusMessages ? { statusMessages: list.statusMessages } : {}),
  };
}

/** First start: one revocation and one suspension list. */
export async function ensureDefaultStatusLists(deps: Pick<IssuerDeps, 'stores' | 'audit' | 'now'>): Promise<void> {
  await deps.stores.transaction(async (tx) => {
    for (const purpose of ISSUED_PURPOSES) {
      const id = await tx.settings.get(DEFAULT_LIST_SETTING(purpose));
      if (id === undefined || !(await tx.statusLists.get(id))) {
        const list = await createStatusListRecord(deps, tx, { purpose });
        await deps.audit.record(
          { event: 'STATUS_LIST_CREATED', actor: 'system', data: { listId: list.id, purpose } },
          tx,
        );
      }
    }
  });
}

export interface IndexReservation {
  purpose: string;
  listId: string;
  index: number;
  entry: BitstringStatusListEntry;
}

/** The entry a credential carries for `index` of `list` (§2.1): statusSize only above 1, statusMessage when the list has messages. */
export function statusEntryFor(
  deps: Pick<IssuerDeps, 'config'>,
  list: StatusListRecord,
  index: number,
): BitstringStatusListEntry {
  return buildStatusListEntry({
    statusListCredential: statusListUrl(deps, list.id),
    statusListIndex: index,
    statusPurpose: list.purpose,
    ...(list.statusSize > 1 ? { statusSize: list.statusSize } : {}),
    ...(list.statusMessages ? { statusMessage: list.statusMessages } : {}),
  });
}

/**
 * Picks a free random index on the default list of `purpose` (not yet recorded: see
 * commitReservation). A full list is followed by a new one like it; the revocation and
 * suspension lists are opened on first need, any other purpose needs a list created first
 * (STATUS_LIST_UNAVAILABLE).
 */
export function reserveIndex(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'audit' | 'now'>,
  purpose: string,
): Promise<IndexReservation> {
  return deps.stores.transaction(async (tx) => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const listId = await tx.settings.get(DEFAULT_LIST_SETTING(purpose));
      const list = listId === undefined ? undefined : await tx.statusLists.get(listId);
      if (list) {
        try {
          const index = allocateIndex(list.length, list.allocated);
          return { purpose, listId: list.id, index, entry: statusEntryFor(deps, list, index) };
        } catch (error) {
          if (!isMandateError(error, 'STATUS_LIST_FULL')) throw error;
        }
      } else if (!(ISSUED_PURPOSES as readonly string[]).includes(purpose)) {
        throw refuse(
          'STATUS_LIST_UNAVAILABLE',
          `this issuer has no ${purpose} status list: create one with POST /v1/status-list`,
        );
      }
      // Full (or missing): open the next list for this purpose, like the last one, and allocate there.
      const next = await createStatusListRecord(deps, tx, {
        purpose,
        statusSize: list?.statusSize ?? 1,
        statusMessages: list?.statusMessages ?? null,
      });
      await deps.audit.record(
        { event: 'STATUS_LIST_CREATED', actor: 'system', data: { listId: next.id, purpose } },
        tx,
      );
    }
    throw new Error(`could not open a status list for ${purpose}`);
  });
}

/** Records a reservation in the issuing transaction `tx`. Throws IndexTaken when the index went meanwhile. */
export async function commitReservation(
  deps: Pick<IssuerDeps, 'now'>,
  tx: IssuerStores,
  reservation: IndexReservation,
): Promise<void> {
  if (!(await tx.statusLists.allocate(reservation.listId, reservation.index, deps.now())))
    throw new IndexTaken(reservation.listId);
}

/**
 * Sets entry `index` of `listId` to `value` (1 = revoked / suspended, 0 = clear; up to
 * 2^statusSize − 1 on a larger list) in the transaction `tx`. False when it already had it.
 */
export async function setListStatus(
  deps: Pick<IssuerDeps, 'now'>,
  tx: IssuerStores,
  target: { listId: string; index: number; value: number },
): Promise<boolean> {
  const { listId, index, value } = target;
  const list = await tx.statusLists.get(listId);
  if (!list) throw refuse('STATUS_LIST_NOT_FOUND', `status list ${listId} does not exist`);
  if (!Number.isSafeInteger(value) || value < 0 || value >= 2 ** list.statusSize) {
    throw refuse('VALIDATION_FAILED', `a status on list ${listId} is an integer from 0 to ${2 ** list.statusSize - 1}`);
  }
  const bits = { bytes: list.bitstring, statusSize: list.statusSize, length: list.length };
  if (getStatus(bits, index) === value) return false;
  setStatus(bits, index, value);
  await tx.statusLists.saveBitstring(list.id, bits.bytes, deps.now());
  return true;
}

export interface PublishedList {
  json: string;
  etag: string;
  ttlMs: number;
}

// Keyed by the issuer's deps object: one booted issuer, one cache (several issuers in one process stay apart).
const signing = new WeakMap<object, Map<string, Promise<PublishedList>>>();

/**
 * The signed list credential of `listId` at its current version: from the cache, or signed
 * now (concurrent requests for one version share one signature). STATUS_LIST_NOT_FOUND when absent.
 */
export async function publishedStatusList(deps: ListSigningDeps, listId: string): Promise<PublishedList> {
  const list = await deps.stores.statusLists.get(listId);
  if (!list) throw refuse('STATUS_LIST_NOT_FOUND', `status list ${listId} does not exist`);
  const ttlMs = deps.config.statusListTtlMs;
  if (list.signedVersion === list.version && list.signedJson !== null && list.etag !== null)
    return { json: list.signedJson, etag: list.etag, ttlMs };
  let inFlight = signing.get(deps);
  if (!inFlight) signing.set(deps, (inFlight = new Map<string, Promise<PublishedList>>()));
  const key = `${list.id}@${list.version}`;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = signList(deps, list).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

async function signList(deps: ListSigningDeps, list: StatusListRecord): Promise<PublishedList> {
  const encodedList = await encodeStatusList({
    bytes: list.bitstring,
    statusSize: list.statusSize,
    length: list.length,
  });
  const unsigned = buildStatusListCredential({
    id: statusListUrl(deps, list.id),
    issuer: deps.issuer.did,
    validFrom: new Date(deps.now()),
    statusPurpose: list.purpose,
    encodedList,
    ttl: deps.config.statusListTtlMs,
  });
  const signed = await createProof(unsigned, {
    signer: deps.issuer.signer,
    verificationMethod: deps.issuer.verificationMethod,
    proofPurpose: 'assertionMethod',
  });
  const json = JSON.stringify(signed);
  const etag = `"${list.id}-${list.version}-${bytesToHex(sha256Utf8(json)).slice(0, 16)}"`;
  await deps.stores.statusLists.saveSigned(list.id, list.version, json, etag);
  return { json, etag, ttlMs: deps.config.statusListTtlMs };
}

/** This issuer's list at one version, and the client that reads it in-process. */
interface LocalList {
  version: number;
  client: StatusListClient;
  /** Notes a read of the list (or its signer's DID) that failed because the database did not answer. */
  watch: DatabaseWatch;
}

/**
 * A client for one of this issuer's lists, fetched in-process (never over the network, so the
 * network policy may allow any host). A list (or its signer's DID) that cannot be read because
 * the database did not answer is noted in `watch` — the client's own answer would be "not
 * found" or "unverified" — so the check can throw that failure instead.
 */
function inProcessClient(deps: StatusClientDeps, prefix: string, watch: DatabaseWatch): StatusListClient {
  const fetch = async (url: string): Promise<Response> => {
    const listId = decodeURIComponent(url.slice(prefix.length));
    try {
      const published = await publishedStatusList(deps, listId);
      return new Response(published.json, { status: 200, headers: { 'content-type': 'application/vc' } });
    } catch (error) {
      watch.note(error);
      return new Response(null, { status: watch.failure ? 503 : 404 });
    }
  };
  return createStatusListClient({
    resolveKey: createKeyResolver(watch.resolver(deps.resolver)),
    fetch,
    allowHttpLoopback: true,
    allowPrivateNetwork: true,
    now: () => deps.now(),
  });
}

export function createIssuerStatusClient(deps: StatusClientDeps, shared?: SharedCache): IssuerStatusClient {
  const resolveKey = createKeyResolver(deps.resolver);
  const now = (): number => deps.now();
  const policy = fetchPolicy(deps.config);
  // SERVICE_CACHE_ADAPTER=redis: other issuers' lists, still signed, shared with the other instances.
  const sharing = shared ? sharedListClientOptions(shared, policy, now) : {};
  const remote = createStatusListClient({ resolveKey, ...policy, ...sharing, now });
  const prefix = `${deps.config.apiBaseUrl}${LIST_PATH}`;
  const local = new Map<string, LocalList>();

  // A shared list that does not verify (planted in Redis, or its issuer's bad moment) is dropped
  // there, so the check after the client's refusal period fetches it from its issuer again.
  const checkRemote = async (
    entry: unknown,
    credentialIssuer: string,
    at: number | undefined,
    url: unknown,
  ): Promise<StatusCheckResult> => {
    try {
      return await remote.check(entry, credentialIssuer, at);
    } catch (error) {
      if (shared && typeof url === 'string' && isMandateError(error, 'STATUS_LIST_UNVERIFIED'))
        await shared.delete(url);
      throw error;
    }
  };

  const over = (version: StatusListStore['version']): StatusListClient => ({
    // async: whatever goes wrong below (a malformed escape in the URL, say) is a rejection, as
    // the StatusListClient contract has it, never a synchronous throw.
    async check(entry, credentialIssuer, at) {
      const url =
        typeof entry === 'object' && entry !== null
          ? (entry as { statusListCredential?: unknown }).statusListCredential
          : undefined;
      if (typeof url !== 'string' || !url.startsWith(prefix)) return checkRemote(entry, credentialIssuer, at, url);
      const listId = decodeURIComponent(url.slice(prefix.length));
      const current = (await version(listId)) ?? -1;
      let cached = local.get(listId);
      if (!cached || cached.version !== current) {
        const watch = watchDatabase();
        cached = { version: current, client: inProcessClient(deps, prefix, watch), watch };
        if (local.size > 1000) local.clear();
        local.set(listId, cached);
      }
      try {
        return await cached.client.check(entry, credentialIssuer, at);
      } catch (error) {
        // The client remembers a failed fetch for a while: one the database's absence caused
        // must not outlive it, so the entry goes and the next check reads the list again.
        const { failure } = cached.watch;
        if (failure === undefined) throw error;
        if (local.get(listId) === cached) local.delete(listId);
        throw failure;
      }
    },
  });
  return { ...over((listId) => deps.stores.statusLists.version(listId)), over };
}
