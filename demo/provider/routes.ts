/**
 * The provider's routes: its status list, consent and grants (`/provider/*`), and its API:
 * `/api/files/*` behind the page's service-worker verifier (presentations), and the same files
 * at `/signed-api/files/*` behind `agentAuth` on this server, for signed requests (RFC 9421
 * bound to the chain: docs/protocol.md §Signed requests), which the worker does not verify.
 */
import { Hono, type Context } from 'hono';
import { agentAuth, type AgentAuthOptions } from '../../verifier-worker/hono.ts';
import { bodyLimit } from 'hono/body-limit';
import { parseJson } from '../../wallet/crypto/json-parse.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import type { ProviderAuditEvent, ProviderAuditResult } from './audit-event.ts';
import type { ConsentChallenges } from './challenges.ts';
import { grantOnConsent, type GrantIssuer } from './grant-issue.ts';
import type { GrantStatusList } from './grant-status.ts';
import { isRecord, MAX_REQUEST_BYTES } from './input.ts';

export interface ProviderRoutesOptions {
  identity: SigningIdentity;
  /** The service name: the proof domain presentations to this API must carry. */
  target: string;
  offeredScopes: readonly string[];
  challenges: ConsentChallenges;
  statusList: GrantStatusList;
  grants: GrantIssuer;
  recordEvent(event: ProviderAuditEvent): Promise<ProviderAuditResult>;
  /** How `/signed-api/*` verifies signed requests (scopes as the worker's table). */
  signedRequests: Omit<AgentAuthOptions, 'requiredScopes'>;
}

/** The worker's scope table, for the server-verified copy of the API. */
const SIGNED_API_SCOPES = [
  { path: '/signed-api/files/*', method: 'GET', scopes: ['files:read'] },
  { path: '/signed-api/files/*', method: 'POST', scopes: ['files:write'] },
];

function limitBodies(app: Hono): void {
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_REQUEST_BYTES,
      onError: (c) =>
        c.json(
          { error: { code: 'PAYLOAD_TOO_LARGE', message: `request bodies are limited to ${MAX_REQUEST_BYTES} bytes` } },
          413,
        ),
    }),
  );
}

function consentRequest(c: Context, options: ProviderRoutesOptions) {
  const { challenge, expiresAt } = options.challenges.issue();
  return c.json(
    {
      provider: options.identity.did,
      providerName: 'Demo Files',
      target: options.target,
      privilegeScopes: [...options.offeredScopes],
      challenge,
      expiresAt: expiresAt.toISOString(),
    },
    200,
    { 'cache-control': 'no-store' },
  );
}

async function grantRequest(c: Context, grants: GrantIssuer) {
  let body: unknown;
  try {
    // The strict reader a verifier uses: a consent or credential whose text names a member
    // twice would read one way here and another to a first-wins parser downstream.
    body = parseJson(await c.req.text());
  } catch {
    const message = 'the body is not safe JSON (syntax, depth, a forbidden key or a member named twice)';
    return c.json({ error: { code: 'MALFORMED', message } }, 400);
  }
  const answer = await grantOnConsent(grants, body);
  return c.json(answer.body, answer.status);
}

// A refusal the page's service worker made (the provider never saw that request): recorded in
// the issuer's audit trail under the provider's signature. Only reason codes are accepted.
async function refusalReport(c: Context, options: ProviderRoutesOptions) {
  const body: unknown = await c.req.json().catch(() => undefined);
  if (
    !isRecord(body) ||
    typeof body.reason !== 'string' ||
    !/^[A-Z_]{3,40}$/.test(body.reason) ||
    typeof body.action !== 'string'
  ) {
    return c.json({ error: { code: 'MALFORMED', message: 'expected {reason, action}' } }, 400);
  }
  const result = await options.recordEvent({
    action: body.action,
    result: `denied ${body.reason}`,
    ...(typeof body.agentDid === 'string' ? { agentDid: body.agentDid } : {}),
  });
  return c.json(result, result.recorded ? 201 : 502);
}

// The API itself. Behind the service worker (or agentAuth), a request arrives only when the
// verifier allowed it, with the claims it verified; it never sees the presentation or signature's chain.
async function fileRequest(c: Context, options: ProviderRoutesOptions) {
  const agentDid = c.req.header('x-mandate-agent-did');
  const scopes = c.req.header('x-mandate-scopes');
  const vpId = c.req.header('x-mandate-vp-id');
  if (!agentDid || scopes === undefined)
    return c.json({ error: { code: 'UNVERIFIED', message: 'this API is reached through the verifier' } }, 401);
  const name = c.req.param('name') ?? '';
  const action = `${c.req.method} ${c.req.path}`;
  const audit = await options.recordEvent({ agentDid, ...(vpId ? { vpId } : {}), action, result: 'allowed' });
  return c.json({
    ok: true,
    file: name,
    agentDid,
    effectiveScopes: scopes.split(' ').filter(Boolean),
    vpId,
    audit: audit.detail,
  });
}

export function providerRoutes(options: ProviderRoutesOptions): Hono {
  const app = new Hono();
  limitBodies(app);
  app.get('/provider/status/grants', async (c) =>
    c.json(await options.statusList.credential(), 200, {
      'cache-control': `public, max-age=${Math.max(1, Math.floor(options.statusList.ttlMs / 1000))}`,
      'access-control-allow-origin': '*',
    }),
  );
  app.get('/provider/consent', (c) => consentRequest(c, options));
  app.post('/provider/grants', (c) => grantRequest(c, options.grants));
  app.post('/provider/refusals', (c) => refusalReport(c, options));
  app.on(['GET', 'POST'], '/api/files/:name', (c) => fileRequest(c, options));
  app.use('/signed-api/*', agentAuth({ ...options.signedRequests, requiredScopes: SIGNED_API_SCOPES }));
  app.on(['GET', 'POST'], '/signed-api/files/:name', (c) => fileRequest(c, options));
  return app;
}
