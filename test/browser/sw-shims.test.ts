// The worker bundle replaces multiformats' base64url codec with a line-for-line port
// (verifier-worker/sw/shims/multiformats-base64.ts) to save bytes. It must be the same codec:
// same text for every byte string, same bytes or the same refusal for every string.
import fc from 'fast-check';
import { base64url as original } from 'multiformats/bases/base64';
import { describe, expect, it } from 'vitest';
import { sha256 as realSha256 } from '@noble/hashes/sha2.js';
import { base64url as shim } from '../../verifier-worker/sw/shims/multiformats-base64.ts';
import { sha256, sha512 } from '../../verifier-worker/sw/shims/noble-sha2.ts';

function decodeOutcome(codec: { decode(text: string): Uint8Array }, text: string): string {
  try {
    return `ok ${Array.from(codec.decode(text)).join(',')}`;
  } catch {
    return 'refused';
  }
}

describe('the base64url shim of the worker bundle', () => {
  it('encodes every byte string as multiformats does', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => shim.encode(bytes) === original.encode(bytes)), { numRuns: 500 });
  });

  it('decodes, or refuses, every string as multiformats does', () => {
    const alphabet = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ u'.split(''));
    const text = fc.oneof(fc.string({ unit: alphabet, maxLength: 64 }).map((s) => `u${s}`), fc.string({ unit: alphabet, maxLength: 64 }), fc.string({ maxLength: 16 }));
    fc.assert(fc.property(text, (value) => decodeOutcome(shim, value) === decodeOutcome(original, value)), { numRuns: 2000 });
  });

  it('round-trips, and refuses leftover bits and foreign characters', () => {
    const bytes = Uint8Array.of(0, 1, 2, 250, 251, 252, 253, 254, 255);
    expect(shim.decode(shim.encode(bytes))).toEqual(bytes);
    expect(decodeOutcome(shim, 'uAB')).toBe('refused'); // 12 bits: 4 left over, not zero
    expect(decodeOutcome(shim, 'uA+')).toBe('refused');
    expect(decodeOutcome(shim, 'zAA')).toBe('refused');
  });
});

describe('the SHA-2 shim of the worker bundle', () => {
  it('is the real SHA-256', () => {
    const message = new TextEncoder().encode('abc');
    expect(sha256(message)).toEqual(realSha256(message));
  });

  it('has no SHA-512: anything that reaches it fails, loudly', () => {
    expect(sha512.outputLen).toBe(64);
    expect(() => sha512(new Uint8Array(1))).toThrow(/WebCrypto only/);
    expect(() => sha512.create()).toThrow(/WebCrypto only/);
  });
});
