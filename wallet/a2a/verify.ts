/**
 * `verifyAgentCard`: an A2A agent card is the agent's, and what the agent may do. The card's
 * signature by a key of the DID it names (verify-signature.ts), then that DID as the subject of
 * the credential chain the card carries, verified with exactly `verifyPresentation`'s chain
 * checks (`verifyCredentialChain`: DIDs, credential proofs and validity, delegation chain and
 * grants, trusted root, domains and scopes, status lists). docs/a2a.md §Verification.
 */
import { isObject, type JsonValue } from '../crypto/json-value.ts';
import { assertVerifyPresentationOptions, verifyCredentialChain, type ChainOptions } from '../vc/verify.ts';
import type { ChainVerificationSuccess } from '../vc/verify/types.ts';
import { verifyAgentCardSignature, type AgentCardFailure, type AgentCardSignatureSuccess } from './verify-signature.ts';

/**
 * `verifyPresentation`'s options but those of a presentation's proof and replay: who is trusted
 * as a root, `expectedDomain` (the service relying on the agent's authority: the leaf's
 * `domains` must cover it), `requiredScopes`, the resolver, status lists, caches, the clock.
 */
export type VerifyAgentCardOptions = ChainOptions;

/** A card signed by the agent's DID key, and the agent's authority as its credential chain grants it. */
export type AgentCardVerified = Omit<AgentCardSignatureSuccess, 'credentials'> & ChainVerificationSuccess;

export type AgentCardVerificationResult = AgentCardVerified | AgentCardFailure;

/** The leaf credential's subject, when the leaf is an object naming one; the chain check judges the rest. */
function leafSubject(credentials: readonly JsonValue[]): JsonValue | undefined {
  const leaf = credentials[0];
  return isObject(leaf) && isObject(leaf.credentialSubject) ? leaf.credentialSubject.id : undefined;
}

/**
 * Verifies `card` (an A2A v1.0 Agent Card, parsed or as JSON text) and reports the agent's authority; a refusal
 * is a result with one reason code, never an exception. Rejects only with
 * VerifierOptionsError, for invalid `options`.
 */
export async function verifyAgentCard(
  card: unknown,
  options: VerifyAgentCardOptions,
): Promise<AgentCardVerificationResult> {
  assertVerifyPresentationOptions(options);
  const signed = await verifyAgentCardSignature(card, {
    resolver: options.resolver,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  if (!signed.valid) return signed;
  const { credentials, ...identity } = signed;
  const subject = leafSubject(credentials);
  if (typeof subject === 'string' && subject !== identity.agentDid) {
    return {
      valid: false,
      reason: 'A2A_CARD_SUBJECT_MISMATCH',
      message: `the card speaks for ${identity.agentDid}, but its credential is for ${subject.slice(0, 200)}`,
    };
  }
  // The card's signature proved possession of the DID's key: the chain's holder is that DID.
  const chain = await verifyCredentialChain(credentials, { ...options, holder: identity.agentDid });
  if (!chain.valid) return { valid: false, reason: chain.reason, message: chain.message };
  return { ...chain, ...identity, valid: true };
}
