/**
 * The rules every store shares, written once: key-id syntax, no overwrite on create,
 * not-found and non-extractable errors, passphrase handling, record validation on every read.
 * A store only supplies a backend that moves records in and out of its medium (a Map, a
 * directory, an IndexedDB object store) and says how it protects new keys.
 */
import { assertBytes } from '../crypto/bytes.ts';
import {
  cryptoKeySigner,
  generateNonExtractableKey,
  generateSeed,
  getPublicKey,
  importNonExtractableSeed,
  seedSigner,
  type Signer,
} from '../crypto/ed25519.ts';
import { isMandateError } from '../crypto/errors.ts';
import { assertScryptCost, SCRYPT_DEFAULT_COST, type ScryptCost } from '../crypto/kdf.ts';
import { encodePublicKeyMultibase } from '../crypto/multikey.ts';
import {
  corrupt,
  cryptoKeyRecord,
  decryptSeed,
  encryptedRecord,
  parseKeyRecord,
  plainRecord,
  type KeyRecord,
  type ParsedRecord,
} from './record.ts';
import { KeyStoreError, type KeyInfo, type KeyStore } from './types.ts';

/**
 * How a store keeps the keys it creates: the seed as a Multikey, the seed encrypted under the
 * store's passphrase, or a non-extractable WebCrypto key.
 */
export type Protection = 'plain' | 'passphrase' | 'cryptokey';

/** Moves records in and out of a medium. Records are validated by the caller, not here. */
export interface KeyBackend {
  /** The stored value for `id` (untrusted), or undefined when there is none. */
  read(id: string): Promise<unknown>;
  /** Stores a record under an unused id; throws KEY_EXISTS, atomically, when the id is taken. */
  insert(id: string, record: KeyRecord): Promise<void>;
  /** Removes a record; false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Every stored id (may include names that are not valid ids: those are skipped). */
  ids(): Promise<string[]>;
}

export interface KeyStoreConfig {
  readonly backend: KeyBackend;
  /** Asked at each generate/put, so a store can probe its platform lazily. */
  readonly protection: () => Protection | Promise<Protection>;
  /** Encrypts new keys (when protection is 'passphrase') and decrypts encrypted ones. */
  readonly passphrase?: string | undefined;
  /** scrypt cost for new encrypted keys (default SCRYPT_DEFAULT_COST); stored keys keep theirs. */
  readonly kdfCost?: ScryptCost | undefined;
}

// First character alphanumeric: no ".", "..", hidden files or clashes with the stores'
// ".<id>.<random>.tmp" temporary files; no "/" or "\\" anywhere, so no path traversal.
const KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isKeyId(id: unknown): id is string {
  return typeof id === 'string' && KEY_ID.test(id);
}

export function assertKeyId(id: unknown): string {
  if (!isKeyId(id)) {
    throw new KeyStoreError(
      'INVALID_KEY_ID',
      'key id must be 1 to 128 characters of [A-Za-z0-9._-] starting with a letter or digit',
    );
  }
  return id;
}

export function keyExists(id: string): KeyStoreError {
  return new KeyStoreError('KEY_EXISTS', `a key with id "${id}" already exists`);
}

/**
 * cryptoKeySigner verifies its first signature against the public key; a record whose CryptoKey
 * and public key disagree is a corrupt record, so its error is reported as one.
 */
function checkedCryptoKeySigner(info: KeyInfo, privateKey: CryptoKey): Signer {
  const signer = cryptoKeySigner(privateKey, info.publicKey);
  return Object.freeze({
    publicKey: signer.publicKey,
    async sign(message: Uint8Array): Promise<Uint8Array> {
      try {
        return await signer.sign(message);
      } catch (error) {
        if (isMandateError(error, 'INVALID_PRIVATE_KEY'))
          throw corrupt(info.id, 'the private key does not belong to the recorded public key', error);
        throw error;
      }
    },
  });
}

