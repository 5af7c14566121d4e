/**
 * The MCP resource server of `mandate/verifier` (docs/mcp.md): protect a Streamable HTTP MCP
 * endpoint with Mandate-issued OAuth access tokens (RFC 9068, DPoP-bound or bearer) and Mandate
 * presentations, with per-tool authority.
 */
export {
  authorizeMcpRequest,
  publicMcpResponse,
  type McpAuthInfo,
  type McpAuthorization,
  type McpCaller,
} from './authorize.ts';
export { verifyAccessToken, type AccessToken, type AccessTokenChecks } from './access-token.ts';
export { verifyDpopProof, type DpopChecks } from './dpop.ts';
export { MCP_AUTH_REASONS, McpAuthError, McpAuthOptionsError, type McpAuthReason } from './errors.ts';
export { mcpAuth, mcpMetadataHandler, type McpAuthEnv, type McpAuthVariables } from './hono.ts';
export {
  createJwksCache,
  DEFAULT_JWKS_COOLDOWN_MS,
  DEFAULT_JWKS_MAX_AGE_MS,
  type JwksCache,
  type JwksCacheOptions,
} from './jwks-cache.ts';
export {
  DEFAULT_INTROSPECTION_TTL_SEC,
  MAX_INTROSPECTION_TTL_SEC,
  type McpIntrospectionOptions,
} from './introspection.ts';
export { filterToolsListResponse } from './list-filter.ts';
export { metadataUrl, PROTECTED_RESOURCE_WELL_KNOWN, type ProtectedResourceMetadata } from './metadata.ts';
export { mcpNodeMiddleware, type McpRequest } from './node.ts';
export type { McpAuthOptions } from './options.ts';
export { mayCall, MAX_BATCH, MCP_CLIENT_METHODS, toolDemand, type ToolDemand, type ToolScopes } from './tool-scopes.ts';
