/**
 * Credentials: direct issuance and lifecycle (admin), and reading one credential (public: its
 * id is an unguessable urn:uuid, and a credential is shown to every verifier anyway — a
 * self-custody agent fetches its credential here after onboarding).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  CredentialViewSchema,
  IssueCredentialSchema,
  ReasonRequestSchema,
  RenewedCredentialSchema,
  RenewRequestSchema,
  StatusChangeSchema,
  VcIdParamSchema,
} from '../../wallet/contract/credentials.ts';
import type { IssuerContext } from '../boot.ts';
import { adminAuth } from '../http/admin-auth.ts';
import type { IssuerEnv } from '../http/env.ts';
import { createRouter } from '../http/errors.ts';
import {
  credentialView,
  getCredential,
  issueDirect,
  renewCredential,
  revokeCredential,
  setSuspension,
  type StatusActionView,
} from '../services/credentials.ts';
import { ADMIN_SECURITY, errorResponses, jsonBody, jsonResponse, optionalJsonBody } from './schemas.ts';

type Admin = [ReturnType<typeof adminAuth>];

const issueRoute = (middleware: Admin) =>
  createRoute({
    method: 'post',
    path: '/v1/vcs',
    tags: ['Credentials'],
    summary: 'Issue an AgentCredential directly. Admin.',
    security: ADMIN_SECURITY,
    middleware,
    request: { body: jsonBody(IssueCredentialSchema) },
    responses: { 201: jsonResponse(CredentialViewSchema, 'Issued'), ...errorResponses(400, 401, 413, 415, 429) },
  });

const getRoute = createRoute({
  method: 'get',
  path: '/v1/vcs/{vcId}',
  tags: ['Credentials'],
  summary: 'A credential and its state. Public.',
  request: { params: VcIdParamSchema },
  responses: { 200: jsonResponse(CredentialViewSchema, 'The credential'), ...errorResponses(404, 429) },
});

const lifecycleRoute = (middleware: Admin, path: string, summary: string) =>
  createRoute({
    method: 'post',
    path: `/v1/vcs/{vcId}/${path}`,
    tags: ['Credentials'],
    summary: `${summary} Admin.`,
    security: ADMIN_SECURITY,
    middleware,
    request: { params: VcIdParamSchema, body: optionalJsonBody(ReasonRequestSchema) },
    responses: {
      200: jsonResponse(StatusChangeSchema, 'The credential after the change, and every credential the change reached'),
      ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429),
    },
  });

const renewRoute = (middleware: Admin) =>
  createRoute({
    method: 'post',
    path: '/v1/vcs/{vcId}/renew',
    tags: ['Credentials'],
    summary:
      "Renew: a new credential with the same subject and limits and a new validity; the old one is superseded (not revoked) and the agent's current credential becomes the new one. Admin.",
    security: ADMIN_SECURITY,
    middleware,
    request: { params: VcIdParamSchema, body: optionalJsonBody(RenewRequestSchema) },
    responses: {
      201: jsonResponse(RenewedCredentialSchema, 'The new credential'),
      ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429),
    },
  });

/** revoke, suspend and reinstate: one route shape, one service call each. */
function lifecycleRoutes(app: OpenAPIHono<IssuerEnv>, ctx: IssuerContext, admin: Admin): void {
  const lifecycle = (
    path: string,
    summary: string,
    run: (vcId: string, reason: string | undefined, actor: string) => Promise<StatusActionView>,
  ) =>
    app.openapi(lifecycleRoute(admin, path, summary), async (c) =>
      c.json(await run(c.req.valid('param').vcId, c.req.valid('json').reason, c.get('actor')), 200),
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
}

export function credentialRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin: Admin = [adminAuth({ adminApiKey: ctx.config.adminApiKey })];

  app.openapi(issueRoute(admin), async (c) => c.json(await issueDirect(ctx, c.req.valid('json'), c.get('actor')), 201));
  app.openapi(getRoute, async (c) =>
    c.json(credentialView(ctx, await getCredential(ctx, c.req.valid('param').vcId)), 200),
  );
  lifecycleRoutes(app, ctx, admin);
  app.openapi(renewRoute(admin), async (c) => {
    const { vcId } = c.req.valid('param');
    const renewed = await renewCredential(ctx, vcId, c.req.valid('json').validitySeconds, c.get('actor'));
    return c.json(renewed, 201);
  });
  return app;
}
