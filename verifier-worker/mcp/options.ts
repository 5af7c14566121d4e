/**
 * `mcpAuth`'s options, validated once per options object (a bad configuration throws
 * McpAuthOptionsError at setup), with the state they imply built then and kept: the JWKS cache,
 * the DPoP replay cache, the compiled tool table, the metadata document.
 */
import { DPOP_ALGS } from '../../wallet/crypto/dpop.ts';
import type { FetchLike } from '../../wallet/net/http.ts';
import { createReplayCache, type ReplayCache } from '../../wallet/vc/replay-cache.ts';
import { prepareVerifier, type VerifyRequestOptions } from '../request.ts';
import type { ChallengeContext } from './challenge.ts';
import { invalidMcpOptions } from './errors.ts';
import {
  createIntrospector,
  DEFAULT_INTROSPECTION_TTL_SEC,
  MAX_INTROSPECTION_TTL_SEC,
  type Introspector,
  type McpIntrospectionOptions,
} from './introspection.ts';
import { createJwksCache, type JwksCache } from './jwks-cache.ts';
import { metadataPaths, metadataUrl, type ProtectedResourceMetadata } from './metadata.ts';
import { compileMethods, compileToolTable, tableScopes, type ToolScopes, type ToolTable } from './tool-scopes.ts';

export interface McpAuthOptions {
  /** This MCP endpoint's URL, its RFC 8707 resource identifier: tokens' `aud` must name it. */
  resource: string;
  /** The Mandate issuer's base URL: its RFC 8414 `issuer`, which tokens' `iss` must equal. */
  authorizationServer: string;
  /** Default `${authorizationServer}/.well-known/jwks.json`. */
  jwksUri?: string;
  /** Tool name → scopes it needs. A tool not named here cannot be called. */
  tools: ToolScopes;
  /**
   * JSON-RPC methods this server handles beyond MCP's own (MCP_CLIENT_METHODS), exact names. Any
   * other method is refused (METHOD_NOT_ALLOWED).
   */
  allowMethods?: readonly string[];
  /** Show callers only the tools they may call in `tools/list` answers (default false). */
  filterToolsList?: boolean;
  /** `scopes_supported` of the metadata (default: every scope of `tools`). */
  scopesSupported?: readonly string[];
  /** The `scope` a 401 suggests (default: scopesSupported). */
  challengeScopes?: readonly string[];
  /** Refuse tokens that are not DPoP-bound (default false). */
  requireDpop?: boolean;
  /** DPoP proof `jti` store (default: in memory). Share one across instances: docs/mcp.md §Replay store. */
  replayCache?: ReplayCache;
  /** Oldest DPoP proof accepted, seconds (default 300). */
  dpopMaxAgeSec?: number;
  /** Clock tolerance, seconds (default 60). */
  clockSkewSec?: number;
  /** Longest token lifetime (`exp − iat`) accepted, seconds (default 3600). */
  maxTokenLifetimeSec?: number;
  /** Largest JSON-RPC body read, bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** JWKS refetch period and unknown-kid cooldown, ms (defaults 10 min, 30 s). */
  jwksMaxAgeMs?: number;
  jwksCooldownMs?: number;
  /** fetch for the JWKS (default: global fetch). */
  fetch?: FetchLike;
  /**
   * Ask the issuer (RFC 7662) whether each token is still active, answers kept `cacheTtlSec`
   * (≤ 30 s): the revocation bound becomes that, instead of the token's lifetime + clockSkewSec.
   */
  introspection?: McpIntrospectionOptions;
  /** Also accept Mandate presentations (`Authorization: VP …`), verified with these options. */
  presentations?: VerifyRequestOptions;
  resourceName?: string;
  resourceDocumentation?: string;
  /** Clock, ms since the epoch (default Date.now). */
  now?: () => number;
}

export interface McpAuthState {
  resource: string;
  resourceUrl: URL;
  issuer: string;
  tools: ToolTable;
  methods: ReadonlySet<string>;
  filterToolsList: boolean;
  requireDpop: boolean;
  jwks: JwksCache;
  replayCache: ReplayCache;
  introspector: Introspector | undefined;
  dpopMaxAgeSec: number;
  clockSkewSec: number;
  maxTokenLifetimeSec: number;
  maxBodyBytes: number;
  presentations: VerifyRequestOptions | undefined;
  metadata: ProtectedResourceMetadata;
  metadataPaths: string[];
  challenge: ChallengeContext;
  now: () => number;
}

