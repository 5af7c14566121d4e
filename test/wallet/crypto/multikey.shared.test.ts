import { describe, expect, it } from 'vitest';
import keyPair from '@vectors/w3c-vc-di-eddsa/keyPair.json';
import { base58btc } from 'multiformats/bases/base58';
import { randomBytes } from '../../../wallet/crypto/bytes.ts';
import { getPublicKey } from '../../../wallet/crypto/ed25519.ts';
import {
  base58DigitsFor,
  decodeBase58btc,
  decodeBase64url,
  MAX_BASE58_DIGITS,
  decodePrivateKeyMultibase,
  decodePublicKeyMultibase,
  encodeBase58btc,
  encodeBase64url,
  encodePrivateKeyMultibase,
  encodePublicKeyMultibase,
} from '../../../wallet/crypto/multikey.ts';

const code = (c: string) => expect.objectContaining({ code: c });

describe('Multikey', () => {
  it('decodes the W3C vector key pair, and the public key matches the private key', () => {
    const seed = decodePrivateKeyMultibase(keyPair.privateKeyMultibase);
    const publicKey = decodePublicKeyMultibase(keyPair.publicKeyMultibase);
    expect(seed).toHaveLength(32);
    expect(getPublicKey(seed)).toEqual(publicKey);
    expect(encodePublicKeyMultibase(publicKey)).toBe(keyPair.publicKeyMultibase);
    expect(encodePrivateKeyMultibase(seed)).toBe(keyPair.privateKeyMultibase);
    expect(keyPair.publicKeyMultibase.startsWith('z6Mk')).toBe(true);
    expect(keyPair.privateKeyMultibase.startsWith('z3u2')).toBe(true);
  });

  it('MULTICODEC_MISMATCH: a private key where a public key belongs, and the reverse', () => {
    expect(() => decodePublicKeyMultibase(keyPair.privateKeyMultibase)).toThrow(code('MULTICODEC_MISMATCH'));
    expect(() => decodePrivateKeyMultibase(keyPair.publicKeyMultibase)).toThrow(code('MULTICODEC_MISMATCH'));
    // An X25519 key (multicodec 0xec) is not an Ed25519 Multikey.
    expect(() => decodePublicKeyMultibase(encodeBase58btc(Uint8Array.of(0xec, 0x01, ...randomBytes(32))))).toThrow(
      code('MULTICODEC_MISMATCH'),
    );
  });

  it('KEY_LENGTH_INVALID: too short or too long, when decoding and encoding', () => {
    expect(() => decodePublicKeyMultibase(encodeBase58btc(Uint8Array.of(0xed, 0x01, ...randomBytes(31))))).toThrow(
      code('KEY_LENGTH_INVALID'),
    );
    expect(() => decodePublicKeyMultibase(encodeBase58btc(Uint8Array.of(0xed, 0x01, ...randomBytes(33))))).toThrow(
      code('KEY_LENGTH_INVALID'),
    );
    expect(() => encodePublicKeyMultibase(randomBytes(31))).toThrow(code('KEY_LENGTH_INVALID'));
    expect(() => encodePrivateKeyMultibase(randomBytes(64))).toThrow(code('KEY_LENGTH_INVALID'));
  });

  it('MULTIBASE_INVALID: wrong prefix, characters outside the alphabet', () => {
    expect(() => decodePublicKeyMultibase(`m${keyPair.publicKeyMultibase.slice(1)}`)).toThrow(
      code('MULTIBASE_INVALID'),
    );
    expect(() => decodePublicKeyMultibase('z6Mk0OIl')).toThrow(code('MULTIBASE_INVALID')); // 0 O I l are not base58
    expect(() => decodeBase58btc('zé')).toThrow(code('MULTIBASE_INVALID'));
    expect(() => decodeBase64url('zAAAA')).toThrow(code('MULTIBASE_INVALID'));
    expect(() => decodeBase64url('uAA+/')).toThrow(code('MULTIBASE_INVALID'));
    expect(() => decodePublicKeyMultibase(42 as unknown as string)).toThrow(code('MULTIBASE_INVALID'));
  });

  it('encodes and decodes base58btc exactly like the reference codec, leading zeros included', () => {
    for (let n = 0; n < 500; n++) {
      const bytes = randomBytes(n % 70);
      if (n % 5 === 0 && bytes.length > 3) bytes.fill(0, 0, 3);
      if (n % 9 === 0) bytes.fill(0);
      if (n % 11 === 0) bytes.fill(0xff, bytes.length >> 1);
      const text = base58btc.encode(bytes);
      expect(encodeBase58btc(bytes)).toBe(text);
      expect(decodeBase58btc(text)).toEqual(bytes);
    }
    // Lengths around the 3-byte input groups and 4-digit output groups, and long inputs (the
    // decoder's reused limb buffer grows for them).
    for (const length of [1, 2, 3, 4, 5, 6, 7, 32, 34, 64, 65, 256]) {
      for (const fill of [0x00, 0x01, 0x39, 0xff]) {
        const bytes = new Uint8Array(length).fill(fill);
        expect(encodeBase58btc(bytes)).toBe(base58btc.encode(bytes));
        expect(encodeBase58btc(Uint8Array.of(0, ...bytes))).toBe(base58btc.encode(Uint8Array.of(0, ...bytes)));
        expect(decodeBase58btc(base58btc.encode(bytes))).toEqual(bytes);
      }
    }
  });

  it('bounds the digits it decodes (decoding is quadratic): MAX_BASE58_DIGITS by default, or what the caller expects', () => {
    expect(() => decodeBase58btc(`z${'2'.repeat(MAX_BASE58_DIGITS + 1)}`)).toThrow(code('MULTIBASE_INVALID'));
    expect(decodeBase58btc(`z${'1'.repeat(MAX_BASE58_DIGITS)}`)).toEqual(new Uint8Array(MAX_BASE58_DIGITS));
    // base58DigitsFor(n) is the longest encoding of n bytes, so it admits every n-byte value.
    for (const n of [1, 32, 34, 64]) {
      const longest =
        Math.max(base58btc.encode(new Uint8Array(n).fill(0xff)).length, base58btc.encode(new Uint8Array(n)).length) - 1;
      expect(base58DigitsFor(n)).toBe(longest);
      const bytes = new Uint8Array(n).fill(0xff);
      expect(decodeBase58btc(base58btc.encode(bytes), 'signature', base58DigitsFor(n))).toEqual(bytes);
      expect(() => decodeBase58btc(`z2${base58btc.encode(bytes).slice(1)}`, 'signature', base58DigitsFor(n))).toThrow(
        code('MULTIBASE_INVALID'),
      );
    }
  });

  it('round-trips base64url multibase without padding', () => {
    const bytes = randomBytes(33);
    const text = encodeBase64url(bytes);
    expect(text[0]).toBe('u');
    expect(text).not.toContain('=');
    expect(decodeBase64url(text)).toEqual(bytes);
  });
});
