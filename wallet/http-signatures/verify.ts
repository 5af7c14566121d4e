/**
 * Verifying one HTTP message signature (RFC 9421 §3.2) made with Ed25519, and every check around
 * it that RFC 9421 leaves to the application (§3.2.1, §7): which signature, which parameters and
 * components are required, how fresh, replayed or not, and whether the body is the one signed
 * (RFC 9530). The checks run in the order of HTTP_SIGNATURE_REASONS (errors.ts), each failure an
 * HttpSignatureError with its code; docs/http-signatures.md §Verifying says when each is raised.
 */
import { utf8ToBytes } from '../crypto/bytes.ts';
import { isMandateError } from '../crypto/errors.ts';
import { verify as verifyEd25519 } from '../crypto/ed25519.ts';
import {
  componentsOf,
  MAX_SIGNATURE_LIFETIME_SECONDS,
  parseComponentId,
  serializeComponentId,
  signatureBase,
  urlOf,
  type ComponentId,
  type HttpMessageView,
} from './base.ts';
import { verifyContentDigest } from './content-digest.ts';
import { refuse } from './errors.ts';
import { ed25519Thumbprint } from '../crypto/jwt.ts';
import {
  coveredSignatureAgent,
  WEB_BOT_AUTH_TAG,
  type SignatureAgent,
  type WebBotAuthVerifyOptions,
} from './web-bot-auth.ts';
import {
  isInnerList,
  parseDictionary,
  StructuredFieldError,
  type Dictionary,
  type InnerList,
  type Params,
} from './structured-fields.ts';

/** The replay store the verifier records nonces in: wallet/vc/replay-cache.ts `ReplayCache`. */
export interface SignatureReplayStore {
  /** Records `key` until `expiresAt` (ms); false (or a promise of false) when already recorded. */
  remember(key: string, expiresAt: number): boolean | Promise<boolean>;
}

/** The signature parameters (RFC 9421 §2.3) as read from `Signature-Input`. */
export interface SignatureParameters {
  readonly created: number;
  readonly expires?: number;
  readonly nonce?: string;
  readonly alg?: string;
  readonly keyid: string;
  readonly tag?: string;
  /** Web Bot Auth: the `Signature-Agent` member the signature covers (where its keys are published). */
  readonly signatureAgent?: SignatureAgent;
}

export interface VerifySignatureOptions {
  /** The raw 32-byte Ed25519 public key `keyid` names, or undefined when unknown. */
  resolveKey(keyid: string, params: SignatureParameters): Promise<Uint8Array | undefined>;
  /** The clock, ms since the epoch (default `Date.now()`). */
  now?: number;
  /** Tolerated clock difference for `created` and `expires`, seconds (default 60). */
  maxSkewSeconds?: number;
  /** Oldest `created` accepted, seconds before now, whatever `expires` says (default 300). */
  maxAgeSeconds?: number;
  /**
   * Longest `expires` − `created` accepted, seconds (default 300, Mandate's bound; the Web Bot
   * Auth draft recommends at most 24 hours, and its test vectors expire in 2124).
   */
  maxLifetimeSeconds?: number;
  /**
   * Components the signature must cover (component identifiers, as signRequest takes them).
   * Default for a request: `@method`, `@authority`, `@path`, and `@query` when the URL has one;
   * for a response: none. `content-digest` is required of any message with a body regardless.
   */
  requiredComponents?: readonly string[];
  /**
   * Whether a message with a body must cover `content-digest` (default true). Turn it off only
   * where the body does not matter (the RFC 9421 Appendix B examples cover none).
   */
  requireContentDigest?: boolean;
  /** Records `keyid` + `nonce` so a signature is accepted once; makes `nonce` required. */
  replay?: SignatureReplayStore;
  /** Choose the signature with this `tag` (and require it). */
  tag?: string;
  /** Choose the signature with this label (default: the first, or the first with `tag`). */
  label?: string;
  /** The body bytes, when the caller has read them already (otherwise read from a clone). */
  body?: Uint8Array;
  /**
   * Require the Web Bot Auth profile: the signature tagged `web-bot-auth` is chosen, `expires`
   * is required, a covered `Signature-Agent` member too (by default), and the `keyid` must be
   * the thumbprint of the key `resolveKey` returns (which receives the agent in `params`).
   */
  webBotAuth?: boolean | WebBotAuthVerifyOptions;
}

