/**
 * Isomorphic key-store entry (browsers, service workers, Node): the interface, the in-memory
 * store and the IndexedDB store. The file store needs node:fs and lives in ./node.ts.
 */
export type { KeyInfo, KeyStore, KeyStoreErrorCode } from './types.ts';
export { KeyStoreError } from './types.ts';
export { assertKeyId, isKeyId } from './core.ts';
export { createMemoryKeyStore } from './memory.ts';
export { createIndexedDbKeyStore, type IndexedDbKeyStoreOptions } from './indexeddb.ts';
