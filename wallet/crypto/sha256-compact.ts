/**
 * A build-time stand-in for `@noble/hashes/sha2.js` in the service-worker bundle only (aliased in
 * verifier-worker/vite.sw.config.ts; nothing imports it otherwise): SHA-256 (FIPS 180-4 §6.2) in
 * one page, synchronous like noble's (Data Integrity hashes synchronously: ./hash.ts). It lives
 * in the crypto core because all cryptography does (docs/architecture.md).
 *
 * Why: noble's sha2 module brings its generic hash classes (streaming, HMAC, SHA-224, the
 * SHA-512 family…) and their shared helpers, about 4 KB of the worker's gzip budget; the worker
 * hashes whole byte arrays with SHA-256 only. The round constants are derived, not tabled
 * (§4.2.2, §5.3.3): the first 32 bits of the fractional parts of the cube roots of the first 64
 * primes, and of the square roots of the first 8. Held to noble's digests by
 * test/verifier/sw/shims.browser.test.ts.
 */

/** The first 64 primes, 2 … 311 (§4.2.2). */
const PRIMES: number[] = [];
for (let n = 2; PRIMES.length < 64; n++) if (PRIMES.every((p) => n % p !== 0)) PRIMES.push(n);

/**
 * The first 32 fraction bits of p^(1/k): ⌊p^(1/k) · 2^32⌋ mod 2^32, the integer k-th root of
 * p · 2^(32k) by Newton's method (exact, unlike Math.cbrt).
 */
function fraction(p: number, k: bigint): number {
  const x = BigInt(p) << (32n * k);
  // From above: each step lowers r, until the next would not (r is then the root).
  let r = 1n << BigInt(Math.ceil(x.toString(2).length / Number(k)));
  for (;;) {
    const next = ((k - 1n) * r + x / r ** (k - 1n)) / k;
    if (next >= r) return Number(r & 0xffffffffn);
    r = next;
  }
}

/** §4.2.2 K (cube roots of the first 64 primes) and §5.3.3 H(0) (square roots of the first 8). */
const K = Uint32Array.from(PRIMES, (p) => fraction(p, 3n));
const IV = PRIMES.slice(0, 8).map((p) => fraction(p, 2n));

/** §5.1.1 padding: the message, 0x80, zeros, and its bit length (big-endian) in the last 8 bytes. */
function pad(message: Uint8Array): DataView {
  const length = Math.ceil((message.length + 9) / 64) * 64;
  const padded = new Uint8Array(length);
  padded.set(message);
  padded[message.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(length - 8, Math.floor(message.length / 2 ** 29));
  view.setUint32(length - 4, message.length * 8);
  return view;
}

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** SHA-256 (FIPS 180-4 §6.2): 32 bytes. */
export function sha256(message: Uint8Array): Uint8Array {
  const data = pad(message);
  const h = Int32Array.from(IV);
  const w = new Uint32Array(64);
  for (let block = 0; block < data.byteLength; block += 64) {
    for (let t = 0; t < 64; t++) {
      if (t < 16) w[t] = data.getUint32(block + 4 * t);
      else {
        const a = w[t - 15] as number;
        const b = w[t - 2] as number;
        const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
        const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
        w[t] = (w[t - 16] as number) + s0 + (w[t - 7] as number) + s1;
      }
    }
    let [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, hh = 0] = h;
    for (let t = 0; t < 64; t++) {
      const t1 =
        hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[t] as number) + (w[t] as number);
      const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      [hh, g, f, e, d, c, b, a] = [g, f, e, (d + t1) | 0, c, b, a, (t1 + t2) | 0];
    }
    [a, b, c, d, e, f, g, hh].forEach((x, i) => (h[i] = ((h[i] as number) + x) | 0));
  }
  return output(h, 8);
}

function output(words: ArrayLike<number>, count: number): Uint8Array {
  const out = new DataView(new ArrayBuffer(count * 4));
  for (let i = 0; i < count; i++) out.setUint32(4 * i, words[i] as number);
  return new Uint8Array(out.buffer);
}

function unavailable(): never {
  throw new Error('SHA-384 and SHA-512 in JavaScript are not part of the verifier worker');
}

/**
 * Only hash.ts's Subresource Integrity check (JSON-LD documents, not in the worker) computes
 * these synchronously; Content-Digest's SHA-512 comes from WebCrypto (hash.ts `sha512`).
 */
export const sha384: (message: Uint8Array) => Uint8Array = unavailable;
export const sha512: (message: Uint8Array) => Uint8Array = unavailable;
