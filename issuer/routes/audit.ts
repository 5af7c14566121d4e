/**
 * The audit log over HTTP: reading and chain verification are operator acts (admin); service
 * providers append their own signed events (services/audit-events.ts), authenticated by the
 * signature rather than a key of ours.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { apiError, createRouter } from '../http/errors.ts';
import { createProviderEventRecorder, PROVIDER_EVENTS, type SignedAuditEvent } from '../services/audit-events.ts';
import {
  ADMIN_SECURITY,
  DidSchema,
  errorResponses,
  jsonBody,
  JsonObjectSchema,
  jsonResponse,
  PrintableTextSchema,
} from './schemas.ts';

const AuditRecordSchema = z
  .object({
    seq: z.number(),
    id: z.string(),
    at: z.string(),
    event: z.string(),
    agentDid: z.string().optional(),
    actor: z.string(),
    reason: z.string().optional(),
    vpId: z.string().optional(),
    data: JsonObjectSchema.optional(),
    prevHash: z.string(),
    hash: z.string(),
  })
  .openapi('AuditRecord');

const IsoTime = z.iso.datetime({ offset: true }).openapi({ example: '2026-11-22T10:00:00Z' });

export const AuditQuery = z.object({
  agent: DidSchema.optional().openapi({ description: 'Only records about this agent DID' }),
  event: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/)
    .optional()
    .openapi({ example: 'VP_REJECTED' }),
  reported: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .openapi({
      description:
        "true: only events a third party signed and sent (users' answers to challenges, providers' events), which anyone with a key can file under any agent; false: only what the issuer recorded itself",
    }),
  from: IsoTime.optional().openapi({ description: 'Inclusive lower bound (ISO 8601)' }),
  to: IsoTime.optional().openapi({ description: 'Inclusive upper bound (ISO 8601)' }),
  cursor: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/**
 * `GET /v1/audit` only: the console's newest-first view shares AuditQuery without a cursor, so
 * `order` is added here rather than there.
 */
const ListAuditQuery = AuditQuery.extend({
  cursor: AuditQuery.shape.cursor.openapi({ description: "The previous page's nextCursor (in the same order)" }),
  order: z
    .enum(['asc', 'desc'])
    .default('asc')
    .openapi({
      description: 'asc: oldest first (default); desc: newest first, so the tail of a long log is one request',
    }),
});

const SignedEventSchema = z
  .object({
    type: z.literal('AuditEvent'),
    id: z
      .string()
      .regex(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a urn:uuid')
      .openapi({ description: 'Unique per event: a replay is refused (409 EVENT_DUPLICATE)' }),
    provider: DidSchema.openapi({ description: "The provider's DID: the proof must be made with one of its keys" }),
    event: z.enum(PROVIDER_EVENTS),
    agentDid: DidSchema.optional(),
    vpId: PrintableTextSchema.optional(),
    action: PrintableTextSchema.optional().openapi({ example: 'files:read /reports/q3.pdf' }),
    result: PrintableTextSchema.optional().openapi({ example: 'allowed' }),
    proof: JsonObjectSchema.openapi({
      description:
        'Data Integrity eddsa-jcs-2022 proof, proofPurpose assertionMethod (or authentication), created within 5 minutes',
    }),
  })
  .catchall(z.unknown())
  .openapi('SignedAuditEvent');

const ChainVerdictSchema = z
  .object({ intact: z.boolean(), count: z.number(), headHash: z.string().optional(), brokenAt: z.number().optional() })
  .openapi('AuditChainVerdict');

function epoch(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Date.parse(value);
}

export function auditRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin = adminAuth({ adminApiKey: ctx.config.adminApiKey });
  const providerEvents = createProviderEventRecorder(ctx);

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/audit',
      tags: ['Audit'],
      summary:
        'Audit records oldest first (or newest first with order=desc), filtered by agent, event and time; cursor pagination. Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { query: ListAuditQuery },
      responses: {
        200: jsonResponse(
          z.object({ records: z.array(AuditRecordSchema), nextCursor: z.string().optional() }),
          'A page of records',
        ),
        ...errorResponses(400, 401, 429),
      },
    }),
    (c) => {
      const q = c.req.valid('query');
      const from = epoch(q.from);
      const to = epoch(q.to);
      if (from !== undefined && to !== undefined && from > to)
        throw apiError('VALIDATION_FAILED', '"from" is after "to"');
      const page = ctx.audit.list({
        limit: q.limit,
        order: q.order,
        ...(q.agent === undefined ? {} : { agentDid: q.agent }),
        ...(q.event === undefined ? {} : { event: q.event }),
        ...(q.reported === undefined ? {} : { reported: q.reported }),
        ...(from === undefined ? {} : { from }),
        ...(to === undefined ? {} : { to }),
        ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
      });
      return c.json(page as { records: z.infer<typeof AuditRecordSchema>[]; nextCursor?: string }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/audit/events',
      tags: ['Audit'],
      summary:
        "Record a service provider's authorization, action or result. Authenticated by the provider's Data Integrity signature (its DID's assertionMethod or authentication key); 403 EVENT_SIGNATURE_INVALID / KEY_NOT_AUTHORIZED, 409 EVENT_DUPLICATE, 422 EVENT_STALE. Signed by a provider.",
      request: { body: jsonBody(SignedEventSchema) },
      responses: {
        201: jsonResponse(
          z
            .object({
              recorded: z.literal(true),
              eventId: z.string(),
              seq: z.number(),
              auditId: z.string(),
              hash: z.string(),
            })
            .openapi('RecordedAuditEvent'),
          'Recorded',
        ),
        ...errorResponses(400, 403, 409, 410, 413, 415, 422, 429),
      },
    }),
    async (c) => c.json(await providerEvents.record(c.req.valid('json') as SignedAuditEvent), 201),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/audit/verify',
      tags: ['Audit'],
      summary: 'Re-check the whole hash chain: {intact, count, headHash} or {intact: false, brokenAt}. Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      responses: { 200: jsonResponse(ChainVerdictSchema, 'The verdict'), ...errorResponses(401, 429) },
    }),
    async (c) => c.json(await ctx.audit.verifyChain(), 200),
  );
  return app;
}
