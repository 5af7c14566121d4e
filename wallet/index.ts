/**
 * `mandate/wallet`: the isomorphic library (browsers, service workers, Node). Node-only pieces
 * (the file key store) are in `mandate/wallet/node`.
 */
export * from './crypto/index.ts';
export * from './did/index.ts';
export * from './status/index.ts';
export * from './keystore/index.ts';
export * from './vc/index.ts';
