/**
 * `agentAuth`: Hono middleware around `verifyRequest` (docs/verifier.md §Hono). One factory, one
 * typed options object, like Hono's own `bearerAuth`: it answers the challenge endpoint, refuses
 * with the verifier's JSON body and status, and on success sets `c.var.agent` and rewrites the
 * request's headers so the handler sees claims, not the presentation.
 *
 * @example
 * ```ts
 * const app = new Hono<AgentAuthEnv>();
 * app.use('*', agentAuth({ trustedIssuers: [ISSUER_DID], target: 'files.example.com', requiredScopes: ['files:read'] }));
 * app.get('/files', (c) => c.json({ agent: c.var.agent.agentDid }));
 * ```
 */
import { createMiddleware } from 'hono/factory';
import type { MiddlewareHandler } from 'hono';
import {
  applyClaimHeaders,
  denialResponse,
  forwardClaims,
  handleChallengeRequest,
  prepareVerifier,
  verifyRequest,
  type AgentClaims,
  type VerifyRequestOptions,
} from './request.ts';

export interface AgentAuthOptions extends VerifyRequestOptions {
  /**
   * Replace `Authorization` and any incoming `X-Mandate-*` headers by the claim headers before
   * the handler runs (default true), so a handler or an upstream it proxies to never sees the
   * presentation or a client-forged claim.
   */
  forwardHeaders?: boolean;
}

/** agentAuth's own options, beside the verifier's (the same object goes to challengeHandler). */
const AGENT_AUTH_KEYS = ['forwardHeaders'] as const satisfies ReadonlyArray<keyof AgentAuthOptions>;

/** `c.var.agent`: declare `new Hono<AgentAuthEnv>()` (or merge `AgentVariables` into yours). */
export interface AgentVariables {
  agent: AgentClaims;
}

export interface AgentAuthEnv {
  Variables: AgentVariables;
}

/**
 * Protects the routes it is mounted on. The options object is validated here (a bad one throws
 * VerifierOptionsError at startup) and holds the verifier's caches and nonces for its lifetime.
 * The challenge endpoint (`GET /.well-known/mandate/challenge` by default, `'endpoint'` mode) is
 * answered only if the middleware sees that path: mount it on `*`, or route the path to
 * `challengeHandler(sameOptions)`.
 */
export function agentAuth(options: AgentAuthOptions): MiddlewareHandler<AgentAuthEnv> {
  prepareVerifier(options, AGENT_AUTH_KEYS);
  return createMiddleware<AgentAuthEnv>(async (c, next) => {
    const challenge = await handleChallengeRequest(c.req.raw, options);
    if (challenge) return challenge;
    const verdict = await verifyRequest(c.req.raw, options);
    if (!verdict.allowed) return denialResponse(verdict);
    c.set('agent', verdict.claims);
    if (options.forwardHeaders !== false) {
      try {
        applyClaimHeaders(c.req.raw.headers, verdict.claims);
      } catch {
        // Immutable headers (a Request from a service worker's fetch event): swap in a copy.
        c.req.raw = forwardClaims(c.req.raw, verdict.claims);
      }
    }
    await next();
  });
}

/** The challenge endpoint alone, for `app.get(DEFAULT_CHALLENGE_PATH, challengeHandler(options))`. Same options object as agentAuth. */
export function challengeHandler(options: VerifyRequestOptions): MiddlewareHandler {
  prepareVerifier(options, AGENT_AUTH_KEYS);
  return createMiddleware(async (c, next) => {
    const response = await handleChallengeRequest(c.req.raw, options);
    if (response) return response;
    await next();
  });
}
