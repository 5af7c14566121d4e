/**
 * An in-memory KeyStore for tests and ephemeral agents: same interface and rules as the
 * persistent stores, keys kept as unencrypted records (extractable) until the process ends.
 */
import { createKeyStore, keyExists } from './core.ts';
import type { KeyRecord } from './record.ts';
import type { KeyStore } from './types.ts';

export function createMemoryKeyStore(): KeyStore {
  const records = new Map<string, KeyRecord>();
  return createKeyStore({
    protection: () => 'plain',
    backend: {
      read: (id) => Promise.resolve(records.get(id)),
      insert: (id, record) =>
        new Promise<void>((resolve) => {
          if (records.has(id)) throw keyExists(id); // a rejection, as from the persistent stores
          records.set(id, record);
          resolve();
        }),
      remove: (id) => Promise.resolve(records.delete(id)),
      ids: () => Promise.resolve([...records.keys()]),
    },
  });
}