/**
 * The record of a new key under `protection`, from `seed` or a fresh one (wiped once used); the
 * id defaults to the public key's Multikey.
 */
async function newRecord(
  protection: Protection,
  id: string | undefined,
  seed: Uint8Array | undefined,
  passphrase: () => string,
  kdfCost: ScryptCost,
): Promise<KeyRecord> {
  const createdAt = new Date().toISOString();
  if (protection === 'cryptokey') {
    const pair = seed === undefined ? await generateNonExtractableKey() : await importNonExtractableSeed(seed);
    seed?.fill(0);
    return cryptoKeyRecord(id ?? encodePublicKeyMultibase(pair.publicKey), createdAt, pair.publicKey, pair.privateKey);
  }
  const secret = seed ?? generateSeed();
  const keyId = id ?? encodePublicKeyMultibase(getPublicKey(secret));
  const record =
    protection === 'plain'
      ? plainRecord(keyId, createdAt, secret)
      : await encryptedRecord(keyId, createdAt, secret, passphrase(), kdfCost);
  secret.fill(0);
  return record;
}

/** A KeyStore over `config.backend`, applying the shared rules. */
export function createKeyStore(config: KeyStoreConfig): KeyStore {
  const { backend, passphrase } = config;
  const kdfCost = assertScryptCost(config.kdfCost ?? SCRYPT_DEFAULT_COST);

  function requirePassphrase(): string {
    if (passphrase === undefined)
      throw new KeyStoreError('PASSPHRASE_REQUIRED', 'this operation needs the key store passphrase');
    return passphrase;
  }

  async function load(id: string): Promise<ParsedRecord | undefined> {
    const value = await backend.read(assertKeyId(id));
    return value === undefined ? undefined : parseKeyRecord(id, value);
  }

  async function loadExisting(id: string): Promise<ParsedRecord> {
    const parsed = await load(id);
    if (parsed === undefined) throw new KeyStoreError('KEY_NOT_FOUND', `no key with id "${id}"`);
    return parsed;
  }

  async function seedOf(parsed: ParsedRecord): Promise<Uint8Array> {
    if (parsed.kind === 'seed') return parsed.seed;
    if (parsed.kind === 'encrypted') return decryptSeed(parsed.info, parsed.encrypted, requirePassphrase());
    throw new KeyStoreError('KEY_NOT_EXTRACTABLE', `key "${parsed.info.id}" is a non-extractable CryptoKey`);
  }

  async function create(id: string | undefined, seed: Uint8Array | undefined): Promise<KeyInfo> {
    // Refuse a taken id (or report its damaged record) before paying for key generation or
    // scrypt; insert re-checks atomically.
    if (id !== undefined && (await load(id)) !== undefined) throw keyExists(id);
    const protection = await config.protection();
    if (protection === 'passphrase') requirePassphrase();
    const record = await newRecord(protection, id, seed, () => requirePassphrase(), kdfCost);
    await backend.insert(record.id, record);
    return parseKeyRecord(record.id, record).info;
  }

  return {
    generate: async (id) => create(id, undefined),
    // Copied before the first await: a caller reusing its buffer must not change the stored key.
    put: async (id, seed) => create(assertKeyId(id), Uint8Array.from(assertBytes(seed, 32, 'seed'))),
    get: async (id) => (await load(id))?.info,
    async list() {
      const ids = (await backend.ids()).filter(isKeyId).sort();
      const parsed = await Promise.all(ids.map(load));
      return parsed.flatMap((record) => (record === undefined ? [] : [record.info]));
    },
    delete: async (id) => backend.remove(assertKeyId(id)),
    async signer(id): Promise<Signer> {
      const parsed = await loadExisting(id);
      if (parsed.kind === 'cryptokey') return checkedCryptoKeySigner(parsed.info, parsed.privateKey);
      const seed = await seedOf(parsed);
      try {
        return seedSigner(seed);
      } finally {
        seed.fill(0);
      }
    },
    exportSeed: async (id) => seedOf(await loadExisting(id)),
  };
}
