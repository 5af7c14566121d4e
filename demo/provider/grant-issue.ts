/**
 * `POST /provider/grants` behind its parsing: the consent checks, then a DelegationGrantCredential
 * signed with the provider's own key, on its own status list, never wider than the user approved
 * nor than the agent's ceiling.
 */
import { isMandateError } from '../../wallet/crypto/errors.ts';
import { issueGrant } from '../../wallet/vc/grant.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import type { AgentCredential, DelegationGrantCredential, UserConsent } from '../../wallet/vc/types.ts';
import { checkConsentRequest, GRANT_CHECK, type Check, type ConsentCheckContext } from './consent-check.ts';
import type { GrantStatusList } from './grant-status.ts';
import { errorMessage } from './input.ts';

export interface GrantIssuer {
  identity: SigningIdentity;
  statusList: GrantStatusList;
  consentCheck: ConsentCheckContext;
  /** Lifetime of a grant in seconds. */
  lifetimeSeconds: number;
  now: () => number;
}

export type GrantAnswer =
  | { status: 201; body: { granted: true; checks: Check[]; grant: DelegationGrantCredential } }
  | { status: 403; body: { granted: false; checks: Check[] } };

function signGrant(issuer: GrantIssuer, consent: UserConsent, agent: AgentCredential, index: number) {
  const now = issuer.now;
  return issueGrant({
    provider: issuer.identity,
    agentDid: agent.credentialSubject.id,
    privilegeScopes: [...consent.privilegeScopes],
    consent,
    ceiling: [...agent.credentialSubject.privilegeScopes],
    credentialStatus: [issuer.statusList.entry(index)],
    validFrom: new Date(now()),
    validUntil: new Date(now() + issuer.lifetimeSeconds * 1000),
  });
}

export async function grantOnConsent(issuer: GrantIssuer, body: unknown): Promise<GrantAnswer> {
  const { checks, consent, agent } = await checkConsentRequest(body, issuer.consentCheck);
  if (!consent || !agent) return { status: 403, body: { granted: false, checks } };
  const index = issuer.statusList.allocate();
  let grant: DelegationGrantCredential;
  try {
    grant = await signGrant(issuer, consent, agent, index);
  } catch (error) {
    const detail = isMandateError(error) ? `${error.code}: ${error.message}` : errorMessage(error);
    checks.push({ check: GRANT_CHECK, ok: false, detail });
    return { status: 403, body: { granted: false, checks } };
  }
  issuer.statusList.remember(grant.id, index);
  checks.push(
    { check: GRANT_CHECK, ok: true, detail: grant.credentialSubject.privilegeScopes.join(' ') },
    {
      check: "signed with the provider's own key, on its own status list",
      ok: true,
      detail: `${issuer.statusList.url}#${index}`,
    },
  );
  return { status: 201, body: { granted: true, checks, grant } };
}
