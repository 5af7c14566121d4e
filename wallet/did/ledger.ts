/**
 * did:ledger — an example DID method plugin, anchored on a public ledger's message topic and
 * read through a mirror node's REST API. Modelled on Hedera's did:hedera method and Hedera
 * mirror node `GET /api/v1/topics/{topicId}/messages` (order=asc, paginated by `links.next`).
 *
 *   did:ledger:<network>:<root key "z6Mk…">_<topicId>      e.g. did:ledger:testnet:z6Mk…_0.0.1234
 *
 * Each topic message is base64(JSON) signed over its JCS (RFC 8785) form by the root key or a
 * current `capabilityInvocation` key. Anyone can write to a public topic, so the history is
 * replayed, invalid or out-of-order messages are ignored and counted, the last valid state wins,
 * and history beyond the limits fails closed: docs/dids.md §did:ledger lists every rule and why.
 */
import { bytesToUtf8, equalBytes, utf8ToBytes } from '../crypto/bytes.ts';
import type { Signer } from '../crypto/ed25519.ts';
import { verify } from '../crypto/ed25519.ts';
import { canonicalBytes, canonicalizeJson } from '../crypto/jcs.ts';
import { parseJson } from '../crypto/json-parse.ts';
import { type JsonValue } from '../crypto/json-value.ts';
import { base58DigitsFor, decodeBase58btc, encodeBase58btc, encodePublicKeyMultibase } from '../crypto/multikey.ts';
import { assertDidDocument } from './document.ts';
import { DidError } from './errors.ts';
import { assertHttpLimits, fetchForResolution, type FetchLike } from './http.ts';
import { tryParseDid } from './parse.ts';
import { assertEd25519PublicKey, ed25519KeyFromMultibase } from './public-key.ts';
import { resolutionError, type DidDocument, type DidResolutionResult, type MethodResolver } from './types.ts';
import { absoluteDidUrl, findVerificationMethod, publicKeyOf } from './verification-method.ts';

export type LedgerOperation = 'create' | 'update' | 'deactivate';

export interface UnsignedLedgerMessage {
  operation: LedgerOperation;
  did: string;
  /** Required for create and update, absent for deactivate. */
  document?: DidDocument;
  /** ISO 8601, chosen by the signer; must increase from one applied message to the next. */
  timestamp: string;
}

export interface LedgerMessage extends UnsignedLedgerMessage {
  /** 'z' + base58btc Ed25519 signature over JCS(message without signature). */
  signature: string;
}

export interface LedgerResolverOptions {
  /** Mirror node base URL, e.g. https://testnet.mirrornode.hedera.com (operator-configured, trusted to serve the topic). */
  mirrorBaseUrl: string;
  /** The only network this resolver answers for (default 'mainnet'); other networks → methodNotSupported. */
  network?: string;
  fetch?: FetchLike;
  /**
   * Deadline for the whole history read and replay, all pages (default 5000 ms): checked before
   * each page is fetched and before each message is replayed.
   */
  timeoutMs?: number;
  /** Largest page body (default 256 KiB). */
  maxBytes?: number;
  /** Most pages followed (default 20). */
  maxPages?: number;
  /** Most messages replayed (default 1000). */
  maxMessages?: number;
  /** Messages requested per page (default 100). */
  pageSize?: number;
  /** Clock in ms since the epoch that `timeoutMs` is measured on (default Date.now). */
  now?: () => number;
}

export const DID_LEDGER_DEFAULTS = /* @__PURE__ */ Object.freeze({
  network: 'mainnet',
  timeoutMs: 5000,
  maxBytes: 256 * 1024,
  maxPages: 20,
  maxMessages: 1000,
  pageSize: 100,
});

/** Counts reported in `didResolutionMetadata.ledger`. */
export interface LedgerReplayStats {
  pages: number;
  messages: number;
  applied: number;
  ignored: { malformed: number; wrongDid: number; badSignature: number; outOfOrder: number };
}

