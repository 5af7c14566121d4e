/**
 * The verifier's side of key discovery (draft-ietf-webbotauth-httpsig-protocol, "Key
 * Distribution and Discovery" and "Validating the Domain Binding"): the keys a fetched HTTP
 * Message Signatures Directory or Signature Agent Card vouches for. The fetch is the caller's
 * (its own limits, no redirects, `200` only); this module judges what came back.
 *
 * A directory keeps a key only when one of the answer's signatures — tag
 * `http-message-signatures-directory`, `keyid` its RFC 7638 thumbprint, covering
 * `"@authority";req` and the body's `content-digest` — verifies with it; other keys are ignored
 * (the draft's SHOULD), each with why. docs/key-directory.md §Reading a directory or a card.
 */
import { MandateError } from '../crypto/errors.ts';
import { parseJson } from '../crypto/json-parse.ts';
import { JsonError } from '../crypto/json-value.ts';
import { ed25519Thumbprint, JwtError, parseEd25519PublicJwk } from '../crypto/jwt.ts';
import { base64urlToBytesOfLength } from '../crypto/base64url.ts';
import type { RegisteredCode } from '../reasons/registry.ts';
import { DIRECTORY_SIGNATURE_TAG, SIGNATURE_DIRECTORY_MEDIA_TYPE } from './directory.ts';
import { HttpSignatureError } from './errors.ts';
import { parseDictionary, isInnerList, StructuredFieldError } from './structured-fields.ts';
import { verifyResponseSignature } from './verify.ts';

/** The codes of a refused directory or card, and of a key left out of one. */
export const KEY_DIRECTORY_REASONS = [
  'KEY_DIRECTORY_INVALID',
  'KEY_DIRECTORY_KID_MISMATCH',
] as const satisfies readonly RegisteredCode[];

export type KeyDirectoryErrorCode = (typeof KEY_DIRECTORY_REASONS)[number];

export class KeyDirectoryError extends MandateError<KeyDirectoryErrorCode> {
  override name = 'KeyDirectoryError';
}

function invalid(message: string, cause?: unknown): never {
  throw new KeyDirectoryError('KEY_DIRECTORY_INVALID', message, cause === undefined ? undefined : { cause });
}

/** Bounds on what is read (the draft's SSRF considerations: response size, key count). */
export interface DirectoryLimits {
  /** Largest body read, bytes (default 65,536). */
  maxBytes?: number;
  /** Most keys a document may list (default 64). */
  maxKeys?: number;
}

export interface ReadDirectoryOptions extends DirectoryLimits {
  /** The clock, ms since the epoch (default `Date.now()`): the signatures' `created`/`expires`. */
  now?: number;
}

/** What a directory or card vouches for. */
export interface DirectoryKeys {
  /** The 32-byte Ed25519 keys kept, by RFC 7638 thumbprint (a Web Bot Auth `keyid`). */
  keys: Map<string, Uint8Array>;
  /** The entries left out, with the code of why: `kid` as listed (or the thumbprint), undefined when unreadable. */
  ignored: { kid: string | undefined; code: string }[];
}

async function bodyText(response: Response, maxBytes: number): Promise<string> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > maxBytes) invalid(`the document is over ${maxBytes} bytes`);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

function parseObject(text: string, maxBytes: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseJson(text, { maxBytes });
  } catch (error) {
    if (!(error instanceof JsonError)) throw error;
    return invalid(`the document is not JSON (${error.message})`, error);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid('the document is not a JSON object');
  return value as Record<string, unknown>;
}

/** The Ed25519 entries of a JWK Set (RFC 7517 §5), each with its thumbprint; others ignored. */
function readKeySet(set: unknown, maxKeys: number, kidIsThumbprint: boolean, out: DirectoryKeys) {
  const keys = typeof set === 'object' && set !== null ? (set as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys)) return invalid('the document holds no JWK Set ("keys" is not an array, RFC 7517 §5)');
  if (keys.length > maxKeys) invalid(`the JWK Set lists more than ${maxKeys} keys`);
  const found: { thumbprint: string; publicKey: Uint8Array }[] = [];
  for (const entry of keys) {
    const listed = typeof entry === 'object' && entry !== null ? (entry as { kid?: unknown }).kid : undefined;
    const kid = typeof listed === 'string' ? listed : undefined;
    let publicKey: Uint8Array;
    try {
      publicKey = base64urlToBytesOfLength(parseEd25519PublicJwk(entry).x, 32) as Uint8Array;
    } catch (error) {
      if (!(error instanceof JwtError)) throw error;
      out.ignored.push({ kid, code: error.code });
      continue;
    }
    const thumbprint = ed25519Thumbprint(publicKey);
    // The draft: a kid served at the well-known URI MUST be the thumbprint.
    if (kidIsThumbprint && kid !== undefined && kid !== thumbprint)
      out.ignored.push({ kid, code: 'KEY_DIRECTORY_KID_MISMATCH' });
    else found.push({ thumbprint, publicKey });
  }
  return found;
}

