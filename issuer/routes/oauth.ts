/**
 * The issuer as an OAuth 2.1 authorization server (docs/oauth.md; wallet/contract/oauth.ts
 * `oauthEndpoints`): RFC 8414 metadata, the OpenID discovery subset, `POST /oauth/token`
 * (services/oauth/token-endpoint.ts) and the authorization endpoint, which only refuses.
 *
 * The token endpoint's body is form-encoded (its entry's `ownBody: 'form'`) and read here as
 * URLSearchParams, so a repeated parameter is seen (RFC 6749 §3.2) rather than collapsed by a
 * validator; its answers are RFC 6749 §5.1/§5.2 bodies with `Cache-Control: no-store`.
 */
import { oauthEndpoints } from '../../wallet/contract/oauth.ts';
import type { IssuerContext } from '../boot.ts';
import { OAUTH_ERROR_STATUS } from '../http/errors.ts';
import type { HandlersOf } from '../http/mount.ts';
import { OAuthRefusal } from '../services/oauth/errors.ts';
import { authorizationServerMetadata, openIdConfiguration } from '../services/oauth/metadata.ts';
import { createTokenEndpoint } from '../services/oauth/token-endpoint.ts';
import type { SessionTokenIssuer } from '../services/session-tokens.ts';

export function oauthHandlers(ctx: IssuerContext, sessions: SessionTokenIssuer): HandlersOf<typeof oauthEndpoints> {
  const endpoint = createTokenEndpoint(ctx, sessions);
  return {
    authorizationServerMetadata: (_, c) => {
      c.header('cache-control', 'public, max-age=300');
      return authorizationServerMetadata(ctx.config, ctx.issuer.did);
    },
    openIdConfiguration: (_, c) => {
      c.header('cache-control', 'public, max-age=300');
      return openIdConfiguration(ctx.config, ctx.issuer.did);
    },
    oauthAuthorize: (_, c) => {
      c.header('cache-control', 'no-store');
      // Never redirected: no client has a registered redirect URI (RFC 6749 §4.1.2.1, first paragraph).
      const refusal = new OAuthRefusal(
        'unsupported_response_type',
        'AUTHORIZATION_FLOW_UNSUPPORTED',
        'this issuer has no authorization flows: agents use client_credentials or token exchange at the token endpoint',
      );
      return c.json(refusal.body(), 400);
    },
    oauthToken: async (_, c) => {
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
    },
  };
}