const DID_CONTEXT = 'https://www.w3.org/ns/did/v1';
const NETWORK = /^[a-z0-9]{1,32}$/;
const TOPIC_ID = /^\d{1,10}\.\d{1,10}\.\d{1,10}$/; // shard.realm.num
const CONSENSUS_TIMESTAMP = /^(\d{1,12})\.(\d{1,9})$/; // seconds.nanoseconds
/**
 * How far a message's signed `timestamp` may be from its consensus time: without a bound, one
 * far-future update freezes the DID (why: docs/dids.md §did:ledger).
 */
const MAX_TIMESTAMP_DRIFT_MS = 10 * 60_000;
/**
 * capabilityInvocation entries examined per document state, in document order; an unusable entry
 * still uses up its place, so key checks stay bounded (docs/dids.md §did:ledger).
 */
const MAX_CONTROLLER_KEYS = 8;
/**
 * Replay work (by the resolver's clock) after which the replay yields to the event loop, so a
 * long replay does not starve timers and I/O until its deadline.
 */
const YIELD_EVERY_MS = 50;
const MIRROR_MEDIA_TYPES: ReadonlySet<string> = /* @__PURE__ */ new Set(['application/json']);
const OPERATIONS: ReadonlySet<string> = /* @__PURE__ */ new Set(['create', 'update', 'deactivate']);

interface LedgerDid {
  network: string;
  rootKey: Uint8Array;
  topicId: string;
}

function parseLedgerDid(did: string): LedgerDid {
  const parsed = tryParseDid(did, { method: 'ledger', bare: true });
  if ('error' in parsed) throw new DidError('INVALID_DID', parsed.message);
  const match = /^([a-z0-9]+):(z[1-9A-HJ-NP-Za-km-z]+)_(\d+\.\d+\.\d+)$/.exec(parsed.id);
  if (!match || !NETWORK.test(match[1] as string) || !TOPIC_ID.test(match[3] as string)) {
    throw new DidError(
      'INVALID_DID',
      'did:ledger must be did:ledger:<network>:<z6Mk… root key>_<shard.realm.num topic>',
    );
  }
  let rootKey: Uint8Array;
  try {
    rootKey = ed25519KeyFromMultibase(match[2] as string);
  } catch {
    throw new DidError('INVALID_DID', 'did:ledger root key is not a valid Ed25519 Multikey');
  }
  return { network: match[1] as string, rootKey, topicId: match[3] as string };
}

/** The did:ledger of a root public key anchored on `topicId`. */
export function didLedgerFromPublicKey(
  publicKey: Uint8Array,
  topicId: string,
  network: string = DID_LEDGER_DEFAULTS.network,
): string {
  assertEd25519PublicKey(publicKey);
  if (!NETWORK.test(network) || !TOPIC_ID.test(topicId))
    throw new DidError('INVALID_DID', 'network must be [a-z0-9]+ and topicId shard.realm.num');
  return `did:ledger:${network}:${encodePublicKeyMultibase(publicKey)}_${topicId}`;
}

// Signer timestamps must strictly increase; two messages made within one millisecond get
// consecutive milliseconds instead of the same one.
let lastTimestamp = 0;
function nextTimestamp(): string {
  lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
  return new Date(lastTimestamp).toISOString();
}

/** Builds and signs a did:ledger message for publishing on the DID's topic. */
export async function createLedgerMessage(input: {
  operation: LedgerOperation;
  did: string;
  document?: DidDocument;
  timestamp?: string;
  signer: Signer;
}): Promise<LedgerMessage> {
  parseLedgerDid(input.did);
  if (!OPERATIONS.has(input.operation))
    throw new DidError('INVALID_DID_DOCUMENT', 'operation must be create, update or deactivate');
  const unsigned: UnsignedLedgerMessage = {
    operation: input.operation,
    did: input.did,
    timestamp: input.timestamp ?? nextTimestamp(),
  };
  if (Number.isNaN(Date.parse(unsigned.timestamp)))
    throw new DidError('INVALID_DID_DOCUMENT', 'timestamp must be an ISO 8601 dateTime');
  if (input.operation === 'deactivate') {
    if (input.document !== undefined)
      throw new DidError('INVALID_DID_DOCUMENT', 'a deactivate message carries no document');
  } else {
    unsigned.document = assertDidDocument(input.document, input.did);
  }
  const signature = await input.signer.sign(canonicalBytes(unsigned));
  return { ...unsigned, signature: encodeBase58btc(signature) };
}

