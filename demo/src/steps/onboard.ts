/** Step 2: the agent's self-custody wallet (key in IndexedDB) onboards with DID-Auth and gets its AgentCredential. */
import { IssuerClient } from '../../../wallet/client/issuer-client.ts';
import type { KeyInfo } from '../../../wallet/keystore/types.ts';
import type { AgentCredential } from '../../../wallet/vc/types.ts';
import type { Wallet } from '../../../wallet/wallet.ts';
import { renderChecks, renderJson, type Check } from '../dom.ts';
import { fail, type StepDefinition, type StepView, type Story } from '../story.ts';

function issuerName(issuer: AgentCredential['issuer']): string {
  return typeof issuer === 'string' ? issuer : issuer.id;
}

function onboardingChecks(
  story: Story,
  agent: Wallet,
  keyInfo: KeyInfo | undefined,
  credential: AgentCredential,
): Check[] {
  const subject = credential.credentialSubject;
  return [
    {
      check: 'key generated and kept in IndexedDB',
      ok: keyInfo !== undefined,
      detail: `${agent.did.slice(0, 32)}… (${keyInfo === undefined ? 'missing' : keyInfo.extractable ? 'extractable' : 'non-extractable'})`,
    },
    {
      check: 'DID-Auth: the wallet signed the issuer’s challenge',
      ok: true,
      detail: 'POST /v1/onboard → /v1/onboard/verify',
    },
    {
      check: 'credential issued by the issuer',
      ok: credential.issuer === story.config.issuerDid,
      detail: issuerName(credential.issuer),
    },
    { check: 'credential subject is this wallet', ok: subject.id === agent.did },
    {
      check: 'scopes, depth and domains as the token set them',
      ok: subject.delegationDepth === 2,
      detail: `${subject.privilegeScopes.join(' ')} · depth ${subject.delegationDepth} · ${(subject.domains ?? []).join(' ')}`,
    },
  ];
}

async function onboard(story: Story, view: StepView): Promise<void> {
  const { state, config } = story;
  const token = state.token ?? fail('mint a token first (step 1)');
  const agent = await story.openWallet('agent');
  const keyInfo = await story.keyStore.get('agent');
  const client = new IssuerClient({ baseUrl: config.issuerRelay, allowInsecureHttp: true });
  const result = await client.onboard(token, { custody: 'self', wallet: agent });
  const credential = result.verifiableCredential;
  state.agent = agent;
  state.agentCredential = credential;
  view.body.append(
    renderChecks(onboardingChecks(story, agent, keyInfo, credential)),
    renderJson('AgentCredential (stored in the agent’s wallet)', credential),
  );
}

export function onboardStep(story: Story): StepDefinition {
  return {
    title: '2 · A browser agent creates its self-custody wallet and onboards',
    text: 'The agent’s Ed25519 key is generated in IndexedDB (non-extractable). The wallet proves it holds the key (DID-Auth over the issuer’s challenge) and receives an AgentCredential.',
    buttons: [{ label: 'Create wallet & onboard', run: (view) => onboard(story, view) }],
  };
}
