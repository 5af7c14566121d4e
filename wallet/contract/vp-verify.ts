/** `POST /v1/vp/verify`, its verdicts, session-token introspection and keys (docs/api.md §Verification). */
import { z } from 'zod';
import { isReasonCode } from '../vc/reasons.ts';
import { endpoint } from './endpoint.ts';
import {
  DomainSchema,
  Ed25519JwkSchema,
  Ed25519JwksSchema,
  JsonObjectSchema,
  ScopesSchema,
  stringOf,
} from './primitives.ts';

export const VpVerifyRequestSchema = z
  .strictObject({
    presentation: JsonObjectSchema.meta({
      description: 'The VerifiablePresentation (docs/protocol.md §Presentation)',
    }),
    expectedTarget: DomainSchema.optional().meta({
      description:
        "The calling service's own name or resource URI; the proof's domain must equal or cover it. Default: the proof's domain (binds nothing)",
    }),
    challenge: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .meta({ description: 'The nonce the service handed out; the proof must carry it' }),
    requiredScopes: ScopesSchema.optional().meta({
      description: 'Scopes the request needs (INSUFFICIENT_SCOPE otherwise)',
    }),
    session: z
      .boolean()
      .optional()
      .meta({ description: 'true: also return a session token (EdDSA JWT); needs expectedTarget and challenge' }),
  })
  // A token is a bearer credential for the target, so the caller must name the target and the
  // nonce it handed out. The issuer cannot know which nonces the target issued: this keeps a
  // token from a presentation without one, not from whoever holds a presentation (docs/api.md).
  .refine((body) => body.session !== true || (body.expectedTarget !== undefined && body.challenge !== undefined), {
    message: 'session: true needs expectedTarget and challenge (the nonce the target handed out)',
    path: ['session'],
  })
  .meta({ id: 'VpVerifyRequest' });

export const VpAcceptedSchema = z
  .object({
    valid: z.literal(true),
    agentDid: z.string(),
    privilegeScopes: z.array(z.string()),
    effectiveScopes: z.array(z.string()),
    vpId: z.string(),
    target: z.string(),
    sessionToken: z.string().optional(),
    sessionExpiresAt: z.string().optional(),
  })
  .meta({ id: 'VpAccepted' });

export const VpDeniedSchema = z
  .object({
    valid: z.literal(false),
    /** A reason code of docs/protocol.md §Reason codes. */
    reason: stringOf(isReasonCode).meta({
      description: 'A reason code of docs/protocol.md §Reason codes',
      example: 'CREDENTIAL_REVOKED',
    }),
    message: z.string(),
    failedCheck: z.string(),
    vpId: z.string().optional(),
  })
  .meta({ id: 'VpDenied' });

export const IntrospectRequestSchema = z
  .strictObject({
    token: z
      .string()
      .min(1)
      .max(8192)
      .meta({ description: 'A session token from POST /v1/vp/verify, or an access token from POST /oauth/token' }),
    token_type_hint: z
      .string()
      .max(64)
      .optional()
      .meta({ description: 'RFC 7662 §2.1; ignored (both kinds of token are tried)' }),
  })
  .meta({ id: 'IntrospectRequest' });

export const IntrospectionSchema = z
  .object({
    active: z.boolean(),
    token_type: z.enum(['Bearer', 'DPoP']).optional(),
    iss: z.string().optional(),
    sub: z.string().optional(),
    aud: z.string().optional(),
    scope: z.string().optional(),
    jti: z.string().optional(),
    iat: z.number().optional(),
    exp: z.number().optional(),
    act: z.unknown().optional(),
    client_id: z.string().optional(),
    cnf: z.unknown().optional(),
  })
  .meta({ id: 'Introspection' });

export type VpVerifyRequest = z.infer<typeof VpVerifyRequestSchema>;
export type VpAcceptedBody = z.infer<typeof VpAcceptedSchema>;
/** What `IssuerClient.verify` returns for an accepted presentation (no session members). */
export type VpAccepted = Omit<VpAcceptedBody, 'sessionToken' | 'sessionExpiresAt'>;
export type VpDenied = z.infer<typeof VpDeniedSchema>;
export type VpVerdict = VpAccepted | VpDenied;
export type IntrospectRequest = z.infer<typeof IntrospectRequestSchema>;
export type Introspection = z.infer<typeof IntrospectionSchema>;

export const vpVerifyEndpoints = {
  verifyPresentation: endpoint({
    method: 'POST',
    path: '/v1/vp/verify',
    tag: 'Verification',
    summary:
      'Verify a presentation against this issuer (trusted issuer = this issuer; replay cache on). 200 valid, 403 denied with a reason code, 400 MALFORMED. Public.',
    auth: 'public',
    body: { schema: VpVerifyRequestSchema },
    responses: {
      200: { schema: VpAcceptedSchema, description: 'Valid' },
      403: { schema: VpDeniedSchema, description: 'Denied' },
    },
    errors: ['MALFORMED'],
  }),
  introspect: endpoint({
    method: 'POST',
    path: '/v1/sessions/introspect',
    tag: 'Verification',
    summary:
      'RFC 7662 token introspection of a session token or an OAuth access token: active until it expires or a credential it rests on is revoked or suspended. Form-encoded. The admin key or a SERVICE_INTROSPECTION_KEYS key.',
    auth: 'introspection',
    body: { schema: IntrospectRequestSchema, media: 'form' },
    responses: {
      200: {
        schema: IntrospectionSchema,
        description: "RFC 7662 §2.2: `{active: false}`, or the active token's claims",
      },
    },
    errors: [],
  }),
  sessionPublicKey: endpoint({
    method: 'GET',
    path: '/v1/sessions/public-key',
    publicDocument: true,
    tag: 'Verification',
    summary: 'The session-token verification key as a JWK (RFC 8037 OKP Ed25519). Public.',
    auth: 'public',
    responses: { 200: { schema: Ed25519JwkSchema, description: 'The key' } },
    errors: [],
  }),
  jwks: endpoint({
    method: 'GET',
    path: '/.well-known/jwks.json',
    publicDocument: true,
    tag: 'Verification',
    summary: 'The session-token verification keys as a JWK Set (RFC 7517 §5). Public.',
    auth: 'public',
    responses: { 200: { schema: Ed25519JwksSchema, description: 'The key set' } },
    errors: [],
  }),
};
