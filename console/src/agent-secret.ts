/**
 * A server-custody agent's own client secret (docs/console.md §Agents): issue or rotate it
 * (shown here once, never again) and revoke it, so the agent's process can act as itself
 * without the admin key.
 */
import { call, type AgentClientSecret } from './api.ts';
import { fullId, h, replace } from './dom.ts';
import { announce, attempt, confirmAction, sourceButton } from './ui.ts';

function shownOnce(secret: AgentClientSecret): HTMLElement {
  return h(
    'div',
    { class: 'notice', role: 'status' },
    h('p', {}, 'Copy it now: it is shown this once. The issuer keeps only its hash.'),
    fullId(secret.clientSecret),
  );
}

export function clientSecretSection(did: string, errors: HTMLElement): HTMLElement {
  const output = h('div');
  const issue = async (event: Event) => {
    const result = await attempt(
      errors,
      () => call('issueAgentClientSecret', { params: { did } }),
      sourceButton(event),
    );
    if (!result) return;
    replace(output, shownOnce(result));
    announce(`A client secret for ${did} was issued; any previous one stopped working.`);
  };
  const revoke = async (event: Event) => {
    const button = sourceButton(event);
    const sure = await confirmAction(
      'Revoke the client secret?',
      `The agent ${did} will be refused from its next request that presents it.`,
      'Revoke secret',
    );
    if (!sure) return;
    const result = await attempt(errors, () => call('revokeAgentClientSecret', { params: { did } }), button);
    if (!result) return;
    replace(output);
    announce(`The client secret of ${did} was revoked.`);
  };
  return h(
    'section',
    { 'aria-labelledby': 'h-secret' },
    h('h2', { id: 'h-secret' }, 'Client secret'),
    h(
      'p',
      {},
      'With its own secret the agent asks for its presentations and delegations itself, for this agent only; issuing a new one rotates it.',
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', class: 'secondary', onClick: (e: Event) => void issue(e) },
        'Issue or rotate secret',
      ),
      h('button', { type: 'button', class: 'danger', onClick: (e: Event) => void revoke(e) }, 'Revoke secret'),
    ),
    output,
  );
}
