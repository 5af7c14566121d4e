/**
 * Signing a presentation (docs/protocol.md §Presentation): the holder agent proves possession
 * of its DID's authentication key over the chain it presents, bound to one verifier's
 * challenge and target service, for a short time.
 */
import { createProof, formatDateTimeStamp, ProofError } from '../crypto/data-integrity.ts';
import { MANDATE_CONTEXTS } from './context.ts';
import { newUrnUuid, type SigningIdentity } from './identity.ts';
import { withOneProof } from './parse.ts';
import type { MandateCredential, VerifiablePresentation } from './types.ts';

export const DEFAULT_PRESENTATION_LIFETIME_MS = 5 * 60_000;
/** The longest lifetime a verifier accepts by default (`maxPresentationLifetimeMs`), and the most the issuer signs. */
export const MAX_PRESENTATION_LIFETIME_MS = 60 * 60_000;

export interface PresentationOptions {
  holder: SigningIdentity;
  /** The chain, leaf first, then parents, then grants. */
  credentials: MandateCredential[];
  /** The verifier's nonce. */
  challenge: string;
  /** The target service (its name or DID), checked as the verifier's expectedDomain. */
  domain: string;
  created?: Date;
  /** Lifetime after `created`; default 5 minutes. Verifiers refuse more than 1 hour unless configured otherwise. */
  lifetimeMs?: number;
  id?: string;
}

export async function signPresentation(options: PresentationOptions): Promise<VerifiablePresentation> {
  const created = options.created ?? new Date();
  const lifetimeMs = options.lifetimeMs ?? DEFAULT_PRESENTATION_LIFETIME_MS;
  // A presentation that expires before it is created is one no verifier accepts.
  if (!Number.isSafeInteger(lifetimeMs) || lifetimeMs < 1)
    throw new ProofError('PROOF_OPTIONS_INVALID', 'lifetimeMs must be a positive integer');
  const expires = new Date(created.getTime() + lifetimeMs);
  const unsigned = {
    '@context': [...MANDATE_CONTEXTS],
    id: options.id ?? newUrnUuid(),
    type: ['VerifiablePresentation'],
    holder: options.holder.did,
    verifiableCredential: options.credentials,
  };
  const signed = await createProof(unsigned, {
    signer: options.holder.signer,
    verificationMethod: options.holder.verificationMethod,
    proofPurpose: 'authentication',
    challenge: options.challenge,
    domain: options.domain,
    created: formatDateTimeStamp(created),
    expires: formatDateTimeStamp(expires),
  });
  return withOneProof(signed);
}
