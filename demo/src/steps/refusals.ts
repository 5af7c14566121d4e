/**
 * Step 7: a forged further delegation (files:write added, signed by the sub-agent itself) is
 * refused SCOPE_ESCALATION; after the operator revokes the agent, the next call is refused
 * CREDENTIAL_REVOKED.
 */
import { createProof } from '../../../wallet/crypto/data-integrity.ts';
import { credentialDigest } from '../../../wallet/vc/delegation.ts';
import { MANDATE_CONTEXTS } from '../../../wallet/vc/context.ts';
import { newUrnUuid } from '../../../wallet/vc/identity.ts';
import { signPresentation } from '../../../wallet/vc/presentation.ts';
import type { DelegatedAgentCredential } from '../../../wallet/vc/types.ts';
import type { Wallet } from '../../../wallet/wallet.ts';
import { renderJson } from '../dom.ts';
import { postJson } from '../http.ts';
import { fail, type StepDefinition, type StepView, type Story } from '../story.ts';
import type { ApiCall } from '../verifier.ts';
import { expectRefusal } from './expect-refusal.ts';
import { presentRead } from './present-read.ts';

/** Built by hand: Wallet.delegate refuses to sign an escalation (it checks the same rules first). */
async function forgeEscalation(story: Story, sub: Wallet, parent: DelegatedAgentCredential) {
  const unsigned: DelegatedAgentCredential = {
    '@context': [...MANDATE_CONTEXTS],
    id: newUrnUuid(),
    type: ['VerifiableCredential', 'DelegatedAgentCredential'],
    issuer: sub.did,
    validFrom: parent.validFrom,
    ...(parent.validUntil ? { validUntil: parent.validUntil } : {}),
    credentialSubject: {
      id: sub.did,
      privilegeScopes: ['files:read', 'files:write'],
      delegationDepth: 0,
      domains: [story.config.target],
    },
    parentCredential: { id: parent.id, digestMultibase: credentialDigest(parent) },
  };
  const forged: DelegatedAgentCredential = await createProof(unsigned, {
    signer: sub.identity.signer,
    verificationMethod: sub.identity.verificationMethod,
    proofPurpose: 'assertionMethod',
  });
  return forged;
}

async function exceedScope(story: Story, view: StepView): Promise<void> {
  const { state } = story;
  const sub = state.sub ?? fail('delegate to the sub-agent first (step 4)');
  const parent = state.subCredential ?? fail('delegate to the sub-agent first (step 4)');
  const agentCredential = state.agentCredential ?? fail('step 2 first');
  const grant = state.grant ?? fail('step 3 first');
  const forged = await forgeEscalation(story, sub, parent);
  const call = await story.verifier.call('POST', '/api/files/q3-report', (challenge) =>
    signPresentation({
      holder: sub.identity,
      credentials: [forged, parent, agentCredential, grant],
      challenge,
      domain: story.config.target,
    }),
  );
  await expectRefusal(view, call, {
    outcomeId: 'outcome-7a',
    expected: 'SCOPE_ESCALATION',
    action: 'POST /api/files/q3-report',
    agentDid: sub.did,
    extra: [renderJson('the forged DelegatedAgentCredential (sub-agent → itself)', forged)],
  });
}

async function revokeThenCall(story: Story, view: StepView): Promise<void> {
  const sub = story.state.sub ?? fail('delegate to the sub-agent first (step 4)');
  const agentCredential = story.state.agentCredential ?? fail('step 2 first');
  const { status: code, json } = await postJson('/operator/revoke', { vcId: agentCredential.id });
  if (code !== 200) fail(`the revocation failed (${code})`);
  view.body.append(renderJson('POST /v1/vcs/{vcId}/revoke (the runner, with the admin key)', json));
  // The issuer's status list states ttl 1 s: the worker fetches it again after that.
  let call: ApiCall | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    await new Promise((r) => setTimeout(r, 1200));
    call = await story.verifier.call('GET', '/api/files/q3-report', presentRead(story, sub));
    if (call.status !== 200) break;
  }
  if (!call) fail('no call made');
  await expectRefusal(view, call, {
    outcomeId: 'outcome-7b',
    expected: 'CREDENTIAL_REVOKED',
    action: 'GET /api/files/q3-report',
    agentDid: sub.did,
    extra: [],
  });
}

export function refusalsStep(story: Story): StepDefinition {
  return {
    title: '7 · Exceeding the scope is refused; a revocation takes effect',
    text: 'First the sub-agent forges a further delegation to itself adding files:write, signed with its own key — only the chain rule can catch it. Then the operator revokes the agent’s credential, and the next call is refused.',
    buttons: [
      { label: 'Try to exceed the scope', run: (view) => exceedScope(story, view) },
      { label: 'Operator revokes the agent, then call again', run: (view) => revokeThenCall(story, view) },
    ],
  };
}
