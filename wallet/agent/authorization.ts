/**
 * The agent's OAuth side: which authorization server guards which resource (learned once per
 * resource from RFC 9728 then RFC 8414 metadata), which grant gets its tokens, and the tokens
 * themselves (token-cache.ts):
 * - a root agent (its own credential, or none held locally): `client_credentials` (RFC 6749
 *   §4.4), authenticated by private_key_jwt or a client secret (client-auth.ts);
 * - a delegated agent (its leaf a DelegatedAgentCredential): RFC 8693 token exchange of a
 *   presentation of its chain (docs/oauth.md §Token exchange), its proof `domain` the resource
 *   and, with DPoP, its `challenge` the DPoP key's thumbprint and a fresh suffix (§Binding).
 */
import type { SigningIdentity } from '../vc/identity.ts';
import { signPresentation } from '../vc/presentation.ts';
import { encodePresentationHeader, PRESENTATION_SCHEME } from '../vc/transport.ts';
import type { MandateCredential } from '../vc/types.ts';
import { GRANT_CLIENT_CREDENTIALS, GRANT_TOKEN_EXCHANGE, TOKEN_TYPE_MANDATE_PRESENTATION } from '../contract/oauth.ts';
import type { ClientCredentials } from './client-auth.ts';
import {
  discoverAuthorizationServer,
  discoverResource,
  resourceCovers,
  type AuthorizationServer,
  type DiscoveryContext,
} from './discovery.ts';
import type { DpopSession } from './dpop-session.ts';
import { AgentFetchError } from './errors.ts';
import { tokenKey, type AgentToken, type TokenCache } from './token-cache.ts';
import { requestToken, type TokenGrant } from './token-client.ts';

export type GrantChoice = 'auto' | 'client_credentials' | 'token_exchange';

export interface AuthorizationContext {
  identity: SigningIdentity;
  credentials: readonly MandateCredential[];
  client: ClientCredentials;
  grant: GrantChoice;
  /** Authorization servers the agent's owner named (preferred when a resource lists several). */
  issuers: readonly string[];
  dpop: DpopSession | undefined;
  discovery: DiscoveryContext;
  send: (input: Request | string, init?: RequestInit) => Promise<Response>;
  cache: TokenCache;
  now: () => number;
}

/** A resource the agent has met: its authorization server, and the scopes of its latest token. */
export interface Route {
  readonly resource: string;
  readonly server: AuthorizationServer;
  /** The scopes last asked for here (undefined: the server's default). */
  scopes: readonly string[] | undefined;
}

export interface Authorization {
  /** The route of the resource covering `url` (the most specific), when one was discovered. */
  routeFor(url: string): Route | undefined;
  /** Discovers (or recalls) the route for a request to `url`. */
  discover(url: string, resourceMetadata: string | undefined): Promise<Route>;
  /** The route's live token for `scopes` without asking anyone, or undefined. */
  cached(route: Route, scopes: readonly string[] | undefined): AgentToken | undefined;
  /** A token for `scopes` at `route`: the cached one, else a new one (shared by concurrent callers). */
  token(route: Route, scopes: readonly string[] | undefined): Promise<AgentToken>;
  /** Forgets a token (asked for `scopes`) the resource refused. */
  drop(route: Route, scopes: readonly string[] | undefined, token: AgentToken): void;
}

function isDelegated(credentials: readonly MandateCredential[]): boolean {
  const type = (credentials[0] as { type?: unknown } | undefined)?.type;
  return Array.isArray(type) && type.includes('DelegatedAgentCredential');
}

function exchangeGrant(context: AuthorizationContext, resource: string): () => Promise<TokenGrant> {
  return async () => {
    const suffix = crypto.randomUUID();
    const challenge = context.dpop === undefined ? suffix : `${context.dpop.key.thumbprint}.${suffix}`;
    const vp = await signPresentation({
      holder: context.identity,
      credentials: [...context.credentials],
      challenge,
      domain: resource,
    });
    return {
      grantType: GRANT_TOKEN_EXCHANGE,
      params: {
        subject_token: encodePresentationHeader(vp).slice(PRESENTATION_SCHEME.length + 1),
        subject_token_type: TOKEN_TYPE_MANDATE_PRESENTATION,
      },
    };
  };
}

function obtain(
  context: AuthorizationContext,
  route: Route,
  scopes: readonly string[] | undefined,
): Promise<AgentToken> {
  const exchange = context.grant === 'token_exchange' || (context.grant === 'auto' && isDelegated(context.credentials));
  if (exchange && context.credentials.length === 0)
    throw new AgentFetchError('AGENT_CREDENTIALS_MISSING', 'a token exchange needs a credential chain to present');
  return requestToken({
    server: route.server,
    resource: route.resource,
    ...(scopes === undefined ? {} : { scopes }),
    grant: exchange
      ? exchangeGrant(context, route.resource)
      : () => Promise.resolve({ grantType: GRANT_CLIENT_CREDENTIALS, params: {} }),
    credentials: context.client,
    exchangeWithDpop: exchange && context.dpop !== undefined,
    ...(context.dpop === undefined ? {} : { dpop: context.dpop }),
    send: context.send,
    now: context.now,
  });
}

/** The server to ask among those a resource lists: one the owner named, else the first. */
function chooseServer(listed: readonly string[], named: readonly string[]): string {
  const trim = (s: string) => s.replace(/\/$/, '');
  return listed.find((s) => named.some((n) => trim(n) === trim(s))) ?? (listed[0] as string);
}

export function createAuthorization(context: AuthorizationContext): Authorization {
  const routes: Route[] = [];
  const routeFor = (url: string): Route | undefined =>
    routes
      .filter((route) => resourceCovers(route.resource, url))
      .sort((a, b) => b.resource.length - a.resource.length)[0];
  const key = (route: Route, scopes: readonly string[] | undefined) =>
    tokenKey(route.server.issuer, route.resource, scopes);
  return {
    routeFor,
    async discover(url, resourceMetadata) {
      const metadata = await discoverResource(url, resourceMetadata, context.discovery);
      const known = routes.find((route) => route.resource === metadata.resource);
      if (known !== undefined) return known;
      const issuer = chooseServer(metadata.authorizationServers, context.issuers);
      const server = await discoverAuthorizationServer(issuer, context.discovery);
      const route: Route = { resource: metadata.resource, server, scopes: undefined };
      routes.push(route);
      return route;
    },
    cached: (route, scopes) => context.cache.get(key(route, scopes)),
    token: (route, scopes) => context.cache.getOrObtain(key(route, scopes), () => obtain(context, route, scopes)),
    drop: (route, scopes, token) => context.cache.drop(key(route, scopes), token),
  };
}
