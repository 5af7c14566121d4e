/**
 * Where a wallet keeps its credentials, beside its keys: one interface, three media — memory
 * (tests), IndexedDB (browsers, service workers; idb-keyval) and a JSON file (Node, in
 * ./credential-store-file.ts). Credentials are public documents, so nothing here is encrypted;
 * what matters is that what comes back is what went in:
 *
 * - every credential is validated (parseCredential, the verifier's own shape rules, and the
 *   crypto core's safe-JSON limits) when it is stored (CREDENTIAL_INVALID) AND when it is read
 *   back, so a damaged or planted record is CREDENTIAL_STORE_CORRUPT, never silently presented;
 * - a signed credential is immutable: storing the same id again is a no-op when the content is
 *   identical (JCS) and CREDENTIAL_CONFLICT when it differs, so a tampered copy cannot replace
 *   the good one;
 * - at most `maxCredentials` (default 1000) per store: CREDENTIAL_STORE_FULL beyond.
 */
import { createStore, promisifyRequest, type UseStore } from 'idb-keyval';
import { MandateError } from '../crypto/errors.ts';
import { canonicalizeJson } from '../crypto/jcs.ts';
import { assertSafeJson } from '../crypto/json-safe.ts';
import { parseCredential } from '../vc/parse.ts';
import type { MandateCredential } from '../vc/types.ts';

export type CredentialStoreErrorCode =
  /** `put` of something that is not a Mandate credential (VC 2.0 shape, docs/protocol.md). */
  | 'CREDENTIAL_INVALID'
  /** A stored record (file, IndexedDB value) is not a valid credential, or the file is damaged. */
  | 'CREDENTIAL_STORE_CORRUPT'
  /** A different credential is already stored under this id. */
  | 'CREDENTIAL_CONFLICT'
  /** The store holds `maxCredentials` already. */
  | 'CREDENTIAL_STORE_FULL';

export class CredentialStoreError extends MandateError<CredentialStoreErrorCode> {
  override name = 'CredentialStoreError';
}

export interface CredentialStore {
  /** Every stored credential, ordered by id. */
  list(): Promise<MandateCredential[]>;
  get(id: string): Promise<MandateCredential | undefined>;
  /** Stores a credential (validated first). Idempotent for identical content. */
  put(credential: MandateCredential): Promise<void>;
  /** Removes a credential; false when there was none. */
  delete(id: string): Promise<boolean>;
}

export interface CredentialStoreLimits {
  /** Most credentials kept (default 1000). */
  maxCredentials?: number | undefined;
}

export const DEFAULT_MAX_CREDENTIALS = 1000;
/** Largest credential accepted, canonical bytes: a grant with its consent is ≈ 3 KiB. */
export const MAX_CREDENTIAL_BYTES = 64 * 1024;

export function corruptStore(message: string, cause?: unknown): CredentialStoreError {
  return new CredentialStoreError('CREDENTIAL_STORE_CORRUPT', message, cause === undefined ? undefined : { cause });
}

/** A stored value read back: it must still be a valid credential, else the store is corrupt. */
export function checkStoredCredential(value: unknown, where: string): MandateCredential {
  try {
    assertSafeJson(value, { maxBytes: MAX_CREDENTIAL_BYTES });
    return parseCredential(value);
  } catch (error) {
    throw corruptStore(`${where} is not a valid credential`, error);
  }
}

/** A credential handed to `put`: validated (and copied) before anything is stored. */
export function checkCredentialInput(value: unknown): MandateCredential {
  try {
    // Validate a private copy: the caller's object cannot change after it was checked.
    const copy: unknown = structuredClone(value);
    assertSafeJson(copy, { maxBytes: MAX_CREDENTIAL_BYTES });
    return parseCredential(copy);
  } catch (error) {
    const why = error instanceof MandateError ? `: ${error.message}` : '';
    throw new CredentialStoreError('CREDENTIAL_INVALID', `not a Mandate credential${why}`, { cause: error });
  }
}

/** The JCS form, which decides whether two copies of a credential are the same document. */
export function credentialFingerprint(credential: MandateCredential): string {
  return canonicalizeJson(credential, { maxBytes: MAX_CREDENTIAL_BYTES });
}