/** The labels of the answer's signatures, by `keyid`, that carry the directory's tag. */
function directoryLabels(response: Response): Map<string, string> {
  const labels = new Map<string, string>();
  let inputs;
  try {
    inputs = parseDictionary(response.headers.get('signature-input') ?? '');
  } catch (error) {
    if (!(error instanceof StructuredFieldError)) throw error;
    return labels; // every key is then ignored as unsigned, as the verifier would refuse them
  }
  for (const [label, member] of inputs) {
    if (!isInnerList(member) || member.params.get('tag') !== DIRECTORY_SIGNATURE_TAG) continue;
    const keyid = member.params.get('keyid');
    if (typeof keyid === 'string' && !labels.has(keyid)) labels.set(keyid, label);
  }
  return labels;
}

/**
 * The keys a directory answer vouches for. `request` is the request that fetched it: its
 * authority is the one the signatures must cover. Throws KeyDirectoryError KEY_DIRECTORY_INVALID
 * for an answer that is not a directory (a status other than 200, another media type, too large,
 * not a JWK Set); a key without a valid signature is left out, in `ignored` with the verifier's
 * code (HTTP_SIGNATURE_NOT_FOUND when it signed nothing).
 */
export async function readSignatureDirectory(
  response: Response,
  request: Request,
  options: ReadDirectoryOptions = {},
): Promise<DirectoryKeys> {
  if (response.status !== 200) invalid(`the directory answered ${response.status}, not 200`);
  const media = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (media !== SIGNATURE_DIRECTORY_MEDIA_TYPE) invalid(`the directory is served as ${media || 'nothing'}`);
  const maxBytes = options.maxBytes ?? 65_536;
  const body = await bodyText(response.clone(), maxBytes);
  const out: DirectoryKeys = { keys: new Map(), ignored: [] };
  const found = readKeySet(parseObject(body, maxBytes), options.maxKeys ?? 64, true, out);
  const labels = directoryLabels(response);
  const bytes = new TextEncoder().encode(body);
  for (const { thumbprint, publicKey } of found) {
    const label = labels.get(thumbprint);
    if (label === undefined) {
      out.ignored.push({ kid: thumbprint, code: 'HTTP_SIGNATURE_NOT_FOUND' });
      continue;
    }
    try {
      await verifyResponseSignature(response, request, {
        label,
        tag: DIRECTORY_SIGNATURE_TAG,
        requiredComponents: ['"@authority";req'],
        resolveKey: (keyid) => Promise.resolve(keyid === thumbprint ? publicKey : undefined),
        body: bytes,
        ...(options.now === undefined ? {} : { now: options.now }),
      });
      out.keys.set(thumbprint, publicKey);
    } catch (error) {
      if (!(error instanceof HttpSignatureError)) throw error;
      out.ignored.push({ kid: thumbprint, code: error.code });
    }
  }
  return out;
}

/** What a Signature Agent Card (or any Client ID Metadata Document) says of its agent. */
export interface CardKeys extends DirectoryKeys {
  /** Mandate's `did` member, when the card has one. */
  did?: string;
  /** The card's `jwks_uri`, when it has one: the caller fetches it (it takes precedence over `jwks`). */
  jwksUri?: string;
}

/**
 * The keys of a Signature Agent Card fetched from `url` (its parsed JSON body). Throws
 * KEY_DIRECTORY_INVALID when its `client_id` is not exactly `url` (CIMD: compared as a string)
 * or it carries neither `jwks` nor `jwks_uri`. Its `kid`s are labels (not necessarily
 * thumbprints): keys are returned by thumbprint, the `keyid` Web Bot Auth signs with.
 */
export function readSignatureAgentCard(card: unknown, url: string, limits: DirectoryLimits = {}): CardKeys {
  if (typeof card !== 'object' || card === null || Array.isArray(card)) return invalid('the card is not a JSON object');
  const { client_id: clientId, jwks, jwks_uri: jwksUri, did } = card as Record<string, unknown>;
  if (clientId !== url) invalid(`the card's client_id is not the URL it was fetched from (${url})`);
  const out: CardKeys = { keys: new Map(), ignored: [] };
  if (typeof did === 'string') out.did = did;
  if (typeof jwksUri === 'string') out.jwksUri = jwksUri;
  if (jwks === undefined) {
    if (out.jwksUri === undefined) invalid('the card has neither jwks nor jwks_uri');
    return out;
  }
  for (const { thumbprint, publicKey } of readKeySet(jwks, limits.maxKeys ?? 64, false, out))
    out.keys.set(thumbprint, publicKey);
  return out;
}
