/**
 * The one key-store interface every Mandate store implements (memory, file, IndexedDB), and
 * the error codes they share. Stores hand out public information and Signers; private keys
 * leave a store only through `exportSeed`, and only where the store keeps them extractable.
 */
import type { Signer } from '../crypto/ed25519.ts';
import { MandateError } from '../crypto/errors.ts';

export type KeyStoreErrorCode =
  /** A key id outside `[A-Za-z0-9][A-Za-z0-9._-]{0,127}` (ids become file names). */
  | 'INVALID_KEY_ID'
  /** generate/put with an id that is already taken (never overwritten). */
  | 'KEY_EXISTS'
  /** signer/exportSeed for an id the store does not hold. */
  | 'KEY_NOT_FOUND'
  /** exportSeed for a key kept as a non-extractable CryptoKey. */
  | 'KEY_NOT_EXTRACTABLE'
  /** An encrypted key is needed (or must be created) and the store has no passphrase. */
  | 'PASSPHRASE_REQUIRED'
  /** The passphrase does not decrypt the key (or its ciphertext was altered: GCM cannot tell). */
  | 'WRONG_PASSPHRASE'
  /** A stored record (file or IndexedDB entry) is torn, malformed or inconsistent. */
  | 'KEY_FILE_CORRUPT'
  /** A key file belongs to another user, or others may read or write it (POSIX): not trusted. */
  | 'KEY_FILE_EXPOSED';

export class KeyStoreError extends MandateError<KeyStoreErrorCode> {
  override name = 'KeyStoreError';
}

/**
 * Public information about a stored key. Never contains private material. For an encrypted
 * key it is what the record says until `signer()`/`exportSeed()` unlock it and check it
 * (docs/keystores.md "Record format (version 1)").
 */
export interface KeyInfo {
  readonly id: string;
  /** 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** The same key as a Multikey ("z6Mk…"). */
  readonly publicKeyMultibase: string;
  /** ISO 8601 UTC timestamp of generate/put. */
  readonly createdAt: string;
  /** Whether exportSeed can return the private key. */
  readonly extractable: boolean;
}

export interface KeyStore {
  /** Creates a key. Without an id, the id is the key's publicKeyMultibase. */
  generate(id?: string): Promise<KeyInfo>;
  /** Imports a 32-byte Ed25519 seed under a new id. */
  put(id: string, seed: Uint8Array): Promise<KeyInfo>;
  /** Public information, or undefined when the id is not stored. */
  get(id: string): Promise<KeyInfo | undefined>;
  /** Every key, ordered by id. */
  list(): Promise<KeyInfo[]>;
  /** Removes a key; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** A Signer for the key; the private key stays inside the store's object where it can. */
  signer(id: string): Promise<Signer>;
  /** The 32-byte seed, for extractable keys only (KEY_NOT_EXTRACTABLE otherwise). */
  exportSeed(id: string): Promise<Uint8Array>;
}
