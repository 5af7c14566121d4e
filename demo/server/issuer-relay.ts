/**
 * `/issuer/*`: the issuer's onboarding endpoints and its OAuth token endpoint, relayed so the page
 * talks to one origin (the issuer's API sends no CORS headers). Nothing else is relayed, never an
 * admin route. The token endpoint's form body, its `DPoP` proof and the `DPoP-Nonce` of its answer
 * pass as they are: the proof names the issuer's own token endpoint (`htu`), not this relay.
 */
import type { Context } from 'hono';
import { errorJson } from './error-json.ts';

const RELAYED = new Set(['POST /v1/onboard', 'POST /v1/onboard/verify', 'GET /v1/health', 'POST /oauth/token']);

function relayedRequest(c: Context): Headers {
  const headers = new Headers({ 'content-type': 'application/json' });
  const type = c.req.header('content-type');
  if (type?.startsWith('application/x-www-form-urlencoded')) headers.set('content-type', type);
  const dpop = c.req.header('dpop');
  if (dpop !== undefined) headers.set('dpop', dpop);
  return headers;
}

export async function relayToIssuer(c: Context, issuerUrl: string): Promise<Response> {
  const path = c.req.path.slice('/issuer'.length);
  if (!RELAYED.has(`${c.req.method} ${path}`))
    return errorJson('NOT_RELAYED', 'the demo relays only the onboarding and token endpoints', 404);
  const init: RequestInit = { method: c.req.method, headers: relayedRequest(c) };
  if (c.req.method === 'POST') init.body = await c.req.text();
  try {
    const answer = await fetch(issuerUrl + path, init);
    const nonce = answer.headers.get('dpop-nonce');
    // Relayed whole, with a Content-Length: Chromium labels a no-store answer that arrives in
    // pieces and is read as a stream (the wallet client's bounded read) "canceled" in
    // DevTools, though the page received all of it (microsoft/playwright#42742).
    return new Response(await answer.arrayBuffer(), {
      status: answer.status,
      headers: {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
        'cache-control': 'no-store',
        ...(nonce === null ? {} : { 'dpop-nonce': nonce }),
      },
    });
  } catch {
    return errorJson('ISSUER_UNREACHABLE', 'the issuer did not answer', 502);
  }
}