/** base64 (RFC 4648 §4) of the message's canonical JSON: the payload a mirror node serves. */
export function encodeLedgerMessage(message: LedgerMessage): string {
  const bytes = utf8ToBytes(canonicalizeJson(message));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function consensusTimeMs(value: string): number {
  const [, seconds = '0', nanos = '0'] = CONSENSUS_TIMESTAMP.exec(value) ?? [];
  return Number(seconds) * 1000 + Math.floor(Number(nanos.padEnd(9, '0')) / 1e6);
}

interface State {
  document: DidDocument;
  deactivated: boolean;
  created: string;
  updated: string;
  versionId: string;
  timestampMs: number;
  /** The keys that may sign the next message, derived once when this state was applied. */
  signers: readonly Uint8Array[];
}

type CapabilityInvocationEntry = NonNullable<DidDocument['capabilityInvocation']>[number];

// The Ed25519 key of one capabilityInvocation entry, or undefined when the document does not
// authorize it (DID Core §5.3.4: referenced or embedded there, declared once, controlled by the
// DID) or it is not a valid Ed25519 Multikey: a key the document cannot authorize cannot sign.
function capabilityKey(doc: DidDocument, entry: CapabilityInvocationEntry): Uint8Array | undefined {
  try {
    return publicKeyOf(
      findVerificationMethod(
        doc,
        absoluteDidUrl(typeof entry === 'string' ? entry : entry.id, doc.id),
        'capabilityInvocation',
      ),
    );
  } catch {
    return undefined;
  }
}

// The keys that may sign the message after `doc` was applied: the root key, then the keys of
// the first MAX_CONTROLLER_KEYS capabilityInvocation entries that yield one, each listed once.
// Called once per applied state; entries past the cap are never looked at.
function controllerKeys(root: Uint8Array, doc: DidDocument): Uint8Array[] {
  const keys = [root];
  for (const entry of (doc.capabilityInvocation ?? []).slice(0, MAX_CONTROLLER_KEYS)) {
    const key = capabilityKey(doc, entry);
    if (key && !keys.some((known) => equalBytes(known, key))) keys.push(key);
  }
  return keys;
}

async function signedByAny(
  message: Record<string, JsonValue>,
  keys: readonly Uint8Array[],
  maxBytes: number,
): Promise<boolean> {
  const { signature, ...unsigned } = message;
  let signatureBytes: Uint8Array;
  let payload: Uint8Array;
  try {
    signatureBytes = decodeBase58btc(signature as string, 'signature', base58DigitsFor(64));
    payload = canonicalBytes(unsigned, { maxBytes });
  } catch {
    return false;
  }
  for (const key of keys) if (await verify(signatureBytes, payload, key).catch(() => false)) return true;
  return false;
}

type Replay = { state: State | undefined; stats: LedgerReplayStats; lastSequence: number };

/** A mirror entry's message, still unchecked, with where the ledger put it. */
interface DecodedEntry {
  message: JsonValue;
  consensusTimestamp: string;
  sequence: number;
}

// The message a mirror entry carries, or undefined (counted in the stats) when the entry is
// malformed or out of sequence.
function decodeEntry(replay: Replay, entry: JsonValue, maxBytes: number): DecodedEntry | undefined {
  const { stats } = replay;
  if (
    !isObject(entry) ||
    typeof entry.message !== 'string' ||
    typeof entry.consensus_timestamp !== 'string' ||
    !CONSENSUS_TIMESTAMP.test(entry.consensus_timestamp)
  ) {
    stats.ignored.malformed++;
    return undefined;
  }
  const sequence = entry.sequence_number;
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence <= replay.lastSequence) {
    stats.ignored.outOfOrder++;
    return undefined;
  }
  replay.lastSequence = sequence;
  try {
    const message = parseJson(bytesToUtf8(decodeBase64(entry.message)), { maxBytes });
    return { message, consensusTimestamp: entry.consensus_timestamp, sequence };
  } catch {
    stats.ignored.malformed++;
    return undefined;
  }
}

