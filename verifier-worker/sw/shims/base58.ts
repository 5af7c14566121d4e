/**
 * A build-time stand-in for `wallet/crypto/base58.ts` in the service-worker bundle (aliased in
 * verifier-worker/vite.sw.config.ts): base58btc (draft-msporny-base58 §3) in bigint arithmetic,
 * one digit at a time.
 *
 * Why: the wallet's codec is shaped for a server's hot path (limbs, a scratch array: docs/crypto.md
 * §Hot-path details), which costs 0.3 KB of the worker's gzip budget; a browser decodes a few
 * proofValues and keys per request, where this takes microseconds. Same results, byte for byte:
 * test/verifier/sw/shims.browser.test.ts holds it to the wallet's.
 */
import type * as Base58 from '../../../wallet/crypto/base58.ts';
import { bytesToHex, hexToBytes } from '../../../wallet/crypto/bytes.ts';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Each leading zero byte is a '1'; the rest is the big-endian number in base 58. */
export const bytesToBase58: typeof Base58.bytesToBase58 = (bytes) => {
  let zeros = 0;
  while (bytes[zeros] === 0) zeros++;
  let digits = '';
  for (let n = BigInt(`0x0${bytesToHex(bytes)}`); n > 0n; n /= 58n) digits = ALPHABET[Number(n % 58n)] + digits;
  return '1'.repeat(zeros) + digits;
};

/** The inverse; undefined on a character outside the alphabet. */
export const base58ToBytes: typeof Base58.base58ToBytes = (text) => {
  let zeros = 0;
  while (text[zeros] === '1') zeros++;
  let n = 0n;
  for (const char of text.slice(zeros)) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return undefined;
    n = n * 58n + BigInt(digit);
  }
  const hex = n > 0n ? n.toString(16) : '';
  const value = hexToBytes(hex.length % 2 === 0 ? hex : `0${hex}`);
  const bytes = new Uint8Array(zeros + value.length);
  bytes.set(value, zeros);
  return bytes;
};
