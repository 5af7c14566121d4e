/**
 * `POST /v1/vp/verify` (services/vp-verify.ts) and the session-token keys. Public: a
 * presentation is its own authentication, and the answer reveals nothing the presenter does
 * not already know.
 */
import { createRoute } from '@hono/zod-openapi';
import {
  IntrospectionSchema,
  IntrospectRequestSchema,
  SessionJwkSchema,
  SessionJwksSchema,
  VpAcceptedSchema,
  VpDeniedSchema,
  VpVerifyRequestSchema,
} from '../../wallet/contract/vp-verify.ts';
import type { IssuerContext } from '../boot.ts';
import { createRouter } from '../http/errors.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { introspectSessionToken } from '../services/introspection.ts';
import { sessionTokensFor, type SessionTokenIssuer } from '../services/session-tokens.ts';
import { createVpVerifier } from '../services/vp-verify.ts';
import { ADMIN_SECURITY, errorResponses, jsonBody, jsonResponse } from './schemas.ts';

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
      request: { body: jsonBody(VpVerifyRequestSchema) },
      responses: {
        200: jsonResponse(VpAcceptedSchema, 'Valid'),
        403: jsonResponse(VpDeniedSchema, 'Denied'),
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
        'RFC 7662 token introspection of a session token or an OAuth access token: active until it expires or a credential it rests on is revoked or suspended. Form-encoded. The admin key or a SERVICE_INTROSPECTION_KEYS key.',
      security: ADMIN_SECURITY,
      middleware: [introspectionAuth] as const,
      request: {
        body: { required: true, content: { 'application/x-www-form-urlencoded': { schema: IntrospectRequestSchema } } },
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
    responses: { 200: jsonResponse(SessionJwkSchema, 'The key') },
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
    responses: { 200: jsonResponse(SessionJwksSchema, 'The key set') },
  });
  app.openapi(jwks, async (c) => {
    c.header('cache-control', 'public, max-age=300');
    return c.json({ keys: [await sessions.publicJwk()] }, 200);
  });
  return app;
}
