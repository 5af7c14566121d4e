/** Credentials: revoke (confirmed) and renew, a lookup by id, and the status lists' fill levels. */
import { api, enc, type Credential, type StatusListFill } from './api.ts';
import { facts, formatTime, fullId, h, replace, shortId, stateBadge, table } from './dom.ts';
import { announce, attempt, confirmAction, heading, loading, pretty } from './ui.ts';

/** Revoke and Renew buttons for an active credential; `done` reloads the view after either. */
export function credentialActions(vcId: string, errors: Element, done: () => void | Promise<void>): HTMLElement {
  const revoke = async () => {
    const sure = await confirmAction('Revoke this credential?', `${vcId} will be revoked for good: every verifier refuses it from its next status-list check. This cannot be undone.`, 'Revoke credential');
    if (!sure) return;
    const result = await attempt(errors, () => api<Credential>(`/v1/vcs/${enc(vcId)}/revoke`, { body: { reason: 'revoked by an operator in the console' } }));
    if (result) {
      announce(`Credential ${vcId} revoked.`);
      await done();
    }
  };
  const renew = async () => {
    const result = await attempt(errors, () => api<Credential>(`/v1/vcs/${enc(vcId)}/renew`, { body: {} }));
    if (result) {
      announce(`Credential renewed: ${result.vcId} replaces ${vcId}.`);
      await done();
    }
  };
  return h(
    'div',
    { class: 'actions' },
    h('button', { type: 'button', class: 'danger', onClick: () => void revoke(), 'aria-label': `Revoke ${vcId}` }, 'Revoke'),
    h('button', { type: 'button', class: 'secondary', onClick: () => void renew(), 'aria-label': `Renew ${vcId}` }, 'Renew'),
  );
}

function fillMeter(list: StatusListFill): HTMLElement {
  const percent = (list.fill * 100).toFixed(list.fill < 0.01 ? 3 : 1);
  return h(
    'div',
    { class: 'meter' },
    h('progress', { max: list.length, value: list.allocated, 'aria-label': `${list.listId} fill` }),
    h('span', {}, `${list.allocated} of ${list.length} entries used (${percent} %), ${list.set} set`),
  );
}

export function renderCredentials(root: HTMLElement): void {
  const errors = h('div');
  const lists = h('div', {}, loading());
  const found = h('div', { 'aria-live': 'polite' });
  const vcInput = h('input', { type: 'text', name: 'vcId', required: true, autocomplete: 'off', placeholder: 'urn:uuid:…' });
  vcInput.id = 'vc-id';

  const lookUp = async () => {
    const id = vcInput.value.trim();
    if (id === '') return;
    const credential = await attempt(errors, () => api<Credential>(`/v1/vcs/${enc(id)}`));
    if (!credential) return replace(found);
    replace(
      found,
      facts([
        ['Credential', fullId(credential.vcId)],
        ['Type', credential.type],
        ['Subject', h('a', { href: `#/agents/${enc(credential.subjectDid)}` }, shortId(credential.subjectDid))],
        ['State', stateBadge(credential.state)],
        ['Valid', `${formatTime(credential.validFrom)} → ${formatTime(credential.validUntil)}`],
        ['Superseded by', credential.supersededBy ? fullId(credential.supersededBy) : null],
      ]),
      credential.state === 'active' ? credentialActions(credential.vcId, errors, lookUp) : null,
      h('details', {}, h('summary', {}, 'Signed credential'), pretty(credential.verifiableCredential)),
    );
  };

  const loadLists = async () => {
    const result = await attempt(errors, () => api<{ statusLists: StatusListFill[] }>('/v1/console/status-lists'));
    if (!result) return replace(lists);
    replace(
      lists,
      table(
        'Status lists',
        ['List', 'Purpose', 'Fill level', 'Published at'],
        result.statusLists.map((l) => [h('code', {}, l.listId), l.purpose, fillMeter(l), h('a', { href: l.url, rel: 'noreferrer' }, shortId(l.url, 24))]),
        'No status list yet.',
      ),
    );
  };

  replace(
    root,
    heading('Credentials'),
    errors,
    h(
      'section',
      { 'aria-labelledby': 'h-lookup' },
      h('h2', { id: 'h-lookup' }, 'Find a credential'),
      h(
        'form',
        { class: 'inline', onSubmit: (e: Event) => (e.preventDefault(), void lookUp()) },
        h('label', { for: 'vc-id' }, 'Credential id'),
        vcInput,
        h('button', { type: 'submit' }, 'Look up'),
      ),
      found,
    ),
    h('section', { 'aria-labelledby': 'h-lists' }, h('h2', { id: 'h-lists' }, 'Status lists'), lists),
  );
  void loadLists();
}
