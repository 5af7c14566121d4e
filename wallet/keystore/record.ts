/**
 * The stored form of one key (format 1), shared by every store so a file and an IndexedDB
 * entry read the same way (docs/keystores.md "Record format"):
 *
 *     { "version": 1, "id", "createdAt", "publicKeyMultibase": "z6Mk…", <exactly one secret> }
 *
 * where the secret is `secretKeyMultibase` (the seed as a Multikey), `encryptedSecretKey` (scrypt
 * + AES-256-GCM, AAD binding the id) or `privateKey` (a non-extractable CryptoKey, IndexedDB only).
 * Records read back are untrusted: every member is checked, and an unencrypted seed must derive
 * the recorded public key, before anything is used.
 */
import { AeadError, decrypt, encrypt, parseAeadEnvelope, type AeadEnvelope } from '../crypto/aead.ts';
import { equalBytes, utf8ToBytes } from '../crypto/bytes.ts';
import { getPublicKey } from '../crypto/ed25519.ts';
import {
  createPassphraseKey,
  derivePassphraseKey,
  parseScryptParams,
  type ScryptCost,
  type ScryptParams,
} from '../crypto/kdf.ts';
import {
  decodePrivateKeyMultibase,
  decodePublicKeyMultibase,
  encodePrivateKeyMultibase,
  encodePublicKeyMultibase,
} from '../crypto/multikey.ts';
import { KeyStoreError, type KeyInfo } from './types.ts';

export interface EncryptedSecretKey {
  readonly kdf: ScryptParams;
  readonly cipher: AeadEnvelope;
}

interface RecordHeader {
  readonly version: 1;
  readonly id: string;
  readonly createdAt: string;
  readonly publicKeyMultibase: string;
}

export type KeyRecord = RecordHeader &
  (
    | { readonly secretKeyMultibase: string }
    | { readonly encryptedSecretKey: EncryptedSecretKey }
    | { readonly privateKey: CryptoKey }
  );

/** A record after validation, with its secret decoded as far as possible without a passphrase. */
export type ParsedRecord = { readonly info: KeyInfo } & (
  | { readonly kind: 'seed'; readonly seed: Uint8Array }
  | { readonly kind: 'encrypted'; readonly encrypted: EncryptedSecretKey }
  | { readonly kind: 'cryptokey'; readonly privateKey: CryptoKey }
);

const HEADER_MEMBERS = ['createdAt', 'id', 'publicKeyMultibase', 'version'];
const SECRET_MEMBERS = ['secretKeyMultibase', 'encryptedSecretKey', 'privateKey'] as const;
// RFC 3339 §5.6 date-time in UTC, as Date#toISOString writes it.
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export function corrupt(id: string, what: string, cause?: unknown): KeyStoreError {
  return new KeyStoreError('KEY_FILE_CORRUPT', `stored key "${id}" is corrupt: ${what}`, { cause });
}

function header(id: string, createdAt: string, publicKey: Uint8Array): RecordHeader {
  return { version: 1, id, createdAt, publicKeyMultibase: encodePublicKeyMultibase(publicKey) };
}

/** AAD of an encrypted seed: the record's id, so ciphertexts cannot be moved between records. */
function aadFor(id: string): Uint8Array {
  return utf8ToBytes(`mandate-keystore:v1:${id}`);
}

export function plainRecord(id: string, createdAt: string, seed: Uint8Array): KeyRecord {
  return { ...header(id, createdAt, getPublicKey(seed)), secretKeyMultibase: encodePrivateKeyMultibase(seed) };
}

export function cryptoKeyRecord(
  id: string,
  createdAt: string,
  publicKey: Uint8Array,
  privateKey: CryptoKey,
): KeyRecord {
  return { ...header(id, createdAt, publicKey), privateKey };
}

export async function encryptedRecord(
  id: string,
  createdAt: string,
  seed: Uint8Array,
  passphrase: string,
  cost: ScryptCost,
): Promise<KeyRecord> {
  const publicKey = getPublicKey(seed);
  const { key, params } = await createPassphraseKey(passphrase, cost);
  try {
    const cipher = await encrypt(key, seed, aadFor(id));
    return { ...header(id, createdAt, publicKey), encryptedSecretKey: { kdf: params, cipher } };
  } finally {
    key.fill(0);
  }
}

