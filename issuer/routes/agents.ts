/**
 * Agents (admin): listing, detail, client secrets, and what the issuer signs for SERVER-custody
 * agents — presentations and delegations, which the agent may also ask for itself with its own
 * client secret. The `did` path parameter is the DID URL-encoded (encodeURIComponent), since a
 * did:web may itself contain "%3A".
 */
import { createRoute } from '@hono/zod-openapi';
import {
  AgentClientSecretRevokedSchema,
  AgentClientSecretSchema,
  AgentDetailSchema,
  AgentDidParamSchema,
  AgentPageSchema,
  DelegateRequestSchema,
  PresentRequestSchema,
} from '../../wallet/contract/agents.ts';
import { CredentialViewSchema } from '../../wallet/contract/credentials.ts';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { agentAuth } from '../http/agent-auth.ts';
import { createRouter } from '../http/errors.ts';
import { issueAgentSecret, isAgentSecret, revokeAgentSecret } from '../services/agent-secrets.ts';
import { delegateFor, getAgentDetail, listAgents, presentFor } from '../services/agents.ts';
import {
  ADMIN_SECURITY,
  errorResponses,
  jsonBody,
  JsonObjectSchema,
  jsonResponse,
  PageQuerySchema,
} from './schemas.ts';

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

type Auth = [ReturnType<typeof adminAuth>];

const issueSecretRoute = (middleware: Auth) =>
  createRoute({
    ...adminRoute,
    method: 'post',
    path: '/v1/agents/{did}/client-secret',
    summary:
      'Issue a server-custody agent its own client secret, or rotate it (the old one stops working at once); shown once. Admin.',
    middleware,
    request: { params: AgentDidParamSchema },
    responses: {
      201: jsonResponse(AgentClientSecretSchema, 'The secret, shown this once'),
      ...errorResponses(400, 401, 403, 404, 410, 429),
    },
  });

const revokeSecretRoute = (middleware: Auth) =>
  createRoute({
    ...adminRoute,
    method: 'delete',
    path: '/v1/agents/{did}/client-secret',
    summary: "Revoke the agent's client secret: the next request presenting it is refused. Admin.",
    middleware,
    request: { params: AgentDidParamSchema },
    responses: {
      200: jsonResponse(AgentClientSecretRevokedSchema, 'Revoked'),
      ...errorResponses(400, 401, 404, 429),
    },
  });

const presentRoute = (middleware: Auth) =>
  createRoute({
    ...adminRoute,
    method: 'post',
    path: '/v1/agents/{did}/vp',
    summary:
      "A presentation signed by the server for a server-custody agent (refused for self custody). Admin, or the agent's own client secret.",
    middleware,
    request: { params: AgentDidParamSchema, body: jsonBody(PresentRequestSchema) },
    responses: {
      200: jsonResponse(JsonObjectSchema, 'The VerifiablePresentation'),
      ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 429),
    },
  });

const delegateRoute = (middleware: Auth) =>
  createRoute({
    ...adminRoute,
    method: 'post',
    path: '/v1/agents/{did}/delegations',
    summary:
      "A DelegatedAgentCredential signed by the server for a server-custody delegator; narrowing enforced (422 SCOPE_ESCALATION, DEPTH_EXCEEDED, DOMAIN_ESCALATION, CHAIN_BROKEN). Admin, or the delegator's own client secret.",
    middleware,
    request: { params: AgentDidParamSchema, body: jsonBody(DelegateRequestSchema) },
    responses: {
      201: jsonResponse(CredentialViewSchema, 'The delegated credential'),
      ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 422, 429),
    },
  });

export function agentRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin: Auth = [adminAuth({ adminApiKey: ctx.config.adminApiKey })];

  app.openapi(listRoute(admin), async (c) => {
    const { cursor, limit } = c.req.valid('query');
    return c.json(await listAgents(ctx, { limit, ...(cursor === undefined ? {} : { cursor }) }), 200);
  });
  app.openapi(detailRoute(admin), async (c) => c.json(await getAgentDetail(ctx, c.req.valid('param').did), 200));
  const self: Auth = [
    agentAuth({
      adminApiKey: ctx.config.adminApiKey,
      isAgentSecret: (did, secret) => isAgentSecret(ctx, did, secret),
    }),
  ];
  app.openapi(issueSecretRoute(admin), async (c) =>
    c.json(await issueAgentSecret(ctx, c.req.valid('param').did, c.get('actor')), 201),
  );
  app.openapi(revokeSecretRoute(admin), async (c) => {
    const { did } = c.req.valid('param');
    await revokeAgentSecret(ctx, did, c.get('actor'));
    return c.json({ clientId: did, revoked: true as const }, 200);
  });
  app.openapi(presentRoute(self), async (c) =>
    c.json(await presentFor(ctx, c.req.valid('param').did, c.req.valid('json'), c.get('actor')), 200),
  );
  app.openapi(delegateRoute(self), async (c) =>
    c.json(await delegateFor(ctx, c.req.valid('param').did, c.req.valid('json'), c.get('actor')), 201),
  );
  return app;
}
