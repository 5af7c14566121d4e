// Ed25519 across backends: node:crypto (Node only), WebCrypto and noble must produce the same
// signatures and the same verdicts, including on every edge case where real-world verifiers
// (OpenSSL cofactorless, noble cofactored, ZIP-215) disagree with each other.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import didKeyVectors from '@vectors/did-key/ed25519-x25519.json';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { isMandateError } from '../../../wallet/crypto/errors.ts';
import { decodePublicKeyMultibase } from '../../../wallet/crypto/multikey.ts';
import {
  assertValidPublicKey,
  availableEd25519Backends,
  cryptoKeySigner,
  generateNonExtractableKey,
  generateSeed,
  getEd25519Backend,
  getPublicKey,
  importNonExtractableSeed,
  seedSigner,
  setEd25519Backend,
  sign,
  verify,
  type Ed25519Backend,
} from '../../../wallet/crypto/ed25519.ts';

const inBrowser = typeof window !== 'undefined';
const { Point } = ed25519;
const L = Point.Fn.ORDER;
const p = Point.Fp.ORDER;

let backends: Ed25519Backend[] = [];
beforeAll(async () => {
  backends = await availableEd25519Backends();
});
afterEach(() => setEd25519Backend('auto'));

/** verdict of every available backend, keyed by backend */
async function verdicts(sig: Uint8Array, msg: Uint8Array, pub: Uint8Array): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  for (const backend of backends) out[backend] = await verify(sig, msg, pub, { backend });
  return out;
}
const all = (value: boolean): Record<string, boolean> => Object.fromEntries(backends.map((b) => [b, value]));

function expectCode(fn: () => unknown, code: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(isMandateError(caught, code), `expected ${code}, got ${String(caught)}`).toBe(true);
}
async function expectRejectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(isMandateError(caught, code), `expected ${code}, got ${String(caught)}`).toBe(true);
}

// --- crafting non-standard signatures (RFC 8032 §5.1.6 by hand) -----------------------------

const le32 = (n: bigint): Uint8Array => numberToBytesLE(n, 32);
/** k = SHA-512(R ‖ A ‖ M) mod L over the exact bytes (RFC 8032 §5.1.7 step 2) */
const challenge = (R: Uint8Array, A: Uint8Array, M: Uint8Array): bigint =>
  Point.Fn.create(bytesToNumberLE(sha512(concatBytes(R, A, M))));
/** y (with sign bit) as a 32-byte encoding, allowing y ≥ p */
const encodeY = (y: bigint, signBit = false): Uint8Array => {
  const bytes = le32(y);
  if (signBit) bytes[31] = (bytes[31] as number) | 0x80;
  return bytes;
};
/** First message m_i = [i] whose challenge k satisfies [k]T = O, so T vanishes from [k]A. */
function messageKillingTorsion(
  R: Uint8Array,
  A: Uint8Array,
  T: ReturnType<typeof Point.fromHex>,
): { msg: Uint8Array; k: bigint } {
  for (let i = 0; i < 1000; i++) {
    const msg = Uint8Array.of(i & 0xff, i >> 8);
    const k = challenge(R, A, msg);
    if (T.multiplyUnsafe(k).is0()) return { msg, k };
  }
  throw new Error('no message found');
}

