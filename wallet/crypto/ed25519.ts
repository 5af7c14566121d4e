/**
 * Ed25519 (RFC 8032) for Mandate: key generation, signing, verification.
 *
 * PROVISIONAL: this first version is noble-only; the native backends (node:crypto,
 * WebCrypto), the strict pre-checks and the key cache are being added behind this same API.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { assertBytes, randomBytes } from './bytes.ts';
import { MandateError } from './errors.ts';

export type Ed25519ErrorCode = 'INVALID_PUBLIC_KEY' | 'INVALID_PRIVATE_KEY';

export class Ed25519Error extends MandateError<Ed25519ErrorCode> {
  override name = 'Ed25519Error';
}

/** Something that can sign for one Ed25519 public key without handing out its private key. */
export interface Signer {
  /** 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** 64-byte Ed25519 signature of `message`. */
  sign(message: Uint8Array): Promise<Uint8Array>;
}

/** A fresh 32-byte private key (RFC 8032 §5.1.5 "seed"). */
export function generateSeed(): Uint8Array {
  return randomBytes(32);
}

/** The 32-byte public key for a 32-byte seed. */
export function getPublicKey(seed: Uint8Array): Uint8Array {
  assertBytes(seed, 32, 'seed');
  return ed25519.getPublicKey(seed);
}

/** Signs `message` with a 32-byte seed. */
export async function sign(message: Uint8Array, seed: Uint8Array): Promise<Uint8Array> {
  assertBytes(message, undefined, 'message');
  assertBytes(seed, 32, 'seed');
  return ed25519.sign(message, seed);
}

/**
 * Verifies an Ed25519 signature. Returns false (never throws) for any signature, message or
 * key that does not verify, including malformed lengths: these are attacker-controlled.
 */
export async function verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
  if (!(signature instanceof Uint8Array) || !(message instanceof Uint8Array) || !(publicKey instanceof Uint8Array)) return false;
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/** A Signer over an in-memory seed (the seed is copied, so later writes to it change nothing). */
export function seedSigner(seed: Uint8Array): Signer {
  const secret = Uint8Array.from(assertBytes(seed, 32, 'seed'));
  const publicKey = getPublicKey(secret);
  return { publicKey, sign: (message) => sign(message, secret) };
}
