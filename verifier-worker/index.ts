/**
 * `mandate/verifier`: protect an API with agent presentations, or requests the agents sign
 * (docs/verifier.md). The core is
 * framework-neutral and isomorphic (`verifyRequest`, Web `Request` in, verdict out); `agentAuth`
 * is its Hono middleware and `nodeHandler` / `nodeMiddleware` / `toWebRequest` adapt Node `http`
 * (and so Express, Fastify, Connect). `mcpAuth` / `mcpNodeMiddleware` protect an MCP server
 * with OAuth access tokens and presentations (docs/mcp.md). `createRedisReplayCache` shares their
 * replay state between processes (docs/verifier.md §Several verifier processes).
 *
 * The public surface is this explicit list, no `export *`: docs/verifier.md §Everything
 * `mandate/verifier` exports names each value, and test/wallet/public-surface.types.ts pins every
 * name (types included). What request.ts and mcp/index.ts export beyond it is internal.
 */
export {
  verifyRequest,
  issueChallenge,
  handleChallengeRequest,
  prepareVerifier,
  createChallengeStore,
  DEFAULT_CHALLENGE_PATH,
  denialResponse,
  denialStatus,
  forwardClaims,
  isMandateHeaderName,
  requestMethods,
  PRESENTATION_SCHEME,
  DEFAULT_MAX_PRESENTATION_BYTES,
  PresentationHeaderError,
  encodePresentationHeader,
  decodePresentationHeader,
  VerifierOptionsError,
  type VerifyRequestOptions,
  type ChallengeMode,
  type ChallengeStore,
  type ChallengeStoreOptions,
  type IssuedChallenge,
  type RequiredScopes,
  type ScopeResolver,
  type ScopeRule,
  type AgentClaims,
  type DenialBody,
  type DenialStatus,
  type RequestAllowed,
  type RequestDenied,
  type RequestVerdict,
  type PresentationHeaderErrorCode,
  type VerifierOptionsErrorCode,
} from './request.ts';
// The chains of signed requests a verifier holds (docs/protocol.md §Signed requests).
export { createChainCache, type ChainCache, type ChainCacheOptions } from '../wallet/vc/chain-cache.ts';
export { agentAuth, challengeHandler, type AgentAuthEnv, type AgentAuthOptions, type AgentVariables } from './hono.ts';
export {
  applyNodeClaims,
  nodeHandler,
  nodeMiddleware,
  RequestTargetError,
  sendResponse,
  toWebRequest,
  verifyNodeRequest,
  type AgentRequest,
  type NodeVerifierOptions,
  type ToWebRequestOptions,
} from './node-http.ts';
export {
  mcpAuth,
  mcpMetadataHandler,
  mcpNodeMiddleware,
  authorizeMcpRequest,
  publicMcpResponse,
  filterToolsListResponse,
  MCP_CLIENT_METHODS,
  MCP_AUTH_REASONS,
  McpAuthError,
  McpAuthOptionsError,
  verifyAccessToken,
  createJwksCache,
  type McpAuthOptions,
  type McpAuthEnv,
  type McpAuthVariables,
  type McpRequest,
  type McpAuthInfo,
  type McpAuthorization,
  type McpCaller,
  type McpAuthReason,
  type McpIntrospectionOptions,
  type ProtectedResourceMetadata,
  type ToolDemand,
  type ToolScopes,
  type AccessToken,
  type AccessTokenChecks,
  type JwksCache,
  type JwksCacheOptions,
} from './mcp/index.ts';
export {
  createRedisReplayCache,
  ReplayStoreError,
  type RedisReplayCache,
  type RedisReplayCacheOptions,
  type RedisSetClient,
} from './redis-replay-cache.ts';
