/**
 * The audit log over HTTP: reading and chain verification are operator acts (admin); service
 * providers append their own signed events (services/audit-events.ts), authenticated by the
 * signature rather than a key of ours.
 */
import { createRoute } from '@hono/zod-openapi';
import {
  AuditChainVerdictSchema,
  AuditListQuerySchema,
  AuditPageSchema,
  RecordedAuditEventSchema,
  SignedAuditEventSchema,
  type AuditListQuery,
} from '../../wallet/contract/audit.ts';
import type { AuditQuery as AuditLogQuery } from '../audit.ts';
import type { IssuerContext } from '../boot.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import { refuse } from '../refusal.ts';
import { createProviderEventRecorder } from '../services/audit-events.ts';
import { ADMIN_SECURITY, errorResponses, jsonBody, jsonResponse } from './schemas.ts';

type Admin = [ReturnType<typeof adminAuth>];

const listRoute = (middleware: Admin) =>
  createRoute({
    method: 'get',
    path: '/v1/audit',
    tags: ['Audit'],
    summary:
      'Audit records oldest first (or newest first with order=desc), filtered by agent, event and time; cursor pagination. Admin.',
    security: ADMIN_SECURITY,
    middleware,
    request: { query: AuditListQuerySchema },
    responses: { 200: jsonResponse(AuditPageSchema, 'A page of records'), ...errorResponses(400, 401, 429) },
  });

const recordRoute = createRoute({
  method: 'post',
  path: '/v1/audit/events',
  tags: ['Audit'],
  summary:
    "Record a service provider's authorization, action or result. Authenticated by the provider's Data Integrity signature (its DID's assertionMethod or authentication key); 403 EVENT_SIGNATURE_INVALID / KEY_NOT_AUTHORIZED, 409 EVENT_DUPLICATE, 422 EVENT_STALE. Signed by a provider.",
  request: { body: jsonBody(SignedAuditEventSchema) },
  responses: {
    201: jsonResponse(RecordedAuditEventSchema, 'Recorded'),
    ...errorResponses(400, 403, 409, 410, 413, 415, 422, 429),
  },
});

const verifyRoute = (middleware: Admin) =>
  createRoute({
    method: 'get',
    path: '/v1/audit/verify',
    tags: ['Audit'],
    summary: 'Re-check the whole hash chain: {intact, count, headHash} or {intact: false, brokenAt}. Admin.',
    security: ADMIN_SECURITY,
    middleware,
    responses: { 200: jsonResponse(AuditChainVerdictSchema, 'The verdict'), ...errorResponses(401, 429) },
  });

function epoch(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Date.parse(value);
}

/** `GET /v1/audit`'s query as the audit log reads it; 400 when the window is inverted. */
function logQuery(q: AuditListQuery): AuditLogQuery {
  const from = epoch(q.from);
  const to = epoch(q.to);
  if (from !== undefined && to !== undefined && from > to) throw refuse('VALIDATION_FAILED', '"from" is after "to"');
  return {
    limit: q.limit,
    order: q.order,
    ...(q.agent === undefined ? {} : { agentDid: q.agent }),
    ...(q.event === undefined ? {} : { event: q.event }),
    ...(q.reported === undefined ? {} : { reported: q.reported }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
  };
}

export function auditRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin: Admin = [adminAuth({ adminApiKey: ctx.config.adminApiKey })];
  const providerEvents = createProviderEventRecorder(ctx);

  app.openapi(listRoute(admin), async (c) => c.json(await ctx.audit.list(logQuery(c.req.valid('query'))), 200));
  app.openapi(recordRoute, async (c) => c.json(await providerEvents.record(c.req.valid('json')), 201));
  app.openapi(verifyRoute(admin), async (c) => c.json(await ctx.audit.verifyChain(), 200));
  return app;
}
