/** Step 4: the agent signs a narrower DelegatedAgentCredential for a sub-agent (a third key). */
import { credentialDigest, validUntilOf } from '../../../wallet/vc/delegation.ts';
import { within } from '../../../wallet/vc/scopes.ts';
import type { AgentCredential, DelegatedAgentCredential } from '../../../wallet/vc/types.ts';
import { renderChecks, renderJson, type Check } from '../dom.ts';
import { fail, type StepDefinition, type StepView, type Story } from '../story.ts';

/**
 * Each line is judged here again, from the two credentials as stored: `delegate` refused to sign
 * a wider child, and this shows what that means.
 */
function narrowerChecks(credential: DelegatedAgentCredential, parent: AgentCredential): Check[] {
  const s = credential.credentialSubject;
  const p = parent.credentialSubject;
  const parentDomains = p.domains;
  const domainsWithin =
    parentDomains === undefined || (s.domains !== undefined && s.domains.every((d) => parentDomains.includes(d)));
  return [
    {
      check: 'scopes within the parent’s',
      ok: within(s.privilegeScopes, p.privilegeScopes),
      detail: `${s.privilegeScopes.join(' ')} ⊂ ${p.privilegeScopes.join(' ')}`,
    },
    {
      check: 'depth below the parent’s',
      ok: s.delegationDepth < p.delegationDepth,
      detail: `${s.delegationDepth} < ${p.delegationDepth}`,
    },
    { check: 'domains within the parent’s', ok: domainsWithin, detail: (s.domains ?? []).join(' ') },
    {
      check: 'valid no longer than the parent',
      ok: validUntilOf(credential) <= validUntilOf(parent),
      detail: `until ${credential.validUntil ?? ''}`,
    },
    {
      check: 'names its parent by id and digest',
      ok:
        credential.parentCredential.id === parent.id &&
        credential.parentCredential.digestMultibase === credentialDigest(parent),
      detail: credential.parentCredential.digestMultibase.slice(0, 24) + '…',
    },
  ];
}

async function delegate(story: Story, view: StepView): Promise<void> {
  const { state } = story;
  const agent = state.agent ?? fail('onboard the agent first (step 2)');
  const grant = state.grant ?? fail('get the user’s consent first (step 3)');
  const sub = await story.openWallet('sub-agent');
  const { credential, chain } = await agent.delegate({
    to: sub.did,
    scopes: ['files:read'],
    delegationDepth: 1,
    domains: [story.config.target, story.config.mcpResource],
    lifetimeSeconds: 3600,
  });
  await sub.addCredentials([...chain, grant]);
  state.sub = sub;
  state.subChain = [...chain, grant];
  state.subCredential = credential;
  const parent = chain[1] as AgentCredential;
  view.body.append(
    renderChecks(narrowerChecks(credential, parent)),
    renderJson('DelegatedAgentCredential (agent → sub-agent)', credential, true),
  );
}

export function delegateStep(story: Story): StepDefinition {
  return {
    title: '4 · The agent delegates a narrower scope to a sub-agent',
    text: 'A third key, the sub-agent’s. The agent signs a DelegatedAgentCredential: files:read only, depth 1 (of its 2), the provider’s service and its MCP server only, one hour.',
    buttons: [{ label: 'Delegate to a sub-agent', run: (view) => delegate(story, view) }],
  };
}
