/**
 * A build-time stand-in for wallet/crypto/ed25519-noble.ts in the service-worker bundle (aliased
 * in verifier-worker/vite.sw.config.ts): the public-key rules in a page of bigint arithmetic,
 * without @noble/curves, whose generic machinery would cost several KB of the worker's budget.
 *
 * Computed straight from RFC 8032 §5.1: §5.1.3 decoding and the complete §5.1.4 addition
 * formulas, so plain double-and-add suffices (public keys: variable time is fine). Held to noble's
 * verdicts by test/verifier/sw/shims.browser.test.ts. Why: docs/verifier.md §How the worker's parts fit.
 */
import type { EdwardsPoint } from '@noble/curves/abstract/edwards.js';
import { PUBLIC_KEY_PROBLEMS } from '../../../wallet/crypto/ed25519-spec.ts';

/** Extended coordinates (X : Y : Z : T), x = X/Z, y = Y/Z, x·y = T/Z (RFC 8032 §5.1.4), reduced mod p. */
type Point = readonly [bigint, bigint, bigint, bigint];

/** RFC 8032 §5.1: p = 2^255 − 19; L, the prime order of the base point's subgroup. */
const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

const mod = (a: bigint): bigint => ((a % P) + P) % P;

function pow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  for (let b = mod(base), e = exponent; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) result = (result * b) % P;
  return result;
}

/** d = −121665/121666 (RFC 8032 §5.1), and 2^((p−1)/4), a square root of −1 (§5.1.3 step 3). */
const D = mod(-121665n * pow(121666n, P - 2n));
const SQRT_M1 = pow(2n, (P - 1n) / 4n);
const NEUTRAL: Point = [0n, 1n, 1n, 0n];

/** RFC 8032 §5.1.4 addition (a = −1); complete: it also doubles, and takes the neutral point. */
function add([x1, y1, z1, t1]: Point, [x2, y2, z2, t2]: Point): Point {
  const a = mod((y1 - x1) * (y2 - x2));
  const b = mod((y1 + x1) * (y2 + x2));
  const c = mod(2n * D * t1 * t2);
  const d = mod(2n * z1 * z2);
  const e = b - a;
  const f = d - c;
  const g = d + c;
  const h = b + a;
  return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
}

/** [k]point by double-and-add (k > 0). */
function multiply(point: Point, k: bigint): Point {
  let result = NEUTRAL;
  for (let bit = k.toString(2).length - 1; bit >= 0; bit--) {
    result = add(result, result);
    if ((k >> BigInt(bit)) & 1n) result = add(result, point);
  }
  return result;
}

/** The neutral point (0, 1): X = 0 and Y = Z. */
const isNeutral = ([x, y, z]: Point): boolean => x === 0n && y === z;

/** RFC 8032 §5.1.3 decoding, strict (y < p; x = 0 never with the sign bit); undefined when it fails. */
function decode(bytes: Uint8Array): Point | undefined {
  if (bytes.length !== 32) return undefined;
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt((bytes[i] as number) & (i === 31 ? 0x7f : 0xff));
  const sign = (bytes[31] as number) >> 7;
  if (y >= P) return undefined;
  // x² = (y² − 1) / (d·y² + 1) = u/v; candidate root x = u·v³·(u·v⁷)^((p−5)/8) (step 3).
  const y2 = (y * y) % P;
  const u = mod(y2 - 1n);
  const v = mod(D * y2 + 1n);
  const v3 = (((v * v) % P) * v) % P;
  let x = mod(u * v3 * pow(u * v3 * v3 * v, (P - 5n) / 8n));
  const vx2 = mod(v * x * x);
  if (vx2 === mod(-u)) x = (x * SQRT_M1) % P;
  else if (vx2 !== u) return undefined;
  // Step 4.
  if (x === 0n && sign === 1) return undefined;
  if (Number(x & 1n) !== sign) x = P - x;
  return [x, y, 1n, (x * y) % P];
}

/** The wallet's rules exactly (wallet/crypto/ed25519-noble.ts), in the same words. */
export function publicKeyProblem(publicKey: Uint8Array): string | undefined {
  const point = decode(publicKey);
  if (point === undefined) return PUBLIC_KEY_PROBLEMS.encoding;
  if (isNeutral(multiply(point, 8n))) return PUBLIC_KEY_PROBLEMS.smallOrder;
  if (!isNeutral(multiply(point, L))) return PUBLIC_KEY_PROBLEMS.torsion;
  return undefined;
}

function unavailable(): never {
  throw new Error('pure-JS Ed25519 verification is not part of the verifier worker');
}

export type { EdwardsPoint };
export const decodeCheckedPublicKey: (publicKey: Uint8Array) => EdwardsPoint = unavailable;
export const nobleVerify: (
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
  point: EdwardsPoint,
) => boolean = unavailable;
