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
      read: async (id) => records.get(id),
      async insert(id, record) {
        if (records.has(id)) throw keyExists(id);
        records.set(id, record);
      },
      remove: async (id) => records.delete(id),
      ids: async () => [...records.keys()],
    },
  });
}
