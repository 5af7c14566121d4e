/** `mandate/wallet/node`: everything in `mandate/wallet`, plus the Node file key store. */
export * from './index.ts';
export { createFileKeyStore, type FileKeyStoreOptions } from './keystore/node.ts';
export { createFileCredentialStore, type FileCredentialStoreOptions } from './client/credential-store-file.ts';
