/**
 * Read-only views the operator console needs and the core API does not answer in one call
 * (docs/console.md §API; wallet/contract/console.ts): agents searched and annotated with their
 * credential's state, the delegations an agent signed, status lists with their fill level, and
 * the newest audit records first. Nothing here changes state, and nothing returns a secret.
 */
import type {
  ConsoleAgent,
  ConsoleAgentPage,
  ConsoleDelegations,
  ConsoleLatestAudit,
  ConsoleLatestAuditQuerySchema,
  StatusListFill,
} from '../../wallet/contract/console.ts';
import type { z } from 'zod';
import type { IssuerDeps } from '../deps.ts';
import { invalidCursor, refuse } from '../refusal.ts';
import type { AgentWithState } from '../storage/agents-store.ts';
import { agentView, requireAgent } from './agents.ts';
import { credentialState, credentialView } from './credentials.ts';
import { statusListUrl } from './status-lists.ts';

/** What the console's agent views use of the issuer's dependencies. */
export type ConsoleDeps = Pick<IssuerDeps, 'config' | 'stores' | 'now'>;

/** An agent search reads at most this many agents, so a query cannot scan an unbounded table. */
export const MAX_AGENTS_SCANNED = 10_000;
const SCAN_PAGE = 500;
/** The delegations listed for one agent (the newest). */
const DELEGATIONS_SHOWN = 100;

/** Number of 1 bits (Bitstring Status List §3.1: one bit per entry). */
function popcount(bytes: Uint8Array): number {
  let count = 0;
  for (const byte of bytes) {
    let b = byte;
    while (b !== 0) {
      b &= b - 1;
      count++;
    }
  }
  return count;
}

function matches(agent: ConsoleAgent, needle: string): boolean {
  const haystack = [
    agent.did,
    agent.custody,
    agent.credentialState,
    ...agent.privilegeScopes,
    ...(agent.domains ?? []),
  ];
  return haystack.some((text) => text.toLowerCase().includes(needle));
}

function consoleAgent(deps: Pick<IssuerDeps, 'config' | 'now'>, row: AgentWithState): ConsoleAgent {
  const { didDocumentUrl: _url, signatureAgentCardUrl: _card, ...rest } = agentView(deps, row.agent, row.hosted);
  return { ...rest, credentialState: row.current ? credentialState(row.current, deps.now()) : 'none' };
}

interface AgentSearch {
  found: ConsoleAgent[];
  scanned: number;
}

/**
 * Scans agents in creation order, a page (one joined read) at a time, until one more match than
 * asked (to know a next page exists) or MAX_AGENTS_SCANNED.
 */
async function scanAgents(
  deps: ConsoleDeps,
  needle: string,
  cursor: string | undefined,
  limit: number,
): Promise<AgentSearch> {
  const found: ConsoleAgent[] = [];
  let after = cursor;
  let scanned = 0;
  while (found.length <= limit && scanned < MAX_AGENTS_SCANNED) {
    const rows = await deps.stores.agents.listWithState({
      ...(after === undefined ? {} : { cursor: after }),
      limit: SCAN_PAGE,
    });
    if (rows === undefined) throw invalidCursor();
    for (const row of rows) {
      scanned++;
      const agent = consoleAgent(deps, row);
      if (needle === '' || matches(agent, needle)) found.push(agent);
      if (found.length > limit) break;
    }
    const last = rows[rows.length - 1];
    if (rows.length < SCAN_PAGE || !last) break;
    after = last.agent.did;
  }
  return { found, scanned };
}

/** GET /v1/console/agents: a page of the agents matching `q` (case-insensitive substring). */
export async function searchConsoleAgents(
  deps: ConsoleDeps,
  search: { q?: string | undefined; cursor?: string | undefined; limit: number },
): Promise<ConsoleAgentPage> {
  const { limit } = search;
  const { found, scanned } = await scanAgents(deps, search.q?.trim().toLowerCase() ?? '', search.cursor, limit);
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  return {
    agents: page,
    ...(found.length > limit && last ? { nextCursor: last.did } : {}),
    ...(scanned >= MAX_AGENTS_SCANNED ? { scanLimitReached: true } : {}),
  };
}

/** GET /v1/console/agents/{did}/delegations: credentials the agent signed as a delegator, newest first. */
export async function consoleDelegations(deps: ConsoleDeps, agentDid: string): Promise<ConsoleDelegations> {
  const did = (await requireAgent(deps, agentDid)).did;
  const issued = await deps.stores.credentials.listByIssuer(did, DELEGATIONS_SHOWN);
  return { delegations: issued.map((record) => credentialView(deps, record)) };
}

/** GET /v1/console/status-lists: every list with how much of it is handed out and set. */
export async function statusListFill(
  deps: Pick<IssuerDeps, 'config' | 'stores'>,
): Promise<{ statusLists: StatusListFill[] }> {
  const lists = await deps.stores.statusLists.list();
  return {
    statusLists: lists.map((list) => ({
      listId: list.id,
      purpose: list.purpose,
      url: statusListUrl(deps, list.id),
      length: list.length,
      allocated: list.issued,
      set: popcount(list.bitstring),
      fill: list.length === 0 ? 0 : list.issued / list.length,
    })),
  };
}

/** GET /v1/console/audit/latest: the newest records matching the filter. */
export async function latestAudit(
  deps: Pick<IssuerDeps, 'audit'>,
  q: z.output<typeof ConsoleLatestAuditQuerySchema>,
): Promise<ConsoleLatestAudit> {
  const from = q.from === undefined ? undefined : Date.parse(q.from);
  const to = q.to === undefined ? undefined : Date.parse(q.to);
  if (from !== undefined && to !== undefined && from > to) throw refuse('VALIDATION_FAILED', '"from" is after "to"');
  const page = await deps.audit.list({
    limit: q.limit,
    order: 'desc',
    ...(q.agent === undefined ? {} : { agentDid: q.agent }),
    ...(q.event === undefined ? {} : { event: q.event }),
    ...(q.reported === undefined ? {} : { reported: q.reported }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  });
  return { records: page.records };
}
