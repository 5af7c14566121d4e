/**
 * base58btc (draft-msporny-base58 §3) over bytes, without the multibase prefix: the one codec
 * behind every 'z' multibase text in Mandate (multikey.ts: keys, proofValues, digests). Both
 * directions are on the verifier's hot path, hence their shape (docs/crypto.md §Hot-path
 * details); the service-worker bundle swaps in a compact equivalent
 * (verifier-worker/sw/shims/base58.ts, held to this one by test/verifier/sw/shims.browser.test.ts).
 */

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
export function bytesToBase58(bytes: Uint8Array): string {
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
export function base58ToBytes(text: string): Uint8Array | undefined {
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
