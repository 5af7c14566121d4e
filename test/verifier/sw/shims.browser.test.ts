// The worker bundle's public-key rules (verifier-worker/sw/shims/ed25519-noble.ts) must judge
// every public key as the wallet's noble-based ones do.
import { ED25519_TORSION_SUBGROUP, ed25519 as noble } from '@noble/curves/ed25519.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeCheckedPublicKey,
  nobleVerify,
  publicKeyProblem as shimProblem,
} from '../../../verifier-worker/sw/shims/ed25519-noble.ts';
import { ed25519 as shimEd25519 } from '../../../verifier-worker/sw/shims/noble-ed25519.ts';
import { hexToBytes } from '../../../wallet/crypto/bytes.ts';
import { publicKeyProblem as walletProblem } from '../../../wallet/crypto/ed25519-noble.ts';
import { PUBLIC_KEY_PROBLEMS } from '../../../wallet/crypto/ed25519-spec.ts';

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
