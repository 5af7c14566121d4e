/**
 * The issuer as an OAuth 2.1 authorization server (docs/oauth.md): RFC 8414 metadata, the
 * OpenID discovery subset, and `POST /oauth/token` (services/oauth/token-endpoint.ts). Public:
 * the token endpoint authenticates its clients itself (private_key_jwt, or the presentation).
 *
 * The token endpoint's body is form-encoded (app.ts lists it in `formPaths`) and read here as
 * URLSearchParams, so a repeated parameter is seen (RFC 6749 §3.2) rather than collapsed by a
 * validator; its answers are RFC 6749 §5.1/§5.2 bodies with `Cache-Control: no-store`.
 */
import { createRoute } from '@hono/zod-openapi';
import {
  AuthorizationServerMetadataSchema,
  OAuthErrorSchema,
  OpenIdConfigurationSchema,
  TokenRequestSchema,
  TokenResponseSchema,
} from '../../wallet/contract/oauth.ts';
import type { IssuerContext } from '../context.ts';
import { createRouter, OAUTH_ERROR_STATUS } from '../http/errors.ts';
import { OAuthRefusal } from '../services/oauth/errors.ts';
import { authorizationServerMetadata, openIdConfiguration } from '../services/oauth/metadata.ts';
import { createTokenEndpoint } from '../services/oauth/token-endpoint.ts';
import type { SessionTokenIssuer } from '../services/session-tokens.ts';
import { errorResponses, jsonResponse } from './schemas.ts';

/** Paths whose request bodies are `application/x-www-form-urlencoded` (app.ts). */
export const OAUTH_FORM_PATHS = ['/oauth/token'];

const metadataRoute = createRoute({
  method: 'get',
  path: '/.well-known/oauth-authorization-server',
  tags: ['OAuth'],
  summary: 'RFC 8414 authorization server metadata (issuer = the base URL; the DID in mandate_issuer_did). Public.',
  responses: { 200: jsonResponse(AuthorizationServerMetadataSchema, 'The metadata') },
});

const openIdRoute = createRoute({
  method: 'get',
  path: '/.well-known/openid-configuration',
  tags: ['OAuth'],
  summary:
    'The OpenID Connect Discovery subset workload-identity federation reads (issuer, jwks_uri, token_endpoint). Public.',
  responses: { 200: jsonResponse(OpenIdConfigurationSchema, 'The discovery document') },
});

const tokenRoute = createRoute({
  method: 'post',
  path: '/oauth/token',
  tags: ['OAuth'],
  summary:
    'OAuth token endpoint (RFC 6749 §3.2), form-encoded: client_credentials with private_key_jwt, or RFC 8693 token exchange of a Mandate presentation; DPoP (RFC 9449). Answers RFC 6749 §5.2 errors with mandate_reason. Public.',
  description:
    'Form parameters: ' +
    Object.keys(TokenRequestSchema.shape).join(', ') +
    '. See docs/oauth.md. The body is read by the endpoint itself (repeated parameters are refused).',
  responses: {
    200: jsonResponse(TokenResponseSchema, 'RFC 6749 §5.1'),
    400: jsonResponse(OAuthErrorSchema, 'RFC 6749 §5.2'),
    401: jsonResponse(OAuthErrorSchema, 'RFC 6749 §5.2 invalid_client'),
    ...errorResponses(413, 415, 429),
  },
});

const authorizeRoute = createRoute({
  method: 'get',
  path: '/oauth/authorize',
  tags: ['OAuth'],
  summary:
    'The authorization endpoint the metadata must name: no user-facing flow exists, so every request is 400 unsupported_response_type (RFC 6749 §4.1.2.1, never redirected). Public.',
  responses: { 400: jsonResponse(OAuthErrorSchema, 'RFC 6749 §4.1.2.1') },
});

export function oauthRoutes(ctx: IssuerContext, sessions: SessionTokenIssuer) {
  const app = createRouter();
  const endpoint = createTokenEndpoint(ctx, sessions);

  app.openapi(metadataRoute, (c) => {
    c.header('cache-control', 'public, max-age=300');
    return c.json(authorizationServerMetadata(ctx.config, ctx.issuer.did), 200);
  });
  app.openapi(openIdRoute, (c) => {
    c.header('cache-control', 'public, max-age=300');
    return c.json(openIdConfiguration(ctx.config, ctx.issuer.did), 200);
  });
  app.openapi(authorizeRoute, (c) => {
    c.header('cache-control', 'no-store');
    // Never redirected: no client has a registered redirect URI (RFC 6749 §4.1.2.1, first paragraph).
    const refusal = new OAuthRefusal(
      'unsupported_response_type',
      'AUTHORIZATION_FLOW_UNSUPPORTED',
      'this issuer has no authorization flows: agents use client_credentials or token exchange at the token endpoint',
    );
    return c.json(refusal.body(), 400);
  });
  app.openapi(tokenRoute, async (c) => {
    const form = new URLSearchParams(await c.req.text());
    const dpop = c.req.raw.headers.get('dpop');
    const answer = await endpoint.handle({
      form,
      // Headers.get joins repeated values with ", ": a comma never occurs in a compact JWS.
      dpop: dpop === null ? [] : dpop.split(',').map((value) => value.trim()),
      authorization: c.req.header('authorization'),
      actor: c.get('actor'),
    });
    // RFC 6749 §5.1: token responses are never cached.
    c.header('cache-control', 'no-store');
    c.header('pragma', 'no-cache');
    if (answer.dpopNonce !== undefined) c.header('DPoP-Nonce', answer.dpopNonce);
    if (answer.ok) return c.json(answer.body, 200);
    const status = OAUTH_ERROR_STATUS[answer.error];
    // RFC 6749 §5.2: a 401 names the HTTP scheme the client used; none when it authenticated in the body.
    if (status === 401 && answer.clientAuthScheme === 'Basic')
      c.header('WWW-Authenticate', 'Basic realm="mandate-issuer"');
    return c.json(answer.body, status);
  });
  return app;
}
