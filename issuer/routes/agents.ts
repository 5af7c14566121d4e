/**
 * Agents (admin): listing, detail, and what the issuer signs for SERVER-custody agents —
 * presentations and delegations. The `did` path parameter is the DID URL-encoded
 * (encodeURIComponent), since a did:web may itself contain "%3A".
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import { delegateFor, getAgentDetail, listAgents, presentFor } from '../services/agents.ts';
import { credentialResponse, CredentialViewSchema } from './credentials.ts';
import {
  ADMIN_SECURITY,
  DidSchema,
  DomainSchema,
  errorResponses,
  jsonBody,
  JsonObjectSchema,
  jsonResponse,
  PageQuerySchema,
  ScopesSchema,
} from './schemas.ts';

export const AgentSchema = z
  .object({
    did: z.string(),
    id: z.string(),
    custody: z.enum(['server', 'self']),
    privilegeScopes: z.array(z.string()),
    delegationDepth: z.number(),
    domains: z.array(z.string()).optional(),
    currentCredentialId: z.string().optional(),
    createdAt: z.string(),
    didDocumentUrl: z.string().optional(),
    deactivated: z.boolean().optional(),
  })
  .openapi('Agent');

const AgentDetailSchema = AgentSchema.extend({
  currentCredential: CredentialViewSchema.optional(),
  credentials: z.array(z.object({ vcId: z.string(), type: z.string(), state: z.string(), issuedAt: z.string() })),
}).openapi('AgentDetail');

const DidParam = z.object({ did: DidSchema.openapi({ description: 'The agent DID, URL-encoded' }) });

const PresentRequest = z
  .strictObject({
    targetService: DomainSchema.openapi({ description: "The verifier's service name: the proof's domain" }),
    challenge: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .openapi({ description: "The verifier's nonce (default: a random one)" }),
    credentialId: z
      .string()
      .max(128)
      .optional()
      .openapi({ description: "Which of the agent's credentials to present (default: its current one)" }),
    lifetimeSeconds: z.number().int().min(10).max(3600).optional(),
  })
  .openapi('PresentRequest');

const DelegateRequest = z
  .strictObject({
    delegateeDid: DidSchema,
    scopes: ScopesSchema,
    lifetimeSeconds: z
      .number()
      .int()
      .min(60)
      .max(10 * 365 * 86_400),
    domains: z.array(DomainSchema).min(1).max(64).optional(),
    delegationDepth: z.number().int().min(0).max(16).optional(),
  })
  .openapi('DelegateRequest');

export function agentRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin = adminAuth({ adminApiKey: ctx.config.adminApiKey });

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/agents',
      tags: ['Agents'],
      summary: 'List enrolled agents. Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { query: PageQuerySchema },
      responses: {
        200: jsonResponse(
          z.object({ agents: z.array(AgentSchema), nextCursor: z.string().optional() }),
          'Agents, oldest first',
        ),
        ...errorResponses(400, 401, 429),
      },
    }),
    (c) => {
      const { cursor, limit } = c.req.valid('query');
      return c.json(listAgents(ctx, { limit, ...(cursor === undefined ? {} : { cursor }) }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/agents/{did}',
      tags: ['Agents'],
      summary: 'One agent, its current credential and its credential history. Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { params: DidParam },
      responses: { 200: jsonResponse(AgentDetailSchema, 'The agent'), ...errorResponses(400, 401, 404, 429) },
    }),
    (c) => c.json(getAgentDetail(ctx, c.req.valid('param').did) as z.infer<typeof AgentDetailSchema>, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/agents/{did}/vp',
      tags: ['Agents'],
      summary: 'A presentation signed by the server for a server-custody agent (refused for self custody). Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { params: DidParam, body: jsonBody(PresentRequest) },
      responses: {
        200: jsonResponse(JsonObjectSchema, 'The VerifiablePresentation'),
        ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 429),
      },
    }),
    async (c) =>
      c.json(
        (await presentFor(ctx, c.req.valid('param').did, c.req.valid('json'), c.get('actor'))) as unknown as Record<
          string,
          unknown
        >,
        200,
      ),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/agents/{did}/delegations',
      tags: ['Agents'],
      summary:
        'A DelegatedAgentCredential signed by the server for a server-custody delegator; narrowing enforced (422 SCOPE_ESCALATION, DEPTH_EXCEEDED, DOMAIN_ESCALATION, CHAIN_BROKEN). Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { params: DidParam, body: jsonBody(DelegateRequest) },
      responses: {
        201: jsonResponse(CredentialViewSchema, 'The delegated credential'),
        ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 422, 429),
      },
    }),
    async (c) =>
      c.json(
        credentialResponse(await delegateFor(ctx, c.req.valid('param').did, c.req.valid('json'), c.get('actor'))),
        201,
      ),
  );
  return app;
}
