/**
 * `mandate/wallet`: the isomorphic library (browsers, service workers, Node). Node-only pieces
 * (the file key store) are in `mandate/wallet/node`.
 */
export * from './crypto/index.ts';
export * from './did/index.ts';
export * from './status/index.ts';
export * from './keystore/index.ts';
export * from './vc/index.ts';
export * from './client/index.ts';
export {
  JwtError,
  verifyEdDsaJwt,
  signEdDsaJwt,
  readJwtHeader,
  parseEd25519PublicJwk,
  ed25519PublicJwk,
  jwkThumbprint,
  type JwtErrorCode,
  type Ed25519PublicJwk,
  type Ed25519PrivateJwk,
  type JwkSet,
  type JwtClaims,
  type JwtHeader,
  type VerifiedJwt,
  type VerifyJwtOptions,
  type SignJwtOptions,
} from './crypto/jwt.ts';
export {
  Wallet,
  WalletError,
  type WalletErrorCode,
  type WalletOptions,
  type SelectCredentialsOptions,
  type PresentOptions,
  type WalletDelegateOptions,
  type DelegationResult,
  type SelfIssueOptions,
} from './wallet.ts';
