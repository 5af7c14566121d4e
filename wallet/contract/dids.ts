/** DIDs hosted by the issuer (docs/api.md `HostedDid`) and DID resolution results. */
import { z } from 'zod';
import { DidSchema, JsonValueObjectSchema, PageQuerySchema } from './primitives.ts';

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
