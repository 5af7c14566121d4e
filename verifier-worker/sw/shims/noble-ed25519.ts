/**
 * A build-time stand-in for `@noble/curves/ed25519.js` in the service-worker bundle (aliased in
 * verifier-worker/vite.sw.config.ts): the edwards25519 group alone, without EdDSA.
 *
 * Why: the worker uses noble only to validate public keys (decoding, small order, torsion:
 * wallet/crypto/ed25519-noble.ts `decodePublicKey`); it verifies signatures with WebCrypto and
 * never signs. noble's `ed25519` is built by `eddsa()`, whose key generation, signing and
 * verification code the minifier cannot drop once `ed25519.Point` is used: about 1.5 KB gzip of
 * the worker's 40 KB budget. Here the same group comes from noble's own generic `edwards()`
 * constructor (its documented use: `edwards(params)`), given the curve parameters of RFC 8032
 * §5.1 — the values @noble/curves/ed25519.js gives it. The only difference is the square root
 * in point decoding: the generic sqrt(u/v) instead of the curve-specific one, which returns the
 * same root (decoding then picks the sign from the encoding, RFC 8032 §5.1.3 step 4).
 *
 * A property test (test/browser/sw-shims.test.ts) holds this Point to noble's on random
 * encodings, on the eight small-order points and on mixed-order points. Signing here throws.
 */
import { edwards } from '@noble/curves/abstract/edwards.js';
import type { ed25519 as NobleEd25519 } from '@noble/curves/ed25519.js';

/** RFC 8032 §5.1: p = 2^255 − 19, L (here n), cofactor 8, a = −1, d = −121665/121666, and B. */
const Point = /* @__PURE__ */ edwards({
  p: BigInt('0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed'),
  n: BigInt('0x1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed'),
  h: BigInt(8),
  a: BigInt('0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffec'),
  d: BigInt('0x52036cee2b6ffe738cc740797779e89800700a4d4141d8ab75eb4dca135978a3'),
  Gx: BigInt('0x216936d3cd6e53fec0a4e231fdd6dc5c692cc7609525a7b2c9562d608f25d51a'),
  Gy: BigInt('0x6666666666666666666666666666666666666666666666666666666666666658'),
});

function unavailable(): never {
  throw new Error('Ed25519 signing is not part of the verifier worker');
}

export const ed25519: Pick<typeof NobleEd25519, 'Point' | 'getPublicKey' | 'sign'> = /* @__PURE__ */ Object.freeze({
  Point,
  getPublicKey: unavailable,
  sign: unavailable,
});
