/**
 * The client side of Mandate, isomorphic: the issuer's HTTP API (`IssuerClient`), session-token
 * checks, and the credential stores a `Wallet` keeps its credentials in. The Node file store
 * (./credential-store-file.ts) is exported by `wallet/node.ts` only. See docs/wallet.md.
 */
export { IssuerApiError, IssuerClientError, isIssuerApiError, type IssuerClientErrorCode } from './errors.ts';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, type TransportEvent } from './transport.ts';
export {
  IssuerClient,
  type IssuerClientOptions,
  type OnboardingHolder,
  type OnboardOptions,
  type OnboardResult,
  type VerifyOptions,
  type VpVerdict,
  type VpAccepted,
  type VpDenied,
  type RequestVpOptions,
  type ServerDelegationOptions,
  type CredentialView,
  type StatusChangeView,
  type CredentialState,
  type MintTokenInput,
  type EnrollmentToken,
  type StatusListInput,
  type StatusListInfo,
  type CreateDidInput,
  type ServiceInput,
  type HostedDid,
  type DidResolution,
  type AuditQuery,
  type AuditRecord,
  type AuditChainVerdict,
} from './issuer-client.ts';
export {
  verifySessionToken,
  type SessionClaims,
  type ActorClaim,
  type VerifySessionTokenOptions,
} from './session-token.ts';
export {
  CredentialStoreError,
  createMemoryCredentialStore,
  createIndexedDbCredentialStore,
  type CredentialStore,
  type CredentialStoreErrorCode,
  type CredentialStoreLimits,
  type IndexedDbCredentialStoreOptions,
} from './credential-store.ts';
export { selectionsFor, type SelectOptions, type Selection } from './select.ts';
