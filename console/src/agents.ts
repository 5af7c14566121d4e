/** Agents: a searchable, paged list, and one agent's page (credentials, delegations, DID document, audit). */
import { call, enc, type AgentDetail, type AuditRecord, type Credential } from './api.ts';
import { clientSecretSection } from './agent-secret.ts';
import { auditTable } from './audit.ts';
import { credentialActions } from './credentials.ts';
import { domainsSection } from './domains.ts';
import { facts, formatTime, fullId, h, replace, shortId, stateBadge, table } from './dom.ts';
import { attempt, heading, loading, pretty } from './ui.ts';

const PAGE_SIZE = 20;

export function agentLink(did: string): HTMLElement {
  return h('a', { href: `#/agents/${enc(did)}` }, shortId(did));
}

export function renderAgents(root: HTMLElement): void {
  const search = h('input', {
    type: 'search',
    name: 'q',
    autocomplete: 'off',
    placeholder: 'DID, scope, domain, custody…',
  });
  const results = h('div', { 'aria-live': 'polite' });
  const errors = h('div');
  const cursors: (string | undefined)[] = [undefined];

  const load = async (pageIndex: number) => {
    replace(results, loading());
    const page = await attempt(errors, () =>
      call('searchConsoleAgents', { query: { q: search.value.trim(), cursor: cursors[pageIndex], limit: PAGE_SIZE } }),
    );
    if (!page) return replace(results);
    cursors.length = pageIndex + 1;
    if (page.nextCursor) cursors.push(page.nextCursor);
    const rows = page.agents.map((a) => [
      agentLink(a.did),
      a.custody,
      a.privilegeScopes.join(' '),
      String(a.delegationDepth),
      (a.domains ?? []).join(' ') || '—',
      [stateBadge(a.credentialState), a.deactivated ? [' ', stateBadge('deactivated')] : null],
      formatTime(a.createdAt),
    ]);
    replace(
      results,
      table(
        'Agents',
        ['DID', 'Custody', 'Scopes', 'Delegation depth', 'Domains', 'Credential', 'Created'],
        rows,
        search.value ? 'No agent matches this search.' : 'No agent has enrolled yet.',
      ),
      h(
        'nav',
        { class: 'pager', 'aria-label': 'Agent pages' },
        h(
          'button',
          { type: 'button', class: 'secondary', disabled: pageIndex === 0, onClick: () => void load(pageIndex - 1) },
          'Previous page',
        ),
        h('span', {}, `Page ${pageIndex + 1}`),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            disabled: page.nextCursor === undefined,
            onClick: () => void load(pageIndex + 1),
          },
          'Next page',
        ),
      ),
    );
  };

  const form = h(
    'form',
    { class: 'inline', role: 'search', onSubmit: (e: Event) => (e.preventDefault(), void load(0)) },
    h('label', { for: 'agent-search' }, 'Search agents'),
    search,
    h('button', { type: 'submit' }, 'Search'),
  );
  search.id = 'agent-search';
  replace(root, heading('Agents'), form, errors, results);
  void load(0);
}

/** What an agent's page shows beside its detail, each read on its own (a failure empties its part only). */
async function agentContext(did: string) {
  // What the issuer recorded and what others reported, apart: anyone with a key can file
  // reports (consents, provider events) under any agent, and must not crowd out its history.
  const latest = (reported: boolean, limit: number) =>
    call('latestConsoleAudit', { query: { agent: did, reported: reported ? 'true' : 'false', limit } }).catch(() => ({
      records: [],
    }));
  const [delegations, resolution, audit, reports] = await Promise.all([
    call('listConsoleDelegations', { params: { did } }).catch(() => ({ delegations: [] })),
    call('resolveDid', { params: { did } }).catch((error: unknown) => ({ error })),
    latest(false, 20),
    latest(true, 10),
  ]);
  return { delegations: delegations.delegations, resolution, audit: audit.records, reports: reports.records };
}