export interface VerifiedSignature {
  readonly label: string;
  readonly keyid: string;
  readonly alg?: string;
  readonly created: number;
  readonly expires?: number;
  readonly nonce?: string;
  readonly tag?: string;
  /** The covered components' serialised identifiers, in order (`"@method"`, `"signature-agent";key="sig1"`). */
  readonly components: readonly string[];
  /** Each covered component's value as signed, by serialised identifier. */
  readonly values: Readonly<Record<string, string>>;
  /** The whole value of each covered header field, by lowercase name. */
  readonly fields: Readonly<Record<string, string>>;
  /** The key that verified. */
  readonly publicKey: Uint8Array;
  /** Web Bot Auth: the covered `Signature-Agent` member. */
  readonly signatureAgent?: SignatureAgent;
}

export type VerifiedRequestSignature = VerifiedSignature;

/**
 * Largest Signature-Input / Signature read: 32 KiB, room for a key directory's answer signed by
 * each of 64 keys (about 16 KiB each); a request's fields are bounded sooner by the server's
 * header limit (Node: 16 KiB for all of them).
 */
const MAX_FIELD_LENGTH = 32_768;
const MAX_COMPONENTS = 32;

function dictionaryField(message: HttpMessageView, name: string): Dictionary {
  const text = message.headers.get(name);
  if (text === null) return refuse('HTTP_SIGNATURE_MISSING', `no ${name} header field (RFC 9421 §4)`);
  if (text.length > MAX_FIELD_LENGTH) return refuse('HTTP_SIGNATURE_MALFORMED', `${name} is over 32 KiB`);
  try {
    return parseDictionary(text);
  } catch (error) {
    if (!(error instanceof StructuredFieldError)) throw error;
    return refuse('HTTP_SIGNATURE_MALFORMED', `${name} is not an RFC 8941 dictionary (${error.message})`, error);
  }
}

/** §3.2 step 1: the signature the verifier asked for, by label or tag (or the first). */
function chooseSignature(inputs: Dictionary, options: VerifySignatureOptions): [string, InnerList] {
  for (const [label, member] of inputs) {
    if (options.label !== undefined && label !== options.label) continue;
    if (!isInnerList(member))
      return refuse('HTTP_SIGNATURE_MALFORMED', `Signature-Input "${label}" is not an inner list (RFC 9421 §4.1)`);
    if (options.tag !== undefined && member.params.get('tag') !== options.tag) continue;
    return [label, member];
  }
  const wanted = [options.label && `label "${options.label}"`, options.tag && `tag "${options.tag}"`];
  return refuse('HTTP_SIGNATURE_NOT_FOUND', `no signature with ${wanted.filter(Boolean).join(' and ') || 'a label'}`);
}

/** §2.3: the parameters' types; `created` and `keyid` required (§7.2.2, §3.2 step 6). */
function readParams(params: Params, options: VerifySignatureOptions): SignatureParameters {
  const text = (name: string): string | undefined => {
    const value = params.get(name);
    if (value !== undefined && typeof value !== 'string')
      return refuse('HTTP_SIGNATURE_MALFORMED', `"${name}" is a string (RFC 9421 §2.3)`);
    return value;
  };
  const integer = (name: string): number | undefined => {
    const value = params.get(name);
    if (value !== undefined && !(typeof value === 'number' && Number.isSafeInteger(value) && value >= 0))
      return refuse('HTTP_SIGNATURE_MALFORMED', `"${name}" is a non-negative integer (RFC 9421 §2.3)`);
    return value;
  };
  const [created, expires] = [integer('created'), integer('expires')];
  const [keyid, alg, nonce, tag] = [text('keyid'), text('alg'), text('nonce'), text('tag')];
  if (alg !== undefined && alg !== 'ed25519')
    refuse('HTTP_SIGNATURE_ALG_UNSUPPORTED', `alg "${alg}" is not ed25519 (RFC 9421 §3.3.6)`);
  if (created === undefined) return refuse('HTTP_SIGNATURE_PARAMS_INVALID', 'no "created" (RFC 9421 §2.3)');
  if (keyid === undefined || keyid.length === 0)
    return refuse('HTTP_SIGNATURE_PARAMS_INVALID', 'no "keyid": the verifier cannot choose a key');
  if (options.replay !== undefined && (nonce === undefined || nonce.length === 0))
    refuse('HTTP_SIGNATURE_PARAMS_INVALID', 'no "nonce": this verifier checks replay (RFC 9421 §7.2.2)');
  if (expires !== undefined && expires < created)
    refuse('HTTP_SIGNATURE_PARAMS_INVALID', '"expires" is before "created"');
  return { created, keyid, expires, alg, nonce, tag };
}

