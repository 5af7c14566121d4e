/**
 * Compact JWS (RFC 7515 §7.1): the one JWS reader and verifier of Mandate. The crypto layer's
 * JWTs (jwt.ts: session tokens, client assertions), DPoP proofs (dpop.ts) and the MCP resource
 * server's access-token check (verifier-worker/mcp/access-token.ts) all go through it.
 *
 * Why hand-rolled rather than a JOSE library: a resource server checks a token on EVERY request
 * (MCP 2026-07-28 §Authorization). A library verifies through WebCrypto, one await and one key
 * import per call; this reads the three parts itself and verifies EdDSA (RFC 8037 §3.1) with the
 * crypto core's `verify`, which runs node:crypto synchronously on cached key objects
 * (bench/mcp.ts) and applies the strict RFC 8032 checks of ed25519.ts. ES256 (RFC 7518 §3.4, the
 * P-256 key WebCrypto-only DPoP clients have) goes through WebCrypto. Claim checks are the
 * callers'.
 */
import { base64urlToBytes, base64urlToBytesOfLength, bytesToBase64url } from './base64url.ts';
import { verify, type Signer } from './ed25519.ts';
import { parseJson } from './json-parse.ts';
import type { JsonValue } from './json-value.ts';
import { LruCache } from './lru.ts';

/** A compact JWS split and decoded; nothing in it is trusted until `verifyJws` says so. */
export interface CompactJws {
  /** Shared between tokens with the same header: read it, never change it. */
  header: Readonly<Record<string, JsonValue>>;
  claims: Record<string, JsonValue>;
  signingInput: Uint8Array;
  signature: Uint8Array;
}

const MAX_PART_BYTES = 8192;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

