/**
 * One token request (RFC 6749 §3.2, form-encoded), any grant, and its answer checked against the
 * RFCs before the token is used:
 * - the resource it is for (RFC 8707 §2 `resource`) and the scopes asked (RFC 6749 §3.3);
 * - DPoP (RFC 9449 §5): a proof by the agent's key; a `use_dpop_nonce` answer (§8) is retried once
 *   with the server's nonce; a server that advertises DPoP must bind the token (`token_type`
 *   DPoP), else the answer is refused rather than used as a Bearer token;
 * - the answer (RFC 6749 §5.1): `access_token`, `token_type` Bearer or DPoP, `expires_in`; an
 *   `iss` in it, when present, must be the server's (RFC 9207 §2.4 applied to this answer);
 * - a refusal (RFC 6749 §5.2) becomes AGENT_TOKEN_REFUSED with the server's `error` and its
 *   Mandate `mandate_reason`.
 */
import { bytesToUtf8 } from '../crypto/bytes.ts';
import { readBounded } from '../net/http.ts';
import { clientAuthentication, type ClientCredentials } from './client-auth.ts';
import type { AuthorizationServer } from './discovery.ts';
import type { DpopSession } from './dpop-session.ts';
import { AgentFetchError } from './errors.ts';
import type { AgentToken } from './token-cache.ts';

/** The grant-specific part of a request, built afresh for each attempt. */
export interface TokenGrant {
  grantType: string;
  params: Record<string, string>;
}

export interface TokenRequestInput {
  server: AuthorizationServer;
  resource: string;
  /** Omitted: the server's default (Mandate's issuer: every scope the authority holds). */
  scopes?: readonly string[];
  grant: () => Promise<TokenGrant>;
  credentials: ClientCredentials;
  /** Whether the grant is a token exchange the DPoP key authenticates (then `none` is allowed). */
  exchangeWithDpop: boolean;
  dpop?: DpopSession;
  send: (request: Request) => Promise<Response>;
  now: () => number;
}

const MAX_ANSWER_BYTES = 64 * 1024;
/** When the server names no lifetime (RFC 6749 §5.1 only recommends `expires_in`): kept a minute. */
const DEFAULT_LIFETIME_SEC = 60;

async function readJson(response: Response): Promise<Record<string, unknown> | undefined> {
  try {
    const bytes = await readBounded(response.body, MAX_ANSWER_BYTES);
    const value: unknown = bytes === undefined ? undefined : JSON.parse(bytesToUtf8(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

async function tokenRequest(input: TokenRequestInput): Promise<Request> {
  const { server } = input;
  const grant = await input.grant();
  const auth = await clientAuthentication(server, input.credentials, {
    exchangeWithDpop: input.exchangeWithDpop,
    now: input.now(),
  });
  const form = new URLSearchParams({ grant_type: grant.grantType, resource: input.resource });
  if (input.scopes !== undefined && input.scopes.length > 0) form.set('scope', input.scopes.join(' '));
  for (const [name, value] of Object.entries({ ...grant.params, ...auth.form })) form.set(name, value);
  const headers = new Headers({
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
    ...auth.headers,
  });
  if (input.dpop !== undefined) headers.set('dpop', await input.dpop.proof('POST', server.tokenEndpoint));
  return new Request(server.tokenEndpoint, { method: 'POST', headers, body: form, redirect: 'manual' });
}

function refused(
  status: number,
  body: Record<string, unknown> | undefined,
  scopes?: readonly string[],
): AgentFetchError {
  const error = typeof body?.error === 'string' ? body.error.slice(0, 64) : undefined;
  const reason = typeof body?.mandate_reason === 'string' ? body.mandate_reason.slice(0, 64) : undefined;
  const description = typeof body?.error_description === 'string' ? `: ${body.error_description.slice(0, 200)}` : '';
  return new AgentFetchError(
    'AGENT_TOKEN_REFUSED',
    `the token endpoint refused (HTTP ${status}${error ? `, ${error}` : ''}${reason ? `, ${reason}` : ''})${description}`,
    {
      status,
      ...(error === undefined ? {} : { oauthError: error }),
      ...(reason === undefined ? {} : { serviceReason: reason }),
      ...(error === 'invalid_scope' && scopes !== undefined ? { scopes } : {}),
    },
  );
}

function badAnswer(message: string): AgentFetchError {
  return new AgentFetchError('AGENT_TOKEN_RESPONSE_INVALID', `the token response ${message} (RFC 6749 §5.1)`);
}

function tokenOf(body: Record<string, unknown>, input: TokenRequestInput, sentAt: number): AgentToken {
  const { access_token: accessToken, token_type: type, expires_in: expiresIn, scope, iss } = body;
  if (typeof accessToken !== 'string' || accessToken.length === 0) throw badAnswer('has no access_token');
  const tokenType = typeof type === 'string' ? type.toLowerCase() : '';
  if (tokenType !== 'bearer' && tokenType !== 'dpop') throw badAnswer('has a token_type other than Bearer or DPoP');
  // RFC 9449 §5: a server that supports DPoP and was sent a proof binds the token; a Bearer token
  // then means the binding was dropped on the way, and is not used.
  if (input.dpop !== undefined && tokenType === 'bearer' && input.server.dpopAlgs.length > 0)
    throw badAnswer('is a Bearer token although a DPoP proof was sent (RFC 9449 §5)');
  if (expiresIn !== undefined && !(typeof expiresIn === 'number' && expiresIn > 0 && Number.isFinite(expiresIn)))
    throw badAnswer('has an expires_in that is no positive number');
  if (iss !== undefined && iss !== input.server.issuer)
    throw new AgentFetchError('AGENT_ISSUER_MISMATCH', `the token response names another issuer (RFC 9207 §2.4)`);
  const scopes = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [...(input.scopes ?? [])];
  return {
    accessToken,
    tokenType: tokenType === 'dpop' ? 'DPoP' : 'Bearer',
    scopes,
    expiresAt: sentAt + (expiresIn ?? DEFAULT_LIFETIME_SEC) * 1000,
    issuer: input.server.issuer,
    resource: input.resource,
  };
}

/**
 * Asks `input.server` for a token. Throws AGENT_TOKEN_REFUSED, AGENT_TOKEN_RESPONSE_INVALID,
 * AGENT_ISSUER_MISMATCH or AGENT_CLIENT_AUTH_UNSUPPORTED.
 */
export async function requestToken(input: TokenRequestInput): Promise<AgentToken> {
  for (let attempt = 0; ; attempt++) {
    const sentAt = input.now();
    const response = await input.send(await tokenRequest(input));
    const fresh = input.dpop?.remember(input.server.tokenEndpoint, response) ?? false;
    const body = await readJson(response);
    if (response.ok) {
      if (body === undefined) throw badAnswer('is no JSON object');
      return tokenOf(body, input, sentAt);
    }
    // RFC 9449 §8: once, with the nonce the server just gave.
    if (attempt === 0 && fresh && body?.error === 'use_dpop_nonce') continue;
    throw refused(response.status, body, input.scopes);
  }
}
