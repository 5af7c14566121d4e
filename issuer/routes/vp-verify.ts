/**
 * `POST /v1/vp/verify` (services/vp-verify.ts) and the session-token keys. Public: a
 * presentation is its own authentication, and the answer reveals nothing the presenter does
 * not already know.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { createRouter } from '../http/errors.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { introspectSessionToken } from '../services/introspection.ts';
import { createSessionTokenIssuer, type SessionTokenIssuer } from '../services/session-tokens.ts';
import { createVpVerifier } from '../services/vp-verify.ts';
import {
  ADMIN_SECURITY,
  DomainSchema,
  errorResponses,
  jsonBody,
  JsonObjectSchema,
  jsonResponse,
  ScopesSchema,
} from './schemas.ts';

const VerifyRequest = z
  .strictObject({
    presentation: JsonObjectSchema.openapi({
      description: 'The VerifiablePresentation (docs/protocol.md §Presentation)',
    }),
    expectedTarget: DomainSchema.optional().openapi({
      description:
        "The calling service's own name; the proof's domain must equal it. Default: the proof's domain (binds nothing)",
    }),
    challenge: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .openapi({ description: 'The nonce the service handed out; the proof must carry it' }),
    requiredScopes: ScopesSchema.optional().openapi({
      description: 'Scopes the request needs (INSUFFICIENT_SCOPE otherwise)',
    }),
    session: z
      .boolean()
      .optional()
      .openapi({ description: 'true: also return a session token (EdDSA JWT); needs expectedTarget and challenge' }),
  })
  // A token is a bearer credential for the target, so the caller must name the target and the
  // nonce it handed out. The issuer cannot know which nonces the target issued: this keeps a
  // token from a presentation without one, not from whoever holds a presentation (docs/api.md).
  .refine((body) => body.session !== true || (body.expectedTarget !== undefined && body.challenge !== undefined), {
    message: 'session: true needs expectedTarget and challenge (the nonce the target handed out)',
    path: ['session'],
  })
  .openapi('VpVerifyRequest');

const AcceptedSchema = z
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
  .openapi('VpAccepted');

const DeniedSchema = z
  .object({
    valid: z.literal(false),
    reason: z
      .string()
      .openapi({ description: 'A reason code of docs/protocol.md §Reason codes', example: 'CREDENTIAL_REVOKED' }),
    message: z.string(),
    failedCheck: z.string(),
    vpId: z.string().optional(),
  })
  .openapi('VpDenied');

const IntrospectRequest = z
  .strictObject({
    token: z.string().min(1).max(8192).openapi({ description: 'A session token from POST /v1/vp/verify' }),
    token_type_hint: z
      .string()
      .max(64)
      .optional()
      .openapi({ description: 'RFC 7662 §2.1; ignored (there is one kind of token here)' }),
  })
  .openapi('IntrospectRequest');

const IntrospectionSchema = z
  .object({
    active: z.boolean(),
    token_type: z.literal('Bearer').optional(),
    iss: z.string().optional(),
    sub: z.string().optional(),
    aud: z.string().optional(),
    scope: z.string().optional(),
    jti: z.string().optional(),
    iat: z.number().optional(),
    exp: z.number().optional(),
    act: z.unknown().optional(),
  })
  .openapi('Introspection');

export const JwkSchema = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string(),
    kid: z.string(),
    alg: z.literal('EdDSA'),
    use: z.literal('sig'),
  })
  .openapi('SessionJwk');

/** The session-token issuer of `ctx`: its key in `settings`, encrypted under the key-encryption key. */
export function sessionTokensFor(ctx: IssuerContext): SessionTokenIssuer {
  return createSessionTokenIssuer({
    store: ctx.stores.sessionKey,
    keyEncryptionKey: ctx.keyEncryptionKey,
    issuerDid: ctx.issuer.did,
    now: () => ctx.now(),
  });
}

export function vpVerifyRoutes(ctx: IssuerContext, sessions: SessionTokenIssuer = sessionTokensFor(ctx)) {
  const app = createRouter();
  const verifier = createVpVerifier(ctx, sessions);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/vp/verify',
      tags: ['Verification'],
      summary:
        'Verify a presentation against this issuer (trusted issuer = this issuer; replay cache on). 200 valid, 403 denied with a reason code, 400 MALFORMED. Public.',
      request: { body: jsonBody(VerifyRequest) },
      responses: {
        200: jsonResponse(AcceptedSchema, 'Valid'),
        403: jsonResponse(DeniedSchema, 'Denied'),
        ...errorResponses(400, 413, 415, 429),
      },
    }),
    async (c) => {
      const verdict = await verifier.verify(c.req.valid('json'), c.get('actor'));
      return verdict.valid ? c.json(verdict, 200) : c.json(verdict, 403);
    },
  );

  const introspectionAuth = adminAuth({
    adminApiKey: ctx.config.adminApiKey,
    otherKeys: ctx.config.introspectionKeys.map((key) => ({ key, actor: 'introspection' })),
  });
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/sessions/introspect',
      tags: ['Verification'],
      summary:
        'RFC 7662 token introspection of a session token: active until it expires or a credential it was minted from is revoked or suspended. Form-encoded. The admin key or a SERVICE_INTROSPECTION_KEYS key.',
      security: ADMIN_SECURITY,
      middleware: [introspectionAuth] as const,
      request: {
        body: { required: true, content: { 'application/x-www-form-urlencoded': { schema: IntrospectRequest } } },
      },
      responses: {
        200: jsonResponse(IntrospectionSchema, "RFC 7662 §2.2: `{active: false}`, or the active token's claims"),
        ...errorResponses(400, 401, 413, 415, 429),
      },
    }),
    async (c) => {
      c.header('cache-control', 'no-store'); // RFC 7662 §2.2 answers about a live credential
      return c.json(await introspectSessionToken(ctx, sessions, c.req.valid('form').token), 200);
    },
  );

  const publicKey = createRoute({
    method: 'get',
    path: '/v1/sessions/public-key',
    tags: ['Verification'],
    summary: 'The session-token verification key as a JWK (RFC 8037 OKP Ed25519). Public.',
    responses: { 200: jsonResponse(JwkSchema, 'The key') },
  });
  app.openapi(publicKey, async (c) => {
    c.header('cache-control', 'public, max-age=300');
    return c.json(await sessions.publicJwk(), 200);
  });

  const jwks = createRoute({
    method: 'get',
    path: '/.well-known/jwks.json',
    tags: ['Verification'],
    summary: 'The session-token verification keys as a JWK Set (RFC 7517 §5). Public.',
    responses: { 200: jsonResponse(z.object({ keys: z.array(JwkSchema) }).openapi('SessionJwks'), 'The key set') },
  });
  app.openapi(jwks, async (c) => {
    c.header('cache-control', 'public, max-age=300');
    return c.json({ keys: [await sessions.publicJwk()] }, 200);
  });
  return app;
}