export function conflict(id: string): CredentialStoreError {
  return new CredentialStoreError('CREDENTIAL_CONFLICT', `another credential with id ${id} is already stored`);
}

export function full(max: number): CredentialStoreError {
  return new CredentialStoreError('CREDENTIAL_STORE_FULL', `the credential store already holds ${max} credentials`);
}

export function maxCredentialsOf(limits: CredentialStoreLimits): number {
  const max = limits.maxCredentials ?? DEFAULT_MAX_CREDENTIALS;
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError('maxCredentials must be a positive integer');
  return max;
}

/** Structured clones in memory, so callers' later edits never reach the store. */
export function createMemoryCredentialStore(limits: CredentialStoreLimits = {}): CredentialStore {
  const max = maxCredentialsOf(limits);
  const records = new Map<string, { credential: MandateCredential; fingerprint: string }>();
  return {
    // Each method settles as a promise, with any error as a rejection, like the other stores.
    list: () =>
      new Promise((resolve) =>
        resolve(
          [...records.keys()]
            .sort()
            .map((id) => structuredClone((records.get(id) as { credential: MandateCredential }).credential)),
        ),
      ),
    get: (id) =>
      new Promise((resolve) => {
        const record = records.get(id);
        resolve(record === undefined ? undefined : structuredClone(record.credential));
      }),
    put: (credential) =>
      new Promise<void>((resolve) => {
        const copy = checkCredentialInput(credential);
        const fingerprint = credentialFingerprint(copy);
        const existing = records.get(copy.id);
        if (existing) {
          if (existing.fingerprint !== fingerprint) throw conflict(copy.id);
        } else {
          if (records.size >= max) throw full(max);
          records.set(copy.id, { credential: copy, fingerprint });
        }
        resolve();
      }),
    delete: (id) => Promise.resolve(records.delete(id)),
  };
}

export interface IndexedDbCredentialStoreOptions extends CredentialStoreLimits {
  /** IndexedDB database name (default "mandate-credentials"; not the key store's database). */
  name?: string | undefined;
}

/**
 * Credentials in IndexedDB, one value per credential id in the object store "credentials".
 * The conflict check, the size check and the write are one readwrite transaction
 * (IndexedDB 3.0 §2.7: transactions on one store are serialized), so two tabs cannot both win.
 */
export function createIndexedDbCredentialStore(options: IndexedDbCredentialStoreOptions = {}): CredentialStore {
  const max = maxCredentialsOf(options);
  const db: UseStore = createStore(options.name ?? 'mandate-credentials', 'credentials');
  return {
    async list() {
      const entries = await db('readonly', async (store) => {
        const [keys, values] = await Promise.all([
          promisifyRequest(store.getAllKeys()),
          promisifyRequest<unknown[]>(store.getAll()),
        ]);
        // Keys are credential ids; only a store written by something else holds another kind.
        return keys.map((key, i) => [typeof key === 'string' ? key : JSON.stringify(key), values[i]] as const);
      });
      return entries
        .map(([key, value]) => checkStoredCredential(value, `the stored record ${String(key).slice(0, 80)}`))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async get(id) {
      const value = await db('readonly', (store) => promisifyRequest<unknown>(store.get(id)));
      if (value === undefined) return undefined;
      const credential = checkStoredCredential(value, `the stored record ${id.slice(0, 80)}`);
      if (credential.id !== id) throw corruptStore(`the stored record ${id.slice(0, 80)} holds another credential`);
      return credential;
    },
    async put(credential) {
      const copy = checkCredentialInput(credential);
      const fingerprint = credentialFingerprint(copy);
      await db('readwrite', async (store) => {
        const existing: unknown = await promisifyRequest(store.get(copy.id));
        if (existing !== undefined) {
          if (credentialFingerprint(checkStoredCredential(existing, `the stored record ${copy.id}`)) !== fingerprint)
            throw conflict(copy.id);
          return;
        }
        if ((await promisifyRequest(store.count())) >= max) throw full(max);
        await promisifyRequest(store.add(copy, copy.id));
      });
    },
    delete: (id) =>
      db('readwrite', async (store) => {
        if ((await promisifyRequest(store.getKey(id))) === undefined) return false;
        await promisifyRequest(store.delete(id));
        return true;
      }),
  };
}