// The document an operation installs (none for a deactivate); throws on a malformed message.
function operationDocument(
  message: Record<string, JsonValue>,
  operation: string,
  timestampMs: number,
  did: string,
): DidDocument | undefined {
  if (Number.isNaN(timestampMs)) throw new DidError('INVALID_DID_DOCUMENT', 'bad timestamp');
  if (operation !== 'deactivate') return assertDidDocument(message.document, did);
  if (message.document !== undefined) throw new DidError('INVALID_DID_DOCUMENT', 'deactivate carries no document');
  return undefined;
}

// Applies one mirror entry to the replay (DID Core §7.1.3 metadata comes from consensus times).
async function applyEntry(
  replay: Replay,
  entry: JsonValue,
  did: string,
  rootKey: Uint8Array,
  maxBytes: number,
): Promise<void> {
  const { stats } = replay;
  stats.messages++;
  const decoded = decodeEntry(replay, entry, maxBytes);
  if (decoded === undefined) return;
  const { message, sequence } = decoded;
  if (
    !isObject(message) ||
    typeof message.operation !== 'string' ||
    !OPERATIONS.has(message.operation) ||
    typeof message.signature !== 'string' ||
    typeof message.timestamp !== 'string'
  ) {
    stats.ignored.malformed++;
    return;
  }
  if (message.did !== did) {
    stats.ignored.wrongDid++;
    return;
  }
  const timestampMs = Date.parse(message.timestamp);
  let document: DidDocument | undefined;
  try {
    document = operationDocument(message, message.operation, timestampMs, did);
  } catch {
    stats.ignored.malformed++;
    return;
  }
  const state = replay.state;
  const consensusMs = consensusTimeMs(decoded.consensusTimestamp);
  const inOrder =
    Math.abs(timestampMs - consensusMs) <= MAX_TIMESTAMP_DRIFT_MS &&
    (message.operation === 'create'
      ? state === undefined
      : state !== undefined && !state.deactivated && timestampMs > state.timestampMs);
  if (!inOrder) {
    stats.ignored.outOfOrder++;
    return;
  }
  // Before the create only the root key signs; after it, the signers of the current state.
  if (!(await signedByAny(message, state?.signers ?? [rootKey], maxBytes))) {
    stats.ignored.badSignature++;
    return;
  }
  const at = new Date(consensusMs).toISOString();
  const deactivated = message.operation === 'deactivate';
  const current = document ?? (state as State).document;
  stats.applied++;
  replay.state = {
    document: current,
    deactivated,
    created: state?.created ?? at,
    updated: at,
    versionId: String(sequence),
    timestampMs,
    // nothing applies after a deactivate, so its state needs no signers
    signers: deactivated ? [] : controllerKeys(rootKey, current),
  };
}

function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** The resolver's clock for one resolution: its deadline and when the replay last yielded. */
interface Pace {
  readonly now: () => number;
  readonly deadline: number;
  resumedAt: number;
}

// Called before each message: false once the deadline has passed. Replaying is synchronous work
// chained by microtasks, so without a checkpoint here one page of costly messages would run to
// its end however late it got, with timers starved all the while.
async function beforeMessage(pace: Pace): Promise<boolean> {
  let at = pace.now();
  if (at - pace.resumedAt >= YIELD_EVERY_MS) {
    await nextMacrotask();
    at = pace.resumedAt = pace.now();
  }
  return at < pace.deadline;
}

// Hedera's links.next is origin-relative; it must stay on the mirror and under its base path.
function sameOriginUnder(next: URL, base: URL, basePath: string): boolean {
  return (
    next.origin === base.origin &&
    (basePath === '' || next.pathname === basePath || next.pathname.startsWith(`${basePath}/`))
  );
}

