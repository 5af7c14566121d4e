/** Credentials: revoke (confirmed), suspend, reinstate and renew, a lookup by id, and the status lists' fill levels. */
import { call, enc, type Credential, type StatusListFill } from './api.ts';
import { facts, formatTime, fullId, h, replace, shortId, stateBadge, table } from './dom.ts';
import { announce, attempt, confirmAction, heading, loading, pretty, sourceButton } from './ui.ts';

/** The ids an action reached besides the one named, for the status line. */
function alsoReached(vcId: string, changed: readonly string[] | undefined): string {
  const others = (changed ?? []).filter((id) => id !== vcId);
  return others.length === 0 ? '' : ` Also ${others.length} more: ${others.join(', ')}.`;
}

/**
 * The actions a credential's state allows — active: Revoke, Suspend, Renew; suspended: Reinstate,
 * Revoke; null for any other state. Each button is disabled while its request runs; `done`
 * reloads the view after an action.
 */
export function credentialActions(
  credential: Pick<Credential, 'vcId' | 'state'>,
  errors: Element,
  done: () => void | Promise<void>,
): HTMLElement | null {
  const { vcId, state } = credential;
  if (state !== 'active' && state !== 'suspended') return null;
  const statusChange = async (
    button: HTMLButtonElement | null,
    action: 'revokeCredential' | 'suspendCredential' | 'reinstateCredential',
    past: string,
  ) => {
    const result = await attempt(
      errors,
      () => call(action, { params: { vcId }, body: { reason: `${past} by an operator in the console` } }),
      button,
    );
    if (!result) return;
    announce(`Credential ${vcId} ${past}.${alsoReached(vcId, result.changed)}`);
    await done();
  };
  const revoke = async (event: Event) => {
    const button = sourceButton(event);
    const sure = await confirmAction(
      'Revoke this credential?',
      `${vcId} will be revoked for good: every verifier refuses it from its next status-list check. Its renewals and older copies go with it, and if it is an agent's current credential, so does every other live credential of that agent. This cannot be undone.`,
      'Revoke credential',
    );
    if (sure) await statusChange(button, 'revokeCredential', 'revoked');
  };
  const renew = async (event: Event) => {
    const result = await attempt(
      errors,
      () => call('renewCredential', { params: { vcId }, body: {} }),
      sourceButton(event),
    );
    if (result) {
      announce(`Credential renewed: ${result.vcId} replaces ${vcId}.`);
      await done();
    }
  };
  const actionButton = (label: string, kind: string, run: (event: Event) => Promise<void>) =>
    h(
      'button',
      { type: 'button', class: kind, onClick: (event: Event) => void run(event), 'aria-label': `${label} ${vcId}` },
      label,
    );
  return h(
    'div',
    { class: 'actions' },
    actionButton('Revoke', 'danger', revoke),
    state === 'active'
      ? actionButton('Suspend', 'secondary', (event) =>
          statusChange(sourceButton(event), 'suspendCredential', 'suspended'),
        )
      : actionButton('Reinstate', 'secondary', (event) =>
          statusChange(sourceButton(event), 'reinstateCredential', 'reinstated'),
        ),
    state === 'active' ? actionButton('Renew', 'secondary', renew) : null,
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
  const vcInput = h('input', {
    type: 'text',
    name: 'vcId',
    required: true,
    autocomplete: 'off',
    placeholder: 'urn:uuid:…',
  });
  vcInput.id = 'vc-id';

  const lookUp = async () => {
    const id = vcInput.value.trim();
    if (id === '') return;
    const credential = await attempt(errors, () => call('getCredential', { params: { vcId: id } }));
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
      credentialActions(credential, errors, async () => void (await Promise.all([lookUp(), loadLists()]))),
      h('details', {}, h('summary', {}, 'Signed credential'), pretty(credential.verifiableCredential)),
    );
  };

  const loadLists = async () => {
    const result = await attempt(errors, () => call('listConsoleStatusLists', {}));
    if (!result) return replace(lists);
    replace(
      lists,
      table(
        'Status lists',
        ['List', 'Purpose', 'Fill level', 'Published at'],
        result.statusLists.map((l) => [
          h('code', {}, l.listId),
          l.purpose,
          fillMeter(l),
          h('a', { href: l.url, rel: 'noreferrer' }, shortId(l.url, 24)),
        ]),
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
