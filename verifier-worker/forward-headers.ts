/**
 * The headers a verified request is forwarded with: the claims the verifier set, and none of
 * the incoming `X-Mandate-*` headers or the presentation.
 */
import type { AgentClaims } from './verdict.ts';

/** Headers a verified request is forwarded with; any incoming `X-Mandate-*` header is dropped first. */
export const CLAIM_HEADERS = /* @__PURE__ */ Object.freeze({
  agentDid: 'X-Mandate-Agent-Did',
  /** The effective scopes, space-separated (a scope never contains a space: docs/scopes.md). */
  scopes: 'X-Mandate-Scopes',
  vpId: 'X-Mandate-Vp-Id',
});
/** How long a nonce from the challenge endpoint may be answered (default 5 minutes). */

/**
 * Whether a header name is one of Mandate's `X-Mandate-*` names, however spelled. CGI-style
 * gateways (PHP, Django, Rack: `HTTP_X_MANDATE_AGENT_DID`) read `_` as `-`, so a client's
 * `X_Mandate_Agent_Did` could reach the application as the claim header: it is dropped too.
 */
export function isMandateHeaderName(name: string): boolean {
  return name.length > 10 && name.slice(0, 10).toLowerCase().replaceAll('_', '-') === 'x-mandate-';
}

/**
 * Sets the claim headers on `headers` (mutated) after removing `Authorization` and every
 * incoming `X-Mandate-*` header, so what the application reads was set by the verifier.
 */
export function applyClaimHeaders(headers: Headers, claims: AgentClaims): void {
  const names = [...headers.keys()];
  for (const name of names) {
    if (name === 'authorization' || isMandateHeaderName(name)) headers.delete(name);
  }
  headers.set(CLAIM_HEADERS.agentDid, claims.agentDid);
  headers.set(CLAIM_HEADERS.scopes, claims.effectiveScopes.join(' '));
  headers.set(CLAIM_HEADERS.vpId, claims.vpId);
}

/** A copy of `request` to forward upstream: claims in headers, no presentation, no spoofed claims. */
export function forwardClaims(request: Request, claims: AgentClaims): Request {
  const headers = new Headers(request.headers);
  applyClaimHeaders(headers, claims);
  // Fetch §5.4 (Request constructor): a navigation request cannot be re-initialised, so a
  // service worker forwards it as a same-origin request with the same method and body.
  if (request.mode === 'navigate') {
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    return new Request(request.url, {
      method: request.method,
      headers,
      credentials: request.credentials,
      redirect: 'manual',
      mode: 'same-origin',
      ...(hasBody ? { body: request.body, duplex: 'half' } : {}),
    });
  }
  return new Request(request, { headers });
}
