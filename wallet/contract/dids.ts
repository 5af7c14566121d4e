/** DIDs hosted by the issuer (docs/api.md `HostedDid`) and DID resolution results. */
import { z } from 'zod';
import { endpoint } from './endpoint.ts';
import { DidSchema, JsonObjectSchema, JsonValueObjectSchema, PageQuerySchema } from './primitives.ts';

const UrlSchema = z
  .string()
  .max(2048)
  .regex(/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/, 'must be an absolute URL')
  .meta({ example: 'https://files.example.com/api' });

// DID Core §5.4: serviceEndpoint is a URL, a map, or a set of them.
const ServiceEndpointSchema = z.union([
  UrlSchema,
  JsonValueObjectSchema,
  z
    .array(z.union([UrlSchema, JsonValueObjectSchema]))
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
      .meta({ description: 'A fragment ("files" or "#files"); default a random one', example: 'files' }),
    type: z.string().min(1).max(128).meta({ example: 'LinkedDomains' }),
    serviceEndpoint: ServiceEndpointSchema,
  })
  .meta({ id: 'ServiceInput' });

export const CreateDidRequestSchema = z
  .strictObject({
    method: z.enum(['web', 'key']).optional().meta({ description: 'Default: DID_METHOD. "web" needs DID_METHOD=web' }),
    name: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'did:web path segment: did:web:<domain>:dids:<name> (default random)' }),
    publicKeyMultibase: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .meta({ description: 'Host a document for this caller-held Ed25519 key ("z6Mk…") instead of generating one' }),
    did: DidSchema.optional().meta({ description: 'Register an existing did:key instead of creating a DID' }),
    services: z.array(ServiceInputSchema).max(32).optional(),
  })
  .meta({ id: 'CreateDidRequest' });

export const HOSTED_DID_KINDS = ['issuer', 'agent', 'managed', 'registered'] as const;

export const HostedDidSchema = z
  .object({
    did: z.string(),
    kind: z.enum(HOSTED_DID_KINDS),
    /** True when the issuer holds the private key (server custody). */
    serverHeldKey: z.boolean(),
    deactivated: z.boolean(),
    didDocument: JsonValueObjectSchema,
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'HostedDid' });

export const DidListQuerySchema = PageQuerySchema.extend({ kind: z.enum(HOSTED_DID_KINDS).optional() });

export const DidPageSchema = z.object({ dids: z.array(HostedDidSchema), nextCursor: z.string().optional() });

/** DID Core §7.1 resolution result. */
export const DidResolutionSchema = z
  .object({
    '@context': z.string(),
    didDocument: JsonValueObjectSchema.nullable(),
    didDocumentMetadata: JsonValueObjectSchema,
    didResolutionMetadata: JsonValueObjectSchema,
  })
  .meta({ id: 'DidResolutionResult' });

export const DidParamSchema = z.object({ did: DidSchema.meta({ description: 'The DID, URL-encoded' }) });
export const ServiceParamSchema = DidParamSchema.extend({ endpointId: z.string().min(1).max(2200) });
/** `/dids/{id}/did.json`: a managed did:web's path segment. */
export const ManagedDidParamSchema = z.object({ id: z.string().regex(/^[A-Za-z0-9._~-]{1,64}$/) });

/** `/agents/{id}/did.json`: a hosted agent's path segment. */
export const AgentDocumentParamSchema = z.object({ id: z.string().regex(/^[A-Za-z0-9._~-]{1,128}$/) });

export const DeactivateRequestSchema = z
  .strictObject({ reason: z.string().min(1).max(512).optional() })
  .meta({ id: 'DeactivateRequest' });

export type ServiceInput = z.infer<typeof ServiceInputSchema>;
/**
 * `POST /v1/dids`: a DID with a server key, a hosted document for a caller key, or a registered
 * did:key (the schema is one object; these are the combinations the issuer accepts).
 */
export type CreateDidInput =
  | { method?: 'web' | 'key'; name?: string; services?: ServiceInput[] }
  | { publicKeyMultibase: string; name?: string; services?: ServiceInput[] }
  | { did: string };
export type CreateDidRequest = z.infer<typeof CreateDidRequestSchema>;
export type HostedDidKind = (typeof HOSTED_DID_KINDS)[number];
export type HostedDid = z.infer<typeof HostedDidSchema>;
export type DidPage = z.infer<typeof DidPageSchema>;
export type DidResolution = z.infer<typeof DidResolutionSchema>;
export type DeactivateRequest = z.infer<typeof DeactivateRequestSchema>;

/** did:web §3.2 documents are served as application/did+json (DID Core §6.2.1). */
export const DID_DOCUMENT_MEDIA_TYPES = ['application/did+json'] as const;

