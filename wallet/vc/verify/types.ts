/** The public shapes of `verifyPresentation`: its options, the seven checks, and its verdict. */
import type { Resolvable } from '../../did/types.ts';
import type { StatusListClient } from '../../status/client.ts';
import type { VerifiedCredentialCache } from '../credential-cache.ts';
import type { ReasonCode, RefusalCode } from '../reasons.ts';
import type { ReplayCache } from '../replay-cache.ts';

export interface VerifyPresentationOptions {
  /** DIDs whose AgentCredentials are accepted as chain roots. */
  trustedIssuers: readonly string[];
  /** DIDs of service providers whose DelegationGrantCredentials are accepted. */
  trustedGrantIssuers?: readonly string[];
  /**
   * This verifier's service name or resource URI: the presentation's proof `domain` and the
   * leaf's `domains` must each equal or cover it (vc/domains.ts, docs/protocol.md §Where authority applies).
   */
  expectedDomain: string;
  /** The nonce this verifier handed out; when set, the proof's `challenge` must equal it. */
  expectedChallenge?: string;
  /** Scopes the request needs; each must be covered by the effective scopes. */
  requiredScopes?: readonly string[];
  /** A DID resolver, ideally cached (`createCachedResolver`): every DID involved is resolved through it. */
  resolver: Resolvable;
  /** Needed as soon as a credential carries credentialStatus; without it such credentials fail closed. */
  statusLists?: StatusListClient;
  replayCache?: ReplayCache;
  credentialCache?: VerifiedCredentialCache;
  now?: Date;
  /** Tolerance for clocks, both ways (default 60 s). */
  clockSkewMs?: number;
  /** Most credentials in the delegation chain (default 8). */
  maxChainLength?: number;
  /**
   * Largest accepted presentation (default 64 KiB): the UTF-8 length of JSON text, checked before
   * parsing; for a parsed value, the canonical UTF-8 form of the presentation without its proof
   * (the proof's configuration is held to the same bound and its proofValue to one signature).
   */
  maxPresentationBytes?: number;
  /**
   * Longest accepted presentation lifetime, proof `expires` − `created` (default 1 hour, the most
   * the issuer signs). A replay cache remembers a presentation until it expires: without a bound
   * one presentation could hold its entry, and stay replayable elsewhere, for years.
   */
  maxPresentationLifetimeMs?: number;
  /**
   * Refuse (STATUS_UNAVAILABLE) an AgentCredential or DelegationGrantCredential that carries no
   * `revocation` or `suspension` status entry: such a credential can never be revoked (an entry
   * of another purpose, say `message`, refuses nothing). Default false (VC DM 2.0 makes
   * status optional; Mandate's issuer always adds it). Delegated credentials are exempt: agents
   * keep no status lists, and revoking any credential above cuts the chain.
   */
  requireCredentialStatus?: boolean;
  /** Accept a self-issued root (issuer = subject). Development only. */
  allowSelfSigned?: boolean;
}

/**
 * The checks, in their order. `signature` takes the place of `presentation` for a signed
 * request (docs/protocol.md §Signed requests): its chain header and its RFC 9421 signature.
 */
export type CheckName =
  'presentation' | 'signature' | 'dids' | 'credentials' | 'chain' | 'scopes' | 'status' | 'replay';

export interface CheckOutcome {
  check: CheckName;
  ok: boolean;
  /** A presentation's reason code, or a signed request's (SIGNED_REQUEST_REASONS). */
  reason?: RefusalCode;
  message?: string;
}

export interface ChainLink {
  id: string;
  type: 'AgentCredential' | 'DelegatedAgentCredential' | 'DelegationGrantCredential';
  issuer: string;
  subject: string;
  privilegeScopes: string[];
  /** True when the signature check was skipped thanks to the verified-credential cache. */
  cached: boolean;
}

export interface SourceAge {
  /** A DID or a status list URL. */
  id: string;
  /** How old the data relied on was, in ms (0 = fetched for this verification). */
  ageMs: number;
}

export interface VerificationSuccess {
  valid: true;
  agentDid: string;
  /** The leaf credential's scopes. */
  privilegeScopes: string[];
  /** What the agent may do here: the leaf's scopes narrowed by any grants. */
  effectiveScopes: string[];
  vpId: string;
  chain: ChainLink[];
  checks: CheckOutcome[];
  sources: { dids: SourceAge[]; statusLists: SourceAge[] };
}

export interface VerificationFailure {
  valid: false;
  reason: ReasonCode;
  message: string;
  failedCheck: CheckName;
  checks: CheckOutcome[];
}

export type VerificationResult = VerificationSuccess | VerificationFailure;

/** What `verifyCredentialChain` reports on success: a VerificationSuccess without a vpId. */
export type ChainVerificationSuccess = Omit<VerificationSuccess, 'vpId'>;

export type ChainVerificationResult = ChainVerificationSuccess | VerificationFailure;
