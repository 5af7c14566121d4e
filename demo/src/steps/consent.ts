/** Step 3: the user's own DID signs the provider's challenge in a UserConsent; the provider answers with a grant. */
import { createConsent } from '../../../wallet/vc/grant.ts';
import type { DelegationGrantCredential } from '../../../wallet/vc/types.ts';
import { renderChecks, renderJson, type Check } from '../dom.ts';
import { getJson, postJson } from '../http.ts';
import { fail, type StepDefinition, type StepView, type Story } from '../story.ts';

/** `GET /provider/consent`: what the provider asks the user to approve. */
interface ConsentRequest {
  provider: string;
  privilegeScopes: string[];
  challenge: string;
}

interface GrantAnswer {
  granted: boolean;
  checks: Check[];
  grant?: DelegationGrantCredential;
}

async function approve(story: Story, view: StepView): Promise<void> {
  const { state } = story;
  const agent = state.agent ?? fail('onboard the agent first (step 2)');
  const agentCredential = state.agentCredential ?? fail('onboard the agent first (step 2)');
  const request = (await getJson(await fetch('/provider/consent', { cache: 'no-store' }))) as ConsentRequest;
  const user = await story.openWallet('user');
  state.user = user;
  const consent = await createConsent({
    user: user.identity,
    agentDid: agent.did,
    providerDid: request.provider,
    privilegeScopes: request.privilegeScopes,
    challenge: request.challenge,
  });
  const { status: code, json } = await postJson('/provider/grants', { consent, agentCredential });
  const answer = json as GrantAnswer;
  view.body.append(
    renderChecks(answer.checks ?? []),
    renderJson('GET /provider/consent — the request shown to the user', request),
    renderJson('UserConsent signed by the user', consent),
  );
  if (code !== 201 || !answer.grant) fail(`the provider refused the grant (${code})`);
  state.grant = answer.grant;
  await agent.addCredential(answer.grant);
  view.body.append(renderJson('DelegationGrantCredential (signed by the provider)', answer.grant, true));
}

export function consentStep(story: Story): StepDefinition {
  return {
    title: '3 · The provider asks the user for consent; the provider issues a grant',
    text: 'The user’s own DID (a second key in this browser) signs the provider’s challenge inside a UserConsent. The provider verifies it and signs a DelegationGrantCredential with its own key, on its own status list.',
    buttons: [{ label: 'Approve as the user', run: (view) => approve(story, view) }],
  };
}