/** §3.2.1: the time window. Returns when the signature stops being acceptable (ms). */
function checkTime(params: SignatureParameters, options: VerifySignatureOptions): number {
  const now = (options.now ?? Date.now()) / 1000;
  const skew = options.maxSkewSeconds ?? 60;
  const maxAge = options.maxAgeSeconds ?? MAX_SIGNATURE_LIFETIME_SECONDS;
  if (params.created > now + skew)
    refuse('HTTP_SIGNATURE_NOT_YET_VALID', '"created" is in the future, beyond the allowed skew');
  const maxLifetime = options.maxLifetimeSeconds ?? MAX_SIGNATURE_LIFETIME_SECONDS;
  if (params.expires !== undefined && params.expires - params.created > maxLifetime)
    refuse('HTTP_SIGNATURE_LIFETIME_EXCEEDED', `"expires" is more than ${maxLifetime} s after "created"`);
  const until = Math.min(params.expires ?? Infinity, params.created + maxAge) + skew;
  if (now > until) refuse('HTTP_SIGNATURE_EXPIRED', 'the signature has expired (RFC 9421 §3.2.1)');
  return until * 1000;
}

function requiredComponents(message: HttpMessageView, options: VerifySignatureOptions): readonly string[] {
  if (options.requiredComponents !== undefined) return options.requiredComponents;
  if (message.method === undefined) return [];
  const query = message.url !== undefined && urlOf(message)().search !== '';
  return query ? ['@method', '@authority', '@path', '@query'] : ['@method', '@authority', '@path'];
}

/** Required components as serialised identifiers, parsed once per spelling (a verifier's setting). */
const serializedIds = new Map<string, string>();
function serializedId(text: string): string {
  let id = serializedIds.get(text);
  if (id === undefined) {
    id = serializeComponentId(parseComponentId(text));
    if (serializedIds.size >= 256) serializedIds.clear();
    serializedIds.set(text, id);
  }
  return id;
}

function checkCovered(covered: readonly ComponentId[], required: readonly string[], hasBody: boolean): void {
  const names = new Set(covered.map(serializeComponentId));
  for (const text of required) {
    const quoted = serializedId(text);
    if (!names.has(quoted))
      refuse('HTTP_SIGNATURE_COMPONENT_NOT_COVERED', `${quoted} is required and not covered (RFC 9421 §3.2.1)`);
  }
  if (hasBody && !names.has('"content-digest"'))
    refuse('CONTENT_DIGEST_MISSING', 'the message has a body and its signature does not cover content-digest');
}

async function publicKeyFor(params: SignatureParameters, options: VerifySignatureOptions): Promise<Uint8Array> {
  let key: Uint8Array | undefined;
  try {
    key = await options.resolveKey(params.keyid, params);
  } catch (error) {
    // A resolver's own typed refusal (a DID that does not resolve…) reaches the caller unchanged.
    if (isMandateError(error)) throw error;
    return refuse('HTTP_SIGNATURE_KEY_UNKNOWN', 'the key resolver failed', error);
  }
  if (!(key instanceof Uint8Array) || key.length !== 32)
    return refuse('HTTP_SIGNATURE_KEY_UNKNOWN', 'the keyid names no key this verifier knows');
  return key;
}

async function checkReplay(params: SignatureParameters, until: number, options: VerifySignatureOptions): Promise<void> {
  if (options.replay === undefined) return;
  let first: unknown;
  try {
    // The key and nonce are joined by a line feed, which neither can hold (RFC 8941 strings).
    first = await options.replay.remember(`httpsig\n${params.keyid}\n${params.nonce ?? ''}`, until);
  } catch (error) {
    return refuse('HTTP_SIGNATURE_REPLAYED', 'the replay store could not record the nonce (fail closed)', error);
  }
  if (first !== true) refuse('HTTP_SIGNATURE_REPLAYED', 'this nonce was seen before for this key (RFC 9421 §7.2.2)');
}

/**
 * Verifies one signature of `message` (a request, or a response with its request), `body` being
 * its content. The core of verifyRequestSignature and verifyResponseSignature.
 */