function isRecord(value: JsonValue): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeObject(part: string): Record<string, JsonValue> | undefined {
  const bytes = base64urlToBytes(part);
  if (bytes === undefined) return undefined;
  try {
    const value = parseJson(utf8.decode(bytes), { maxBytes: MAX_PART_BYTES });
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

// Every token an issuer key signs has the same protected header: its decoded form is kept (a
// small bounded map of identical strings, emptied when full), so only claims are parsed per request.
const headers = new Map<string, Record<string, JsonValue>>();
const MAX_HEADERS = 32;

function decodeHeader(part: string): Record<string, JsonValue> | undefined {
  const known = headers.get(part);
  if (known !== undefined) return known;
  const header = decodeObject(part);
  if (header === undefined) return undefined;
  if (headers.size >= MAX_HEADERS) headers.clear();
  headers.set(part, Object.freeze(header));
  return header;
}

export interface ParseJwsOptions {
  /**
   * Keep the decoded header for the next token with the same one (default true). Off for
   * headers that differ per client (a DPoP proof's carries the client's key), so they do not
   * push the issuer's access-token header out.
   */
  cacheHeader?: boolean;
}

/** The parts of `token`, or undefined when it is no compact JWS with JSON objects for header and claims. */
export function parseCompactJws(token: string, maxLength: number, options?: ParseJwsOptions): CompactJws | undefined {
  if (token.length === 0 || token.length > maxLength) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [head = '', body = '', sig = ''] = parts;
  const header = options?.cacheHeader === false ? decodeObject(head) : decodeHeader(head);
  const claims = decodeObject(body);
  const signature = base64urlToBytes(sig);
  if (header === undefined || claims === undefined || signature === undefined) return undefined;
  // RFC 7515 §4.1.11: an extension the verifier does not understand must fail it.
  if (header.crit !== undefined) return undefined;
  return { header, claims, signingInput: encoder.encode(`${head}.${body}`), signature };
}

/**
 * The protected header of a compact JWS (its first part), unverified, or undefined when that is
 * no base64url JSON object. For choosing a key before verification; trust nothing else in it.
 */
export function readJwsHeader(token: string): Readonly<Record<string, JsonValue>> | undefined {
  const dot = token.indexOf('.');
  return dot < 0 ? undefined : decodeObject(token.slice(0, dot));
}

/**
 * The claims (payload) of a compact JWS, UNVERIFIED, or undefined when it is no three-part JWS
 * whose payload is a JSON object. For naming who a token claims to come from (audit, choosing
 * a key) before `verifyJws`; never for a decision.
 */
export function readUnverifiedClaims(token: string): Record<string, JsonValue> | undefined {
  const parts = token.split('.');
  return parts.length === 3 ? decodeObject(parts[1] ?? '') : undefined;
}

/** `alg` EdDSA (RFC 8037 §3.1) or its fully specified name Ed25519 (RFC 9864 §2). */
export function isEdDsaAlg(alg: JsonValue | undefined): boolean {
  return alg === 'EdDSA' || alg === 'Ed25519';
}

/** Whether the EdDSA signature verifies under the 32-byte Ed25519 `publicKey` (never rejects). */
export function verifyJws(
  jws: Pick<CompactJws, 'signingInput' | 'signature'>,
  publicKey: Uint8Array,
): Promise<boolean> {
  return verify(jws.signature, jws.signingInput, publicKey);
}

/** The public coordinates of a P-256 key (RFC 7518 §6.2.1), base64url. */
export interface P256PublicJwk {
  x: string;
  y: string;
}

// Importing a key costs more than a verification, and a client signs every proof with one key.
const p256Keys = new LruCache<string, Promise<CryptoKey>>({ max: 256 });

function importP256(jwk: P256PublicJwk): Promise<CryptoKey> {
  const id = `${jwk.x}.${jwk.y}`;
  let key = p256Keys.get(id);
  if (key === undefined) {
    key = globalThis.crypto.subtle.importKey(
      'jwk',
      { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y },
      { name: 'ECDSA', namedCurve: 'P-256' },
      false,
      ['verify'],
    );
    key.catch(() => p256Keys.delete(id)); // a key that does not import is not remembered
    p256Keys.set(id, key);
  }
  return key;
}

/**
 * Whether the ES256 signature (RFC 7518 §3.4: R ‖ S, 64 bytes) verifies under the P-256 key.
 * Rejects when the key is not a point of the curve (WebCrypto's import refuses it).
 */
export async function verifyJwsEs256(jws: CompactJws, jwk: P256PublicJwk): Promise<boolean> {
  const key = await importP256(jwk);
  if (jws.signature.length !== 64) return false;
  return globalThis.crypto.subtle.verify(
    { name: 'ECDSA', hash: 'SHA-256' },
    key,
    jws.signature.slice(),
    jws.signingInput.slice(),
  );
}

/**
 * A JWS whose payload travels apart (RFC 7515 Appendix F): the two members a flattened JSON
 * serialization (§7.2.2) keeps, `protected` and `signature`, both base64url.
 */
export interface DetachedJws {
  protected: string;
  signature: string;
}

/** RFC 7515 §5.1 step 6: ASCII(BASE64URL(UTF8(protected header)) || "." || BASE64URL(payload)). */
function signingInputOf(protectedHeader: string, payload: Uint8Array): Uint8Array {
  return encoder.encode(`${protectedHeader}.${bytesToBase64url(payload)}`);
}

/**
 * Signs `payload` as an EdDSA JWS (RFC 8037 §3.1) with `signer`, whose key may be
 * non-extractable, and returns it detached (RFC 7515 Appendix F): the caller ships the payload
 * itself. `header` becomes the protected header as given; it must name `alg` "EdDSA".
 */
export async function signDetachedJws(
  header: Readonly<Record<string, JsonValue>>,
  payload: Uint8Array,
  signer: Signer,
): Promise<DetachedJws> {
  if (header.alg !== 'EdDSA') throw new TypeError('the protected header must name alg "EdDSA"');
  const protectedHeader = bytesToBase64url(encoder.encode(JSON.stringify(header)));
  // Copied before the first await, so a writable alias cannot change what is signed.
  const signingInput = signingInputOf(protectedHeader, Uint8Array.from(payload));
  return { protected: protectedHeader, signature: bytesToBase64url(await signer.sign(signingInput)) };
}

/** A detached JWS read against its payload; nothing in it is trusted until `verifyJws` says so. */
export interface ParsedDetachedJws {
  header: Record<string, JsonValue>;
  signingInput: Uint8Array;
  signature: Uint8Array;
}

/**
 * The parts of a detached EdDSA JWS over `payload`, or undefined when `protected` is no
 * base64url JSON object, names a `crit` extension (RFC 7515 §4.1.11) or `signature` is not the
 * canonical base64url of 64 bytes (RFC 8032 §5.1.6).
 */
export function parseDetachedJws(
  jws: { protected: unknown; signature: unknown },
  payload: Uint8Array,
): ParsedDetachedJws | undefined {
  const header = decodeProtectedHeader(jws.protected);
  const signature = base64urlToBytesOfLength(jws.signature, 64);
  if (header === undefined || signature === undefined || header.crit !== undefined) return undefined;
  return { header, signingInput: signingInputOf(jws.protected as string, payload), signature };
}

/**
 * A detached or flattened JWS's `protected` member decoded, UNVERIFIED, or undefined when it is
 * no base64url JSON object. For choosing a key or a signature before verification.
 */
export function decodeProtectedHeader(part: unknown): Record<string, JsonValue> | undefined {
  if (typeof part !== 'string' || part.length === 0 || part.length > MAX_PART_BYTES) return undefined;
  return decodeObject(part);
}
