/**
 * The pure-JS Ed25519 pieces Mandate needs on top of @noble/curves: public-key validation and a
 * COFACTORLESS verification equation.
 *
 * Why not `ed25519.verify`: noble checks the cofactored equation [8][S]B = [8]R + [8][k]A
 * (RFC 8032 §5.1.7 step 3 allows either). OpenSSL (Node) and BoringSSL (Chromium) check the
 * cofactorless one — they recompute R' = [S]B − [k]A and compare its encoding with the R bytes.
 * The two disagree on signatures whose R carries a small-order component, so a verifier that
 * switched backend would switch verdict. Mandate verifies cofactorless on every backend.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import type { EdwardsPoint } from '@noble/curves/abstract/edwards.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import { concatBytes, equalBytes, hexToBytes } from './bytes.ts';

export type { EdwardsPoint };

const { Point } = ed25519;

/**
 * RFC 8032 §7.1 TEST 1 (empty message). Native backends must verify it before they are trusted:
 * a runtime that exposes the API but computes something else falls back to noble.
 */
export const RFC8032_TEST1 = /* @__PURE__ */ Object.freeze({
  publicKey: hexToBytes('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'),
  message: new Uint8Array(0),
  signature: hexToBytes(
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  ),
});

/**
 * Decodes a 32-byte public key that Mandate accepts, or returns why it does not:
 * - RFC 8032 §5.1.3: y < p, and x = 0 must not carry the sign bit (`fromBytes(…, zip215=false)`);
 * - small order ([8]A = O): such a key verifies signatures on messages nobody signed;
 * - a torsion component (A ∉ prime-order subgroup): no honest key generation produces one, and
 *   cofactorless and cofactored verifiers disagree about its signatures.
 * Costs one scalar multiplication (by L); callers cache the result.
 */
export function decodePublicKey(publicKey: Uint8Array): EdwardsPoint | string {
  let point: EdwardsPoint;
  try {
    point = Point.fromBytes(publicKey, false);
  } catch {
    return 'public key is not a canonical encoding of a curve point (RFC 8032 §5.1.3)';
  }
  if (point.isSmallOrder()) return 'public key has small order';
  if (!point.isTorsionFree()) return 'public key has a small-order (torsion) component';
  return point;
}

/** The point of a key that `decodePublicKey` accepted before: decoding only, no checks again. */
export function decodeCheckedPublicKey(publicKey: Uint8Array): EdwardsPoint {
  return Point.fromBytes(publicKey, false);
}

/**
 * Cofactorless RFC 8032 §5.1.7: R' = [S]B − [k]A with k = SHA-512(R ‖ A ‖ M) mod L, accepted
 * iff encode(R') equals the R bytes. Expects S < L already checked and A from decodePublicKey.
 */
export function nobleVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array, point: EdwardsPoint): boolean {
  const r = signature.subarray(0, 32);
  const s = bytesToNumberLE(signature.subarray(32, 64));
  const k = Point.Fn.create(bytesToNumberLE(sha512(concatBytes(r, publicKey, message))));
  const rPrime = Point.BASE.multiplyUnsafe(s).subtract(point.multiplyUnsafe(k));
  return equalBytes(rPrime.toBytes(), r);
}
