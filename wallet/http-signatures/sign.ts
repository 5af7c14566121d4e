/**
 * Signing HTTP messages (RFC 9421 §3.1) with Ed25519 (§3.3.6, `alg="ed25519"`): a request an
 * agent sends, or a response a server answers with (a key directory, §2.4 `;req`).
 *
 * Defaults, safe first: label `sig1`; a request covers `@method`, `@authority`, `@path`, `@query`
 * when its URL has one, and `content-digest` (RFC 9530, sha-256, the header added) when it has a
 * body; parameters `created` (now), `expires` (created + 60 s, at most 300 s), `nonce` (32 random
 * bytes, base64url), `alg`, `keyid`, and `tag` when given. docs/http-signatures.md §Signing.
 */
import { bytesToBase64url } from '../crypto/base64url.ts';
import { randomBytes, utf8ToBytes } from '../crypto/bytes.ts';
import type { Signer } from '../crypto/ed25519.ts';
import { ed25519Thumbprint } from '../crypto/jwt.ts';
import {
  MAX_SIGNATURE_LIFETIME_SECONDS,
  parseComponentId,
  serializeComponentId,
  signatureBase,
  type ComponentId,
  type HttpMessageView,
} from './base.ts';
import { createContentDigest, type ContentDigestAlgorithm } from './content-digest.ts';
import {
  addSignatureAgent,
  checkWebBotAuthSigner,
  WEB_BOT_AUTH_TAG,
  type WebBotAuthSignOptions,
} from './web-bot-auth.ts';
import { HttpSignatureError, refuse } from './errors.ts';
import {
  parseDictionary,
  serializeDictionary,
  StructuredFieldError,
  type BareItem,
  type Dictionary,
  type Params,
} from './structured-fields.ts';

