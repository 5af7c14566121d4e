/**
 * base64url (RFC 4648 §5) over bytes: the one codec behind every base64url text in Mandate —
 * the multibase 'u' form (multikey.ts, status lists), JOSE/JWK members (jwt.ts) and the AEAD
 * envelope (aead.ts).
 *
 * The algorithm is multiformats' rfc4648 codec (src/bases/base.ts `encode`/`decode`), so
 * output and refusals are unchanged from when it was used directly: no padding written,
 * trailing "=" ignored by the lenient decoder, SyntaxError on a character outside the alphabet
 * or on leftover bits. test/wallet/crypto/base64url.shared.test.ts holds it to multiformats and to Node.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Character code → 6-bit value, -1 outside the alphabet. */
const digits = (alphabet: string): Int8Array => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
};
const DIGIT = /* @__PURE__ */ digits(ALPHABET);
/** RFC 4648 §4's alphabet: "+" and "/" where base64url has "-" and "_". */
const BASE64_DIGIT = /* @__PURE__ */ digits(ALPHABET.slice(0, 62) + '+/');
const CANONICAL = /^[A-Za-z0-9_-]*$/;

/** base64url of `bytes`, without padding. */
export function bytesToBase64url(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let buffer = 0;
  for (let i = 0; i < bytes.length; i++) {
    buffer = (buffer << 8) | (bytes[i] as number);
    bits += 8;
    while (bits > 6) {
      bits -= 6;
      out += ALPHABET[63 & (buffer >> bits)];
    }
  }
  if (bits !== 0) out += ALPHABET[63 & (buffer << (6 - bits))];
  return out;
}

/**
 * Decodes base64url text, ignoring trailing "=" as multiformats does. Throws SyntaxError for a
 * character outside the alphabet or a length that leaves stray bits; callers wrap it in their
 * own typed error.
 */
export function base64urlToBytesLenient(text: string): Uint8Array {
  return decode(text, DIGIT);
}

function decode(text: string, DIGIT: Int8Array): Uint8Array {
  let end = text.length;
  while (text.charCodeAt(end - 1) === 0x3d) --end;
  const out = new Uint8Array(((end * 6) / 8) | 0);
  let bits = 0;
  let buffer = 0;
  let written = 0;
  for (let i = 0; i < end; ++i) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? (DIGIT[code] as number) : -1;
    if (value < 0) throw new SyntaxError('Non-base64url character');
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[written++] = 0xff & (buffer >> bits);
    }
  }
  if (bits >= 6 || (0xff & (buffer << (8 - bits))) !== 0) throw new SyntaxError('Unexpected end of data');
  return out;
}

/**
 * Strict inverse of bytesToBase64url: only the canonical encoding of some byte string is
 * accepted (no padding, no stray bits), so one value has one spelling. Returns undefined for
 * anything else; callers raise their own typed error.
 */
export function base64urlToBytes(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'string' || !CANONICAL.test(value)) return undefined;
  try {
    const bytes = base64urlToBytesLenient(value);
    return bytesToBase64url(bytes) === value ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** base64urlToBytes, and the bytes must number exactly `length` (a key, a coordinate, a seed). */
export function base64urlToBytesOfLength(value: unknown, length: number): Uint8Array | undefined {
  const bytes = base64urlToBytes(value);
  return bytes?.length === length ? bytes : undefined;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * RFC 4648 §4 base64, padded: what RFC 8941 §3.3.5 byte sequences (HTTP Message Signatures,
 * Content-Digest) carry. The same codec as base64url, with "+" and "/" for "-" and "_".
 */
export function bytesToBase64(bytes: Uint8Array): string {
  const text = bytesToBase64url(bytes).replace(/[-_]/g, (c) => (c === '-' ? '+' : '/'));
  return text + '='.repeat((4 - (text.length % 4)) % 4);
}

/**
 * Strict inverse of bytesToBase64: padded, canonical (no stray bits), so one value has one
 * spelling. Returns undefined for anything else; callers raise their own typed error.
 */
export function base64ToBytes(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'string' || !BASE64.test(value)) return undefined;
  // BASE64 fixes the length and padding; decode refuses stray bits: one spelling per value.
  try {
    return decode(value, BASE64_DIGIT);
  } catch {
    return undefined;
  }
}
