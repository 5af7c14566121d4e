/**
 * Authentication for the routes an agent may call about itself (`/v1/agents/{did}/vp`,
 * `/v1/agents/{did}/delegations`): the admin key (actor `admin`), or that agent's own client
 * secret as `Authorization: Bearer <secret>` (actor `agent:<did>`). A secret is accepted for
 * the DID in the path only. Failure is 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3).
 */
import type { MiddlewareHandler } from 'hono';
import { bearerError, bearerSchemeMissing, bearerToken, isAdminKey } from './admin-auth.ts';
import type { IssuerEnv } from './env.ts';
import { refuse } from '../refusal.ts';

export interface AgentAuthOptions {
  adminApiKey: string;
  /** True when `secret` is the current client secret of `did` (constant time). */
  isAgentSecret: (did: string, secret: string | undefined) => Promise<boolean>;
}

/**
 * @example app.openapi(createRoute({ ..., middleware: [agentAuth({ adminApiKey, isAgentSecret })] }), handler)
 */
export function agentAuth(options: AgentAuthOptions): MiddlewareHandler<IssuerEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const token = bearerToken(header);
    const did = c.req.param('did') ?? '';
    // Both are checked, so whether the admin key or a secret matched does not show in the timing.
    const admin = isAdminKey(token, options.adminApiKey);
    const agent = await options.isAgentSecret(did, token);
    if (admin || agent) {
      c.set('actor', admin ? 'admin' : `agent:${did}`);
      return next();
    }
    throw refuse(
      'UNAUTHORIZED',
      header === undefined
        ? "this endpoint requires the admin API key or this agent's client secret (Authorization: Bearer …)"
        : bearerSchemeMissing(header)
          ? 'the Authorization header lacks the Bearer scheme: send Authorization: Bearer <key or client secret>'
          : "neither the admin API key nor this agent's client secret",
      {
        challenge: { scheme: 'Bearer', realm: 'mandate-issuer', error: bearerError(header) },
      },
    );
  };
}
