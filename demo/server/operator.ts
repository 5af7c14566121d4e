/**
 * The operator's side of the story (`/operator/*`): mint a token, revoke, read the audit trail.
 * They use the admin key HERE, server-side: the key never reaches the page. They exist because
 * this is a local demo on loopback; nothing like them belongs in a deployment.
 */
import { Hono } from 'hono';
import type { IssuerClient } from '../../wallet/client/issuer-client.ts';
import { errorJson } from './error-json.ts';
import { DEMO_SCOPES, DEMO_TARGET } from './story.ts';

function vcIdOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null && 'vcId' in body ? body.vcId : undefined;
}

/**
 * `mcpResource` joins the provider's service name in the token's domains: the issuer exchanges a
 * presentation for an access token only when its domain is the token's resource (docs/oauth.md).
 */
export function operatorRoutes(operator: IssuerClient, mcpResource: string): Hono {
  const routes = new Hono();
  routes.post('/operator/enrollment-token', async (c) => {
    const request = {
      requestedScopes: [...DEMO_SCOPES],
      maxDelegationDepth: 2,
      requestedDomains: [DEMO_TARGET, mcpResource],
      ttlSeconds: 900,
    };
    const token = await operator.mintEnrollmentToken(request);
    return c.json({ request, response: token }, 201, { 'cache-control': 'no-store' });
  });
  routes.post('/operator/revoke', async (c) => {
    const vcId = vcIdOf(await c.req.json().catch(() => undefined));
    if (typeof vcId !== 'string' || vcId.length > 256) return errorJson('MALFORMED', 'expected {vcId}', 400);
    const revoked = await operator.revoke(vcId, { reason: 'demo: the operator revokes the agent' });
    const { verifiableCredential: _omitted, ...view } = revoked;
    return c.json(view);
  });
  routes.get('/operator/audit', async (c) => {
    const [page, chain] = await Promise.all([operator.audit({ limit: 200 }), operator.verifyAuditChain()]);
    return c.json({ chain, records: [...page.records].sort((a, b) => a.seq - b.seq) }, 200, {
      'cache-control': 'no-store',
    });
  });
  return routes;
}
