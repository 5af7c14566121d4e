/** The agent's client side (docs/agents.md): `createAgent`, `agent.fetch`, and their errors. */
export { createAgent, type Agent, type CreateAgentOptions } from './agent.ts';
export { AgentFetchError, AGENT_FETCH_CODES, type AgentFetchCode, type AgentFetchErrorDetails } from './errors.ts';
export type { AgentFetch } from './fetch.ts';
export type { AgentToken, TokenCache } from './token-cache.ts';
export type { ClientAuthMethod } from './client-auth.ts';
export type { GrantChoice } from './authorization.ts';
