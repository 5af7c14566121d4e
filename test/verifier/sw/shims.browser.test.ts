// The worker bundle's stand-ins (verifier-worker/sw/shims/) must answer as what they replace: the
// public-key rules judge every public key as the wallet's noble-based ones do, SHA-256, base58btc,
// the LRU map and the byte conversions compute what the crypto core's do.
import { ED25519_TORSION_SUBGROUP, ed25519 as noble } from '@noble/curves/ed25519.js';
import * as nobleSha2 from '@noble/hashes/sha2.js';
import * as nobleUtils from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeCheckedPublicKey,
  nobleVerify,
  publicKeyProblem as shimProblem,
} from '../../../verifier-worker/sw/shims/ed25519-noble.ts';
import { ed25519 as shimEd25519 } from '../../../verifier-worker/sw/shims/noble-ed25519.ts';
import * as shimBase58 from '../../../verifier-worker/sw/shims/base58.ts';
import { LruCache as ShimLru } from '../../../verifier-worker/sw/shims/lru.ts';
import * as shimUtils from '../../../verifier-worker/sw/shims/noble-utils.ts';
import { assertKnownOptionKeys as shimAssertKnownOptionKeys } from '../../../verifier-worker/sw/shims/option-keys.ts';
import {
  sha256 as shimSha256,
  sha384 as shimSha384,
  sha512 as shimSha512,
} from '../../../wallet/crypto/sha256-compact.ts';
import { coveredSignatureAgent as shimCoveredSignatureAgent } from '../../../verifier-worker/sw/shims/web-bot-auth.ts';
import * as walletBase58 from '../../../wallet/crypto/base58.ts';
import { LruCache as WalletLru } from '../../../wallet/crypto/lru.ts';
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

describe("the worker bundle's stand-ins for the crypto core's helpers", () => {
  it('SHA-256 as noble computes it, around every padding boundary; no JavaScript SHA-384/512', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(shimSha256(bytes)).toEqual(nobleSha2.sha256(bytes));
      }),
      { numRuns: 200 },
    );
    for (const length of [55, 56, 63, 64, 65, 119, 120, 4097])
      expect(shimSha256(new Uint8Array(length).fill(length))).toEqual(
        nobleSha2.sha256(new Uint8Array(length).fill(length)),
      );
    expect(() => shimSha512(new Uint8Array(1))).toThrow(/not part of the verifier worker/);
    expect(() => shimSha384(new Uint8Array(1))).toThrow(/not part of the verifier worker/);
  });

  it('base58btc byte for byte as the wallet codes it, leading zeros and foreign characters included', () => {
    const withZeros = fc
      .tuple(fc.integer({ min: 0, max: 3 }), fc.uint8Array({ maxLength: 70 }))
      .map(([zeros, bytes]) => Uint8Array.of(...new Array<number>(zeros).fill(0), ...bytes));
    fc.assert(
      fc.property(withZeros, (bytes) => {
        const text = walletBase58.bytesToBase58(bytes);
        expect(shimBase58.bytesToBase58(bytes)).toBe(text);
        expect(shimBase58.base58ToBytes(text)).toEqual(walletBase58.base58ToBytes(text));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'123456789ABCHJNPZabkmz0OIl+ é'), maxLength: 40 }), (text) => {
        expect(shimBase58.base58ToBytes(text)).toEqual(walletBase58.base58ToBytes(text));
      }),
      { numRuns: 300 },
    );
  });

  it('an LRU map that answers every sequence of operations as the wallet’s does (recency, expiry, size bound)', () => {
    type Op = [kind: 'get' | 'set' | 'delete' | 'tick' | 'ttl', key: number, value: number];
    const op = fc.tuple(
      fc.constantFrom('get', 'set', 'delete', 'tick', 'ttl'),
      fc.integer({ min: 0, max: 6 }),
      fc.integer({ min: 1, max: 40 }),
    );
    fc.assert(
      fc.property(fc.array(op as fc.Arbitrary<Op>, { maxLength: 80 }), fc.boolean(), (ops, sized) => {
        let clock = 0;
        const options = {
          max: 4,
          ttlMs: 50,
          now: () => clock,
          ...(sized ? { maxSize: 60, sizeOf: (v: number) => v } : {}),
        };
        const [shim, wallet] = [new ShimLru<number, number>(options), new WalletLru<number, number>(options)];
        for (const [kind, key, value] of ops) {
          if (kind === 'tick') {
            clock += value;
            continue;
          }
          const answers = [shim, wallet].map((cache) => {
            if (kind === 'set') return cache.set(key, value, value % 3 === 0 ? undefined : value).size;
            if (kind === 'delete') return cache.delete(key);
            if (kind === 'ttl') return cache.ttlOf(key);
            return [cache.get(key), cache.has(key), cache.size];
          });
          expect(answers[0]).toEqual(answers[1]);
        }
      }),
      { numRuns: 200 },
    );
    expect(() => new ShimLru({ max: 0 })).toThrow(RangeError);
    expect(() => new ShimLru({ max: 1, maxSize: 5 })).toThrow(RangeError);
  });

  it("byte conversions as noble's: UTF-8, hex, concatenation; wrong types fail", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.uint8Array({ maxLength: 40 }), (text, bytes) => {
        expect(shimUtils.utf8ToBytes(text)).toEqual(nobleUtils.utf8ToBytes(text));
        expect(shimUtils.bytesToHex(bytes)).toBe(nobleUtils.bytesToHex(bytes));
        expect(shimUtils.hexToBytes(nobleUtils.bytesToHex(bytes))).toEqual(bytes);
        expect(shimUtils.concatBytes(bytes, Uint8Array.of(1), bytes)).toEqual(
          nobleUtils.concatBytes(bytes, Uint8Array.of(1), bytes),
        );
      }),
      { numRuns: 100 },
    );
    expect(shimUtils.randomBytes(16)).toHaveLength(16);
    expect(() => shimUtils.utf8ToBytes(1 as unknown as string)).toThrow(TypeError);
    expect(() => shimUtils.concatBytes([1] as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('no Web Bot Auth profile, and no option-name check (the worker writes its options itself)', () => {
    expect(() => shimCoveredSignatureAgent({ headers: new Headers() }, 'sig1', [], {})).toThrow(
      /not part of the verifier worker/,
    );
    expect(shimAssertKnownOptionKeys({ anything: true })).toBeUndefined();
  });
});