export async function verifyMessageSignature(
  message: HttpMessageView,
  body: Uint8Array | undefined,
  options: VerifySignatureOptions,
): Promise<VerifiedSignature> {
  const webBotAuth = options.webBotAuth === true ? {} : options.webBotAuth || undefined;
  const choice = webBotAuth === undefined ? options : { ...options, tag: WEB_BOT_AUTH_TAG };
  const { label, input, signature } = chosenSignature(message, choice);
  const covered = componentsOf(input);
  const params = readParams(input.params, options);
  if (webBotAuth !== undefined && params.expires === undefined)
    refuse('HTTP_SIGNATURE_PARAMS_INVALID', 'no "expires": Web Bot Auth requires it');
  const until = checkTime(params, options);
  const hasBody = body !== undefined && body.length > 0 && options.requireContentDigest !== false;
  checkCovered(covered, requiredComponents(message, options), hasBody);
  const base = signatureBase(message, covered, input.params);
  const signatureAgent =
    webBotAuth === undefined ? undefined : coveredSignatureAgent(message, label, covered, webBotAuth);
  const withAgent = signatureAgent === undefined ? params : { ...params, signatureAgent };
  const publicKey = await publicKeyFor(withAgent, options);
  // Web Bot Auth: keyid MUST be the key's JWK thumbprint (the draft §Generating, RFC 7638).
  if (webBotAuth !== undefined && ed25519Thumbprint(publicKey) !== params.keyid)
    refuse('HTTP_SIGNATURE_KEYID_MISMATCH', 'the keyid is not the RFC 7638 thumbprint of its key');
  if (!(await verifyEd25519(signature, utf8ToBytes(base.base), publicKey)))
    refuse('HTTP_SIGNATURE_INVALID', 'the signature does not verify over the signature base (RFC 9421 §3.2)');
  const digest = base.values.get('"content-digest"');
  if (digest !== undefined) await verifyContentDigest(body ?? new Uint8Array(0), digest);
  await checkReplay(params, until, options);
  const fields: Record<string, string> = {};
  for (const id of covered)
    if (!id.name.startsWith('@') && id.params.get('req') === undefined)
      fields[id.name] = message.headers.get(id.name) ?? '';
  const values = Object.fromEntries(base.values);
  return { label, ...withAgent, components: [...base.values.keys()], values, fields, publicKey };
}

/** Steps 1–2: the signature asked for, its `Signature-Input` member and its bytes. */
function chosenSignature(
  message: HttpMessageView,
  options: VerifySignatureOptions,
): { label: string; input: InnerList; signature: Uint8Array } {
  const inputs = dictionaryField(message, 'signature-input');
  const signatures = dictionaryField(message, 'signature');
  const [label, input] = chooseSignature(inputs, options);
  const member = signatures.get(label);
  if (member === undefined || isInnerList(member) || !(member.value instanceof Uint8Array))
    return refuse('HTTP_SIGNATURE_MALFORMED', `Signature has no byte sequence for "${label}" (RFC 9421 §4.2)`);
  if (input.items.length > MAX_COMPONENTS) refuse('HTTP_SIGNATURE_MALFORMED', 'more than 32 covered components');
  return { label, input, signature: member.value };
}

async function bodyOf(message: Request | Response, given: Uint8Array | undefined): Promise<Uint8Array | undefined> {
  if (given !== undefined) return given;
  return message.body === null ? undefined : new Uint8Array(await message.clone().arrayBuffer());
}

/**
 * Verifies a signed request (RFC 9421 §3.2 and the checks of docs/http-signatures.md
 * §Verifying). Resolves what was verified; rejects with an HttpSignatureError whose `code` says
 * which check failed (or the resolver's own MandateError). `request`'s body is read from a clone.
 */
export async function verifyRequestSignature(
  request: Request,
  options: VerifySignatureOptions,
): Promise<VerifiedRequestSignature> {
  const body = await bodyOf(request, options.body);
  return verifyMessageSignature({ method: request.method, url: request.url, headers: request.headers }, body, options);
}

/** Verifies a response's signature; `;req` components are read from `request` (RFC 9421 §2.4). */
export async function verifyResponseSignature(
  response: Response,
  request: Request,
  options: VerifySignatureOptions,
): Promise<VerifiedSignature> {
  const body = await bodyOf(response, options.body);
  return verifyMessageSignature({ status: response.status, headers: response.headers, request }, body, options);
}