const states = new WeakMap<McpAuthOptions, McpAuthState>();

function httpUrl(value: unknown, name: string): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash !== '')
    invalidMcpOptions(`${name} must be an absolute http(s) URL without a fragment`);
  return url;
}

function positive(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    invalidMcpOptions(`${name} must be a positive number`);
  return value;
}

function metadataOf(options: McpAuthOptions, scopes: string[]): ProtectedResourceMetadata {
  return {
    resource: options.resource,
    authorization_servers: [options.authorizationServer],
    scopes_supported: scopes,
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    dpop_bound_access_tokens_required: options.requireDpop === true,
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
    ...(options.resourceDocumentation === undefined ? {} : { resource_documentation: options.resourceDocumentation }),
  };
}

function introspectorFor(options: McpAuthOptions, now: () => number): Introspector | undefined {
  const given: unknown = options.introspection;
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null) invalidMcpOptions('introspection must be an object');
  const { endpoint, key, cacheTtlSec } = given as Partial<McpIntrospectionOptions>;
  if (typeof key !== 'string' || key.length === 0)
    invalidMcpOptions('introspection.key must be the resource server key (SERVICE_INTROSPECTION_KEYS)');
  const ttl = positive(cacheTtlSec, DEFAULT_INTROSPECTION_TTL_SEC, 'introspection.cacheTtlSec');
  if (ttl > MAX_INTROSPECTION_TTL_SEC)
    invalidMcpOptions(`introspection.cacheTtlSec must be at most ${MAX_INTROSPECTION_TTL_SEC}`);
  const url = httpUrl(
    endpoint ?? `${options.authorizationServer.replace(/\/$/, '')}/v1/sessions/introspect`,
    'introspection.endpoint',
  );
  return createIntrospector({ endpoint: url.href, key, cacheTtlSec: ttl }, options.fetch, now);
}

/** Validates `options` and builds their state, once per options object. */
export function mcpStateFor(options: McpAuthOptions): McpAuthState {
  const known = states.get(options);
  if (known) return known;
  if (typeof options !== 'object' || options === null) invalidMcpOptions('options must be an object');
  const resourceUrl = httpUrl(options.resource, 'resource');
  httpUrl(options.authorizationServer, 'authorizationServer');
  const jwksUri = httpUrl(
    options.jwksUri ?? `${options.authorizationServer.replace(/\/$/, '')}/.well-known/jwks.json`,
    'jwksUri',
  );
  const tools = compileToolTable(options.tools);
  const scopes = options.scopesSupported === undefined ? tableScopes(tools) : [...options.scopesSupported];
  const now = options.now ?? Date.now;
  if (options.presentations !== undefined) prepareVerifier(options.presentations);
  const state: McpAuthState = {
    resource: options.resource,
    resourceUrl,
    issuer: options.authorizationServer,
    tools,
    methods: compileMethods(options.allowMethods),
    filterToolsList: options.filterToolsList === true,
    requireDpop: options.requireDpop === true,
    jwks: createJwksCache({
      jwksUri: jwksUri.href,
      now,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      maxAgeMs: positive(options.jwksMaxAgeMs, 10 * 60_000, 'jwksMaxAgeMs'),
      cooldownMs: positive(options.jwksCooldownMs, 30_000, 'jwksCooldownMs'),
    }),
    replayCache: options.replayCache ?? createReplayCache({ now }),
    introspector: introspectorFor(options, now),
    dpopMaxAgeSec: positive(options.dpopMaxAgeSec, 300, 'dpopMaxAgeSec'),
    clockSkewSec: positive(options.clockSkewSec, 60, 'clockSkewSec'),
    maxTokenLifetimeSec: positive(options.maxTokenLifetimeSec, 3600, 'maxTokenLifetimeSec'),
    maxBodyBytes: positive(options.maxBodyBytes, 1024 * 1024, 'maxBodyBytes'),
    presentations: options.presentations,
    metadata: metadataOf(options, scopes),
    metadataPaths: metadataPaths(resourceUrl),
    challenge: {
      resourceMetadata: metadataUrl(resourceUrl),
      challengeScopes: options.challengeScopes === undefined ? scopes : [...options.challengeScopes],
      dpop: true,
    },
    now,
  };
  states.set(options, state);
  return state;
}
