/**
 * Where the worker keeps what must outlive it. A service worker is stopped whenever the browser
 * likes (Service Workers §4.1 "lifetime": idle workers are terminated) and started again for the
 * next event with empty memory, so the in-memory caches of wallet/ (createCachedResolver,
 * createStatusListClient, createReplayCache) would start cold after every stop. What must
 * survive, DID documents, signed status list credentials, remembered presentation ids and the
 * configuration, is written to IndexedDB, one database per kind with one object store.
 *
 * Storage is a cache, not a source of truth: everything read back is validated again (DID
 * documents by shape, status lists by their signature), and a storage failure (quota, a
 * browser that disables IndexedDB) degrades to memory-only operation, never to an open door —
 * where memory alone would be one (a replay cache without nonces), the write is awaited and
 * its failure refuses (replay.ts).
 */
export interface KeyValueStore<V> {
  get(key: string): Promise<V | undefined>;
  set(key: string, value: V): Promise<void>;
  delete(keys: string | readonly string[]): Promise<void>;
  entries(): Promise<Array<[string, V]>>;
}

/** Names of the worker's databases, by what they hold. */
export type StoreKind = 'dids' | 'status-lists' | 'replay' | 'challenges' | 'config';

function settle<T>(request: IDBRequest<T> | IDBTransaction): Promise<T> {
  return new Promise((resolve, reject) => {
    const done = (): void => resolve((request as IDBRequest<T>).result);
    if (request instanceof IDBTransaction) request.oncomplete = done;
    else request.onsuccess = done;
    const fail = (): void => reject(request.error ?? new DOMException('the IndexedDB request failed', 'UnknownError'));
    request.onerror = fail;
    if (request instanceof IDBTransaction) request.onabort = fail;
  });
}

/** A store in the IndexedDB database `mandate-verifier-<kind>` (one object store, "entries"). */
export function createIndexedDbStore<V>(kind: StoreKind): KeyValueStore<V> {
  const name = `mandate-verifier-${kind}`;
  let opened: Promise<IDBDatabase> | undefined;
  // Opened on first use. A connection gives way when another one wants to upgrade or delete the
  // database (IndexedDB 3.0 §2.1.2 "versionchange"), and the next operation opens a new one.
  const database = (): Promise<IDBDatabase> => {
    if (opened) return opened;
    const request = indexedDB.open(name);
    request.onupgradeneeded = () => request.result.createObjectStore('entries');
    opened = settle(request).then((db) => {
      db.onversionchange = db.onclose = () => {
        db.close();
        opened = undefined;
      };
      return db;
    });
    opened.catch(() => (opened = undefined));
    return opened;
  };
  /** Runs `operation` in one transaction; resolves with its request's result once the transaction commits. */
  const run = async <T>(
    mode: IDBTransactionMode,
    operation: (store: IDBObjectStore) => Promise<T> | void,
  ): Promise<T> => {
    const transaction = (await database()).transaction('entries', mode);
    const [result] = await Promise.all([operation(transaction.objectStore('entries')), settle(transaction)]);
    return result as T;
  };
  return {
    get: (key) => run('readonly', (store) => settle(store.get(key) as IDBRequest<V | undefined>)),
    set: (key, value) => run('readwrite', (store) => void store.put(value, key)),
    delete: (keys) =>
      run('readwrite', (store) => {
        for (const key of typeof keys === 'string' ? [keys] : keys) store.delete(key);
      }),
    // Keys and values from one transaction, so they describe the same moment.
    entries: () =>
      run('readonly', async (store) => {
        const [keys, values] = await Promise.all([
          settle(store.getAllKeys()),
          settle(store.getAll() as IDBRequest<V[]>),
        ]);
        return keys.flatMap((key, i) => (typeof key === 'string' ? [[key, values[i] as V] as [string, V]] : []));
      }),
  };
}

/** `work`'s result as a promise, which rejects when it throws (a value that cannot be cloned), as IndexedDB's would. */
function later<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => resolve(work()));
}

/** A store in memory: for runtimes without IndexedDB and for tests. Values are structured-cloned like IndexedDB's. */
export function createMemoryStore<V>(): KeyValueStore<V> {
  const map = new Map<string, V>();
  return {
    get: (key) => later(() => (map.has(key) ? structuredClone(map.get(key)) : undefined)),
    set: (key, value) => later(() => void map.set(key, structuredClone(value))),
    delete: (keys) =>
      later(() => {
        for (const key of typeof keys === 'string' ? [keys] : keys) map.delete(key);
      }),
    entries: () => later(() => [...map].map(([k, v]): [string, V] => [k, structuredClone(v)])),
  };
}

/** Runs a storage operation, turning its failure into `fallback`: storage is an optimization. */
export async function tryStore<T>(operation: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await operation();
  } catch {
    return fallback;
  }
}
