/**
 * A build-time stand-in for `@noble/hashes/utils.js` in the service-worker bundle (aliased in
 * verifier-worker/vite.sw.config.ts): the five conversions wallet/crypto/bytes.ts re-exports,
 * on the platform's own primitives.
 *
 * Why: noble's versions carry its argument checks and messages and a pure-JS hex codec (about
 * 0.5 KB of the worker's gzip budget). In the worker every caller is wallet code that has checked
 * its input already (bytes.ts `hexToBytes` validates the hex first), so the types are trusted
 * here, as inside noble; what could still arrive wrong fails as a TypeError, as noble's does.
 */
export function utf8ToBytes(text: string): Uint8Array {
  if (typeof text !== 'string') throw new TypeError('string expected');
  return new TextEncoder().encode(text);
}

export function concatBytes(...arrays: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(arrays.reduce((length, a) => length + a.length, 0));
  let offset = 0;
  for (const a of arrays) {
    if (!(a instanceof Uint8Array)) throw new TypeError('Uint8Array expected');
    out.set(a, offset);
    offset += a.length;
  }
  return out;
}

/** Even-length [0-9a-fA-F] only: bytes.ts checks that before calling. */
export const hexToBytes = (hex: string): Uint8Array =>
  Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));

export const bytesToHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** At most 65,536 bytes per call (WebCrypto §10.1.1 getRandomValues throws beyond). */
export const randomBytes = (length = 32): Uint8Array => crypto.getRandomValues(new Uint8Array(length));
