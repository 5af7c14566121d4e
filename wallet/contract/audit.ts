/** The hash-chained audit log (docs/api.md §Audit): records, queries, providers' signed events. */
import { z } from 'zod';
import { endpoint } from './endpoint.ts';
import { DidSchema, JsonValueObjectSchema, PrintableTextSchema } from './primitives.ts';

/** One record of the issuer's hash-chained audit trail. */
export const AuditRecordSchema = z
  .object({
    seq: z.number(),
    id: z.string(),
    at: z.string(),
    /** UPPER_SNAKE event name, e.g. AGENT_ENROLLED, CREDENTIAL_REVOKED, REQUEST_REFUSED. */
    event: z.string(),
    agentDid: z.string().optional(),
    /** Who acted: `admin`, `anonymous`, `system`, `agent:<did>`, `provider:<did>`. */
    actor: z.string(),
    /** A reason code (refusals) or an operator's reason (revocations). */
    reason: z.string().optional(),
    vpId: z.string().optional(),
    /** Small JSON details; never secrets (no tokens, keys or request bodies). */
    data: JsonValueObjectSchema.optional(),
    prevHash: z.string(),
    hash: z.string(),
  })
  .meta({ id: 'AuditRecord' });

export const AuditPageSchema = z.object({ records: z.array(AuditRecordSchema), nextCursor: z.string().optional() });

const IsoTime = z.iso.datetime({ offset: true }).meta({ example: '2026-11-22T10:00:00Z' });

/** The filters of `GET /v1/audit` and of the console's newest-first view. */
export const AuditFilterSchema = z.object({
  agent: DidSchema.optional().meta({ description: 'Only records about this agent DID' }),
  event: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/)
    .optional()
    .meta({ example: 'VP_REJECTED' }),
  reported: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .meta({
      description:
        "true: only events a third party signed and sent (users' answers to challenges, providers' events), which anyone with a key can file under any agent; false: only what the issuer recorded itself",
    }),
  from: IsoTime.optional().meta({ description: 'Inclusive lower bound (ISO 8601)' }),
  to: IsoTime.optional().meta({ description: 'Inclusive upper bound (ISO 8601)' }),
  cursor: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** `GET /v1/audit`: the filters, a cursor and an order. */
export const AuditListQuerySchema = AuditFilterSchema.extend({
  cursor: AuditFilterSchema.shape.cursor.meta({ description: "The previous page's nextCursor (in the same order)" }),
  order: z.enum(['asc', 'desc']).default('asc').meta({
    description: 'asc: oldest first (default); desc: newest first, so the tail of a long log is one request',
  }),
});

export const PROVIDER_EVENTS = ['authorization', 'action', 'result'] as const;

/** `POST /v1/audit/events`: a provider's event, signed with a Data Integrity proof. */
export const SignedAuditEventSchema = z
  .object({
    type: z.literal('AuditEvent'),
    id: z
      .string()
      .regex(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a urn:uuid')
      .meta({ description: 'Unique per event: a replay is refused (409 EVENT_DUPLICATE)' }),
    provider: DidSchema.meta({ description: "The provider's DID: the proof must be made with one of its keys" }),
    event: z.enum(PROVIDER_EVENTS),
    agentDid: DidSchema.optional(),
    vpId: PrintableTextSchema.optional(),
    action: PrintableTextSchema.optional().meta({ example: 'files:read /reports/q3.pdf' }),
    result: PrintableTextSchema.optional().meta({ example: 'allowed' }),
    proof: JsonValueObjectSchema.meta({
      description:
        'Data Integrity eddsa-jcs-2022 proof, proofPurpose assertionMethod (or authentication), created within 5 minutes',
    }),
  })
  .catchall(z.unknown())
  .meta({ id: 'SignedAuditEvent' });

export const RecordedAuditEventSchema = z
  .object({ recorded: z.literal(true), eventId: z.string(), seq: z.number(), auditId: z.string(), hash: z.string() })
  .meta({ id: 'RecordedAuditEvent' });

export const AuditChainVerdictSchema = z
  .object({ intact: z.boolean(), count: z.number(), headHash: z.string().optional(), brokenAt: z.number().optional() })
  .meta({ id: 'AuditChainVerdict' });

export type AuditRecord = z.infer<typeof AuditRecordSchema>;
export type AuditPage = z.infer<typeof AuditPageSchema>;
export type AuditListQuery = z.infer<typeof AuditListQuerySchema>;
export type ProviderEvent = (typeof PROVIDER_EVENTS)[number];
export type SignedAuditEvent = z.infer<typeof SignedAuditEventSchema>;
export type RecordedAuditEvent = z.infer<typeof RecordedAuditEventSchema>;
/** The verdict as its schema reads it (the console's view of it). */
export type AuditChainVerdictBody = z.infer<typeof AuditChainVerdictSchema>;
/** The verdict as the issuer states it (the schema publishes one object with optional members). */
export type AuditChainVerdict =
  { intact: true; count: number; headHash: string } | { intact: false; brokenAt: number; count: number };

/**
 * The audit log over HTTP (docs/api.md §Audit): reading and chain verification are operator acts
 * (admin); service providers append their own signed events, authenticated by the signature
 * rather than a key of ours.
 */
export const auditEndpoints = {
  listAudit: endpoint({
    method: 'GET',
    path: '/v1/audit',
    tag: 'Audit',
    summary:
      'Audit records oldest first (or newest first with order=desc), filtered by agent, event and time; cursor pagination. Admin.',
    auth: 'admin',
    query: AuditListQuerySchema,
    responses: { 200: { schema: AuditPageSchema, description: 'A page of records' } },
    errors: [],
  }),
  recordAuditEvent: endpoint({
    method: 'POST',
    path: '/v1/audit/events',
    tag: 'Audit',
    summary:
      "Record a service provider's authorization, action or result. Authenticated by the provider's Data Integrity signature (its DID's assertionMethod or authentication key); 403 EVENT_SIGNATURE_INVALID / KEY_NOT_AUTHORIZED, 409 EVENT_DUPLICATE, 422 EVENT_STALE. Signed by a provider.",
    auth: 'public',
    body: { schema: SignedAuditEventSchema },
    responses: { 201: { schema: RecordedAuditEventSchema, description: 'Recorded' } },
    errors: [
      'EVENT_SIGNATURE_INVALID',
      'KEY_NOT_AUTHORIZED',
      'EVENT_DUPLICATE',
      'DID_DEACTIVATED',
      'DID_RESOLUTION_FAILED',
      'EVENT_STALE',
    ],
  }),
  verifyAuditChain: endpoint({
    method: 'GET',
    path: '/v1/audit/verify',
    tag: 'Audit',
    summary: 'Re-check the whole hash chain: {intact, count, headHash} or {intact: false, brokenAt}. Admin.',
    auth: 'admin',
    responses: { 200: { schema: AuditChainVerdictSchema, description: 'The verdict' } },
    errors: [],
  }),
};
