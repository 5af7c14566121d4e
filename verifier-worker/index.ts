/**
 * `mandate/verifier`: protect an API with agent presentations (docs/verifier.md). The core is
 * framework-neutral and isomorphic (`verifyRequest`, Web `Request` in, verdict out); `agentAuth`
 * is its Hono middleware and `nodeHandler` / `nodeMiddleware` / `toWebRequest` adapt Node `http`
 * (and so Express, Fastify, Connect). `mcpAuth` / `mcpNodeMiddleware` protect an MCP server
 * with OAuth access tokens and presentations (docs/mcp.md). `createRedisReplayCache` shares their
 * replay state between processes (docs/verifier.md §Several verifier processes).
 */
export * from './request.ts';
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
export * from './mcp/index.ts';
export {
  createRedisReplayCache,
  ReplayStoreError,
  type RedisReplayCache,
  type RedisReplayCacheOptions,
  type RedisSetClient,
} from './redis-replay-cache.ts';