/** Signs signature bases with one Ed25519 key, named by `keyid` (RFC 9421 §2.3). */
export interface RequestSigner {
  readonly keyid: string;
  /** The key's 32-byte public key, when known (Web Bot Auth names it by its thumbprint). */
  readonly publicKey?: Uint8Array;
  /** The 64-byte Ed25519 signature of `data`. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** The default lifetime of a signature, in seconds. */
export const DEFAULT_SIGNATURE_LIFETIME_SECONDS = 60;

export interface SignatureOptions {
  /** The signature's label in `Signature-Input` / `Signature` (default `sig1`). */
  label?: string;
  /**
   * More components to cover, after the defaults: `content-type`, `@target-uri`,
   * `signature-agent;key="sig1"`, `"@authority";req` (a response bound to its request).
   */
  components?: readonly string[];
  /** Lifetime in seconds: `expires` = `created` + this (default 60; 1 to 300). */
  expiresIn?: number;
  /** `nonce` (default: 32 random bytes, base64url); `false` for none. */
  nonce?: string | false;
  /** `tag` (RFC 9421 §2.3): the application profile, e.g. `web-bot-auth`. */
  tag?: string;
  /** The `alg` parameter (default `ed25519`); `false` leaves it out (the key implies it, §2.3). */
  alg?: 'ed25519' | false;
  /** The body's digest algorithm (default `sha-256`); `false` leaves the body uncovered. */
  contentDigest?: ContentDigestAlgorithm | false;
  /** The clock, ms since the epoch (default `Date.now()`): `created` is its second. */
  now?: number;
}

export interface SignRequestOptions extends SignatureOptions {
  /**
   * The Web Bot Auth profile (draft-ietf-webbotauth-httpsig-protocol): `tag="web-bot-auth"`, the
   * keyid checked to be the key's JWK thumbprint, and `Signature-Agent` written and covered as
   * `"signature-agent";key="<label>"`. `{}` signs the profile without a Signature-Agent.
   */
  webBotAuth?: WebBotAuthSignOptions;
}
export type SignResponseOptions = SignatureOptions;

/**
 * A RequestSigner over a wallet Signer — a key store's (`await store.signer(id)`, non-extractable
 * WebCrypto keys included), `seedSigner`, `cryptoKeySigner`. `keyid` defaults to the key's RFC
 * 7638 JWK thumbprint, the Web Bot Auth key id.
 */
export function requestSigner(signer: Signer, keyid?: string): RequestSigner {
  const publicKey = signer.publicKey.slice();
  return Object.freeze({
    keyid: keyid ?? ed25519Thumbprint(publicKey),
    publicKey,
    sign: (data: Uint8Array) => signer.sign(data),
  });
}

/**
 * A RequestSigner for a SigningIdentity (wallet/vc/identity.ts): `keyid` defaults to its
 * verification method, the DID URL of the key (`did:key:z6Mk…#z6Mk…`).
 */
export function identityRequestSigner(
  identity: { readonly verificationMethod: string; readonly signer: Signer },
  keyid: string = identity.verificationMethod,
): RequestSigner {
  return requestSigner(identity.signer, keyid);
}

function invalid(message: string, cause?: unknown): never {
  return refuse('HTTP_SIGNATURE_OPTIONS_INVALID', message, cause);
}

/** Signature parameters (§2.3), in the order written: created, expires, keyid, alg, nonce, tag. */
function signatureParams(signer: RequestSigner, options: SignatureOptions): Params {
  const lifetime = options.expiresIn ?? DEFAULT_SIGNATURE_LIFETIME_SECONDS;
  if (!Number.isSafeInteger(lifetime) || lifetime < 1 || lifetime > MAX_SIGNATURE_LIFETIME_SECONDS)
    invalid(`expiresIn must be an integer from 1 to ${MAX_SIGNATURE_LIFETIME_SECONDS} seconds`);
  const created = Math.floor((options.now ?? Date.now()) / 1000);
  const params: Params = new Map<string, BareItem>([
    ['created', created],
    ['expires', created + lifetime],
    ['keyid', signer.keyid],
  ]);
  if (options.alg !== false) params.set('alg', 'ed25519');
  const nonce = options.nonce ?? bytesToBase64url(randomBytes(32));
  if (nonce !== false) params.set('nonce', nonce);
  if (options.tag !== undefined) params.set('tag', options.tag);
  return params;
}

/** The covered components: `defaults`, then the caller's, each once. */
function coveredComponents(defaults: readonly string[], extra: readonly string[] = []): ComponentId[] {
  const seen = new Set<string>();
  const out: ComponentId[] = [];
  for (const text of [...defaults, ...extra]) {
    let id: ComponentId;
    try {
      id = parseComponentId(text);
    } catch (error) {
      return invalid(`component ${JSON.stringify(text)} is not one this signer computes`, error);
    }
    const key = serializeComponentId(id);
    if (!seen.has(key)) out.push(id);
    seen.add(key);
  }
  return out;
}

function dictionaryOf(headers: Headers, name: string): Dictionary {
  try {
    return parseDictionary(headers.get(name) ?? '');
  } catch (error) {
    if (!(error instanceof StructuredFieldError)) throw error;
    return invalid(`the message's ${name} is not a dictionary: no signature can be added to it`, error);
  }
}

interface Unsigned {
  /** The message as signed: its headers are the new ones (Content-Digest added). */
  view: HttpMessageView & { headers: Headers };
  body: Uint8Array | undefined;
  /** Components covered before the caller's. */
  defaults: string[];
}

/**
 * Signs `unsigned` and writes the signature into its headers (§3.1, §4): the label's member in
 * `Signature-Input` and `Signature`, beside any signatures already there.
 */
async function addSignature(unsigned: Unsigned, signer: RequestSigner, options: SignatureOptions): Promise<void> {
  const label = options.label ?? 'sig1';
  if (!/^[a-z*][a-z0-9_\-.*]*$/.test(label)) invalid('a label is an RFC 8941 key (lowercase, digits, _-.*)');
  const { view, body, defaults } = unsigned;
  if (body !== undefined && body.length > 0 && options.contentDigest !== false) {
    view.headers.set('content-digest', await createContentDigest(body, options.contentDigest));
    // Last of the defaults, unless the caller places it among their components.
    const listed = (options.components ?? []).some((c) => c === 'content-digest' || c === '"content-digest"');
    if (!listed) defaults.push('content-digest');
  }
  const components = coveredComponents(defaults, options.components);
  const params = signatureParams(signer, options);
  let base;
  try {
    base = signatureBase(view, components, params);
  } catch (error) {
    if (!(error instanceof HttpSignatureError)) throw error;
    return invalid(`cannot sign: ${error.message}`, error);
  }
  const inputs = dictionaryOf(view.headers, 'signature-input');
  const signatures = dictionaryOf(view.headers, 'signature');
  if (inputs.has(label) || signatures.has(label)) invalid(`the message already has a signature labelled "${label}"`);
  const signature = await signer.sign(utf8ToBytes(base.base));
  if (!(signature instanceof Uint8Array) || signature.length !== 64)
    invalid('the signer did not return a 64-byte Ed25519 signature');
  inputs.set(label, { items: components.map((c) => ({ value: c.name, params: c.params })), params });
  signatures.set(label, { value: signature, params: new Map() });
  view.headers.set('signature-input', serializeDictionary(inputs));
  view.headers.set('signature', serializeDictionary(signatures));
}

async function bodyOf(message: Request | Response): Promise<Uint8Array<ArrayBuffer> | undefined> {
  return message.body === null ? undefined : new Uint8Array(await message.clone().arrayBuffer());
}

/**
 * Signs a request (RFC 9421 §3.1): a new Request with `Signature-Input`, `Signature` and, for a
 * body, `Content-Digest` added; `request` itself is left unread. Throws HttpSignatureError
 * HTTP_SIGNATURE_OPTIONS_INVALID for options it refuses.
 *
 * @example
 * const signed = await signRequest(new Request('https://api.example/v1/orders'), requestSigner(await store.signer('agent')));
 * await fetch(signed);
 */
export async function signRequest(
  request: Request,
  signer: RequestSigner,
  options: SignRequestOptions = {},
): Promise<Request> {
  const body = await bodyOf(request);
  const headers = new Headers(request.headers);
  const defaults = ['@method', '@authority', '@path'];
  if (new URL(request.url).search !== '') defaults.push('@query');
  let signing: SignatureOptions = options;
  if (options.webBotAuth !== undefined) {
    checkWebBotAuthSigner(signer.keyid, signer.publicKey, options.tag);
    const agent = addSignatureAgent(headers, options.label ?? 'sig1', options.webBotAuth);
    if (agent !== undefined) defaults.push(agent);
    signing = { ...options, tag: WEB_BOT_AUTH_TAG };
  }
  await addSignature({ view: { method: request.method, url: request.url, headers }, body, defaults }, signer, signing);
  // From a clone: a Request built from `request` itself would mark its body used (Chromium).
  return new Request(request.clone(), body === undefined ? { headers } : { headers, body });
}

/**
 * Signs a response bound to the request it answers (RFC 9421 §2.4): components with `;req`
 * (`"@authority";req`) are read from `request`. Covers `content-digest` when there is a body,
 * and the caller's components. For a key directory: `{ components: ['"@authority";req'],
 * tag: 'http-message-signatures-directory' }`.
 */
export async function signResponse(
  response: Response,
  request: Request,
  signer: RequestSigner,
  options: SignResponseOptions = {},
): Promise<Response> {
  const body = await bodyOf(response);
  const headers = new Headers(response.headers);
  const view = { status: response.status, headers, request };
  await addSignature({ view, body, defaults: [] }, signer, options);
  return new Response(body ?? null, { status: response.status, statusText: response.statusText, headers });
}