const signerSeed = hexToBytes('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const { scalar: a, pointBytes: A } = ed25519.utils.getExtendedPublicKey(signerSeed);
const torsion = ED25519_TORSION_SUBGROUP.map((hex) => ({ hex, point: Point.fromHex(hex) }));
const r = 0x1234567890abcdefn;
const rB = Point.BASE.multiply(r);

/** A signature "valid" for small-order key T: R = rB, S = r, and [k]T = O for the chosen message. */
function smallOrderCase(pub: Uint8Array, T: ReturnType<typeof Point.fromHex>) {
  const R = rB.toBytes();
  const { msg } = messageKillingTorsion(R, pub, T);
  return { sig: concatBytes(R, le32(r)), msg, pub };
}

// RFC 8032 §7.1 TEST 1, 2, 3 and SHA(abc)
const rfc8032 = [
  {
    seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    pub: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    msg: '',
    sig: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    pub: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    msg: '72',
    sig: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    seed: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    pub: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    msg: 'af82',
    sig: '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
  {
    seed: '833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42',
    pub: 'ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf',
    msg: 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    sig: 'dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704',
  },
];

describe('Ed25519 backends', () => {
  it('offers every native path this runtime has, and defaults to the fastest single-stream one', async () => {
    expect(backends).toEqual(inBrowser ? ['webcrypto', 'noble'] : ['node', 'webcrypto', 'noble']);
    expect(await getEd25519Backend()).toBe(inBrowser ? 'webcrypto' : 'node');
    setEd25519Backend('noble');
    expect(await getEd25519Backend()).toBe('noble');
    const msg = utf8ToBytes('process-wide choice');
    expect(await verify(await sign(msg, signerSeed), msg, A)).toBe(true);
    setEd25519Backend('auto');
    expect(await getEd25519Backend()).toBe(inBrowser ? 'webcrypto' : 'node');
  });

  it('refuses a backend the runtime does not have with NATIVE_UNAVAILABLE', async () => {
    expectCode(() => setEd25519Backend('openssl' as Ed25519Backend), 'NATIVE_UNAVAILABLE');
    await expectRejectCode(
      verify(new Uint8Array(64), new Uint8Array(0), A, { backend: 'rust' as Ed25519Backend }),
      'NATIVE_UNAVAILABLE',
    );
    if (inBrowser) {
      // the browser bundle has no node:crypto (and must not try to import it)
      expectCode(() => setEd25519Backend('node'), 'NATIVE_UNAVAILABLE');
      const msg = utf8ToBytes('x');
      await expectRejectCode(sign(msg, signerSeed, { backend: 'node' }), 'NATIVE_UNAVAILABLE');
      await expectRejectCode(verify(rfc8032Sig(0), msg, A, { backend: 'node' }), 'NATIVE_UNAVAILABLE');
    }
  });
});

function rfc8032Sig(i: number): Uint8Array {
  return hexToBytes(rfc8032[i]!.sig);
}

describe('Ed25519 signatures are identical on every backend', () => {
  it('reproduces RFC 8032 §7.1 test vectors', async () => {
    for (const v of rfc8032) {
      const seed = hexToBytes(v.seed);
      const msg = hexToBytes(v.msg);
      expect(bytesToHex(getPublicKey(seed))).toBe(v.pub);
      for (const backend of backends) {
        expect(bytesToHex(await sign(msg, seed, { backend })), backend).toBe(v.sig);
        const signer = seedSigner(seed, { backend });
        expect(bytesToHex(signer.publicKey), backend).toBe(v.pub);
        expect(bytesToHex(await signer.sign(msg)), backend).toBe(v.sig);
      }
      expect(await verdicts(hexToBytes(v.sig), msg, hexToBytes(v.pub))).toEqual(all(true));
    }
  });

  it('derives the did:key test-vector public keys from their seeds', async () => {
    // The key is read from the DID itself: one vector's publicKeyBase58 field is truncated upstream.
    for (const [did, vector] of Object.entries(didKeyVectors)) {
      const seed = hexToBytes(vector.seed);
      const expected = decodePublicKeyMultibase(did.slice('did:key:'.length));
      expect(getPublicKey(seed)).toEqual(expected);
      expect(ed25519.getPublicKey(seed)).toEqual(expected);
      expect(() => assertValidPublicKey(expected)).not.toThrow();
    }
  });

  it('agrees with noble on random seeds and messages, and every backend verifies every signature', async () => {
    for (let i = 0; i < 8; i++) {
      const seed = generateSeed();
      const msg = utf8ToBytes(`message ${i} `.repeat(i * 40));
      const expected = ed25519.sign(msg, seed);
      const pub = getPublicKey(seed);
      expect(pub).toEqual(ed25519.getPublicKey(seed));
      for (const backend of backends) expect(await sign(msg, seed, { backend }), backend).toEqual(expected);
      expect(await verdicts(expected, msg, pub)).toEqual(all(true));
    }
  });

  it('seedSigner copies its seed: later writes to the caller’s array change nothing', async () => {
    const seed = signerSeed.slice();
    const signer = seedSigner(seed);
    seed.fill(0xaa);
    const msg = utf8ToBytes('copied');
    expect(signer.publicKey).toEqual(A);
    expect(await signer.sign(msg)).toEqual(ed25519.sign(msg, signerSeed));
  });

  it('signs and verifies the bytes given at call time, even if the caller rewrites them while it awaits', async () => {
    for (const backend of backends) {
      const msg = utf8ToBytes('original message');
      const pending = sign(msg, signerSeed, { backend });
      msg.fill(0x41);
      const sig = await pending;
      expect(sig).toEqual(ed25519.sign(utf8ToBytes('original message'), signerSeed));

      const again = utf8ToBytes('original message');
      const sigCopy = sig.slice();
      const verdict = verify(sigCopy, again, A, { backend });
      again.fill(0x42);
      sigCopy.fill(0);
      expect(await verdict, backend).toBe(true);
    }
  });
});

describe('Ed25519 strict verification: every backend rejects the same edge cases', () => {
  it('rejects S + L (malleated scalar, RFC 8032 §5.1.7 step 1)', async () => {
    const sig = rfc8032Sig(1);
    const msg = hexToBytes(rfc8032[1]!.msg);
    const pub = hexToBytes(rfc8032[1]!.pub);
    const S = bytesToNumberLE(sig.subarray(32));
    for (const bumped of [S + L, S + 2n * L, L]) {
      const malleated = concatBytes(sig.subarray(0, 32), le32(bumped));
      expect(await verdicts(malleated, msg, pub)).toEqual(all(false));
    }
  });

  it('rejects all 8 small-order public keys, though a cofactored verifier accepts the crafted signatures', async () => {
    for (const { hex, point } of torsion) {
      const { sig, msg, pub } = smallOrderCase(hexToBytes(hex), point);
      expect(ed25519.verify(sig, msg, pub, { zip215: true }), hex).toBe(true);
      expect(await verdicts(sig, msg, pub), hex).toEqual(all(false));
      expectCode(() => assertValidPublicKey(pub), 'INVALID_PUBLIC_KEY');
    }
  });

  it('rejects non-canonical encodings of small-order keys (y + p, sign bit on x = 0)', async () => {
    const identity = Point.ZERO;
    const order4 = Point.fromBytes(encodeY(0n)); // (√−1, 0)
    const minusOne = Point.fromBytes(encodeY(p - 1n)); // (0, −1)
    const cases = [
      { enc: encodeY(p + 1n), T: identity }, // y = 1 written as 1 + p
      { enc: encodeY(p), T: order4 }, // y = 0 written as 0 + p
      { enc: encodeY(p, true), T: order4 },
      { enc: encodeY(1n, true), T: identity }, // x = 0 with sign bit
      { enc: encodeY(p - 1n, true), T: minusOne }, // x = 0 with sign bit
    ];
    for (const { enc, T } of cases) {
      const { sig, msg, pub } = smallOrderCase(enc, T);
      expect(ed25519.verify(sig, msg, pub, { zip215: true }), bytesToHex(enc)).toBe(true);
      expect(await verdicts(sig, msg, pub), bytesToHex(enc)).toEqual(all(false));
      expectCode(() => assertValidPublicKey(pub), 'INVALID_PUBLIC_KEY');
    }
  });

  it('rejects non-canonical encodings (y ≥ p) of points of large order', async () => {
    const sig = rfc8032Sig(0);
    let tried = 0;
    for (let y = 2n; y < 19n; y++) {
      let canonical: ReturnType<typeof Point.fromBytes>;
      try {
        canonical = Point.fromBytes(encodeY(y));
      } catch {
        continue; // y is not on the curve
      }
      if (canonical.isSmallOrder()) continue;
      tried++;
      for (const signBit of [false, true]) {
        const enc = encodeY(y + p, signBit);
        // a ZIP-215 decoder reads it as the same point as the canonical encoding of y (sign applied)
        expect(Point.fromBytes(enc, true).equals(signBit ? canonical.negate() : canonical)).toBe(true);
        expect(await verdicts(sig, new Uint8Array(0), enc)).toEqual(all(false));
        expectCode(() => assertValidPublicKey(enc), 'INVALID_PUBLIC_KEY');
      }
    }
    expect(tried).toBeGreaterThan(0);
  });

  it('rejects mixed-order keys A + T, though OpenSSL-style cofactorless verification accepts the crafted signatures', async () => {
    for (const { hex, point: T } of torsion) {
      if (T.is0()) continue;
      const mixed = Point.fromBytes(A).add(T).toBytes();
      const R = rB.toBytes();
      const { msg, k } = messageKillingTorsion(R, mixed, T);
      const sig = concatBytes(R, le32(Point.Fn.create(r + k * a)));
      // [S]B − [k](A + T) = R exactly, because [k]T = O: a cofactorless verifier would accept.
      expect(
        Point.BASE.multiply(Point.Fn.create(r + k * a))
          .subtract(Point.fromBytes(mixed).multiplyUnsafe(k))
          .toBytes(),
      ).toEqual(R);
      expect(ed25519.verify(sig, msg, mixed, { zip215: false }), hex).toBe(true);
      expect(await verdicts(sig, msg, mixed), hex).toEqual(all(false));
      expectCode(() => assertValidPublicKey(mixed), 'INVALID_PUBLIC_KEY');
    }
  });

  it('rejects non-canonical R encodings that a ZIP-215 verifier accepts', async () => {
    for (const R of [encodeY(1n, true), encodeY(p + 1n)]) {
      // R decodes to the identity, so S = k·a satisfies the equation (RFC 8032 §5.1.7 step 3)
      const msg = utf8ToBytes('non-canonical R');
      const sig = concatBytes(R, le32(Point.Fn.create(challenge(R, A, msg) * a)));
      expect(ed25519.verify(sig, msg, A, { zip215: true }), bytesToHex(R)).toBe(true);
      expect(await verdicts(sig, msg, A), bytesToHex(R)).toEqual(all(false));
    }
    const valid = rfc8032Sig(0);
    const yTooBig = concatBytes(
      hexToBytes('ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'),
      valid.subarray(32),
    );
    expect(await verdicts(yTooBig, new Uint8Array(0), A)).toEqual(all(false));
  });

  it('accepts the canonical identity as R (r = 0 is a valid RFC 8032 signature) on every backend alike', async () => {
    const R = encodeY(1n);
    const msg = utf8ToBytes('identity R');
    const sig = concatBytes(R, le32(Point.Fn.create(challenge(R, A, msg) * a)));
    expect(await verdicts(sig, msg, A)).toEqual(all(true));
  });

  it('rejects R with a torsion component (cofactored verifiers accept it, cofactorless ones do not)', async () => {
    const T8 = torsion.find(({ point }) => !point.multiplyUnsafe(4n).is0())!.point; // order 8
    const R = rB.add(T8).toBytes();
    const msg = utf8ToBytes('torsioned R');
    const sig = concatBytes(R, le32(Point.Fn.create(r + challenge(R, A, msg) * a)));
    expect(ed25519.verify(sig, msg, A, { zip215: false })).toBe(true); // noble is cofactored
    expect(await verdicts(sig, msg, A)).toEqual(all(false));
  });

  it('fails when any single bit of the message, signature or key is flipped', async () => {
    const seed = hexToBytes(rfc8032[2]!.seed);
    const msg = utf8ToBytes('sixteen byte msg');
    const sig = ed25519.sign(msg, seed);
    const pub = ed25519.getPublicKey(seed);
    const flip = (bytes: Uint8Array, bit: number): Uint8Array => {
      const copy = bytes.slice();
      copy[bit >> 3] = (copy[bit >> 3] as number) ^ (1 << (bit & 7));
      return copy;
    };
    for (const backend of backends) {
      const failures: string[] = [];
      for (let bit = 0; bit < msg.length * 8; bit++)
        if (await verify(sig, flip(msg, bit), pub, { backend })) failures.push(`msg ${bit}`);
      for (let bit = 0; bit < 512; bit++)
        if (await verify(flip(sig, bit), msg, pub, { backend })) failures.push(`sig ${bit}`);
      for (let bit = 0; bit < 256; bit++)
        if (await verify(sig, msg, flip(pub, bit), { backend })) failures.push(`key ${bit}`);
      expect(failures, backend).toEqual([]);
      expect(await verify(sig, msg, pub, { backend })).toBe(true);
    }
  });

  it('returns false and never throws for wrong lengths and types', async () => {
    const sig = rfc8032Sig(0);
    const msg = new Uint8Array(0);
    const junk: unknown[] = [undefined, null, 'ab', 42, [1, 2], {}, new ArrayBuffer(64), new Uint16Array(32)];
    for (const backend of backends) {
      for (const len of [0, 31, 33, 63, 65, 128]) {
        expect(await verify(new Uint8Array(len), msg, A, { backend })).toBe(false);
        if (len !== 64) expect(await verify(sig, msg, new Uint8Array(len), { backend })).toBe(false);
      }
      for (const value of junk) {
        const v = value as Uint8Array;
        expect(await verify(v, msg, A, { backend })).toBe(false);
        expect(await verify(sig, v, A, { backend })).toBe(false);
        expect(await verify(sig, msg, v, { backend })).toBe(false);
      }
    }
  });

  it('never throws on arbitrary bytes, and agrees across backends (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 64, maxLength: 64 }),
        fc.uint8Array({ maxLength: 64 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        async (sig, msg, pub) => {
          expect(await verdicts(sig, msg, pub)).toEqual(all(false));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('Ed25519 key and seed validation', () => {
  it('assertValidPublicKey accepts real keys and rejects wrong types and lengths with INVALID_PUBLIC_KEY', () => {
    expect(() => assertValidPublicKey(A)).not.toThrow();
    for (const bad of [new Uint8Array(31), new Uint8Array(33), 'd75a98', null, undefined]) {
      expectCode(() => assertValidPublicKey(bad), 'INVALID_PUBLIC_KEY');
    }
    // a 32-byte string whose y is not on the curve
    const offCurve = encodeY(2n);
    expect(() => Point.fromBytes(offCurve)).toThrow();
    expectCode(() => assertValidPublicKey(offCurve), 'INVALID_PUBLIC_KEY');
  });

  it('gives a key pushed out of the native-key cache by 1,100 others the same verdicts on every backend', async () => {
    const seed = generateSeed();
    const pub = getPublicKey(seed);
    const msg = utf8ToBytes('verified before and after the cache turned over');
    const sig = await sign(msg, seed);
    expect(await verdicts(sig, msg, pub)).toEqual(all(true));
    // More distinct valid keys ([k]B) than the 1,024 native-key entries: `pub` is evicted, and
    // comes back through the validated-key memory (imported again, its point decoded again).
    // [k]B as [k-1]B + B: one point addition each (0.2 s for all), not a scalar multiplication (2 s).
    for (let point = Point.BASE, k = 1; k <= 1100; k++, point = point.add(Point.BASE))
      assertValidPublicKey(point.toBytes());
    expect(await verdicts(sig, msg, pub)).toEqual(all(true));
    const tampered = sig.slice();
    tampered[40] = (tampered[40] as number) ^ 1;
    expect(await verdicts(tampered, msg, pub)).toEqual(all(false));
  }, 60_000);

  it('rejects malformed seeds and messages with INVALID_BYTES', async () => {
    expectCode(() => getPublicKey(new Uint8Array(31)), 'INVALID_BYTES');
    expectCode(() => seedSigner(new Uint8Array(33)), 'INVALID_BYTES');
    await expectRejectCode(sign(utf8ToBytes('m'), new Uint8Array(16)), 'INVALID_BYTES');
    await expectRejectCode(sign('m' as unknown as Uint8Array, signerSeed), 'INVALID_BYTES');
    await expectRejectCode(seedSigner(signerSeed).sign('m' as unknown as Uint8Array), 'INVALID_BYTES');
    await expectRejectCode(importNonExtractableSeed(new Uint8Array(0)), 'INVALID_BYTES');
  });
});

describe('Ed25519 non-extractable WebCrypto keys', () => {
  it('generates a key pair whose private key cannot be exported and whose signatures verify everywhere', async () => {
    const { privateKey, publicKey } = await generateNonExtractableKey();
    expect(privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('pkcs8', privateKey)).rejects.toThrow();
    const signer = cryptoKeySigner(privateKey, publicKey);
    const msg = utf8ToBytes('from a key that never leaves WebCrypto');
    const sig = await signer.sign(msg);
    expect(await verdicts(sig, msg, publicKey)).toEqual(all(true));
    expect(await verdicts(await signer.sign(msg), msg, publicKey)).toEqual(all(true));
  });

  it('imports a seed non-extractably and signs exactly like the seed itself', async () => {
    const { privateKey, publicKey } = await importNonExtractableSeed(signerSeed);
    expect(privateKey.extractable).toBe(false);
    expect(publicKey).toEqual(A);
    const msg = utf8ToBytes('same bytes');
    expect(await cryptoKeySigner(privateKey, publicKey).sign(msg)).toEqual(ed25519.sign(msg, signerSeed));
  });

  it('refuses a CryptoKey that cannot sign with INVALID_PRIVATE_KEY', async () => {
    const { publicKey } = await generateNonExtractableKey();
    const verifyKey = await crypto.subtle.importKey('raw', publicKey.slice(), 'Ed25519', false, ['verify']);
    expectCode(() => cryptoKeySigner(verifyKey, publicKey), 'INVALID_PRIVATE_KEY');
    const hmac = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    expectCode(() => cryptoKeySigner(hmac, publicKey), 'INVALID_PRIVATE_KEY');
  });

  it('refuses a private key that does not belong to the public key with INVALID_PRIVATE_KEY', async () => {
    const one = await generateNonExtractableKey();
    const other = await generateNonExtractableKey();
    const signer = cryptoKeySigner(one.privateKey, other.publicKey);
    await expectRejectCode(signer.sign(utf8ToBytes('mismatch')), 'INVALID_PRIVATE_KEY');
  });

  it('refuses a bad public key next to a good private key with INVALID_PUBLIC_KEY', async () => {
    const { privateKey } = await generateNonExtractableKey();
    expectCode(() => cryptoKeySigner(privateKey, hexToBytes(torsion[0]!.hex)), 'INVALID_PUBLIC_KEY');
  });
});
