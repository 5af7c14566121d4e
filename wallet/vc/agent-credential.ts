/**
 * Issuing the root of every chain: an AgentCredential signed by a platform issuer
 * (docs/protocol.md §Agent credential).
 */
import { createProof, formatDateTimeStamp } from '../crypto/data-integrity.ts';
import { MANDATE_CONTEXTS } from './context.ts';
import { newUrnUuid, type SigningIdentity } from './identity.ts';
import { parseCredential } from './parse.ts';
import type { AgentCredential, StatusEntry } from './types.ts';

export interface AgentCredentialOptions {
  issuer: SigningIdentity;
  agentDid: string;
  privilegeScopes: string[];
  delegationDepth: number;
  domains?: string[];
  validFrom?: Date;
  validUntil?: Date;
  /** One entry or several (e.g. revocation and suspension). */
  credentialStatus?: StatusEntry | StatusEntry[];
  id?: string;
  /** The proof's `created` time (default: now). */
  created?: Date;
}

export async function issueAgentCredential(options: AgentCredentialOptions): Promise<AgentCredential> {
  const statusList =
    options.credentialStatus === undefined ? [] : ([] as StatusEntry[]).concat(options.credentialStatus);
  const unsigned = {
    '@context': [...MANDATE_CONTEXTS],
    id: options.id ?? newUrnUuid(),
    type: ['VerifiableCredential', 'AgentCredential'],
    issuer: options.issuer.did,
    validFrom: formatDateTimeStamp(options.validFrom ?? new Date()),
    ...(options.validUntil ? { validUntil: formatDateTimeStamp(options.validUntil) } : {}),
    credentialSubject: {
      id: options.agentDid,
      privilegeScopes: [...options.privilegeScopes],
      delegationDepth: options.delegationDepth,
      ...(options.domains ? { domains: [...options.domains] } : {}),
    },
    ...(statusList.length > 0 ? { credentialStatus: statusList } : {}),
  };
  parseCredential({ ...unsigned, proof: {} }); // refuse to sign what a verifier would call MALFORMED
  return createProof(unsigned, {
    signer: options.issuer.signer,
    verificationMethod: options.issuer.verificationMethod,
    proofPurpose: 'assertionMethod',
    ...(options.created ? { created: options.created } : {}),
  });
}
