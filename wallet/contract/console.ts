/** The operator console's own reads (`GET /v1/console/*`, issuer/services/console.ts). */
import { z } from 'zod';
import { AgentSchema } from './agents.ts';
import { AuditFilterSchema, AuditRecordSchema } from './audit.ts';
import { CREDENTIAL_STATES, CredentialViewSchema } from './credentials.ts';
import { endpoint } from './endpoint.ts';
import { DidSchema } from './primitives.ts';

/** An agent with its current credential's state (`none` without one). */
export const ConsoleAgentSchema = AgentSchema.omit({ didDocumentUrl: true, signatureAgentCardUrl: true })
  .extend({ credentialState: z.enum([...CREDENTIAL_STATES, 'none']) })
  .meta({ id: 'ConsoleAgent' });

export const StatusListFillSchema = z
  .object({
    listId: z.string(),
    purpose: z.string(),
    url: z.string(),
    length: z.number().meta({ description: 'Entries in the list' }),
    allocated: z.number().meta({ description: 'Entries handed out to credentials' }),
    set: z.number().meta({ description: 'Entries whose status bit is 1 (revoked / suspended)' }),
    fill: z.number().meta({ description: 'allocated / length, 0–1' }),
  })
  .meta({ id: 'StatusListFill' });

/** `GET /v1/console/agents`: a search over agents, oldest first. */
export const ConsoleAgentSearchSchema = z.object({
  q: z
    .string()
    .max(256)
    .optional()
    .meta({ description: 'Case-insensitive substring of the DID, custody, a scope or a domain' }),
  cursor: DidSchema.optional().meta({ description: 'The last DID of the previous page' }),
  limit: z.coerce.number().int().min(1).max(200).default(20),
});

export const ConsoleAgentPageSchema = z.object({
  agents: z.array(ConsoleAgentSchema),
  nextCursor: z.string().optional(),
  /** Present when the search stopped at its scan bound before filling the page. */
  scanLimitReached: z.boolean().optional(),
});

/** `GET /v1/console/agents/{did}/delegations`. */
export const ConsoleDelegationsSchema = z.object({ delegations: z.array(CredentialViewSchema) });

/** `GET /v1/console/status-lists`. */
export const ConsoleStatusListsSchema = z.object({ statusLists: z.array(StatusListFillSchema) });

/** `GET /v1/console/audit/latest`: the audit filters without a cursor (always the newest). */
export const ConsoleLatestAuditQuerySchema = AuditFilterSchema.omit({ cursor: true });
export const ConsoleLatestAuditSchema = z.object({ records: z.array(AuditRecordSchema) });

/** Read-only and admin: nothing here changes state, and nothing returns a secret. */
export const consoleEndpoints = {
  searchConsoleAgents: endpoint({
    method: 'GET',
    path: '/v1/console/agents',
    tag: 'Console',
    summary: 'Agents matching a search, oldest first, each with its current credential state. Admin.',
    auth: 'admin',
    query: ConsoleAgentSearchSchema,
    responses: { 200: { schema: ConsoleAgentPageSchema, description: 'A page of agents' } },
    errors: [],
  }),
  listConsoleDelegations: endpoint({
    method: 'GET',
    path: '/v1/console/agents/{did}/delegations',
    tag: 'Console',
    summary: 'Credentials this agent signed as a delegator (held here), newest first. Admin.',
    auth: 'admin',
    params: z.object({ did: DidSchema }),
    responses: { 200: { schema: ConsoleDelegationsSchema, description: 'Delegations' } },
    errors: ['AGENT_NOT_FOUND'],
  }),
  listConsoleStatusLists: endpoint({
    method: 'GET',
    path: '/v1/console/status-lists',
    tag: 'Console',
    summary: "This issuer's status lists with their fill level. Admin.",
    auth: 'admin',
    responses: { 200: { schema: ConsoleStatusListsSchema, description: 'Status lists' } },
    errors: [],
  }),
  latestConsoleAudit: endpoint({
    method: 'GET',
    path: '/v1/console/audit/latest',
    tag: 'Console',
    summary: 'The newest audit records matching the filter, newest first. Admin.',
    auth: 'admin',
    query: ConsoleLatestAuditQuerySchema,
    responses: { 200: { schema: ConsoleLatestAuditSchema, description: 'Records, newest first' } },
    errors: [],
  }),
};

export type ConsoleAgent = z.infer<typeof ConsoleAgentSchema>;
export type StatusListFill = z.infer<typeof StatusListFillSchema>;
export type ConsoleAgentSearch = z.input<typeof ConsoleAgentSearchSchema>;
export type ConsoleAgentPage = z.infer<typeof ConsoleAgentPageSchema>;
export type ConsoleDelegations = z.infer<typeof ConsoleDelegationsSchema>;
export type ConsoleStatusLists = z.infer<typeof ConsoleStatusListsSchema>;
export type ConsoleLatestAudit = z.infer<typeof ConsoleLatestAuditSchema>;
