/**
 * The sub-agent as an MCP client, the way the MCP authorization specification (2026-07-28) has a
 * client find its way from nothing but the server's URL: a request without a token is answered
 * 401 naming the RFC 9728 metadata; that names the authorization server (the Mandate issuer),
 * whose RFC 8414 metadata names the token endpoint; there the sub-agent exchanges a presentation
 * of its delegation chain for a DPoP-bound access token (RFC 8693, docs/oauth.md), which every MCP
 * request then carries with a fresh proof. Plain JSON-RPC over fetch: the page needs no MCP SDK.
 */
import { base64urlToBytes } from '../../wallet/crypto/base64url.ts';
import { encodePresentationHeader } from '../../wallet/vc/transport.ts';
import type { VerifiablePresentation } from '../../wallet/vc/types.ts';
import { dpopProof, type DpopKey } from './dpop.ts';
import { getJson } from './http.ts';

/** RFC 8693 token type of a Mandate presentation (docs/oauth.md §Token exchange). */
export const PRESENTATION_TOKEN_TYPE = 'urn:mandate:params:oauth:token-type:presentation';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

export interface McpAnswer {
  /** The JSON-RPC message sent. */
  request: object;
  status: number;
  wwwAuthenticate: string | null;
  body: unknown;
  /** The DPoP proof's claims, when the request carried a token. */
  proofClaims?: object;
}

/** The access token the sub-agent holds, with the key it is bound to. */
export interface McpSession {
  token: string;
  key: DpopKey;
  expiresAt: number;
  claims: Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function toolCall(name: string, args: Record<string, unknown>, id: number): object {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** One JSON-RPC request to the MCP server; with a session, `Authorization: DPoP` and a proof for it. */
export async function mcpPost(resource: string, message: object, session?: McpSession): Promise<McpAnswer> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  let proofClaims: object | undefined;
  if (session) {
    const { proof, claims } = await dpopProof(session.key, 'POST', resource, { accessToken: session.token });
    headers.authorization = `DPoP ${session.token}`;
    headers.dpop = proof;
    proofClaims = claims;
  }
  const response = await fetch(resource, { method: 'POST', headers, body: JSON.stringify(message), cache: 'no-store' });
  return {
    request: message,
    status: response.status,
    wwwAuthenticate: response.headers.get('www-authenticate'),
    body: await getJson(response),
    ...(proofClaims ? { proofClaims } : {}),
  };
}

/** The `resource_metadata` parameter of a `WWW-Authenticate` challenge (RFC 9728 §5.1). */
export function resourceMetadataOf(wwwAuthenticate: string | null): string | undefined {
  return /resource_metadata="([^"]+)"/.exec(wwwAuthenticate ?? '')?.[1];
}

/** What the 401 led to: the resource's metadata, then its authorization server's. */
export interface Discovery {
  resourceMetadata: Record<string, unknown>;
  authorizationServer: Record<string, unknown>;
  tokenEndpoint: string;
}

export async function discover(metadataUrl: string): Promise<Discovery> {
  const resourceMetadata = await getJson(await fetch(metadataUrl, { cache: 'no-store' }));
  const servers = isObject(resourceMetadata) ? resourceMetadata.authorization_servers : undefined;
  const issuer = Array.isArray(servers) && typeof servers[0] === 'string' ? servers[0] : undefined;
  if (!isObject(resourceMetadata) || issuer === undefined)
    throw new Error('the metadata names no authorization server');
  // Public and CORS-enabled on the issuer; the page's CSP allows connections to it.
  const authorizationServer = await getJson(await fetch(`${issuer}/.well-known/oauth-authorization-server`));
  const tokenEndpoint = isObject(authorizationServer) ? authorizationServer.token_endpoint : undefined;
  if (!isObject(authorizationServer) || typeof tokenEndpoint !== 'string')
    throw new Error('the issuer published no token endpoint');
  return { resourceMetadata, authorizationServer, tokenEndpoint };
}

/** The claims of a JWT, decoded for display only (the MCP server verifies the token). */
export function jwtClaims(token: string): Record<string, unknown> {
  const bytes = base64urlToBytes(token.split('.')[1]);
  const claims = bytes === undefined ? undefined : (JSON.parse(new TextDecoder().decode(bytes)) as unknown);
  return isObject(claims) ? claims : {};
}

export interface TokenExchange {
  /** The form sent, the subject token shortened for display. */
  form: Record<string, string>;
  status: number;
  body: unknown;
  session?: McpSession;
}

/**
 * RFC 8693 at the issuer's token endpoint, through the page origin's relay (the endpoint sends no
 * CORS headers). The DPoP proof names the endpoint itself; a `use_dpop_nonce` answer is retried
 * once with the nonce (the presentation is not spent: the issuer checks DPoP first).
 */
export async function exchangePresentation(
  discovery: Discovery,
  vp: VerifiablePresentation,
  form: { resource: string; scope: string; clientId: string },
  key: DpopKey,
): Promise<TokenExchange> {
  const params = {
    grant_type: TOKEN_EXCHANGE,
    subject_token: encodePresentationHeader(vp).slice('VP '.length),
    subject_token_type: PRESENTATION_TOKEN_TYPE,
    resource: form.resource,
    scope: form.scope,
    client_id: form.clientId,
  };
  const relay = `/issuer${new URL(discovery.tokenEndpoint).pathname}`;
  let nonce: string | undefined;
  for (let attempt = 0; ; attempt++) {
    const { proof } = await dpopProof(key, 'POST', discovery.tokenEndpoint, nonce === undefined ? {} : { nonce });
    const response = await fetch(relay, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: proof },
      body: new URLSearchParams(params),
    });
    const body = await getJson(response);
    nonce = response.headers.get('dpop-nonce') ?? undefined;
    if (attempt === 0 && response.status === 400 && isObject(body) && body.error === 'use_dpop_nonce' && nonce)
      continue;
    const shown = { ...params, subject_token: `${params.subject_token.slice(0, 32)}… (the presentation)` };
    if (response.status !== 200 || !isObject(body) || typeof body.access_token !== 'string')
      return { form: shown, status: response.status, body };
    const token = body.access_token;
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 0;
    const session = { token, key, expiresAt: Date.now() + expiresIn * 1000, claims: jwtClaims(token) };
    return { form: shown, status: 200, body: { ...body, access_token: `${token.slice(0, 24)}…` }, session };
  }
}
