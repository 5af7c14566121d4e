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
import { concatBytes, equalBytes } from './bytes.ts';
import { PUBLIC_KEY_PROBLEMS } from './ed25519-spec.ts';

export type { EdwardsPoint };

const { Point } = ed25519;

/**
 * Why Mandate refuses a 32-byte public key, or undefined when it accepts it:
 * - RFC 8032 §5.1.3: y < p, and x = 0 must not carry the sign bit (`fromBytes(…, zip215=false)`);
 * - small order ([8]A = O): such a key verifies signatures on messages nobody signed;
 * - a torsion component (A ∉ prime-order subgroup): no honest key generation produces one, and
 *   cofactorless and cofactored verifiers disagree about its signatures.
 * Costs one scalar multiplication (by L); callers cache the result.
 */
export function publicKeyProblem(publicKey: Uint8Array): string | undefined {
  let point: EdwardsPoint;
  try {
    point = Point.fromBytes(publicKey, false);
  } catch {
    return PUBLIC_KEY_PROBLEMS.encoding;
  }
  if (point.isSmallOrder()) return PUBLIC_KEY_PROBLEMS.smallOrder;
  if (!point.isTorsionFree()) return PUBLIC_KEY_PROBLEMS.torsion;
  return undefined;
}

/** The point of a key that `publicKeyProblem` accepted before: decoding only, no checks again. */
export function decodeCheckedPublicKey(publicKey: Uint8Array): EdwardsPoint {
  return Point.fromBytes(publicKey, false);
}

/**
 * Cofactorless RFC 8032 §5.1.7: R' = [S]B − [k]A with k = SHA-512(R ‖ A ‖ M) mod L, accepted
 * iff encode(R') equals the R bytes. Expects S < L already checked and A accepted by publicKeyProblem.
 */
export function nobleVerify(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
  point: EdwardsPoint,
): boolean {
  const r = signature.subarray(0, 32);
  const s = bytesToNumberLE(signature.subarray(32, 64));
  const k = Point.Fn.create(bytesToNumberLE(sha512(concatBytes(r, publicKey, message))));
  const rPrime = Point.BASE.multiplyUnsafe(s).subtract(point.multiplyUnsafe(k));
  return equalBytes(rPrime.toBytes(), r);
}
