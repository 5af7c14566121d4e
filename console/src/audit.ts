/**
 * The audit trail: newest first, filtered by agent, event, source (the issuer's own records or
 * reports by users and providers) and time range, refreshed every few
 * seconds while the view is open, with the hash-chain verdict ("intact" / "broken at record N")
 * re-checked on every refresh. Refusals are flagged with their reason code.
 */
import { call, enc, type AuditRecord, type ChainVerdict } from './api.ts';
import { badge, field, formatTime, h, replace, shortId, table } from './dom.ts';
import { attempt, heading } from './ui.ts';

export const POLL_MS = 3000;
/** In live mode, how often the chain is re-verified (a full re-hash on the server). */
const CHAIN_EVERY_MS = 60_000;

const REFUSAL_EVENTS = new Set(['REQUEST_REFUSED', 'VP_REJECTED', 'CONSENT_REJECTED', 'OAUTH_TOKEN_REFUSED']);

/** The issuer's refusals, and those a provider reports: its event's `result` ("denied …") is the record's reason. */
function isRefusal(record: AuditRecord): boolean {
  return (
    REFUSAL_EVENTS.has(record.event) || (record.event.startsWith('PROVIDER_') && /^denied\b/i.test(record.reason ?? ''))
  );
}

export function auditTable(records: AuditRecord[]): HTMLElement {
  const rows = records.map((r) => {
    const refused = isRefusal(r);
    return [
      String(r.seq),
      formatTime(r.at),
      refused ? badge(r.event, 'bad') : h('code', {}, r.event),
      r.agentDid ? h('a', { href: `#/agents/${enc(r.agentDid)}` }, shortId(r.agentDid, 16)) : '—',
      r.actor,
      r.reason ? (refused ? h('strong', { class: 'reason' }, r.reason) : h('code', {}, r.reason)) : '—',
    ];
  });
  return table(
    'Audit records, newest first',
    ['#', 'Time', 'Event', 'Agent', 'Actor', 'Reason'],
    rows,
    'No audit record matches.',
  );
}

function chainIndicator(verdict: ChainVerdict): HTMLElement {
  return verdict.intact
    ? h(
        'p',
        { class: 'chain ok', 'data-chain': 'intact' },
        h('span', { 'aria-hidden': 'true' }, '✓ '),
        `Hash chain intact (${verdict.count} records)`,
      )
    : h(
        'p',
        { class: 'chain bad', 'data-chain': 'broken' },
        h('span', { 'aria-hidden': 'true' }, '✗ '),
        `Hash chain broken at record ${verdict.brokenAt} (of ${verdict.count})`,
      );
}

/** `datetime-local` is in local time; the API takes ISO 8601 with an offset. */
function isoOf(local: string): string | undefined {
  if (local === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The filter inputs, filled from the route's parameters. */
function filterInputs(params: URLSearchParams) {
  const agent = h('input', {
    type: 'text',
    name: 'agent',
    autocomplete: 'off',
    value: params.get('agent') ?? '',
    placeholder: 'did:…',
  });
  const event = h('input', {
    type: 'text',
    name: 'event',
    autocomplete: 'off',
    value: params.get('event') ?? '',
    placeholder: 'REQUEST_REFUSED',
  });
  // Reports are signed by users and providers, and anyone with a key can file one under any agent.
  const source = h(
    'select',
    { name: 'reported' },
    h('option', { value: '' }, 'All records'),
    h('option', { value: 'false' }, "The issuer's own"),
    h('option', { value: 'true' }, 'Reports by users and providers'),
  );
  source.value = params.get('reported') ?? '';
  const from = h('input', { type: 'datetime-local', name: 'from', step: 1 });
  const to = h('input', { type: 'datetime-local', name: 'to', step: 1 });
  const live = h('input', { type: 'checkbox', name: 'live', checked: true });
  live.id = 'audit-live';
  return { agent, event, source, from, to, live };
}

/** The source select's value as the `reported` filter: '' (both sources) sends none. */
function reportedOf(value: string): 'true' | 'false' | undefined {
  return value === 'true' || value === 'false' ? value : undefined;
}

/** Renders the view; returns a function that stops the polling (the router calls it on leave). */
export function renderAudit(root: HTMLElement, params: URLSearchParams): () => void {
  const { agent, event, source, from, to, live } = filterInputs(params);
  const chain = h('div', { 'aria-live': 'polite' });
  const errors = h('div');
  const records = h('div');
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  let chainCheckedAt = -Infinity;
  const refresh = async (checkChainNow = false) => {
    clearTimeout(timer);
    const filter = {
      agent: agent.value.trim(),
      event: event.value.trim().toUpperCase(),
      reported: reportedOf(source.value),
      from: isoOf(from.value),
      to: isoOf(to.value),
      limit: 100,
    };
    // Re-hashing the whole chain costs the server work in proportion to the log: not on every
    // live poll, at most once per CHAIN_EVERY_MS (and on each explicit refresh).
    const checkChain = checkChainNow || !live.checked || Date.now() - chainCheckedAt >= CHAIN_EVERY_MS;
    const result = await attempt(errors, () =>
      Promise.all([
        call('latestConsoleAudit', { query: filter }),
        checkChain ? call('verifyAuditChain', {}) : undefined,
      ]),
    );
    if (stopped) return;
    // A refused filter shows no rows: the last ones answered another filter.
    if (!result) replace(records);
    else {
      replace(records, auditTable(result[0].records));
      if (result[1]) {
        replace(chain, chainIndicator(result[1]));
        chainCheckedAt = Date.now();
      }
    }
    if (live.checked) timer = setTimeout(() => void refresh(), POLL_MS);
  };
  live.addEventListener('change', () => (live.checked ? void refresh() : clearTimeout(timer)));

  replace(
    root,
    heading('Audit trail'),
    chain,
    h(
      'form',
      { class: 'filters', onSubmit: (e: Event) => (e.preventDefault(), void refresh(true)) },
      field('Agent DID', agent),
      field('Event', event),
      field('Records', source),
      field('From', from),
      field('To', to),
      h('div', { class: 'field checkbox' }, live, h('label', { for: 'audit-live' }, 'Live updates')),
      h('button', { type: 'submit' }, 'Apply filters'),
    ),
    errors,
    records,
  );
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
