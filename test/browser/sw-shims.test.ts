// The worker bundle replaces multiformats' base64url codec with a line-for-line port
// (verifier-worker/sw/shims/multiformats-base64.ts) to save bytes. It must be the same codec:
// same text for every byte string, same bytes or the same refusal for every string. Likewise
// its edwards25519 group (verifier-worker/sw/shims/noble-ed25519.ts) must judge every public
// key as noble's does.
import { ED25519_TORSION_SUBGROUP, ed25519 as noble } from '@noble/curves/ed25519.js';
import fc from 'fast-check';
import { base64url as original } from 'multiformats/bases/base64';
import { describe, expect, it } from 'vitest';
import { sha256 as realSha256 } from '@noble/hashes/sha2.js';
import { base64url as shim } from '../../verifier-worker/sw/shims/multiformats-base64.ts';
import { ed25519 as shimEd25519 } from '../../verifier-worker/sw/shims/noble-ed25519.ts';
import { sha256, sha512 } from '../../verifier-worker/sw/shims/noble-sha2.ts';
import { bytesToHex, hexToBytes } from '../../wallet/crypto/bytes.ts';

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
    expect(() => sha512(new Uint8Array(1))).toThrow(/SHA-512 is not part of the verifier worker/);
    expect(() => sha512.create()).toThrow(/SHA-512 is not part of the verifier worker/);
  });
});

describe('the edwards25519 shim of the worker bundle', () => {
  type PointCons = typeof noble.Point;
  /** What public-key validation reads off 32 bytes: refused, or the point's encoding and its order class. */
  function judge(Point: PointCons, bytes: Uint8Array): string {
    let point;
    try {
      point = Point.fromBytes(bytes, false);
    } catch {
      return 'refused';
    }
    return `${bytesToHex(point.toBytes())} small=${point.isSmallOrder()} torsionFree=${point.isTorsionFree()}`;
  }
  const agree = (bytes: Uint8Array) => judge(shimEd25519.Point, bytes) === judge(noble.Point, bytes);

  it('has the same base point and order', () => {
    expect(shimEd25519.Point.BASE.toBytes()).toEqual(noble.Point.BASE.toBytes());
    expect(shimEd25519.Point.Fn.ORDER).toBe(noble.Point.Fn.ORDER);
  });

  it('decodes, or refuses, random encodings as noble does (most valid ones have a torsion component)', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), agree), { numRuns: 150 });
  });

  it('agrees on public keys, on the eight small-order points, on mixed-order points and on non-canonical encodings', () => {
    const torsion = ED25519_TORSION_SUBGROUP.map((hex) => noble.Point.fromHex(hex));
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: noble.Point.Fn.ORDER - 1n }), fc.integer({ min: 0, max: 7 }), (scalar, t) => {
        const key = noble.Point.BASE.multiply(scalar);
        const mixed = key.add(torsion[t] as typeof key);
        return agree(key.toBytes()) && agree(mixed.toBytes()) && judge(shimEd25519.Point, key.toBytes()).endsWith('small=false torsionFree=true');
      }),
      { numRuns: 40 },
    );
    for (const point of torsion) {
      expect(agree(point.toBytes())).toBe(true);
      expect(judge(shimEd25519.Point, point.toBytes())).toMatch(/small=true/);
    }
    // y = p (not reduced), and x = 0 with the sign bit set (RFC 8032 §5.1.3 steps 1 and 4).
    for (const hex of ['edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', '0100000000000000000000000000000000000000000000000000000000000080']) {
      expect(judge(shimEd25519.Point, hexToBytes(hex))).toBe('refused');
      expect(agree(hexToBytes(hex))).toBe(true);
    }
  });

  it('cannot sign', () => {
    expect(() => shimEd25519.getPublicKey(new Uint8Array(32))).toThrow(/not part of the verifier worker/);
    expect(() => shimEd25519.sign(new Uint8Array(1), new Uint8Array(32))).toThrow(/not part of the verifier worker/);
  });
});
