// The worker bundle replaces multiformats' base64url codec with a line-for-line port
// (verifier-worker/sw/shims/multiformats-base64.ts) to save bytes. It must be the same codec:
// same text for every byte string, same bytes or the same refusal for every string. Likewise
// its public-key rules (verifier-worker/sw/shims/ed25519-noble.ts) must judge every public key
// as the wallet's noble-based ones do.
import { ED25519_TORSION_SUBGROUP, ed25519 as noble } from '@noble/curves/ed25519.js';
import fc from 'fast-check';
import { base64url as original } from 'multiformats/bases/base64';
import { describe, expect, it } from 'vitest';
import { base64url as shim } from '../../verifier-worker/sw/shims/multiformats-base64.ts';
import {
  decodeCheckedPublicKey,
  nobleVerify,
  publicKeyProblem as shimProblem,
} from '../../verifier-worker/sw/shims/ed25519-noble.ts';
import { ed25519 as shimEd25519 } from '../../verifier-worker/sw/shims/noble-ed25519.ts';
import { hexToBytes } from '../../wallet/crypto/bytes.ts';
import { publicKeyProblem as walletProblem } from '../../wallet/crypto/ed25519-noble.ts';
import { PUBLIC_KEY_PROBLEMS } from '../../wallet/crypto/ed25519-spec.ts';

function decodeOutcome(codec: { decode(text: string): Uint8Array }, text: string): string {
  try {
    return `ok ${Array.from(codec.decode(text)).join(',')}`;
  } catch {
    return 'refused';
  }
}

describe('the base64url shim of the worker bundle', () => {
  it('encodes every byte string as multiformats does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => shim.encode(bytes) === original.encode(bytes)),
      { numRuns: 500 },
    );
  });

  it('decodes, or refuses, every string as multiformats does', () => {
    const alphabet = fc.constantFrom(
      ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ u'.split(''),
    );
    const text = fc.oneof(
      fc.string({ unit: alphabet, maxLength: 64 }).map((s) => `u${s}`),
      fc.string({ unit: alphabet, maxLength: 64 }),
      fc.string({ maxLength: 16 }),
    );
    fc.assert(
      fc.property(text, (value) => decodeOutcome(shim, value) === decodeOutcome(original, value)),
      { numRuns: 2000 },
    );
  });

  it('round-trips, and refuses leftover bits and foreign characters', () => {
    const bytes = Uint8Array.of(0, 1, 2, 250, 251, 252, 253, 254, 255);
    expect(shim.decode(shim.encode(bytes))).toEqual(bytes);
    expect(decodeOutcome(shim, 'uAB')).toBe('refused'); // 12 bits: 4 left over, not zero
    expect(decodeOutcome(shim, 'uA+')).toBe('refused');
    expect(decodeOutcome(shim, 'zAA')).toBe('refused');
  });
});

describe('the Ed25519 public-key rules of the worker bundle', () => {
  /** The two implementations' verdicts on 32 bytes: the problem, or 'accepted'. */
  const verdicts = (bytes: Uint8Array) => [shimProblem(bytes) ?? 'accepted', walletProblem(bytes) ?? 'accepted'];
  const agree = (bytes: Uint8Array) => {
    const [shim, wallet] = verdicts(bytes);
    return shim === wallet;
  };

  it('judges random encodings as the wallet does (most valid ones have a torsion component)', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), agree), { numRuns: 150 });
  });

  it('accepts public keys, and refuses the eight small-order points, mixed-order points and non-canonical encodings, in the same words', () => {
    const torsion = ED25519_TORSION_SUBGROUP.map((hex) => noble.Point.fromHex(hex));
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: noble.Point.Fn.ORDER - 1n }),
        fc.integer({ min: 1, max: 7 }),
        (scalar, t) => {
          const key = noble.Point.BASE.multiply(scalar);
          const mixed = key.add(torsion[t] as typeof key);
          expect(verdicts(key.toBytes())).toEqual(['accepted', 'accepted']);
          expect(verdicts(mixed.toBytes())).toEqual([PUBLIC_KEY_PROBLEMS.torsion, PUBLIC_KEY_PROBLEMS.torsion]);
        },
      ),
      { numRuns: 40 },
    );
    for (const point of torsion)
      expect(verdicts(point.toBytes())).toEqual([PUBLIC_KEY_PROBLEMS.smallOrder, PUBLIC_KEY_PROBLEMS.smallOrder]);
    // y = p (not reduced), x = 0 with the sign bit set (RFC 8032 §5.1.3 steps 1 and 4), and a
    // y whose x² = u/v has no root (y = 2).
    for (const hex of [
      'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
      '0100000000000000000000000000000000000000000000000000000000000080',
      '0200000000000000000000000000000000000000000000000000000000000000',
    ]) {
      expect(verdicts(hexToBytes(hex))).toEqual([PUBLIC_KEY_PROBLEMS.encoding, PUBLIC_KEY_PROBLEMS.encoding]);
    }
    expect(shimProblem(new Uint8Array(31))).toBe(PUBLIC_KEY_PROBLEMS.encoding);
  });

  it('has no pure-JS verification and no signing: anything that reaches them fails, loudly', () => {
    expect(() => nobleVerify(new Uint8Array(64), new Uint8Array(0), new Uint8Array(32), noble.Point.BASE)).toThrow(
      /not part of the verifier worker/,
    );
    expect(() => decodeCheckedPublicKey(noble.Point.BASE.toBytes())).toThrow(/not part of the verifier worker/);
    expect(() => shimEd25519.getPublicKey(new Uint8Array(32))).toThrow(/not part of the verifier worker/);
    expect(() => shimEd25519.sign(new Uint8Array(1), new Uint8Array(32))).toThrow(/not part of the verifier worker/);
  });
});
