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
export { REASON_CODES, VerificationError, VerifierOptionsError, isReasonCode, type ReasonCode } from './reasons.ts';
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
