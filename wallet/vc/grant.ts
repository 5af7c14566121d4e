/**
 * Delegation grants (docs/protocol.md §Delegation grant): after a user approves, a service
 * provider signs, with its own key, that an agent may use some of the provider's scopes on the
 * user's behalf. The user's approval travels inside the grant as a UserConsent the user signed,
 * so any verifier can check the consent itself rather than trust that it happened.
 */
import { createProof, formatDateTimeStamp } from '../crypto/data-integrity.ts';
import { MANDATE_CONTEXTS } from './context.ts';
import { newUrnUuid, type SigningIdentity } from './identity.ts';
import { issuerId, parseCredential, withOneProof } from './parse.ts';
import { VerificationError } from './reasons.ts';
import { uncovered } from './scopes.ts';
import type { DelegationGrantCredential, StatusEntry, UserConsent } from './types.ts';

export interface ConsentOptions {
  user: SigningIdentity;
  agentDid: string;
  providerDid: string;
  privilegeScopes: string[];
  /** The provider's single-use challenge (issuer API: POST /v1/challenges). */
  challenge: string;
  /** The proof's `created` time (default: now). */
  created?: Date;
}

/** The user signs what they approve (proofPurpose authentication, domain = the provider). */
export async function createConsent(options: ConsentOptions): Promise<UserConsent> {
  const consent = {
    type: 'UserConsent' as const,
    user: options.user.did,
    agent: options.agentDid,
    provider: options.providerDid,
    privilegeScopes: [...options.privilegeScopes],
  };
  const signed = await createProof(consent, {
    signer: options.user.signer,
    verificationMethod: options.user.verificationMethod,
    proofPurpose: 'authentication',
    challenge: options.challenge,
    domain: options.providerDid,
    ...(options.created ? { created: options.created } : {}),
  });
  return withOneProof(signed);
}

/**
 * The links between a grant, its consent and the agent's authority (docs/protocol.md §Grant
 * rules). `ceiling` is the root credential's privilegeScopes: a grant never exceeds it.
 */
export function checkGrant(grant: DelegationGrantCredential, ceiling: string[]): void {
  const subject = grant.credentialSubject;
  const consent = subject.consent;
  const provider = issuerId(grant);
  if (consent.user !== subject.onBehalfOf || consent.agent !== subject.id || consent.provider !== provider) {
    throw new VerificationError(
      'CHAIN_BROKEN',
      `${grant.id}: the consent names another user, agent or provider than the grant`,
    );
  }
  const beyondConsent = uncovered(subject.privilegeScopes, consent.privilegeScopes);
  if (beyondConsent.length > 0) {
    throw new VerificationError(
      'SCOPE_ESCALATION',
      `${grant.id}: ${beyondConsent.join(', ')} not approved by the user`,
    );
  }
  const beyondCeiling = uncovered(subject.privilegeScopes, ceiling);
  if (beyondCeiling.length > 0) {
    throw new VerificationError(
      'SCOPE_ESCALATION',
      `${grant.id}: ${beyondCeiling.join(', ')} beyond the agent's ceiling`,
    );
  }
}

export interface GrantOptions {
  provider: SigningIdentity;
  agentDid: string;
  privilegeScopes: string[];
  consent: UserConsent;
  /** The agent's ceiling (its root credential's scopes); the grant must stay within it. */
  ceiling: string[];
  credentialStatus?: StatusEntry[];
  validFrom?: Date;
  validUntil?: Date;
  id?: string;
  /** The proof's `created` time (default: now). */
  created?: Date;
}

export async function issueGrant(options: GrantOptions): Promise<DelegationGrantCredential> {
  const unsigned = {
    '@context': [...MANDATE_CONTEXTS],
    id: options.id ?? newUrnUuid(),
    type: ['VerifiableCredential', 'DelegationGrantCredential'],
    issuer: options.provider.did,
    validFrom: formatDateTimeStamp(options.validFrom ?? new Date()),
    ...(options.validUntil ? { validUntil: formatDateTimeStamp(options.validUntil) } : {}),
    credentialSubject: {
      id: options.agentDid,
      privilegeScopes: [...options.privilegeScopes],
      onBehalfOf: options.consent.user,
      consent: options.consent,
    },
    ...(options.credentialStatus?.length ? { credentialStatus: options.credentialStatus } : {}),
  };
  const candidate = parseCredential({ ...unsigned, proof: {} }) as DelegationGrantCredential;
  checkGrant(candidate, options.ceiling);
  return createProof(unsigned, {
    signer: options.provider.signer,
    verificationMethod: options.provider.verificationMethod,
    proofPurpose: 'assertionMethod',
    ...(options.created ? { created: options.created } : {}),
  });
}
