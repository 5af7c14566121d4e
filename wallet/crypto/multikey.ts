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
import { base64urlToBytesLenient, bytesToBase64url } from './base64url.ts';
import { concatBytes } from './bytes.ts';
import { MandateError } from './errors.ts';

export type MultibaseErrorCode = 'MULTIBASE_INVALID' | 'MULTICODEC_MISMATCH' | 'KEY_LENGTH_INVALID';

export class MultibaseError extends MandateError<MultibaseErrorCode> {
  override name = 'MultibaseError';
}

const ED25519_PUB_PREFIX = Uint8Array.of(0xed, 0x01);
const ED25519_PRIV_PREFIX = Uint8Array.of(0x80, 0x26);

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_DIGIT = /* @__PURE__ */ (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < BASE58_ALPHABET.length; i++) table[BASE58_ALPHABET.charCodeAt(i)] = i;
  return table;
})();
/** 58^4 < 2^24: the base of the limbs the encoder accumulates in. */
const BASE58_POW4 = 58 ** 4;

/**
 * base58btc (draft-msporny-base58 §3) without the multibase prefix; the mirror of `base58ToBytes`,
 * three bytes per step into limbs of four digits (exact in a double: docs/crypto.md §Hot-path details).
 */
function bytesToBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const limbs: number[] = [];
  for (let i = zeros; i < bytes.length;) {
    let chunk = 0;
    let scale = 1;
    for (let k = 0; k < 3 && i < bytes.length; k++, i++) {
      chunk = chunk * 256 + (bytes[i] as number);
      scale *= 256;
    }
    let carry = chunk;
    for (let j = 0; j < limbs.length; j++) {
      const v = (limbs[j] as number) * scale + carry;
      carry = Math.floor(v / BASE58_POW4);
      limbs[j] = v - carry * BASE58_POW4;
    }
    while (carry > 0) {
      const next = Math.floor(carry / BASE58_POW4);
      limbs.push(carry - next * BASE58_POW4);
      carry = next;
    }
  }
  // Most significant limb first; its leading zero digits are not written.
  let digits = '';
  for (let j = limbs.length - 1; j >= 0; j--) {
    let limb = limbs[j] as number;
    let group = '';
    for (let k = 0; k < 4; k++) {
      group = BASE58_ALPHABET[limb % 58] + group;
      limb = Math.floor(limb / 58);
    }
    digits += group;
  }
  let start = 0;
  while (start < digits.length && digits.charCodeAt(start) === 49 /* '1' */) start++;
  return '1'.repeat(zeros) + digits.slice(start);
}

/** 'z' + base58btc. */
export function encodeBase58btc(bytes: Uint8Array): string {
  return `z${bytesToBase58(bytes)}`;
}

/**
 * Limbs for `base58ToBytes`, reused across calls (synchronous, never re-entered): a fresh array
 * this size costs as much as decoding a signature (docs/crypto.md §Hot-path details).
 */
let limbScratch = new Float64Array(64);
/** Limbs hold 32 bits (plus a little slack between steps, see `base58ToBytes`). */
const LIMB = 2 ** 32;
/** 2^-32: multiplying by it is exact (a power of two) and, unlike dividing, cheap. */
const INV_LIMB = 2 ** -32;

/** The base-58 value of the `count` (1–3) digits at text[i…], or -1 on a character outside the alphabet. */
function digitsAt(text: string, i: number, count: number): number {
  let value = 0;
  for (let k = 0; k < count; k++) {
    const code = text.charCodeAt(i + k);
    const digit = code < 128 ? (BASE58_DIGIT[code] as number) : -1;
    if (digit < 0) return -1;
    value = value * 58 + digit;
  }
  return value;
}

/**
 * base58btc (draft-msporny-base58 §3) without the multibase prefix, on the verifier's hot path:
 * three digits per step, carries settled once at the end (why it is exact and faster: docs/crypto.md
 * §Hot-path details). Returns undefined on a character outside the alphabet.
 */
function base58ToBytes(text: string): Uint8Array | undefined {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  const digits = text.length - zeros;
  // log2(58) < 5.86, so 32-bit limbs hold at least 5 digits each.
  if (limbScratch.length < (digits >> 2) + 2) limbScratch = new Float64Array((digits >> 2) + 2);
  const limbs = limbScratch;
  let used = 0;
  // The first group takes the digits that do not fill a group of three.
  const first = digits % 3 || Math.min(3, digits);
  let i = zeros;
  for (let count = first; i < text.length; i += count, count = 3) {
    const group = digitsAt(text, i, count);
    if (group < 0) return undefined;
    const scale = count === 3 ? 195_112 : 58 ** count;
    let carry = group;
    for (let j = 0; j < used; j++) {
      const product = (limbs[j] as number) * scale;
      const high = Math.floor(product * INV_LIMB);
      limbs[j] = product - high * LIMB + carry;
      carry = high;
    }
    if (carry > 0) limbs[used++] = carry;
  }
  // Settle the carries, then little-endian 32-bit limbs → big-endian bytes, without the top
  // limb's leading zero bytes.
  let carry = 0;
  for (let j = 0; j < used; j++) {
    const value = (limbs[j] as number) + carry;
    carry = Math.floor(value * INV_LIMB);
    limbs[j] = value - carry * LIMB;
  }
  if (carry > 0) limbs[used++] = carry;
  let length = used * 4;
  while (length > 0 && byteOf(limbs, length - 1) === 0) length--;
  const out = new Uint8Array(zeros + length);
  for (let b = 0; b < length; b++) out[out.length - 1 - b] = byteOf(limbs, b);
  return out;
}

/** Byte `b` (0 = least significant) of the number held in 32-bit little-endian `limbs`. */
function byteOf(limbs: Float64Array, b: number): number {
  return ((limbs[b >> 2] as number) >>> ((b & 3) << 3)) & 0xff;
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
