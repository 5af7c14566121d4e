/**
 * SHA-256 and the multihash digests built on it.
 *
 * - `sha256` is synchronous on purpose: Data Integrity hashes two small canonical strings per
 *   proof, and an `await crypto.subtle.digest` per hash would cost more in scheduling than the
 *   hashing itself. In Node it uses node:crypto's native one-shot hash, reached through
 *   `process.getBuiltinModule` (Node ≥ 20.16) so no `node:` import reaches browser bundles;
 *   it is 2× faster than JavaScript at 300 bytes and 5× at 4 KiB. Elsewhere, noble-hashes.
 * - `digestMultibase` is the related-resource digest of VC Data Integrity 1.0 §2.6 "Resource
 *   Integrity" / VC DM 2.0 §5.3 "Integrity of Related Resources": a multibase string of the
 *   multihash `0x12 0x20 ‖ SHA-256(bytes)` (0x12 = sha2-256, 0x20 = 32-byte length).
 */
import { sha256 as nobleSha256, sha384 as nobleSha384, sha512 as nobleSha512 } from '@noble/hashes/sha2.js';
import { assertBytes, concatBytes, equalBytes, utf8ToBytes } from './bytes.ts';
import { base58DigitsFor, decodeBase58btc, decodeBase64url, encodeBase58btc, encodeBase64url } from './multikey.ts';

/** Multihash header for sha2-256 with a 32-byte digest (multicodec 0x12, length 0x20). */
const SHA256_MULTIHASH_PREFIX = Uint8Array.of(0x12, 0x20);

interface NodeHash {
  // A string input is hashed as its UTF-8 encoding.
  // A plain function (node:crypto's `hash` does not use `this`), so it is called detached.
  hash: (this: void, algorithm: 'sha256', data: Uint8Array | string, outputEncoding: 'latin1') => string;
}

const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as Partial<NodeHash> | undefined;

const nativeHash = typeof nodeCrypto?.hash === 'function' ? (nodeCrypto as NodeHash).hash : undefined;

function nativeSha256(nodeHash: NodeHash['hash'], data: Uint8Array | string): Uint8Array {
  // 'latin1' gives one character per digest byte. Copied into a small Uint8Array, the digest
  // lives on V8's heap; a Buffer result would be an off-heap allocation that the garbage
  // collector must track — a verifier computes several digests per presentation. (Also a
  // plain Uint8Array, so results compare equal to noble's everywhere.)
  const digest = nodeHash('sha256', data, 'latin1');
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = digest.charCodeAt(i);
  return bytes;
}

/** SHA-256 (FIPS 180-4) of `bytes`: 32 bytes. */
export function sha256(bytes: Uint8Array): Uint8Array {
  assertBytes(bytes, undefined, 'bytes');
  return nativeHash ? nativeSha256(nativeHash, bytes) : nobleSha256(bytes);
}

/**
 * SHA-512 (FIPS 180-4) of `bytes`: 64 bytes (RFC 9530 `sha-512` content digests), from WebCrypto
 * (`crypto.subtle.digest`, in every supported runtime). Unlike SHA-256 nothing needs it
 * synchronously, so no bundle carries a JavaScript SHA-512 for it. The bytes are copied before
 * the call, so a caller writing to them meanwhile cannot change what is hashed.
 */
export async function sha512(bytes: Uint8Array): Promise<Uint8Array> {
  assertBytes(bytes, undefined, 'bytes');
  return new Uint8Array(await crypto.subtle.digest('SHA-512', bytes.slice()));
}

/**
 * SHA-256 of the UTF-8 encoding of `text` (what Data Integrity hashes: canonical JSON text).
 * In Node the encoding happens natively, without an intermediate byte array.
 */
export function sha256Utf8(text: string): Uint8Array {
  return nativeHash ? nativeSha256(nativeHash, text) : nobleSha256(utf8ToBytes(text));
}

/** The 34-byte multihash `0x12 0x20 ‖ SHA-256(bytes)`. */
export function sha256Multihash(bytes: Uint8Array): Uint8Array {
  return concatBytes(SHA256_MULTIHASH_PREFIX, sha256(bytes));
}

/** Multibase alphabets a digest can be written in: 'z' base58btc (default) or 'u' base64url. */
export type DigestEncoding = 'base58btc' | 'base64url';

/**
 * `digestMultibase` of a related resource (VC DM 2.0 §5.3): multibase of the sha2-256
 * multihash. base58btc ("zQm…") unless `encoding` asks for base64url ("uEi…").
 */
