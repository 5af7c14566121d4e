// Node-only: what raw OpenSSL does with crafted keys (why Mandate validates keys before any
// backend), and how the backend choice falls back when a native path is missing or broken.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPublicKey, verify as opensslVerify } from 'node:crypto';
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, hexToBytes, utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { verify } from '../../../wallet/crypto/ed25519.ts';

type Ed25519Module = typeof import('../../../wallet/crypto/ed25519.ts');

const { Point } = ed25519;
const seed = hexToBytes('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb');
const { scalar: a, pointBytes: A } = ed25519.utils.getExtendedPublicKey(seed);

function rawOpenSsl(sig: Uint8Array, msg: Uint8Array, pub: Uint8Array): boolean {
  const key = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub]),
    format: 'der',
    type: 'spki',
  });
  return opensslVerify(null, msg, key, sig);
}

/** A signature that satisfies the cofactorless equation for A' = [a]B + T: pick M with [k]T = O. */
function craftForKey(pub: Uint8Array, T: ReturnType<typeof Point.fromHex>, scalar: bigint) {
  const r = 4242n;
  const R = Point.BASE.multiply(r).toBytes();
  for (let i = 0; i < 1000; i++) {
    const msg = Uint8Array.of(i & 0xff, i >> 8);
    const k = Point.Fn.create(bytesToNumberLE(sha512(concatBytes(R, pub, msg))));
    if (T.multiplyUnsafe(k).is0())
      return { msg, sig: concatBytes(R, numberToBytesLE(Point.Fn.create(r + k * scalar), 32)) };
  }
  throw new Error('no message found');
}

describe('Ed25519 key validation in front of OpenSSL', () => {
  it('rejects small-order and mixed-order keys that raw OpenSSL verification accepts', async () => {
    for (const hex of ED25519_TORSION_SUBGROUP) {
      const T = Point.fromHex(hex);
      // small order: A' = T, "secret" scalar 0
      const small = craftForKey(hexToBytes(hex), T, 0n);
      expect(rawOpenSsl(small.sig, small.msg, hexToBytes(hex)), hex).toBe(true);
      expect(await verify(small.sig, small.msg, hexToBytes(hex), { backend: 'node' }), hex).toBe(false);
      if (T.is0()) continue;
      // mixed order: A' = A + T, secret scalar a
      const mixed = Point.fromBytes(A).add(T).toBytes();
      const forged = craftForKey(mixed, T, a);
      expect(rawOpenSsl(forged.sig, forged.msg, mixed), hex).toBe(true);
      expect(await verify(forged.sig, forged.msg, mixed, { backend: 'node' }), hex).toBe(false);
    }
  });
});

describe('Ed25519 backend fallback', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  async function freshModule(): Promise<Ed25519Module> {
    vi.resetModules();
    return import('../../../wallet/crypto/ed25519.ts');
  }

  async function expectUnavailable(promise: Promise<unknown>): Promise<void> {
    const caught = await promise.then(
      () => undefined,
      (error: unknown) => error,
    );
    // a fresh module instance has its own error classes, so compare name and code, not instanceof
    expect(caught).toMatchObject({ name: 'Ed25519Error', code: 'NATIVE_UNAVAILABLE' });
  }

  it('uses WebCrypto by default where node:crypto cannot be reached (no process.getBuiltinModule)', async () => {
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined);
    const m = await freshModule();
    expect(await m.availableEd25519Backends()).toEqual(['webcrypto', 'noble']);
    expect(await m.getEd25519Backend()).toBe('webcrypto');
    expect(() => m.setEd25519Backend('node')).toThrow(
      expect.objectContaining({ name: 'Ed25519Error', code: 'NATIVE_UNAVAILABLE' }),
    );
    const msg = utf8ToBytes('no node:crypto');
    const sig = await m.sign(msg, seed);
    expect(sig).toEqual(ed25519.sign(msg, seed));
    expect(m.getPublicKey(seed)).toEqual(A);
    expect(await m.verify(sig, msg, A)).toBe(true);
  });

  it('falls back to noble when neither native path exists, and refuses WebCrypto-only operations', async () => {
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined);
    vi.stubGlobal('crypto', { getRandomValues: globalThis.crypto.getRandomValues.bind(globalThis.crypto) });
    const m = await freshModule();
    expect(await m.availableEd25519Backends()).toEqual(['noble']);
    expect(await m.getEd25519Backend()).toBe('noble');
    const msg = utf8ToBytes('pure JS');
    const signer = m.seedSigner(m.generateSeed());
    expect(await m.verify(await signer.sign(msg), msg, signer.publicKey)).toBe(true);
    await expectUnavailable(m.generateNonExtractableKey());
    await expectUnavailable(m.importNonExtractableSeed(seed));
    await expectUnavailable(m.verify(new Uint8Array(64), msg, A, { backend: 'webcrypto' }));
    await expectUnavailable(m.sign(msg, seed, { backend: 'webcrypto' }));
  });

  it('does not trust a WebCrypto that computes Ed25519 wrongly (RFC 8032 self-test fails)', async () => {
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined);
    const real = globalThis.crypto.subtle;
    const lying = {
      importKey: real.importKey.bind(real),
      verify: async () => false,
    };
    vi.stubGlobal('crypto', {
      subtle: lying,
      getRandomValues: globalThis.crypto.getRandomValues.bind(globalThis.crypto),
    });
    const m = await freshModule();
    expect(await m.getEd25519Backend()).toBe('noble');
  });
});