/** A did:ledger resolver's options with their defaults, checked, and its mirror's base URL. */
interface LedgerSettings {
  readonly network: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxPages: number;
  readonly maxMessages: number;
  readonly pageSize: number;
  readonly now: () => number;
  readonly fetch: FetchLike | undefined;
  readonly base: URL;
  /** The base URL's path without trailing slashes ('' for the root). */
  readonly basePath: string;
}

function mirrorBase(mirrorBaseUrl: string): URL {
  let base: URL;
  try {
    base = new URL(mirrorBaseUrl);
  } catch {
    throw new DidError('INVALID_OPTIONS', 'mirrorBaseUrl must be an absolute URL');
  }
  if (
    (base.protocol !== 'https:' && base.protocol !== 'http:') ||
    base.username ||
    base.password ||
    base.search ||
    base.hash
  ) {
    throw new DidError(
      'INVALID_OPTIONS',
      'mirrorBaseUrl must be an http(s) URL without credentials, query or fragment',
    );
  }
  return base;
}

function ledgerSettings(options: LedgerResolverOptions): LedgerSettings {
  const d = DID_LEDGER_DEFAULTS;
  const network = options.network ?? d.network;
  const timeoutMs = options.timeoutMs ?? d.timeoutMs;
  const maxBytes = options.maxBytes ?? d.maxBytes;
  const maxPages = options.maxPages ?? d.maxPages;
  const maxMessages = options.maxMessages ?? d.maxMessages;
  const pageSize = options.pageSize ?? d.pageSize;
  const now = options.now ?? Date.now;
  assertHttpLimits({ timeoutMs, maxBytes });
  if (typeof now !== 'function')
    throw new DidError('INVALID_OPTIONS', 'now must be a function returning ms since the epoch');
  for (const [name, value] of [
    ['maxPages', maxPages],
    ['maxMessages', maxMessages],
    ['pageSize', pageSize],
  ] as const) {
    if (!Number.isInteger(value) || value < 1 || value > 100_000)
      throw new DidError('INVALID_OPTIONS', `${name} must be a positive integer`);
  }
  if (!NETWORK.test(network)) throw new DidError('INVALID_OPTIONS', 'network must match [a-z0-9]{1,32}');
  const base = mirrorBase(options.mirrorBaseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  return { network, timeoutMs, maxBytes, maxPages, maxMessages, pageSize, now, fetch: options.fetch, base, basePath };
}

/** One resolution under way: its DID, the replay so far, and its clock. */
interface Resolution {
  readonly settings: LedgerSettings;
  readonly did: string;
  readonly ledgerDid: LedgerDid;
  readonly replay: Replay;
  readonly pace: Pace;
}

function failed(run: Resolution, error: 'notFound' | 'internalError', message: string): DidResolutionResult {
  const result = resolutionError(error, message);
  result.didResolutionMetadata.ledger = run.replay.stats;
  return result;
}

const timedOut = (run: Resolution): DidResolutionResult =>
  failed(run, 'internalError', `timed out after ${run.settings.timeoutMs} ms`);

/** Fetches one page of the topic and replays its messages: the next page's URL, or how it failed. */
async function replayPage(run: Resolution, url: URL): Promise<URL | undefined | DidResolutionResult> {
  const { settings, replay, pace } = run;
  const { timeoutMs, maxBytes, maxMessages, base, basePath, now } = settings;
  const remaining = pace.deadline - now();
  if (remaining <= 0) return timedOut(run);
  // AbortSignal.timeout takes whole ms; a clock that jumped back must not lengthen the wait
  const pageTimeoutMs = Math.min(Math.ceil(remaining), timeoutMs);
  const page = await fetchForResolution(url.href, {
    limits: { timeoutMs: pageTimeoutMs, maxBytes },
    fetch: settings.fetch,
    accept: 'application/json',
    mediaTypes: MIRROR_MEDIA_TYPES,
  });
  replay.stats.pages++;
  if (!page.ok) {
    if (page.error === 'notFound') return failed(run, 'notFound', 'topic not found on the mirror node');
    return failed(run, 'internalError', `mirror node: ${page.message}`);
  }
  const body = page.json;
  if (!isObject(body) || !Array.isArray(body.messages) || (body.links !== undefined && !isObject(body.links))) {
    return failed(run, 'internalError', 'mirror node returned a malformed page');
  }
  if (replay.stats.messages + body.messages.length > maxMessages)
    return failed(run, 'internalError', `topic history exceeds ${maxMessages} messages; refusing a partial history`);
  for (const entry of body.messages) {
    if (!(await beforeMessage(pace))) return timedOut(run);
    await applyEntry(replay, entry, run.did, run.ledgerDid.rootKey, maxBytes);
  }
  const next = isObject(body.links) ? body.links.next : null;
  if (next === null || next === undefined) return undefined;
  const nextUrl = typeof next === 'string' && URL.canParse(next, base) ? new URL(next, base) : undefined;
  if (!nextUrl || !sameOriginUnder(nextUrl, base, basePath))
    return failed(run, 'internalError', 'mirror node pagination link leaves the mirror; refused');
  return nextUrl;
}

/** Replays the topic's whole history, page by page: undefined when done, or how it failed. */
async function replayTopic(run: Resolution): Promise<DidResolutionResult | undefined> {
  const { basePath, pageSize, maxPages, base } = run.settings;
  let url: URL | undefined = new URL(
    `${basePath}/api/v1/topics/${run.ledgerDid.topicId}/messages?limit=${pageSize}&order=asc`,
    base,
  );
  const seen = new Set<string>();
  while (url) {
    if (run.replay.stats.pages >= maxPages || seen.has(url.href))
      return failed(
        run,
        'internalError',
        `topic history exceeds ${maxPages} pages or loops; refusing a partial history`,
      );
    seen.add(url.href);
    const next = await replayPage(run, url);
    if (next !== undefined && !(next instanceof URL)) return next;
    url = next;
  }
  return undefined;
}

/** The resolution result for the state the replay ended in. */
function resolvedState(run: Resolution): DidResolutionResult {
  const state = run.replay.state;
  if (!state) return failed(run, 'notFound', 'no valid create message on the topic');
  const didDocumentMetadata = {
    created: state.created,
    updated: state.updated,
    versionId: state.versionId,
    ...(state.deactivated ? { deactivated: true } : {}),
  };
  // DID Core §7.1.3: a deactivated DID still resolves, flagged; its keys are withheld so a
  // consumer that overlooks the flag still finds nothing to verify with.
  const didDocument: DidDocument = state.deactivated ? { '@context': [DID_CONTEXT], id: run.did } : state.document;
  return {
    didDocument,
    didDocumentMetadata,
    didResolutionMetadata: { contentType: 'application/did+json', ledger: run.replay.stats },
  };
}

/** A did:ledger method resolver reading one network's topics from a mirror node. */
export function createLedgerResolver(options: LedgerResolverOptions): MethodResolver {
  const settings = ledgerSettings(options);
  const { network, now, timeoutMs } = settings;
  return async (did): Promise<DidResolutionResult> => {
    let ledgerDid: LedgerDid;
    try {
      ledgerDid = parseLedgerDid(did);
    } catch (error) {
      return resolutionError('invalidDid', error instanceof DidError ? error.message : 'not a did:ledger');
    }
    if (ledgerDid.network !== network)
      return resolutionError(
        'methodNotSupported',
        `this resolver serves did:ledger:${network}, not ${ledgerDid.network}`,
      );
    const replay: Replay = {
      state: undefined,
      lastSequence: -1,
      stats: {
        pages: 0,
        messages: 0,
        applied: 0,
        ignored: { malformed: 0, wrongDid: 0, badSignature: 0, outOfOrder: 0 },
      },
    };
    const start = now();
    const run: Resolution = {
      settings,
      did,
      ledgerDid,
      replay,
      pace: { now, deadline: start + timeoutMs, resumedAt: start },
    };
    return (await replayTopic(run)) ?? resolvedState(run);
  };
}
