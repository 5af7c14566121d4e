/**
 * DID management (services/dids.ts). Changes are operator acts (admin key); resolution of a
 * hosted DID (or any did:key) and managed did:web documents are public. The `did` path
 * parameter is the DID URL-encoded (encodeURIComponent): a did:web may itself contain "%3A".
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import {
  addService,
  createDid,
  deactivateDid,
  listDids,
  managedWebDocument,
  removeService,
  resolveHostedDid,
  type DidView,
} from '../services/dids.ts';
import {
  ADMIN_SECURITY,
  DidSchema,
  errorResponses,
  jsonBody,
  JsonObjectSchema,
  jsonResponse,
  optionalJsonBody,
  PageQuerySchema,
} from './schemas.ts';

const UrlSchema = z
  .string()
  .max(2048)
  .regex(/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/, 'must be an absolute URL')
  .openapi({ example: 'https://files.example.com/api' });

// DID Core §5.4: serviceEndpoint is a URL, a map, or a set of them.
const ServiceEndpointSchema = z.union([
  UrlSchema,
  JsonObjectSchema,
  z
    .array(z.union([UrlSchema, JsonObjectSchema]))
    .min(1)
    .max(16),
]);

export const ServiceInputSchema = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .max(2200)
      .optional()
      .openapi({ description: 'A fragment ("files" or "#files"); default a random one', example: 'files' }),
    type: z.string().min(1).max(128).openapi({ example: 'LinkedDomains' }),
    serviceEndpoint: ServiceEndpointSchema,
  })
  .openapi('ServiceInput');

const CreateDidRequest = z
  .strictObject({
    method: z
      .enum(['web', 'key'])
      .optional()
      .openapi({ description: 'Default: DID_METHOD. "web" needs DID_METHOD=web' }),
    name: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: 'did:web path segment: did:web:<domain>:dids:<name> (default random)' }),
    publicKeyMultibase: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .openapi({ description: 'Host a document for this caller-held Ed25519 key ("z6Mk…") instead of generating one' }),
    did: DidSchema.optional().openapi({ description: 'Register an existing did:key instead of creating a DID' }),
    services: z.array(ServiceInputSchema).max(32).optional(),
  })
  .openapi('CreateDidRequest');

export const DidViewSchema = z
  .object({
    did: z.string(),
    kind: z.enum(['issuer', 'agent', 'managed', 'registered']),
    serverHeldKey: z.boolean(),
    deactivated: z.boolean(),
    didDocument: JsonObjectSchema,
    created: z.string(),
    updated: z.string(),
  })
  .openapi('HostedDid');

const ResolutionSchema = z
  .object({
    '@context': z.string(),
    didDocument: JsonObjectSchema.nullable(),
    didDocumentMetadata: JsonObjectSchema,
    didResolutionMetadata: JsonObjectSchema,
  })
  .openapi('DidResolutionResult');

const DidParam = z.object({ did: DidSchema.openapi({ description: 'The DID, URL-encoded' }) });
const DeactivateRequest = z
  .strictObject({ reason: z.string().min(1).max(512).optional() })
  .openapi('DeactivateRequest');

const asJson = (view: DidView) => view as unknown as z.infer<typeof DidViewSchema>;

export function didRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin = adminAuth({ adminApiKey: ctx.config.adminApiKey });

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/dids',
      tags: ['DIDs'],
      summary:
        'Create a hosted DID with a new server-held key (did:web, or did:key with DID_METHOD=key), host one for a caller-held key, or register an existing did:key. Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { body: jsonBody(CreateDidRequest) },
      responses: {
        201: jsonResponse(DidViewSchema, 'The DID and its document'),
        ...errorResponses(400, 401, 409, 413, 415, 422, 429),
      },
    }),
    async (c) => c.json(asJson(await createDid(ctx, c.req.valid('json'), c.get('actor'))), 201),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/dids',
      tags: ['DIDs'],
      summary: 'List the DIDs this issuer hosts (issuer, agents, managed, registered), oldest first. Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: {
        query: PageQuerySchema.extend({ kind: z.enum(['issuer', 'agent', 'managed', 'registered']).optional() }),
      },
      responses: {
        200: jsonResponse(z.object({ dids: z.array(DidViewSchema), nextCursor: z.string().optional() }), 'Hosted DIDs'),
        ...errorResponses(400, 401, 429),
      },
    }),
    (c) => {
      const { cursor, limit, kind } = c.req.valid('query');
      const page = listDids(ctx, {
        limit,
        ...(cursor === undefined ? {} : { cursor }),
        ...(kind === undefined ? {} : { kind }),
      });
      return c.json(
        { dids: page.dids.map(asJson), ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/dids/{did}',
      tags: ['DIDs'],
      summary:
        'DID resolution result (DID Core §7.1) of a DID hosted here or of any did:key; a deactivated DID resolves with didDocumentMetadata.deactivated = true. Public.',
      request: { params: DidParam },
      responses: { 200: jsonResponse(ResolutionSchema, 'Resolution result'), ...errorResponses(400, 404, 429) },
    }),
    (c) => c.json(resolveHostedDid(ctx, c.req.valid('param').did) as z.infer<typeof ResolutionSchema>, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/dids/{did}/services',
      tags: ['DIDs'],
      summary:
        'Add a service (DID Core §5.4) to a hosted did:web document; refused for did:key (422 DID_KEY_SERVICES_UNSUPPORTED). Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { params: DidParam, body: jsonBody(ServiceInputSchema) },
      responses: {
        201: jsonResponse(DidViewSchema, 'The updated DID'),
        ...errorResponses(400, 401, 404, 409, 410, 413, 415, 422, 429),
      },
    }),
    (c) => c.json(asJson(addService(ctx, c.req.valid('param').did, c.req.valid('json'), c.get('actor'))), 201),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/dids/{did}/services/{endpointId}',
      tags: ['DIDs'],
      summary: 'Remove a service by its id (the fragment, URL-encoded). Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { params: DidParam.extend({ endpointId: z.string().min(1).max(2200) }) },
      responses: {
        200: jsonResponse(DidViewSchema, 'The updated DID'),
        ...errorResponses(400, 401, 404, 409, 410, 422, 429),
      },
    }),
    (c) => {
      const { did, endpointId } = c.req.valid('param');
      return c.json(asJson(removeService(ctx, did, endpointId, c.get('actor'))), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/dids/{did}/deactivate',
      tags: ['DIDs'],
      summary:
        'Deactivate a hosted DID (DID Core §7.1.3): resolution says so and every verification here refuses it (DID_DEACTIVATED). Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { params: DidParam, body: optionalJsonBody(DeactivateRequest) },
      responses: {
        200: jsonResponse(DidViewSchema, 'The deactivated DID'),
        ...errorResponses(400, 401, 404, 409, 410, 415, 429),
      },
    }),
    (c) =>
      c.json(asJson(deactivateDid(ctx, c.req.valid('param').did, c.get('actor'), c.req.valid('json').reason)), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/dids/{id}/did.json',
      tags: ['DIDs'],
      summary:
        'The document of a managed did:web (path form did:web:<domain>:dids:<id>); 410 once deactivated. Public.',
      request: { params: z.object({ id: z.string().regex(/^[A-Za-z0-9._~-]{1,64}$/) }) },
      responses: {
        200: { description: 'DID document', content: { 'application/did+json': { schema: JsonObjectSchema } } },
        ...errorResponses(404, 410, 429),
      },
    }),
    (c) => {
      const document = managedWebDocument(ctx, c.req.valid('param').id);
      return c.json(document as unknown as Record<string, never>, 200, {
        'content-type': 'application/did+json',
        'cache-control': 'no-cache',
      });
    },
  );
  return app;
}