export function digestMultibase(bytes: Uint8Array, encoding: DigestEncoding = 'base58btc'): string {
  return multibaseOf(sha256Multihash(bytes), encoding);
}

/**
 * `digestMultibase` of the UTF-8 encoding of `text` — what a credential's canonical JSON text
 * is named by — without materializing the bytes (node:crypto encodes natively).
 */
export function digestMultibaseUtf8(text: string, encoding: DigestEncoding = 'base58btc'): string {
  return multibaseOf(concatBytes(SHA256_MULTIHASH_PREFIX, sha256Utf8(text)), encoding);
}

function multibaseOf(multihash: Uint8Array, encoding: DigestEncoding): string {
  return encoding === 'base64url' ? encodeBase64url(multihash) : encodeBase58btc(multihash);
}

/**
 * True when `digest` is a sha2-256 `digestMultibase` ('z' or 'u' multibase) of `bytes`.
 * Never throws for a bad `digest` (it comes from the document being checked): anything that
 * is not a well-formed sha2-256 multihash is simply false. The comparison is constant-time.
 */
export function verifyDigestMultibase(bytes: Uint8Array, digest: string): boolean {
  const expected = sha256Multihash(bytes);
  let actual: Uint8Array;
  try {
    if (typeof digest !== 'string') return false;
    if (digest[0] === 'z') actual = decodeBase58btc(digest, 'digestMultibase', base58DigitsFor(expected.length));
    else if (digest[0] === 'u') actual = decodeBase64url(digest, 'digestMultibase');
    else return false;
  } catch {
    return false;
  }
  return equalBytes(actual, expected);
}

// Related resources (VC DM 2.0 §5.3): a verifier compares a digest it is given with the bytes
// it holds. Two notations are in use for digestMultibase — a multihash (VC Data Integrity 1.0
// §2.6) and the bare digest, which the W3C VC DM 2.0 test suite writes (base64url of the 32
// bytes of SHA-256) — so both are read; the digest length says which hash.

const SRI = /^(sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})$/;

function sha2(algorithm: 'sha256' | 'sha384' | 'sha512', bytes: Uint8Array): Uint8Array {
  return algorithm === 'sha256' ? sha256(bytes) : algorithm === 'sha384' ? nobleSha384(bytes) : nobleSha512(bytes);
}

/** RFC 4648 §4 base64 (SRI uses it, not base64url); undefined for anything else. */
function fromBase64(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/**
 * True when `sri` is a Subresource Integrity hash expression (SRI §3.5: sha256-, sha384- or
 * sha512- and the base64 digest) of `bytes`. Never throws; constant-time comparison.
 */
export function verifyDigestSri(bytes: Uint8Array, sri: unknown): boolean {
  const match = typeof sri === 'string' ? SRI.exec(sri) : null;
  const digest = match ? fromBase64(match[2] as string) : undefined;
  if (!match || digest === undefined) return false;
  return equalBytes(digest, sha2(match[1] as 'sha256' | 'sha384' | 'sha512', bytes));
}

/**
 * True when `digest` ('u' base64url or 'z' base58btc multibase) names `bytes` as a sha2-256 or
 * sha2-384 multihash, or as the bare SHA-256 (32 bytes) or SHA-384 (48 bytes) digest. Never
 * throws; constant-time comparison.
 */
export function verifyResourceDigestMultibase(bytes: Uint8Array, digest: unknown): boolean {
  if (typeof digest !== 'string') return false;
  let decoded: Uint8Array;
  try {
    if (digest[0] === 'u') decoded = decodeBase64url(digest, 'digestMultibase');
    else if (digest[0] === 'z') decoded = decodeBase58btc(digest, 'digestMultibase', base58DigitsFor(50));
    else return false;
  } catch {
    return false;
  }
  if (decoded.length === 32 || decoded.length === 48)
    return equalBytes(decoded, sha2(decoded.length === 32 ? 'sha256' : 'sha384', bytes));
  // Multihash: 0x12 sha2-256 (32 bytes), 0x20 sha2-384 (48 bytes).
  if (decoded[0] === 0x12 && decoded[1] === 32 && decoded.length === 34)
    return equalBytes(decoded.subarray(2), sha256(bytes));
  if (decoded[0] === 0x20 && decoded[1] === 48 && decoded.length === 50)
    return equalBytes(decoded.subarray(2), nobleSha384(bytes));
  return false;
}
