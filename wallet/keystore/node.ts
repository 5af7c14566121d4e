/**
 * Node entry of the key stores: everything in ./index.ts plus the file store. Never import this
 * from code that runs in browsers (it pulls in node:fs and node:path).
 */
export * from './index.ts';
export { createFileKeyStore, type FileKeyStoreOptions } from './file.ts';
