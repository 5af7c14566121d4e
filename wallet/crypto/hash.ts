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
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { assertBytes, concatBytes, equalBytes, utf8ToBytes } from './bytes.ts';
import { base58DigitsFor, decodeBase58btc, decodeBase64url, encodeBase58btc, encodeBase64url } from './multikey.ts';

/** Multihash header for sha2-256 with a 32-byte digest (multicodec 0x12, length 0x20). */
const SHA256_MULTIHASH_PREFIX = Uint8Array.of(0x12, 0x20);

interface NodeHash {
  // A string input is hashed as its UTF-8 encoding.
  hash(algorithm: 'sha256', data: Uint8Array | string, outputEncoding: 'latin1'): string;
}

const nodeCrypto = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto') as
  | Partial<NodeHash>
  | undefined;

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
