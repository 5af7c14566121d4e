/**
 * DID management (services/dids.ts). Changes are operator acts (admin key); resolution of a
 * hosted DID (or any did:key) and managed did:web documents are public. The `did` path
 * parameter is the DID URL-encoded (encodeURIComponent): a did:web may itself contain "%3A".
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  CreateDidRequestSchema,
  DeactivateRequestSchema,
  DidListQuerySchema,
  DidPageSchema,
  DidParamSchema,
  DidResolutionSchema,
  HostedDidSchema,
  ManagedDidParamSchema,
  ServiceInputSchema,
  ServiceParamSchema,
} from '../../wallet/contract/dids.ts';
import type { IssuerContext } from '../boot.ts';
import { adminAuth } from '../http/admin-auth.ts';
import type { IssuerEnv } from '../http/env.ts';
import { createRouter } from '../http/errors.ts';
import {
  addService,
  createDid,
  deactivateDid,
  listDids,
  managedWebDocument,
  removeService,
  resolveHostedDid,
} from '../services/dids.ts';
import {
  ADMIN_SECURITY,
  errorResponses,
  jsonBody,
  JsonObjectSchema,
  jsonResponse,
  optionalJsonBody,
} from './schemas.ts';

type Admin = [ReturnType<typeof adminAuth>];
type Router = OpenAPIHono<IssuerEnv>;

const adminRoute = (middleware: Admin) => ({ tags: ['DIDs'], security: ADMIN_SECURITY, middleware });

const createDidRoute = (middleware: Admin) =>
  createRoute({
    ...adminRoute(middleware),
    method: 'post',
    path: '/v1/dids',
    summary:
      'Create a hosted DID with a new server-held key (did:web, or did:key with DID_METHOD=key), host one for a caller-held key, or register an existing did:key. Admin.',
    request: { body: jsonBody(CreateDidRequestSchema) },
    responses: {
      201: jsonResponse(HostedDidSchema, 'The DID and its document'),
      ...errorResponses(400, 401, 409, 413, 415, 422, 429),
    },
  });

const listDidsRoute = (middleware: Admin) =>
  createRoute({
    ...adminRoute(middleware),
    method: 'get',
    path: '/v1/dids',
    summary: 'List the DIDs this issuer hosts (issuer, agents, managed, registered), oldest first. Admin.',
    request: { query: DidListQuerySchema },
    responses: { 200: jsonResponse(DidPageSchema, 'Hosted DIDs'), ...errorResponses(400, 401, 429) },
  });

const resolveRoute = createRoute({
  method: 'get',
  path: '/v1/dids/{did}',
  tags: ['DIDs'],
  summary:
    'DID resolution result (DID Core §7.1) of a DID hosted here or of any did:key; a deactivated DID resolves with didDocumentMetadata.deactivated = true. Public.',
  request: { params: DidParamSchema },
  responses: { 200: jsonResponse(DidResolutionSchema, 'Resolution result'), ...errorResponses(400, 404, 429) },
});

const addServiceRoute = (middleware: Admin) =>
  createRoute({
    ...adminRoute(middleware),
    method: 'post',
    path: '/v1/dids/{did}/services',
    summary:
      'Add a service (DID Core §5.4) to a hosted did:web document; refused for did:key (422 DID_KEY_SERVICES_UNSUPPORTED). Admin.',
    request: { params: DidParamSchema, body: jsonBody(ServiceInputSchema) },
    responses: {
      201: jsonResponse(HostedDidSchema, 'The updated DID'),
      ...errorResponses(400, 401, 404, 409, 410, 413, 415, 422, 429),
    },
  });

const removeServiceRoute = (middleware: Admin) =>
  createRoute({
    ...adminRoute(middleware),
    method: 'delete',
    path: '/v1/dids/{did}/services/{endpointId}',
    summary: 'Remove a service by its id (the fragment, URL-encoded). Admin.',
    request: { params: ServiceParamSchema },
    responses: {
      200: jsonResponse(HostedDidSchema, 'The updated DID'),
      ...errorResponses(400, 401, 404, 409, 410, 422, 429),
    },
  });

const deactivateRoute = (middleware: Admin) =>
  createRoute({
    ...adminRoute(middleware),
    method: 'post',
    path: '/v1/dids/{did}/deactivate',
    summary:
      'Deactivate a hosted DID (DID Core §7.1.3): resolution says so and every verification here refuses it (DID_DEACTIVATED). Admin.',
    request: { params: DidParamSchema, body: optionalJsonBody(DeactivateRequestSchema) },
    responses: {
      200: jsonResponse(HostedDidSchema, 'The deactivated DID'),
      ...errorResponses(400, 401, 404, 409, 410, 415, 429),
    },
  });

const managedDocumentRoute = createRoute({
  method: 'get',
  path: '/dids/{id}/did.json',
  tags: ['DIDs'],
  summary: 'The document of a managed did:web (path form did:web:<domain>:dids:<id>); 410 once deactivated. Public.',
  request: { params: ManagedDidParamSchema },
  responses: {
    200: { description: 'DID document', content: { 'application/did+json': { schema: JsonObjectSchema } } },
    ...errorResponses(404, 410, 429),
  },
});

/** Creating, listing and resolving DIDs. */
function lifecycleRoutes(app: Router, ctx: IssuerContext, admin: Admin): void {
  app.openapi(createDidRoute(admin), async (c) =>
    c.json(await createDid(ctx, c.req.valid('json'), c.get('actor')), 201),
  );
  app.openapi(listDidsRoute(admin), async (c) => {
    const { cursor, limit, kind } = c.req.valid('query');
    const page = await listDids(ctx, {
      limit,
      ...(cursor === undefined ? {} : { cursor }),
      ...(kind === undefined ? {} : { kind }),
    });
    return c.json(page, 200);
  });
  app.openapi(resolveRoute, async (c) => c.json(await resolveHostedDid(ctx, c.req.valid('param').did), 200));
}

/** Changing a hosted DID: its services, its deactivation. */
function changeRoutes(app: Router, ctx: IssuerContext, admin: Admin): void {
  app.openapi(addServiceRoute(admin), async (c) =>
    c.json(await addService(ctx, c.req.valid('param').did, c.req.valid('json'), c.get('actor')), 201),
  );
  app.openapi(removeServiceRoute(admin), async (c) => {
    const { did, endpointId } = c.req.valid('param');
    return c.json(await removeService(ctx, did, endpointId, c.get('actor')), 200);
  });
  app.openapi(deactivateRoute(admin), async (c) =>
    c.json(await deactivateDid(ctx, c.req.valid('param').did, c.get('actor'), c.req.valid('json').reason), 200),
  );
}

export function didRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin: Admin = [adminAuth({ adminApiKey: ctx.config.adminApiKey })];
  lifecycleRoutes(app, ctx, admin);
  changeRoutes(app, ctx, admin);
  app.openapi(managedDocumentRoute, async (c) =>
    c.json(await managedWebDocument(ctx, c.req.valid('param').id), 200, {
      'content-type': 'application/did+json',
      'cache-control': 'no-cache',
    }),
  );
  return app;
}
