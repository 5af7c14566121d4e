/**
 * Mandate's credential and presentation shapes (docs/protocol.md). All are W3C VC Data
 * Model 2.0 documents secured with Data Integrity `eddsa-jcs-2022` proofs.
 */
import type { DataIntegrityProof } from '../crypto/data-integrity.ts';
import type { JsonValue } from '../crypto/json-value.ts';
import type { BitstringStatusListEntry } from '../status/credential.ts';

/** VC DM 2.0 §4.10: Mandate's status entries are Bitstring Status List §2.1 entries. */
export type StatusEntry = BitstringStatusListEntry;

/** Common VC 2.0 envelope (§4). `issuer` may be a URL string or an object with `id`. */
export interface CredentialBase<S> {
  '@context': string[];
  id: string;
  type: string[];
  issuer: string | { id: string; [k: string]: JsonValue };
  validFrom: string;
  validUntil?: string;
  credentialSubject: S;
  credentialStatus?: StatusEntry | StatusEntry[];
  proof?: DataIntegrityProof | DataIntegrityProof[];
}

export interface AgentSubject {
  /** The agent's DID. */
  id: string;
  /** The agent's ceiling: never exceeded downstream (docs/scopes.md). */
  privilegeScopes: string[];
  /** How many further delegation levels are allowed below this subject (≥ 0). */
  delegationDepth: number;
  /** Target services the authority may be used at; absent = any. */
  domains?: string[];
}

export type AgentCredential = CredentialBase<AgentSubject>;

export interface ParentReference {
  id: string;
  /** multibase(base58btc) multihash SHA-256 of the JCS form of the parent, proof included. */
  digestMultibase: string;
}

export interface DelegatedAgentCredential extends CredentialBase<AgentSubject> {
  parentCredential: ParentReference;
}

/** The user's signed approval, embedded in a grant (docs/protocol.md §Consent evidence). */
export interface UserConsent {
  type: 'UserConsent';
  /** The user's DID; equals the grant's onBehalfOf. */
  user: string;
  /** The agent's DID; equals the grant's subject. */
  agent: string;
  /** The service provider's DID; equals the grant's issuer and the proof's domain. */
  provider: string;
  /** What the user approved; the grant's scopes must be within these. */
  privilegeScopes: string[];
  proof?: DataIntegrityProof;
}

export interface GrantSubject {
  /** The agent's DID. */
  id: string;
  privilegeScopes: string[];
  /** The user on whose behalf the agent acts. */
  onBehalfOf: string;
  consent: UserConsent;
}

export type DelegationGrantCredential = CredentialBase<GrantSubject>;

export type ChainCredential = AgentCredential | DelegatedAgentCredential;
export type MandateCredential = ChainCredential | DelegationGrantCredential;

export interface VerifiablePresentation {
  '@context': string[];
  /** urn:uuid — the vpId, remembered by replay caches. */
  id: string;
  type: string[];
  /** The presenting agent's DID. */
  holder: string;
  /** The chain, leaf first, then parents up to the root, then grants. */
  verifiableCredential: MandateCredential[];
  /** Exactly one proof: a presentation is not a proof set (docs/protocol.md §Presentation). */
  proof?: DataIntegrityProof;
}
