/**
 * `/issuer/*`: the issuer's onboarding endpoints, relayed so the page talks to one origin (the
 * issuer's API sends no CORS headers). Nothing else is relayed, never an admin route.
 */
import type { Context } from 'hono';
import { errorJson } from './error-json.ts';

const RELAYED = new Set(['POST /v1/onboard', 'POST /v1/onboard/verify', 'GET /v1/health']);

export async function relayToIssuer(c: Context, issuerUrl: string): Promise<Response> {
  const path = c.req.path.slice('/issuer'.length);
  if (!RELAYED.has(`${c.req.method} ${path}`))
    return errorJson('NOT_RELAYED', 'the demo relays only the onboarding endpoints', 404);
  const init: RequestInit = { method: c.req.method, headers: { 'content-type': 'application/json' } };
  if (c.req.method === 'POST') init.body = await c.req.text();
  try {
    const answer = await fetch(issuerUrl + path, init);
    // Relayed whole, with a Content-Length: Chromium labels a no-store answer that arrives in
    // pieces and is read as a stream (the wallet client's bounded read) "canceled" in
    // DevTools, though the page received all of it (microsoft/playwright#42742).
    return new Response(await answer.arrayBuffer(), {
      status: answer.status,
      headers: {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
        'cache-control': 'no-store',
      },
    });
  } catch {
    return errorJson('ISSUER_UNREACHABLE', 'the issuer did not answer', 502);
  }
}
