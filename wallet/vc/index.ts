/** Credentials, delegation chains, grants, presentations and the in-process verifier. See docs/protocol.md. */
export type {
  AgentCredential,
  AgentSubject,
  ChainCredential,
  CredentialBase,
  DelegatedAgentCredential,
  DelegationGrantCredential,
  GrantSubject,
  MandateCredential,
  ParentReference,
  StatusEntry,
  UserConsent,
  VerifiablePresentation,
} from './types.ts';
export {
  REASON_CODES,
  SIGNED_REQUEST_REASONS,
  SignedRequestError,
  VerificationError,
  VerifierOptionsError,
  isReasonCode,
  type ReasonCode,
  type RefusalCode,
  type SignedRequestReason,
} from './reasons.ts';
export { MANDATE_CONTEXT, MANDATE_CONTEXT_URL, MANDATE_CONTEXTS, VC_V2_CONTEXT } from './context.ts';
export { didKeyIdentity, newUrnUuid, type SigningIdentity } from './identity.ts';
export {
  ScopeError,
  covers,
  within,
  uncovered,
  narrow,
  normalizeScopes,
  parseScope,
  parseScopes,
  assertScope,
} from './scopes.ts';
export {
  domainCovers,
  domainsCover,
  uncoveredDomains,
  parseHostEntry,
  isLoopbackHost,
  DOMAIN_RULE_SUMMARY,
} from './domains.ts';
export { parseCredential, parsePresentation, issuerId } from './parse.ts';
export { assertConformingCredential } from './conformance.ts';
export { issueAgentCredential, type AgentCredentialOptions } from './agent-credential.ts';
export { delegate, checkDelegationLink, credentialDigest, type DelegateOptions } from './delegation.ts';
export { createConsent, issueGrant, checkGrant, type ConsentOptions, type GrantOptions } from './grant.ts';
export {
  signPresentation,
  DEFAULT_PRESENTATION_LIFETIME_MS,
  MAX_PRESENTATION_LIFETIME_MS,
  type PresentationOptions,
} from './presentation.ts';
export { createReplayCache, type ReplayCache, type ReplayCacheOptions } from './replay-cache.ts';
export {
  createVerifiedCredentialCache,
  type VerifiedCredentialCache,
  type VerifiedCredential,
  type ProofKey,
  type CredentialCacheOptions,
} from './credential-cache.ts';
export {
  verifyPresentation,
  verifyCredentialChain,
  type ChainOptions,
  type ChainVerificationResult,
  type ChainVerificationSuccess,
  type VerifyPresentationOptions,
  type VerificationResult,
  type VerificationSuccess,
  type VerificationFailure,
  type CheckName,
  type CheckOutcome,
} from './verify.ts';
export {
  PRESENTATION_SCHEME,
  DEFAULT_MAX_PRESENTATION_BYTES,
  PresentationHeaderError,
  encodePresentationHeader,
  decodePresentationHeader,
  type PresentationHeaderErrorCode,
} from './transport.ts';
export { CHAIN_HEADER, CHAIN_DIGEST_HEADER, chainDigest, chainHeaders, encodeChainHeader } from './chain-header.ts';
export { createChainCache, type ChainCache, type ChainCacheOptions } from './chain-cache.ts';
export {
  signChainedRequest,
  signingFetch,
  type ChainedRequestOptions,
  type SigningFetchOptions,
} from './chain-request.ts';
export {
  verifySignedRequest,
  DEFAULT_MAX_SIGNED_BODY_BYTES,
  type VerifySignedRequestOptions,
  type SignedRequestResult,
  type SignedRequestSuccess,
  type SignedRequestFailure,
  type RequestSignature,
} from './signed-request.ts';
