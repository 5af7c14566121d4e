/**
 * Multibase and Multikey encodings of Ed25519 keys (Controlled Identifiers v1.0 §2.2.2
 * "Multikey"; multibase draft; multicodec table).
 *
 * - public key:  'z' + base58btc(0xed 0x01 ‖ 32-byte key)   → "z6Mk…"
 * - private key: 'z' + base58btc(0x80 0x26 ‖ 32-byte seed)  → "z3u2…"
 *   (0xed01 and 0x8026 are the unsigned-varint forms of multicodec 0xed ed25519-pub and
 *   0x1300 ed25519-priv.)
 * - base64url:   'u' + base64url without padding (RFC 4648 §5), used for status lists.
 */
import { base58ToBytes, bytesToBase58 } from './base58.ts';
import { base64urlToBytesLenient, bytesToBase64url } from './base64url.ts';
import { concatBytes } from './bytes.ts';
import { MandateError } from './errors.ts';

export type MultibaseErrorCode = 'MULTIBASE_INVALID' | 'MULTICODEC_MISMATCH' | 'KEY_LENGTH_INVALID';

export class MultibaseError extends MandateError<MultibaseErrorCode> {
  override name = 'MultibaseError';
}

const ED25519_PUB_PREFIX = Uint8Array.of(0xed, 0x01);
const ED25519_PRIV_PREFIX = Uint8Array.of(0x80, 0x26);

/** 'z' + base58btc. */
export function encodeBase58btc(bytes: Uint8Array): string {
  return `z${bytesToBase58(bytes)}`;
}

/**
 * The most base58 digits `byteLength` bytes encode to: ⌈8n / log2 58⌉. (Each leading zero byte
 * takes one digit, fewer than the 1.37 digits per byte of the rest.)
 */
export function base58DigitsFor(byteLength: number): number {
  return Math.ceil((byteLength * 8) / Math.log2(58));
}

/**
 * Default bound of `decodeBase58btc` on the digits it reads. Decoding is quadratic in the
 * length (60,000 digits take a second), while keys, digests and signatures are under 100
 * digits: an attacker-supplied string must not get to choose the cost.
 */
export const MAX_BASE58_DIGITS = 1024;

/**
 * Decodes a 'z' base58btc multibase string of at most `maxDigits` digits (after the 'z'; pass
 * `base58DigitsFor(n)` when exactly n bytes are expected); anything else is MULTIBASE_INVALID.
 */
export function decodeBase58btc(value: string, name = 'value', maxDigits = MAX_BASE58_DIGITS): Uint8Array {
  if (typeof value !== 'string' || value[0] !== 'z') {
    throw new MultibaseError('MULTIBASE_INVALID', `${name} must be a base58btc multibase string starting with "z"`);
  }
  if (value.length - 1 > maxDigits)
    throw new MultibaseError('MULTIBASE_INVALID', `${name} is longer than ${maxDigits} base58 digits`);
  const bytes = base58ToBytes(value.slice(1));
  if (!bytes)
    throw new MultibaseError('MULTIBASE_INVALID', `${name} contains characters outside the base58btc alphabet`);
  return bytes;
}

/** 'u' + base64url without padding. */
export function encodeBase64url(bytes: Uint8Array): string {
  return `u${bytesToBase64url(bytes)}`;
}

/** Decodes a 'u' base64url multibase string; anything else is MULTIBASE_INVALID. */
export function decodeBase64url(value: string, name = 'value'): Uint8Array {
  if (typeof value !== 'string' || value[0] !== 'u') {
    throw new MultibaseError('MULTIBASE_INVALID', `${name} must be a base64url multibase string starting with "u"`);
  }
  try {
    return base64urlToBytesLenient(value.slice(1));
  } catch {
    throw new MultibaseError('MULTIBASE_INVALID', `${name} contains characters outside the base64url alphabet`);
  }
}

function encodeKey(prefix: Uint8Array, key: Uint8Array, name: string): string {
  if (!(key instanceof Uint8Array) || key.length !== 32) {
    throw new MultibaseError('KEY_LENGTH_INVALID', `${name} must be 32 bytes`);
  }
  return encodeBase58btc(concatBytes(prefix, key));
}

function decodeKey(prefix: Uint8Array, value: string, name: string): Uint8Array {
  const bytes = decodeBase58btc(value, name);
  if (bytes.length < 2 || bytes[0] !== prefix[0] || bytes[1] !== prefix[1]) {
    throw new MultibaseError(
      'MULTICODEC_MISMATCH',
      `${name} is not an Ed25519 Multikey (expected multicodec 0x${prefix[0]?.toString(16)}${prefix[1]?.toString(16).padStart(2, '0')})`,
    );
  }
  if (bytes.length !== 34) {
    throw new MultibaseError('KEY_LENGTH_INVALID', `${name} must hold a 32-byte key, got ${bytes.length - 2}`);
  }
  return bytes.slice(2);
}

/** Ed25519 public key → "z6Mk…" (Multikey publicKeyMultibase). */
export function encodePublicKeyMultibase(publicKey: Uint8Array): string {
  return encodeKey(ED25519_PUB_PREFIX, publicKey, 'public key');
}

/** "z6Mk…" → 32-byte Ed25519 public key. */
export function decodePublicKeyMultibase(value: string): Uint8Array {
  return decodeKey(ED25519_PUB_PREFIX, value, 'publicKeyMultibase');
}

/** Ed25519 seed → "z3u2…" (Multikey secretKeyMultibase). */
export function encodePrivateKeyMultibase(seed: Uint8Array): string {
  return encodeKey(ED25519_PRIV_PREFIX, seed, 'private key');
}

/** "z3u2…" → 32-byte Ed25519 seed. */
export function decodePrivateKeyMultibase(value: string): Uint8Array {
  return decodeKey(ED25519_PRIV_PREFIX, value, 'secretKeyMultibase');
}