const TAG = 'DIDs';
/** Codes of every change to a hosted DID (services/dids.ts `hostedOrThrow`, `assertMutable`). */
const CHANGE_ERRORS = ['INVALID_DID', 'DID_NOT_FOUND', 'ISSUER_DID_PROTECTED', 'DID_DEACTIVATED'] as const;
/** Codes of a change to a DID document's services (did:key has none; only documents served here change). */
const SERVICE_ERRORS = [...CHANGE_ERRORS, 'DID_KEY_SERVICES_UNSUPPORTED', 'DID_NOT_HOSTED'] as const;

/**
 * DID management (docs/api.md §DIDs). Changes are operator acts (admin key); resolution of a
 * hosted DID (or any did:key) and managed did:web documents are public. The `did` path
 * parameter is the DID URL-encoded (encodeURIComponent): a did:web may itself contain "%3A".
 */
export const didEndpoints = {
  createDid: endpoint({
    method: 'POST',
    path: '/v1/dids',
    tag: TAG,
    summary:
      'Create a hosted DID with a new server-held key (did:web, or did:key with DID_METHOD=key), host one for a caller-held key, or register an existing did:key. Admin.',
    auth: 'admin',
    body: { schema: CreateDidRequestSchema },
    responses: { 201: { schema: HostedDidSchema, description: 'The DID and its document' } },
    errors: ['INVALID_DID', 'DID_METHOD_UNSUPPORTED', 'DID_EXISTS', 'SERVICE_EXISTS', 'DID_KEY_SERVICES_UNSUPPORTED'],
  }),
  listDids: endpoint({
    method: 'GET',
    path: '/v1/dids',
    tag: TAG,
    summary: 'List the DIDs this issuer hosts (issuer, agents, managed, registered), oldest first. Admin.',
    auth: 'admin',
    query: DidListQuerySchema,
    responses: { 200: { schema: DidPageSchema, description: 'Hosted DIDs' } },
    errors: [],
  }),
  resolveDid: endpoint({
    method: 'GET',
    path: '/v1/dids/{did}',
    tag: TAG,
    summary:
      'DID resolution result (DID Core §7.1) of a DID hosted here or of any did:key; a deactivated DID resolves with didDocumentMetadata.deactivated = true. Public.',
    auth: 'public',
    params: DidParamSchema,
    responses: { 200: { schema: DidResolutionSchema, description: 'Resolution result' } },
    errors: ['INVALID_DID', 'DID_NOT_FOUND'],
  }),
  addService: endpoint({
    method: 'POST',
    path: '/v1/dids/{did}/services',
    tag: TAG,
    summary:
      'Add a service (DID Core §5.4) to a hosted did:web document; refused for did:key (422 DID_KEY_SERVICES_UNSUPPORTED). Admin.',
    auth: 'admin',
    params: DidParamSchema,
    body: { schema: ServiceInputSchema },
    responses: { 201: { schema: HostedDidSchema, description: 'The updated DID' } },
    errors: [...SERVICE_ERRORS, 'SERVICE_EXISTS'],
  }),
  removeService: endpoint({
    method: 'DELETE',
    path: '/v1/dids/{did}/services/{endpointId}',
    tag: TAG,
    summary: 'Remove a service by its id (the fragment, URL-encoded). Admin.',
    auth: 'admin',
    params: ServiceParamSchema,
    responses: { 200: { schema: HostedDidSchema, description: 'The updated DID' } },
    errors: [...SERVICE_ERRORS, 'SERVICE_NOT_FOUND'],
  }),
  deactivateDid: endpoint({
    method: 'POST',
    path: '/v1/dids/{did}/deactivate',
    tag: TAG,
    summary:
      'Deactivate a hosted DID (DID Core §7.1.3): resolution says so and every verification here refuses it (DID_DEACTIVATED). Admin.',
    auth: 'admin',
    params: DidParamSchema,
    body: { schema: DeactivateRequestSchema, optional: true },
    responses: { 200: { schema: HostedDidSchema, description: 'The deactivated DID' } },
    errors: CHANGE_ERRORS,
  }),
  getManagedDidDocument: endpoint({
    method: 'GET',
    path: '/dids/{id}/did.json',
    tag: TAG,
    summary: 'The document of a managed did:web (path form did:web:<domain>:dids:<id>); 410 once deactivated. Public.',
    auth: 'public',
    params: ManagedDidParamSchema,
    responses: {
      200: { schema: JsonObjectSchema, description: 'DID document', mediaTypes: DID_DOCUMENT_MEDIA_TYPES },
    },
    errors: ['DID_NOT_FOUND', 'DID_DEACTIVATED'],
  }),
};
