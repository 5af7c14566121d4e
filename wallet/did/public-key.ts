/**
 * The one place the DID layer decides whether bytes are an acceptable Ed25519 public key.
 * The decision itself belongs to the crypto core (RFC 8032 §5.1.3 decoding, small-order and
 * non-canonical encodings refused); this module only translates its verdict into DidError
 * INVALID_PUBLIC_KEY so DID callers see one error class.
 */
import { assertValidPublicKey } from '../crypto/ed25519.ts';
import { decodePublicKeyMultibase } from '../crypto/multikey.ts';
import { DidError } from './errors.ts';

/** Throws DidError INVALID_PUBLIC_KEY unless `publicKey` is a valid 32-byte Ed25519 key. */
export function assertEd25519PublicKey(publicKey: Uint8Array): void {
  try {
    assertValidPublicKey(publicKey);
  } catch (error) {
    // The crypto core's message says which rule failed (length, non-canonical, small order).
    throw new DidError('INVALID_PUBLIC_KEY', error instanceof Error ? error.message : 'invalid Ed25519 public key', {
      cause: error,
    });
  }
}

/** "z6Mk…" → a validated 32-byte Ed25519 key, or DidError INVALID_PUBLIC_KEY. */
export function ed25519KeyFromMultibase(publicKeyMultibase: string): Uint8Array {
  let publicKey: Uint8Array;
  try {
    publicKey = decodePublicKeyMultibase(publicKeyMultibase);
  } catch {
    throw new DidError('INVALID_PUBLIC_KEY', 'publicKeyMultibase is not an Ed25519 Multikey ("z6Mk…")');
  }
  assertEd25519PublicKey(publicKey);
  return publicKey;
}