function credentialsSection(detail: AgentDetail, errors: HTMLElement, reload: () => Promise<void>): HTMLElement {
  const rows = detail.credentials.map((c) => [
    shortId(c.vcId, 20),
    c.type,
    [
      stateBadge(c.state),
      c.vcId === detail.currentCredentialId ? [' ', h('span', { class: 'badge muted' }, 'current')] : null,
    ],
    formatTime(c.issuedAt),
    credentialActions(c, errors, reload) ?? '—',
  ]);
  return h(
    'section',
    { 'aria-labelledby': 'h-creds' },
    h('h2', { id: 'h-creds' }, 'Credentials'),
    table(
      'Credentials, current and superseded',
      ['Credential', 'Type', 'State', 'Issued', 'Actions'],
      rows,
      'No credential.',
    ),
  );
}

/**
 * A self-custody agent signs its delegations with its own key, in its own wallet: the issuer
 * never sees them (docs/protocol.md §Delegated credential), so it can neither list nor revoke
 * them one by one. Every such chain ends in the agent's credential, whose revocation ends them.
 */
const SELF_CUSTODY_DELEGATIONS =
  'This is a self-custody agent: it signs its delegations itself, with its own key, and they are never sent to this issuer. ' +
  'They are not held here, so none is listed and none can be revoked here one by one. ' +
  'Revoking or suspending this agent’s credential ends every one of them: each delegation chain ends in it.';

function delegationsSection(delegations: Credential[], custody: AgentDetail['custody']): HTMLElement {
  const rows = delegations.map((c) => [
    shortId(c.vcId, 20),
    agentLink(c.subjectDid),
    stateBadge(c.state),
    formatTime(c.issuedAt),
    formatTime(c.validUntil),
  ]);
  return h(
    'section',
    { 'aria-labelledby': 'h-dels' },
    h('h2', { id: 'h-dels' }, 'Delegations signed'),
    custody === 'self' ? h('p', { class: 'notice', id: 'self-custody-delegations' }, SELF_CUSTODY_DELEGATIONS) : null,
    table(
      'Delegations',
      ['Credential', 'Delegatee', 'State', 'Issued', 'Valid until'],
      rows,
      'This agent has signed no delegation held here.',
    ),
  );
}

function auditSections(did: string, audit: AuditRecord[], reports: AuditRecord[]): HTMLElement[] {
  return [
    h(
      'section',
      { 'aria-labelledby': 'h-audit' },
      h('h2', { id: 'h-audit' }, 'Recent audit events'),
      auditTable(audit),
      h('p', {}, h('a', { href: `#/audit?agent=${enc(did)}` }, 'Full audit trail of this agent')),
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-reports' },
      h('h2', { id: 'h-reports' }, 'Reports naming this agent'),
      h(
        'p',
        { class: 'notice' },
        'Consents and provider events, each signed by a user or a provider. Anyone with a key can file one naming any agent.',
      ),
      auditTable(reports),
      h('p', {}, h('a', { href: `#/audit?agent=${enc(did)}&reported=true` }, 'All reports naming this agent')),
    ),
  ];
}

export function renderAgent(root: HTMLElement, did: string): void {
  const errors = h('div');
  const body = h('div', {}, loading());
  replace(root, h('p', {}, h('a', { href: '#/agents' }, '← All agents')), heading('Agent'), errors, body);

  const load = async () => {
    const detail = await attempt(errors, () => call('getAgent', { params: { did } }));
    if (!detail) return replace(body);
    const { delegations, resolution, audit, reports } = await agentContext(did);
    replace(
      body,
      facts([
        ['DID', fullId(detail.did)],
        ['Custody', detail.custody],
        ['Scopes', detail.privilegeScopes.join(' ')],
        ['Delegation depth', String(detail.delegationDepth)],
        ['Domains', (detail.domains ?? []).join(' ') || '—'],
        ['Created', formatTime(detail.createdAt)],
      ]),
      domainsSection(detail.domains),
      credentialsSection(detail, errors, load),
      detail.custody === 'server' ? clientSecretSection(did, errors) : null,
      delegationsSection(delegations, detail.custody),
      h(
        'section',
        { 'aria-labelledby': 'h-doc' },
        h('h2', { id: 'h-doc' }, 'DID document'),
        'didDocument' in resolution && resolution.didDocument !== undefined
          ? pretty(resolution.didDocument)
          : h('p', { class: 'empty' }, 'Not resolvable through this issuer.'),
      ),
      ...auditSections(did, audit, reports),
    );
  };
  void load();
}
