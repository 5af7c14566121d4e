/**
 * Read-only views the operator console needs and the core API does not answer in one call
 * (docs/console.md §API): agents searched and annotated with their credential's state, the
 * delegations an agent signed, status lists with their fill level, and the newest audit
 * records first. All admin; nothing here changes state, and nothing returns a secret.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import { invalidCursor, refuse } from '../refusal.ts';
import type { AuditRecord } from '../audit.ts';
import { agentView, requireAgent } from '../services/agents.ts';
import { credentialState, credentialView } from '../services/credentials.ts';
import { statusListUrl } from '../services/status-lists.ts';
import type { AgentWithState } from '../storage/agents-store.ts';
import {
  ConsoleAgentPageSchema,
  ConsoleAgentSearchSchema,
  ConsoleDelegationsSchema,
  ConsoleLatestAuditQuerySchema,
  ConsoleLatestAuditSchema,
  ConsoleStatusListsSchema,
  type ConsoleAgent,
  type StatusListFill,
} from '../../wallet/contract/console.ts';
import { ADMIN_SECURITY, DidSchema, errorResponses, jsonResponse } from './schemas.ts';

/** An agent search reads at most this many agents, so a query cannot scan an unbounded table. */
export const MAX_AGENTS_SCANNED = 10_000;
const SCAN_PAGE = 500;

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

type Admin = ReturnType<typeof adminAuth>;

function consoleAgent(ctx: IssuerContext, row: AgentWithState): ConsoleAgent {
  const { didDocumentUrl: _url, ...rest } = agentView(ctx, row.agent, row.hosted);
  return { ...rest, credentialState: row.current ? credentialState(row.current, ctx.now()) : 'none' };
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
  ctx: IssuerContext,
  needle: string,
  cursor: string | undefined,
  limit: number,
): Promise<AgentSearch> {
  const found: ConsoleAgent[] = [];
  let after = cursor;
  let scanned = 0;
  while (found.length <= limit && scanned < MAX_AGENTS_SCANNED) {
    const rows = await ctx.stores.agents.listWithState({
      ...(after === undefined ? {} : { cursor: after }),
      limit: SCAN_PAGE,
    });
    if (rows === undefined) throw invalidCursor();
    for (const row of rows) {
      scanned++;
      const agent = consoleAgent(ctx, row);
      if (needle === '' || matches(agent, needle)) found.push(agent);
      if (found.length > limit) break;
    }
    const last = rows[rows.length - 1];
    if (rows.length < SCAN_PAGE || !last) break;
    after = last.agent.did;
  }
  return { found, scanned };
}

const agentsRoute = (admin: Admin) =>
  createRoute({
    method: 'get',
    path: '/v1/console/agents',
    tags: ['Console'],
    summary: 'Agents matching a search, oldest first, each with its current credential state. Admin.',
    security: ADMIN_SECURITY,
    middleware: [admin] as const,
    request: { query: ConsoleAgentSearchSchema },
    responses: {
      200: jsonResponse(ConsoleAgentPageSchema, 'A page of agents'),
      ...errorResponses(400, 401, 429),
    },
  });

const delegationsRoute = (admin: Admin) =>
  createRoute({
    method: 'get',
    path: '/v1/console/agents/{did}/delegations',
    tags: ['Console'],
    summary: 'Credentials this agent signed as a delegator (held here), newest first. Admin.',
    security: ADMIN_SECURITY,
    middleware: [admin] as const,
    request: { params: z.object({ did: DidSchema }) },
    responses: {
      200: jsonResponse(ConsoleDelegationsSchema, 'Delegations'),
      ...errorResponses(400, 401, 404, 429),
    },
  });

const statusListsRoute = (admin: Admin) =>
  createRoute({
    method: 'get',
    path: '/v1/console/status-lists',
    tags: ['Console'],
    summary: "This issuer's status lists with their fill level. Admin.",
    security: ADMIN_SECURITY,
    middleware: [admin] as const,
    responses: {
      200: jsonResponse(ConsoleStatusListsSchema, 'Status lists'),
      ...errorResponses(401, 429),
    },
  });

const latestAuditRoute = (admin: Admin) =>
  createRoute({
    method: 'get',
    path: '/v1/console/audit/latest',
    tags: ['Console'],
    summary: 'The newest audit records matching the filter, newest first. Admin.',
    security: ADMIN_SECURITY,
    middleware: [admin] as const,
    request: { query: ConsoleLatestAuditQuerySchema },
    responses: {
      200: jsonResponse(ConsoleLatestAuditSchema, 'Records, newest first'),
      ...errorResponses(400, 401, 429),
    },
  });

async function statusListFill(ctx: IssuerContext): Promise<StatusListFill[]> {
  return (await ctx.stores.statusLists.list()).map((list) => ({
    listId: list.id,
    purpose: list.purpose,
    url: statusListUrl(ctx, list.id),
    length: list.length,
    allocated: list.issued,
    set: popcount(list.bitstring),
    fill: list.length === 0 ? 0 : list.issued / list.length,
  }));
}

async function latestAudit(
  ctx: IssuerContext,
  q: z.infer<typeof ConsoleLatestAuditQuerySchema>,
): Promise<AuditRecord[]> {
  const from = q.from === undefined ? undefined : Date.parse(q.from);
  const to = q.to === undefined ? undefined : Date.parse(q.to);
  if (from !== undefined && to !== undefined && from > to) throw refuse('VALIDATION_FAILED', '"from" is after "to"');
  const page = await ctx.audit.list({
    limit: q.limit,
    order: 'desc',
    ...(q.agent === undefined ? {} : { agentDid: q.agent }),
    ...(q.event === undefined ? {} : { event: q.event }),
    ...(q.reported === undefined ? {} : { reported: q.reported }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  });
  return page.records;
}

export function consoleSupportRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin = adminAuth({ adminApiKey: ctx.config.adminApiKey });

  app.openapi(agentsRoute(admin), async (c) => {
    const { q, cursor, limit } = c.req.valid('query');
    const { found, scanned } = await scanAgents(ctx, q?.trim().toLowerCase() ?? '', cursor, limit);
    const page = found.slice(0, limit);
    const last = page[page.length - 1];
    return c.json(
      {
        agents: page,
        ...(found.length > limit && last ? { nextCursor: last.did } : {}),
        ...(scanned >= MAX_AGENTS_SCANNED ? { scanLimitReached: true } : {}),
      },
      200,
    );
  });

  app.openapi(delegationsRoute(admin), async (c) => {
    const did = (await requireAgent(ctx, c.req.valid('param').did)).did;
    const issued = await ctx.stores.credentials.listByIssuer(did, 100);
    const delegations = issued.map((record) => credentialView(ctx, record));
    return c.json({ delegations }, 200);
  });

  app.openapi(statusListsRoute(admin), async (c) => c.json({ statusLists: await statusListFill(ctx) }, 200));

  app.openapi(latestAuditRoute(admin), async (c) =>
    c.json({ records: await latestAudit(ctx, c.req.valid('query')) }, 200),
  );
  return app;
}
