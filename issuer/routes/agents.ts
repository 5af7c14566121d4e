/**
 * Agents (admin): listing, detail, and what the issuer signs for SERVER-custody agents —
 * presentations and delegations. The `did` path parameter is the DID URL-encoded
 * (encodeURIComponent), since a did:web may itself contain "%3A".
 */
import { createRoute } from '@hono/zod-openapi';
import {
  AgentDetailSchema,
  AgentDidParamSchema,
  AgentPageSchema,
  DelegateRequestSchema,
  PresentRequestSchema,
} from '../../wallet/contract/agents.ts';
import { CredentialViewSchema } from '../../wallet/contract/credentials.ts';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import { delegateFor, getAgentDetail, listAgents, presentFor } from '../services/agents.ts';
import {
  ADMIN_SECURITY,
  errorResponses,
  jsonBody,
  JsonObjectSchema,
  jsonResponse,
  PageQuerySchema,
} from './schemas.ts';

// The console's support routes build on the Agent schema.

const adminRoute = { tags: ['Agents'], security: ADMIN_SECURITY };

const listRoute = (middleware: [ReturnType<typeof adminAuth>]) =>
  createRoute({
    ...adminRoute,
    method: 'get',
    path: '/v1/agents',
    summary: 'List enrolled agents. Admin.',
    middleware,
    request: { query: PageQuerySchema },
    responses: { 200: jsonResponse(AgentPageSchema, 'Agents, oldest first'), ...errorResponses(400, 401, 429) },
  });

const detailRoute = (middleware: [ReturnType<typeof adminAuth>]) =>
  createRoute({
    ...adminRoute,
    method: 'get',
    path: '/v1/agents/{did}',
    summary: 'One agent, its current credential and its credential history. Admin.',
    middleware,
    request: { params: AgentDidParamSchema },
    responses: { 200: jsonResponse(AgentDetailSchema, 'The agent'), ...errorResponses(400, 401, 404, 429) },
  });

const presentRoute = (middleware: [ReturnType<typeof adminAuth>]) =>
  createRoute({
    ...adminRoute,
    method: 'post',
    path: '/v1/agents/{did}/vp',
    summary: 'A presentation signed by the server for a server-custody agent (refused for self custody). Admin.',
    middleware,
    request: { params: AgentDidParamSchema, body: jsonBody(PresentRequestSchema) },
    responses: {
      200: jsonResponse(JsonObjectSchema, 'The VerifiablePresentation'),
      ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 429),
    },
  });

const delegateRoute = (middleware: [ReturnType<typeof adminAuth>]) =>
  createRoute({
    ...adminRoute,
    method: 'post',
    path: '/v1/agents/{did}/delegations',
    summary:
      'A DelegatedAgentCredential signed by the server for a server-custody delegator; narrowing enforced (422 SCOPE_ESCALATION, DEPTH_EXCEEDED, DOMAIN_ESCALATION, CHAIN_BROKEN). Admin.',
    middleware,
    request: { params: AgentDidParamSchema, body: jsonBody(DelegateRequestSchema) },
    responses: {
      201: jsonResponse(CredentialViewSchema, 'The delegated credential'),
      ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 422, 429),
    },
  });

export function agentRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin: [ReturnType<typeof adminAuth>] = [adminAuth({ adminApiKey: ctx.config.adminApiKey })];

  app.openapi(listRoute(admin), (c) => {
    const { cursor, limit } = c.req.valid('query');
    return c.json(listAgents(ctx, { limit, ...(cursor === undefined ? {} : { cursor }) }), 200);
  });
  app.openapi(detailRoute(admin), (c) => c.json(getAgentDetail(ctx, c.req.valid('param').did), 200));
  app.openapi(presentRoute(admin), async (c) =>
    c.json(await presentFor(ctx, c.req.valid('param').did, c.req.valid('json'), c.get('actor')), 200),
  );
  app.openapi(delegateRoute(admin), async (c) =>
    c.json(await delegateFor(ctx, c.req.valid('param').did, c.req.valid('json'), c.get('actor')), 201),
  );
  return app;
}
