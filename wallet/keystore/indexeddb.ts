/**
 * A KeyStore in the browser's IndexedDB (also usable in service workers), through idb-keyval.
 *
 * - Where WebCrypto implements Ed25519 (Chromium, Firefox, Safari), keys are non-extractable
 *   CryptoKeys: IndexedDB stores them by structured clone (HTML §2.7.3 "serializable objects";
 *   WebCrypto §14.5), so the private key never exists as bytes in JavaScript, and script that
 *   later runs in the origin can sign but cannot copy the key out.
 * - Otherwise, or when `extractable: true` asks for keys that can be backed up, the seed is
 *   stored encrypted under the passphrase (scrypt → AES-256-GCM), which is then required
 *   (PASSPHRASE_REQUIRED).
 * - One database per store name, one object store "keys" in it; opening the same name again
 *   (another tab, a reload, a service worker) sees the same keys.
 */
import { createStore, promisifyRequest, type UseStore } from 'idb-keyval';
import { availableEd25519Backends } from '../crypto/ed25519.ts';
import type { ScryptCost } from '../crypto/kdf.ts';
import { createKeyStore, keyExists, type Protection } from './core.ts';
import type { KeyStore } from './types.ts';

export interface IndexedDbKeyStoreOptions {
  /** IndexedDB database name (default "mandate-keystore"). */
  readonly name?: string | undefined;
  /** Needed for encrypted keys: when WebCrypto lacks Ed25519, or with `extractable: true`. */
  readonly passphrase?: string | undefined;
  /** Keep new keys exportable (encrypted seeds) instead of non-extractable CryptoKeys. Default false. */
  readonly extractable?: boolean | undefined;
  /** scrypt cost for new encrypted keys (default SCRYPT_DEFAULT_COST). */
  readonly kdfCost?: ScryptCost | undefined;
}

const OBJECT_STORE = 'keys';

function isConstraintError(error: unknown): boolean {
  return typeof DOMException !== 'undefined' && error instanceof DOMException && error.name === 'ConstraintError';
}

async function insert(db: UseStore, id: string, value: unknown): Promise<void> {
  try {
    // add() (not put) fails with ConstraintError when the key exists: the no-overwrite check and
    // the write are one transaction (IndexedDB 3.0 §4.6 "add").
    await db('readwrite', (store) => promisifyRequest(store.add(value, id)));
  } catch (error) {
    if (isConstraintError(error)) throw keyExists(id);
    throw error;
  }
}

async function remove(db: UseStore, id: string): Promise<boolean> {
  return db('readwrite', async (store) => {
    const existing = await promisifyRequest(store.getKey(id));
    if (existing === undefined) return false;
    await promisifyRequest(store.delete(id));
    return true;
  });
}

/** A KeyStore in the IndexedDB database `options.name`. */
export function createIndexedDbKeyStore(options: IndexedDbKeyStoreOptions = {}): KeyStore {
  const { passphrase, kdfCost, extractable = false } = options;
  const db = createStore(options.name ?? 'mandate-keystore', OBJECT_STORE);
  let native: Promise<boolean> | undefined;
  async function protection(): Promise<Protection> {
    if (!extractable) {
      native ??= availableEd25519Backends().then((backends) => backends.includes('webcrypto'));
      if (await native) return 'cryptokey';
    }
    return 'passphrase';
  }
  return createKeyStore({
    passphrase,
    kdfCost,
    protection,
    backend: {
      read: (id) => db('readonly', (store) => promisifyRequest(store.get(id))),
      insert: (id, record) => insert(db, id, record),
      remove: (id) => remove(db, id),
      ids: async () =>
        (await db('readonly', (store) => promisifyRequest(store.getAllKeys()))).filter(
          (key): key is string => typeof key === 'string',
        ),
    },
  });
}
