/**
 * Step 8: the issuer's hash-chained audit log (read by the runner with the admin key), with this
 * story's refusals found in it. Read-only, so it may be shown again.
 */
import { element, renderChecks, renderJson, type Check } from '../dom.ts';
import { getJson } from '../http.ts';
import { fail, type StepDefinition, type StepView, type Story } from '../story.ts';

interface AuditRecord {
  seq: number;
  at: string;
  event: string;
  actor: string;
  agentDid?: string;
  reason?: string;
  data?: Record<string, unknown>;
}

/** `GET /operator/audit`: the chain's verdict and the records, oldest first. */
interface AuditAnswer {
  chain: { intact: boolean; count: number; brokenAt?: number };
  records: AuditRecord[];
}

function trailChecks(answer: AuditAnswer, sub: string | undefined): Check[] {
  // This page's sub-agent only: the issuer may hold earlier runs of the story.
  const mine = answer.records.filter((r) => sub !== undefined && r.agentDid === sub);
  const refusals = mine.filter((r) =>
    /denied|refus|revok/i.test(`${r.event} ${r.reason ?? ''} ${JSON.stringify(r.data ?? {})}`),
  );
  return [
    {
      check: 'hash chain intact',
      ok: answer.chain.intact,
      detail: answer.chain.intact
        ? `${answer.chain.count} records`
        : `broken at record ${answer.chain.brokenAt ?? '?'}`,
    },
    {
      check: 'this story’s refusals recorded with their reason codes',
      ok:
        refusals.some((r) => JSON.stringify(r).includes('SCOPE_ESCALATION')) &&
        refusals.some((r) => JSON.stringify(r).includes('CREDENTIAL_REVOKED')),
      ...(sub === undefined ? { detail: 'run steps 1–7 first' } : {}),
    },
    {
      check: 'the sub-agent’s MCP access token and its tool call recorded',
      ok:
        mine.some((r) => r.event === 'OAUTH_TOKEN_ISSUED') &&
        mine.some((r) => JSON.stringify(r.data ?? {}).includes('MCP tools/call read_file')),
      detail: 'OAUTH_TOKEN_ISSUED · MCP tools/call read_file',
    },
  ];
}

/** The action a provider's signed event names (`data.signedEvent.action`), if any. */
function actionOf(r: AuditRecord): string | undefined {
  const signed = r.data?.signedEvent;
  const action = typeof signed === 'object' && signed !== null && 'action' in signed ? signed.action : r.data?.action;
  return typeof action === 'string' ? action : undefined;
}

/** The reason code of a refusal, or "action → result" of a provider's event. */
function resultOf(r: AuditRecord): string {
  const action = actionOf(r);
  const result = r.reason ?? (typeof r.data?.result === 'string' ? r.data.result : '');
  return action === undefined ? result : `${action} → ${result}`;
}

function auditRow(r: AuditRecord): HTMLTableRowElement {
  const result = resultOf(r);
  const row = element('tr', {
    'data-refusal': String(/\bdenied\b|DENIED|REFUSED|REVOKED/.test(`${r.event} ${result}`)),
  });
  for (const cell of [
    String(r.seq),
    r.at.slice(11, 19),
    r.event,
    r.actor.length > 40 ? `${r.actor.slice(0, 40)}…` : r.actor,
    r.agentDid ? `${r.agentDid.slice(0, 24)}…` : '',
    result,
  ])
    row.append(element('td', {}, cell));
  return row;
}

function auditTable(records: readonly AuditRecord[]): HTMLTableElement {
  const table = element('table', { id: 'audit-table' });
  const head = element('tr');
  for (const h of ['#', 'time', 'event', 'actor', 'agent', 'reason / result'])
    head.append(element('th', { scope: 'col' }, h));
  const thead = element('thead');
  const tbody = element('tbody');
  table.append(thead, tbody);
  thead.append(head);
  for (const r of records) tbody.append(auditRow(r));
  return table;
}

async function showTrail(story: Story, view: StepView): Promise<void> {
  const answer = (await getJson(await fetch('/operator/audit', { cache: 'no-store' }))) as AuditAnswer;
  const checks = trailChecks(answer, story.state.sub?.did);
  view.body.append(renderChecks(checks));
  view.body.append(auditTable(answer.records), renderJson('GET /v1/audit (raw)', answer));
  const missing = checks.filter((c) => !c.ok).map((c) => c.check);
  if (missing.length > 0) fail(`not yet: ${missing.join('; ')}`);
}

export function auditTrailStep(story: Story): StepDefinition {
  return {
    title: '8 · The audit trail of the whole story',
    text: 'The issuer’s hash-chained audit log (read by the runner with the admin key): the token, the enrollment, the sub-agent’s OAuth tokens (issued, and the refused step-up), the revocation, and the provider’s signed events — its authorizations, the MCP tool call and both refusals with their reason codes.',
    buttons: [{ label: 'Show the audit trail', repeatable: true, run: (view) => showTrail(story, view) }],
  };
}
