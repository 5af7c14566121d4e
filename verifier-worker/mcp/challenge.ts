/**
 * Refusals as HTTP answers: the status and `WWW-Authenticate` challenge each reason earns
 * (RFC 6750 §3 and §3.1, RFC 9449 §7.1, RFC 9728 §5.1), with a JSON body carrying the OAuth
 * `error` and the Mandate `reason`. Every 401 and 403 names the metadata URL, so a client with
 * no configuration finds the authorization server (MCP §Authorization).
 */
import { DPOP_ALGS } from '../../wallet/crypto/dpop.ts';
import type { McpAuthReason } from './errors.ts';

export type AuthScheme = 'Bearer' | 'DPoP';

export interface ChallengeContext {
  /** The path-suffixed RFC 9728 metadata URL. */
  resourceMetadata: string;
  /** Scopes a 401 suggests asking for (MCP "scope selection"). */
  challengeScopes: readonly string[];
  /** Whether DPoP proofs are accepted (a `DPoP algs="…"` challenge, DPOP_ALGS, is added to 401s). */
  dpop: boolean;
}

const INVALID_TOKEN: readonly McpAuthReason[] = [
  'TOKEN_MALFORMED',
  'TOKEN_TYPE_INVALID',
  'TOKEN_KEY_UNKNOWN',
  'TOKEN_SIGNATURE_INVALID',
  'TOKEN_ISSUER_MISMATCH',
  'TOKEN_AUDIENCE_MISMATCH',
  'TOKEN_EXPIRED',
  'TOKEN_NOT_YET_VALID',
  'TOKEN_CLAIM_INVALID',
  'TOKEN_INACTIVE',
  'DPOP_PROOF_MISSING',
  'DPOP_BINDING_MISMATCH',
];

/** A quoted-string value (RFC 6750 §3: %x20-21 / %x23-5B / %x5D-7E). */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, "'")}"`;
}

function challenge(scheme: AuthScheme, params: Record<string, string | undefined>): string {
  const list = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${quoted(value)}`);
  return `${scheme} ${list.join(', ')}`;
}

const NO_STORE = { 'content-type': 'application/json', 'cache-control': 'no-store' };

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...NO_STORE, ...headers } });
}

/** The OAuth `error` of a 401 (RFC 6750 §3.1, RFC 9449 §7.1); undefined for a request without credentials. */
function oauthError(reason: McpAuthReason): string | undefined {
  if (reason === 'DPOP_PROOF_INVALID' || reason === 'DPOP_PROOF_REPLAYED') return 'invalid_dpop_proof';
  return INVALID_TOKEN.includes(reason) ? 'invalid_token' : undefined;
}

/** 401: no credentials (no `error`, RFC 6750 §3.1) or bad ones. */
function unauthorized(reason: McpAuthReason, message: string, context: ChallengeContext): Response {
  const error = oauthError(reason);
  const scope = context.challengeScopes.length > 0 ? context.challengeScopes.join(' ') : undefined;
  const dpopFirst = reason.startsWith('DPOP_');
  const bearer = challenge('Bearer', {
    resource_metadata: context.resourceMetadata,
    scope,
    ...(dpopFirst ? {} : { error, error_description: error && message }),
  });
  const dpop = challenge('DPoP', {
    algs: DPOP_ALGS.join(' '),
    ...(dpopFirst ? { error, error_description: message } : {}),
    resource_metadata: context.resourceMetadata,
  });
  // The SDK's client reads the first challenge's parameters: Bearer first, unless DPoP failed.
  const header = !context.dpop && !dpopFirst ? bearer : dpopFirst ? `${dpop}, ${bearer}` : `${bearer}, ${dpop}`;
  return json(
    401,
    { error: error ?? 'invalid_request', error_description: message, reason },
    {
      'www-authenticate': header,
    },
  );
}

/** 403 insufficient_scope (RFC 6750 §3.1): `scope` names what a new token must carry (step-up). */
export function forbidden(
  reason: 'INSUFFICIENT_SCOPE' | 'TOOL_NOT_LISTED',
  message: string,
  context: ChallengeContext,
  scheme: AuthScheme,
  needed: readonly string[],
): Response {
  const header = challenge(scheme, {
    error: 'insufficient_scope',
    scope: needed.length > 0 ? needed.join(' ') : undefined,
    resource_metadata: context.resourceMetadata,
    error_description: message,
  });
  return json(
    403,
    {
      error: 'insufficient_scope',
      error_description: message,
      reason,
      ...(needed.length ? { scope: needed.join(' ') } : {}),
    },
    { 'www-authenticate': header },
  );
}

/** The answer to a refusal with `reason` (the 403s have their own builder: they carry a scope). */
export function refusal(reason: McpAuthReason, message: string, context: ChallengeContext): Response {
  if (reason === 'JWKS_UNAVAILABLE' || reason === 'INTROSPECTION_UNAVAILABLE')
    return json(503, { error: 'temporarily_unavailable', error_description: message, reason }, { 'retry-after': '30' });
  if (reason === 'BODY_TOO_LARGE' || reason === 'BODY_MALFORMED' || reason === 'METHOD_NOT_ALLOWED') {
    // A JSON-RPC error the MCP client can read (JSON-RPC 2.0 §5.1: -32700 parse error, -32600
    // invalid request, -32601 method not found).
    const code = reason === 'BODY_MALFORMED' ? -32700 : reason === 'METHOD_NOT_ALLOWED' ? -32601 : -32600;
    return json(reason === 'BODY_TOO_LARGE' ? 413 : 400, {
      jsonrpc: '2.0',
      id: null,
      error: { code, message, data: { reason } },
    });
  }
  if (reason === 'INSUFFICIENT_SCOPE' || reason === 'TOOL_NOT_LISTED')
    return forbidden(reason, message, context, 'Bearer', []);
  return unauthorized(reason, message, context);
}
