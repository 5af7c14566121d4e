/**
 * Credentials: direct issuance and lifecycle (admin), and reading one credential (public: its
 * id is an unguessable urn:uuid, and a credential is shown to every verifier anyway — a
 * self-custody agent fetches its credential here after onboarding).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import {
  type CredentialView,
  credentialView,
  getCredential,
  issueDirect,
  renewCredential,
  revokeCredential,
  setSuspension,
  type StatusActionView,
} from '../services/credentials.ts';
import {
  ADMIN_SECURITY,
  DidSchema,
  DomainSchema,
  errorResponses,
  jsonBody,
  JsonObjectSchema,
  jsonResponse,
  optionalJsonBody,
  ScopesSchema,
} from './schemas.ts';

/** A credential view as the OpenAPI schema types it (its `verifiableCredential` as a plain JSON object). */
export function credentialResponse<V extends CredentialView>(
  v: V,
): z.infer<typeof CredentialViewSchema> & Omit<V, keyof CredentialView> {
  return v as unknown as z.infer<typeof CredentialViewSchema> & Omit<V, keyof CredentialView>;
}

export const CredentialViewSchema = z
  .object({
    vcId: z.string(),
    type: z.enum(['AgentCredential', 'DelegatedAgentCredential']),
    subjectDid: z.string(),
    issuerDid: z.string(),
    state: z.enum(['active', 'revoked', 'suspended', 'superseded', 'expired']),
    issuedAt: z.string(),
    validFrom: z.string(),
    validUntil: z.string().optional(),
    revokedAt: z.string().optional(),
    suspendedAt: z.string().optional(),
    supersededBy: z.string().optional(),
    parentId: z.string().optional(),
    statusLists: z.array(z.object({ purpose: z.string(), listId: z.string(), index: z.number(), url: z.string() })),
    verifiableCredential: JsonObjectSchema,
  })
  .openapi('Credential');

const StatusActionSchema = CredentialViewSchema.extend({
  changed: z.array(z.string()).openapi({
    description:
      'Every credential this action revoked, suspended or reinstated, the one acted on first: besides the one named, its renewals and predecessors, and for the revocation of an agent current credential, every other live credential of the agent',
  }),
}).openapi('CredentialStatusChange');

const IssueRequest = z
  .strictObject({
    subjectDid: DidSchema,
    privilegeScopes: ScopesSchema,
    delegationDepth: z.number().int().min(0).max(16),
    domains: z.array(DomainSchema).min(1).max(64).optional(),
    validitySeconds: z
      .number()
      .int()
      .min(60)
      .max(10 * 365 * 86_400)
      .optional(),
  })
  .openapi('IssueCredential');

const ReasonRequest = z.strictObject({ reason: z.string().max(256).optional() });
const RenewRequest = z.strictObject({
  validitySeconds: z
    .number()
    .int()
    .min(60)
    .max(10 * 365 * 86_400)
    .optional(),
});
const VcIdParam = z.object({
  vcId: z.string().min(1).max(128).openapi({ example: 'urn:uuid:0b7d3c7e-5c43-4a53-9d6c-3f1f0f3b1a01' }),
});

export function credentialRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin = adminAuth({ adminApiKey: ctx.config.adminApiKey });

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/vcs',
      tags: ['Credentials'],
      summary: 'Issue an AgentCredential directly. Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { body: jsonBody(IssueRequest) },
      responses: { 201: jsonResponse(CredentialViewSchema, 'Issued'), ...errorResponses(400, 401, 413, 415, 429) },
    }),
    async (c) => c.json(credentialResponse(await issueDirect(ctx, c.req.valid('json'), c.get('actor'))), 201),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/vcs/{vcId}',
      tags: ['Credentials'],
      summary: 'A credential and its state. Public.',
      request: { params: VcIdParam },
      responses: { 200: jsonResponse(CredentialViewSchema, 'The credential'), ...errorResponses(404, 429) },
    }),
    (c) => c.json(credentialResponse(credentialView(ctx, getCredential(ctx, c.req.valid('param').vcId))), 200),
  );

  const lifecycle = (
    path: string,
    summary: string,
    run: (vcId: string, reason: string | undefined, actor: string) => StatusActionView,
  ) =>
    app.openapi(
      createRoute({
        method: 'post',
        path: `/v1/vcs/{vcId}/${path}`,
        tags: ['Credentials'],
        summary: `${summary} Admin.`,
        security: ADMIN_SECURITY,
        middleware: [admin] as const,
        request: { params: VcIdParam, body: optionalJsonBody(ReasonRequest) },
        responses: {
          200: jsonResponse(
            StatusActionSchema,
            'The credential after the change, and every credential the change reached',
          ),
          ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429),
        },
      }),
      (c) =>
        c.json(credentialResponse(run(c.req.valid('param').vcId, c.req.valid('json').reason, c.get('actor'))), 200),
    );
  lifecycle(
    'revoke',
    'Revoke (final): sets its bit on the revocation list, visible in the next fetch of the list.',
    (id, reason, actor) => revokeCredential(ctx, id, reason, actor),
  );
  lifecycle('suspend', 'Suspend: sets its bit on the suspension list.', (id, reason, actor) =>
    setSuspension(ctx, id, true, reason, actor),
  );
  lifecycle('reinstate', 'Lift a suspension.', (id, reason, actor) => setSuspension(ctx, id, false, reason, actor));

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/vcs/{vcId}/renew',
      tags: ['Credentials'],
      summary:
        "Renew: a new credential with the same subject and limits and a new validity; the old one is superseded (not revoked) and the agent's current credential becomes the new one. Admin.",
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { params: VcIdParam, body: optionalJsonBody(RenewRequest) },
      responses: {
        201: jsonResponse(CredentialViewSchema.extend({ previousVcId: z.string() }), 'The new credential'),
        ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429),
      },
    }),
    async (c) => {
      const renewed = await renewCredential(
        ctx,
        c.req.valid('param').vcId,
        c.req.valid('json').validitySeconds,
        c.get('actor'),
      );
      return c.json(credentialResponse(renewed), 201);
    },
  );
  return app;
}
