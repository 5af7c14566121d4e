/**
 * From a resource to its authorization server: RFC 9728 protected-resource metadata (the URL a
 * challenge names in `resource_metadata`, else the well-known URIs of §3.1), then RFC 8414
 * authorization-server metadata (§3.1 path insertion, then OpenID Connect Discovery's location,
 * as MCP §Authorization "Authorization Server Metadata Discovery" lists them). Each answer is
 * checked before use: §3.3 of each RFC (the `resource` and the `issuer` must be the identifiers
 * they were fetched for), and every endpoint URL against the agent's URL policy — these URLs come
 * from the service, not from the agent's owner.
 */
import { isObject, type JsonValue } from '../crypto/json-value.ts';
import { fetchJson, type FetchLike } from '../net/http.ts';
import { checkUrlPolicy, type UrlPolicy } from '../net/url-policy.ts';
import { AgentFetchError } from './errors.ts';

export interface DiscoveryContext {
  fetch: FetchLike;
  urlPolicy: UrlPolicy;
}

/** RFC 9728 §2, the members the agent reads. */
export interface ResourceMetadata {
  resource: string;
  authorizationServers: string[];
  scopesSupported?: string[];
}

/** RFC 8414 §2 (and RFC 9449 §5.1), the members the agent reads. */
export interface AuthorizationServer {
  issuer: string;
  tokenEndpoint: string;
  authMethods: string[];
  /** RFC 8414 §2 `token_endpoint_auth_signing_alg_values_supported` (empty: not said). */
  authSigningAlgs: string[];
  grantTypes: string[];
  dpopAlgs: string[];
}

const LIMITS = { timeoutMs: 10_000, maxBytes: 64 * 1024 };
const JSON_TYPES = new Set(['application/json']);

function invalid(message: string, status?: number): AgentFetchError {
  return new AgentFetchError('AGENT_METADATA_INVALID', message, status === undefined ? {} : { status });
}

/** `url` when the policy admits it, else AGENT_METADATA_INVALID naming `what`. */
export function checkedUrl(url: unknown, what: string, policy: UrlPolicy): string {
  if (typeof url !== 'string') throw invalid(`${what} is not a URL`);
  return checkUrlPolicy(url, policy, (message) => invalid(`${what}: ${message}`)).href;
}

async function getJson(url: string, context: DiscoveryContext): Promise<Record<string, JsonValue> | undefined> {
  const answer = await fetchJson(url, {
    limits: LIMITS,
    fetch: context.fetch,
    accept: 'application/json',
    mediaTypes: JSON_TYPES,
  });
  if (!answer.ok) {
    if (answer.failure === 'not-found') return undefined;
    throw invalid(`${url}: ${answer.message}`, answer.status);
  }
  if (!isObject(answer.json)) throw invalid(`${url}: not a JSON object`);
  return answer.json;
}

const strings = (value: JsonValue | undefined): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/**
 * Whether `resource` (a metadata `resource`) protects `url`: same origin, and its path a prefix
 * of the URL's at a segment boundary (MCP §Authorization "Canonical Server URI").
 */
export function resourceCovers(resource: string, url: string): boolean {
  try {
    const r = new URL(resource);
    const u = new URL(url);
    if (r.origin !== u.origin) return false;
    const base = r.pathname.endsWith('/') ? r.pathname : `${r.pathname}/`;
    return u.pathname === r.pathname || u.pathname.startsWith(base);
  } catch {
    return false;
  }
}

/** RFC 9728 §3.1: the path-suffixed well-known URI of `url`'s resource, then the bare one. */
function wellKnownResourceUrls(url: URL): string[] {
  const base = `${url.origin}/.well-known/oauth-protected-resource`;
  return url.pathname === '/' ? [base] : [`${base}${url.pathname}`, base];
}

/**
 * The protected-resource metadata for a request to `requestUrl`, from `named` (the challenge's
 * `resource_metadata`) or the well-known URIs. Throws AGENT_METADATA_INVALID, and
 * AGENT_RESOURCE_MISMATCH when its `resource` does not protect `requestUrl` (RFC 9728 §3.3).
 */
export async function discoverResource(
  requestUrl: string,
  named: string | undefined,
  context: DiscoveryContext,
): Promise<ResourceMetadata> {
  const candidates =
    named !== undefined
      ? [checkedUrl(named, 'resource_metadata', context.urlPolicy)]
      : wellKnownResourceUrls(new URL(requestUrl));
  for (const url of candidates) {
    const json = await getJson(url, context);
    if (json === undefined) continue;
    if (typeof json.resource !== 'string') throw invalid(`${url}: no "resource" (RFC 9728 §2)`);
    if (!resourceCovers(json.resource, requestUrl))
      throw new AgentFetchError(
        'AGENT_RESOURCE_MISMATCH',
        `the metadata names the resource ${json.resource}, which does not cover ${new URL(requestUrl).origin}${new URL(requestUrl).pathname} (RFC 9728 §3.3)`,
      );
    const authorizationServers = strings(json.authorization_servers);
    if (authorizationServers.length === 0) throw invalid(`${url}: no "authorization_servers" (RFC 9728 §2)`);
    const scopesSupported = strings(json.scopes_supported);
    return { resource: json.resource, authorizationServers, ...(scopesSupported.length ? { scopesSupported } : {}) };
  }
  throw invalid(`no protected-resource metadata for ${new URL(requestUrl).origin} (RFC 9728 §3.1)`);
}

/** RFC 8414 §3.1 (path insertion) and OpenID Connect Discovery 1.0 §4 (path appended), in MCP's order. */
function wellKnownIssuerUrls(issuer: URL): string[] {
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  if (path === '')
    return [
      `${issuer.origin}/.well-known/oauth-authorization-server`,
      `${issuer.origin}/.well-known/openid-configuration`,
    ];
  return [
    `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.origin}/.well-known/openid-configuration${path}`,
    `${issuer.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The `issuer` as RFC 8414 §3.3 compares it: exactly, but for a bare origin's trailing slash. */
function sameIssuer(a: string, b: string): boolean {
  const trim = (s: string) => s.replace(/\/$/, '');
  return trim(a) === trim(b);
}

/**
 * The metadata of the authorization server `issuer`. Throws AGENT_METADATA_INVALID, and
 * AGENT_ISSUER_MISMATCH when its `issuer` is not `issuer` (RFC 8414 §3.3: a server cannot
 * speak for another).
 */
export async function discoverAuthorizationServer(
  issuer: string,
  context: DiscoveryContext,
): Promise<AuthorizationServer> {
  const issuerUrl = new URL(checkedUrl(issuer, 'the authorization server', context.urlPolicy));
  for (const url of wellKnownIssuerUrls(issuerUrl)) {
    const json = await getJson(url, context);
    if (json === undefined) continue;
    if (typeof json.issuer !== 'string' || !sameIssuer(json.issuer, issuer))
      throw new AgentFetchError(
        'AGENT_ISSUER_MISMATCH',
        `the metadata at ${url} is not for the issuer ${issuer} (RFC 8414 §3.3)`,
      );
    return {
      issuer: json.issuer,
      tokenEndpoint: checkedUrl(json.token_endpoint, 'token_endpoint', context.urlPolicy),
      authMethods: strings(json.token_endpoint_auth_methods_supported),
      authSigningAlgs: strings(json.token_endpoint_auth_signing_alg_values_supported),
      grantTypes: strings(json.grant_types_supported),
      dpopAlgs: strings(json.dpop_signing_alg_values_supported),
    };
  }
  throw invalid(`no authorization-server metadata for ${issuer} (RFC 8414 §3.1)`);
}