function parseEncrypted(id: string, value: unknown): EncryptedSecretKey {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw corrupt(id, 'encryptedSecretKey must be an object');
  const keys = Object.keys(value).sort();
  if (keys.length !== 2 || keys[0] !== 'cipher' || keys[1] !== 'kdf')
    throw corrupt(id, 'encryptedSecretKey must have exactly the members kdf and cipher');
  const { kdf, cipher } = value as Record<string, unknown>;
  try {
    return { kdf: parseScryptParams(kdf), cipher: parseAeadEnvelope(cipher) };
  } catch (error) {
    throw corrupt(id, 'invalid encryption parameters', error);
  }
}

function isCryptoKey(value: unknown): value is CryptoKey {
  return (
    typeof CryptoKey !== 'undefined' &&
    value instanceof CryptoKey &&
    value.type === 'private' &&
    // The store promises scripts of the origin cannot read the key: an extractable one breaks that.
    value.extractable === false &&
    value.algorithm.name === 'Ed25519' &&
    value.usages.includes('sign')
  );
}

/**
 * Validates a stored record for `id` (exact members, matching id, ISO 8601 UTC createdAt,
 * decodable keys, an unencrypted seed that derives the recorded public key). KEY_FILE_CORRUPT
 * otherwise, naming the first problem.
 */
export function parseKeyRecord(id: string, value: unknown): ParsedRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw corrupt(id, 'not an object');
  const record = value as Record<string, unknown>;
  const secrets = SECRET_MEMBERS.filter((member) => member in record);
  const members = Object.keys(record)
    .filter((member) => !secrets.includes(member as (typeof SECRET_MEMBERS)[number]))
    .sort();
  if (
    secrets.length !== 1 ||
    members.length !== HEADER_MEMBERS.length ||
    members.some((m, i) => m !== HEADER_MEMBERS[i])
  ) {
    throw corrupt(id, 'expected the members version, id, createdAt, publicKeyMultibase and exactly one secret');
  }
  if (record.version !== 1) throw corrupt(id, 'unsupported version');
  if (record.id !== id) throw corrupt(id, 'recorded id does not match');
  const { createdAt } = record;
  if (typeof createdAt !== 'string' || !ISO_UTC.test(createdAt) || Number.isNaN(Date.parse(createdAt)))
    throw corrupt(id, 'createdAt must be an ISO 8601 UTC timestamp');
  let publicKey: Uint8Array;
  try {
    publicKey = decodePublicKeyMultibase(record.publicKeyMultibase as string);
  } catch (error) {
    throw corrupt(id, 'invalid publicKeyMultibase', error);
  }
  const base = { id, publicKey, publicKeyMultibase: record.publicKeyMultibase as string, createdAt };

  if ('privateKey' in record) {
    if (!isCryptoKey(record.privateKey))
      throw corrupt(id, 'privateKey is not a non-extractable Ed25519 signing CryptoKey');
    return { kind: 'cryptokey', privateKey: record.privateKey, info: { ...base, extractable: false } };
  }
  if ('encryptedSecretKey' in record) {
    return {
      kind: 'encrypted',
      encrypted: parseEncrypted(id, record.encryptedSecretKey),
      info: { ...base, extractable: true },
    };
  }
  let seed: Uint8Array;
  try {
    seed = decodePrivateKeyMultibase(record.secretKeyMultibase as string);
  } catch (error) {
    throw corrupt(id, 'invalid secretKeyMultibase', error);
  }
  if (!equalBytes(getPublicKey(seed), publicKey)) throw corrupt(id, 'public key does not match the secret key');
  return { kind: 'seed', seed, info: { ...base, extractable: true } };
}

/**
 * Decrypts an encrypted seed and checks it against the recorded public key. A failed
 * decryption is WRONG_PASSPHRASE; a decryption that yields the wrong thing is corruption.
 */
export async function decryptSeed(
  info: KeyInfo,
  encrypted: EncryptedSecretKey,
  passphrase: string,
): Promise<Uint8Array> {
  const key = await derivePassphraseKey(passphrase, encrypted.kdf);
  let seed: Uint8Array;
  try {
    seed = await decrypt(key, encrypted.cipher, aadFor(info.id));
  } catch (error) {
    if (error instanceof AeadError && error.code === 'DECRYPTION_FAILED') {
      throw new KeyStoreError('WRONG_PASSPHRASE', `the passphrase does not decrypt key "${info.id}"`);
    }
    throw error;
  } finally {
    key.fill(0);
  }
  if (seed.length !== 32 || !equalBytes(getPublicKey(seed), info.publicKey)) {
    seed.fill(0);
    throw corrupt(info.id, 'decrypted secret key does not match the public key');
  }
  return seed;
}
