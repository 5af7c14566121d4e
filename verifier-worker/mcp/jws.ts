/**
 * Compact JWS (RFC 7515 §7.1) with EdDSA (RFC 8037 §3.1), read and verified on the resource
 * server's hot path. jose (wallet/crypto/jwt.ts) verifies through WebCrypto, one await and one
 * key lookup per call; a resource server checks a token on EVERY request (MCP 2026-07-28
 * §Authorization), so this reads the three parts itself and verifies the signature with the
 * crypto core's `verify`, which runs node:crypto synchronously on cached key objects
 * (bench/mcp.ts). Claim checks are the callers' (access-token.ts, dpop.ts).
 */
import { base64urlToBytes } from '../../wallet/crypto/base64url.ts';
import { verify } from '../../wallet/crypto/ed25519.ts';
import { parseJson } from '../../wallet/crypto/json-parse.ts';
import type { JsonValue } from '../../wallet/crypto/json-value.ts';

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

/** The parts of `token`, or undefined when it is no compact JWS with JSON objects for header and claims. */
export function parseCompactJws(token: string, maxLength: number): CompactJws | undefined {
  if (token.length === 0 || token.length > maxLength) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [head = '', body = '', sig = ''] = parts;
  const header = decodeHeader(head);
  const claims = decodeObject(body);
  const signature = base64urlToBytes(sig);
  if (header === undefined || claims === undefined || signature === undefined) return undefined;
  // RFC 7515 §4.1.11: an extension the verifier does not understand must fail it.
  if (header.crit !== undefined) return undefined;
  return { header, claims, signingInput: encoder.encode(`${head}.${body}`), signature };
}

/** `alg` EdDSA (RFC 8037 §3.1) or its fully specified name Ed25519 (RFC 9864 §2). */
export function isEdDsaAlg(alg: JsonValue | undefined): boolean {
  return alg === 'EdDSA' || alg === 'Ed25519';
}

/** Whether the signature verifies under the 32-byte Ed25519 `publicKey` (never rejects). */
export function verifyJws(jws: CompactJws, publicKey: Uint8Array): Promise<boolean> {
  return verify(jws.signature, jws.signingInput, publicKey);
}
