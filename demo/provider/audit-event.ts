/**
 * The provider's entries in the issuer's audit trail: signed AuditEvents posted to
 * `POST /v1/audit/events`, authenticated by the provider's DID key (no admin key).
 */
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { newUrnUuid, type SigningIdentity } from '../../wallet/vc/identity.ts';
import { DID_SYNTAX, errorMessage } from './input.ts';

export interface ProviderAuditEvent {
  agentDid?: string;
  vpId?: string;
  action: string;
  result: string;
}

export interface ProviderAuditResult {
  recorded: boolean;
  detail: string;
}

/** The unsigned event, every member bounded as the issuer's schema bounds it. */
function auditEvent(providerDid: string, event: ProviderAuditEvent) {
  return {
    type: 'AuditEvent',
    id: newUrnUuid(),
    provider: providerDid,
    event: 'authorization',
    ...(event.agentDid && DID_SYNTAX.test(event.agentDid) ? { agentDid: event.agentDid } : {}),
    ...(event.vpId ? { vpId: event.vpId.slice(0, 256) } : {}),
    action: event.action.slice(0, 256),
    result: event.result.slice(0, 256),
  };
}

/** Signs and posts one event (best effort: the answer says whether it landed). */
export async function recordAuditEvent(
  identity: SigningIdentity,
  issuerUrl: string,
  event: ProviderAuditEvent,
): Promise<ProviderAuditResult> {
  const unsigned = auditEvent(identity.did, event);
  try {
    const signed = await createProof(unsigned, {
      signer: identity.signer,
      verificationMethod: identity.verificationMethod,
      proofPurpose: 'assertionMethod',
    });
    const response = await fetch(`${issuerUrl}/v1/audit/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signed),
      signal: AbortSignal.timeout(3000),
    });
    return {
      recorded: response.ok,
      detail: response.ok ? 'recorded by the issuer' : `the issuer answered ${response.status}`,
    };
  } catch (error) {
    return { recorded: false, detail: `the issuer is unreachable: ${errorMessage(error)}` };
  }
}
