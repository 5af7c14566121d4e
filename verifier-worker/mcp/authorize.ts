/**
 * `authorizeMcpRequest`: the framework-neutral core of the MCP resource server. A Web `Request`
 * in; out, either the caller (who, by which delegators, with which scopes, as the MCP SDK's
 * `AuthInfo`) or the refusal to send. Every request is judged on its own (MCP 2026-07-28 is
 * stateless): credentials (access-token.ts, dpop.ts, or a Mandate presentation through
 * `verifyRequest`), then the JSON-RPC body against the tool table (tool-scopes.ts).
 */
import { parseUnambiguousJson } from '../../wallet/crypto/json-parse.ts';
import { readBounded } from '../../wallet/net/http.ts';
import { CHAIN_DIGEST_HEADER, CHAIN_HEADER } from '../../wallet/vc/chain-header.ts';
import { denialResponse, handleChallengeRequest, verifyRequest, type VerifyRequestOptions } from '../request.ts';
import { verifyAccessToken, type AccessToken } from './access-token.ts';
import { forbidden, refusal, type AuthScheme } from './challenge.ts';
import { verifyDpopProof } from './dpop.ts';
import { McpAuthError, type McpAuthReason } from './errors.ts';
import { metadataResponse } from './metadata.ts';
import { mcpStateFor, type McpAuthOptions, type McpAuthState } from './options.ts';
import { missingScopes, toolDemand, type ToolDemand } from './tool-scopes.ts';

/** The caller a tool handler sees (also in `authInfo.extra`). */
export interface McpCaller {
  /** How the caller proved itself: an access token, a presentation, or a signed request bound to its chain. */
  via: 'token' | 'presentation' | 'signature';
  agentDid: string;
  /** Who delegated to the agent, nearest first (token `act`, or the presentation's chain). */
  delegators: string[];
  scopes: string[];
  clientId: string;
}

/** The MCP SDK's `AuthInfo` (server/auth/types.ts), structurally: what its transports hand to tool handlers. */
export interface McpAuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  expiresAt?: number;
  resource?: URL;
  extra: { agentDid: string; delegators: string[]; via: McpCaller['via']; issuer?: string; jti?: string };
}

export type McpAuthorization =
  | { allowed: true; caller: McpCaller; authInfo: McpAuthInfo; body: unknown; demand: ToolDemand | undefined }
  | { allowed: false; reason: string; response: Response };

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_TOKEN_LENGTH = 16 * 1024;

function credentials(request: Request): { scheme: string; value: string } | undefined {
  const header = request.headers.get('authorization');
  const match = header === null ? null : /^([A-Za-z]+) +(\S+)$/.exec(header.trim());
  if (match === null) return undefined;
  return { scheme: (match[1] as string).toLowerCase(), value: match[2] as string };
}

async function tokenCaller(
  state: McpAuthState,
  request: Request,
  scheme: AuthScheme,
  token: string,
): Promise<AccessToken> {
  if (!TOKEN68.test(token)) throw new McpAuthError('TOKEN_MALFORMED', 'the token is not a token68 (RFC 6750 §2.1)');
  const verified = await verifyAccessToken(token, {
    issuer: state.issuer,
    resource: state.resource,
    jwks: state.jwks,
    clockSkewSec: state.clockSkewSec,
    maxLifetimeSec: state.maxTokenLifetimeSec,
    maxTokenLength: MAX_TOKEN_LENGTH,
    now: state.now,
  });
  if (verified.jkt !== undefined) await checkDpop(state, request, scheme, token, verified.jkt);
  else if (scheme === 'DPoP' || state.requireDpop)
    throw new McpAuthError('DPOP_PROOF_MISSING', 'this resource needs a DPoP-bound token (RFC 9449 §7.1)');
  // Last, as it costs a round trip: the issuer's word that the token was not revoked since.
  await state.introspector?.assertActive(token, verified.jti, verified.expiresAt);
  return verified;
}

async function checkDpop(state: McpAuthState, request: Request, scheme: AuthScheme, token: string, jkt: string) {
  const proof = request.headers.get('dpop');
  if (scheme !== 'DPoP' || proof === null)
    throw new McpAuthError(
      'DPOP_PROOF_MISSING',
      'a DPoP-bound token needs the DPoP scheme and a DPoP proof (RFC 9449 §7.1)',
    );
  // Several DPoP headers arrive combined with "," (RFC 9110 §5.3): the verifier refuses them as
  // an invalid proof (RFC 9449 §4.3 item 1), answered invalid_dpop_proof as §7.1 says.
  await verifyDpopProof(proof, {
    method: request.method,
    // `htu` is the URL the client used: the resource's origin (this server may sit behind a
    // proxy that rewrote scheme, host and port) with the path it asked for.
    url: `${state.resourceUrl.origin}${new URL(request.url).pathname}`,
    accessToken: token,
    jkt,
    replayCache: state.replayCache,
    maxAgeSec: state.dpopMaxAgeSec,
    clockSkewSec: state.clockSkewSec,
    now: state.now,
  });
}

function tokenAuthorization(state: McpAuthState, token: AccessToken): { caller: McpCaller; authInfo: McpAuthInfo } {
  const caller: McpCaller = {
    via: 'token',
    agentDid: token.agentDid,
    delegators: token.delegators,
    scopes: token.scopes,
    clientId: token.clientId,
  };
  const authInfo: McpAuthInfo = {
    token: token.token,
    clientId: token.clientId,
    scopes: token.scopes,
    expiresAt: token.expiresAt,
    resource: new URL(state.resource),
    extra: {
      agentDid: token.agentDid,
      delegators: token.delegators,
      via: 'token',
      issuer: token.issuer,
      jti: token.jti,
    },
  };
  return { caller, authInfo };
}

/**
 * A presentation, or a signed request bound to its chain (docs/protocol.md §Signed requests),
 * through `verifyRequest`; `value` is what the SDK's AuthInfo calls the token.
 */
async function presentationAuthorization(
  state: McpAuthState,
  request: Request,
  options: VerifyRequestOptions,
  value: string,
): Promise<{ caller: McpCaller; authInfo: McpAuthInfo } | Response> {
  const verdict = await verifyRequest(request, options);
  if (!verdict.allowed) return denialResponse(verdict);
  const { claims } = verdict;
  const via = claims.signature === undefined ? 'presentation' : 'signature';
  const delegators = claims.chain.filter((link) => link.type === 'DelegatedAgentCredential').map((link) => link.issuer);
  const caller: McpCaller = {
    via,
    agentDid: claims.agentDid,
    delegators,
    scopes: claims.effectiveScopes,
    clientId: claims.agentDid,
  };
  const authInfo: McpAuthInfo = {
    token: value,
    clientId: claims.agentDid,
    scopes: claims.effectiveScopes,
    resource: new URL(state.resource),
    extra: { agentDid: claims.agentDid, delegators, via },
  };
  return { caller, authInfo };
}

/** Whether the request names a credential chain, as a signed request does (docs/protocol.md §Signed requests). */
function namesChain(request: Request): boolean {
  return request.headers.has(CHAIN_HEADER) || request.headers.has(CHAIN_DIGEST_HEADER);
}

/** The POST body, parsed (I-JSON: a duplicated member name is refused, so no two readers disagree on `params.name`). */
async function readJsonRpc(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw new McpAuthError('BODY_TOO_LARGE', `the body is larger than ${maxBytes} bytes`);
  const bytes = await readBounded(request.clone().body, maxBytes);
  if (bytes === undefined) throw new McpAuthError('BODY_TOO_LARGE', `the body is larger than ${maxBytes} bytes`);
  try {
    return parseUnambiguousJson(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new McpAuthError('BODY_MALFORMED', 'the body is not JSON (JSON-RPC 2.0 §5.1 parse error)');
  }
}

async function judge(state: McpAuthState, request: Request): Promise<McpAuthorization> {
  const presented = credentials(request);
  let who: { caller: McpCaller; authInfo: McpAuthInfo } | Response;
  let scheme: AuthScheme = 'Bearer';
  if (presented?.scheme === 'vp' && state.presentations !== undefined) {
    who = await presentationAuthorization(state, request, state.presentations, presented.value);
    if (who instanceof Response) return { allowed: false, reason: 'PRESENTATION_REFUSED', response: who };
  } else if (presented === undefined && state.presentations !== undefined && namesChain(request)) {
    // A signed request instead of a token: the signature is its credential.
    const value = request.headers.get('signature') ?? '';
    who = await presentationAuthorization(state, request, state.presentations, value);
    if (who instanceof Response) return { allowed: false, reason: 'SIGNATURE_REFUSED', response: who };
  } else if (presented?.scheme === 'bearer' || presented?.scheme === 'dpop') {
    scheme = presented.scheme === 'dpop' ? 'DPoP' : 'Bearer';
    who = tokenAuthorization(state, await tokenCaller(state, request, scheme, presented.value));
  } else {
    throw new McpAuthError('TOKEN_MISSING', 'this MCP server needs an access token (RFC 6750 §3.1)');
  }
  if (request.method.toUpperCase() !== 'POST') return { allowed: true, ...who, body: undefined, demand: undefined };
  const body = await readJsonRpc(request, state.maxBodyBytes);
  const demand = toolDemand(body, state.tools, state.methods);
  const missing = missingScopes(demand.scopes, who.caller.scopes);
  if (missing.length > 0) {
    const message = `calling ${demand.tools.join(', ')} needs ${missing.join(' ')}`;
    const response = forbidden('INSUFFICIENT_SCOPE', message, state.challenge, scheme, demand.scopes);
    return { allowed: false, reason: 'INSUFFICIENT_SCOPE', response };
  }
  return { allowed: true, ...who, body, demand };
}

/**
 * Judges `request` for the MCP endpoint configured by `options`. Refusals are values; only a bad
 * configuration (McpAuthOptionsError) or an unexpected failure rejects.
 */
export async function authorizeMcpRequest(request: Request, options: McpAuthOptions): Promise<McpAuthorization> {
  const state = mcpStateFor(options);
  try {
    return await judge(state, request);
  } catch (error) {
    if (!(error instanceof McpAuthError)) throw error;
    const reason: McpAuthReason = error.code;
    return { allowed: false, reason, response: refusal(reason, error.message, state.challenge) };
  }
}

/**
 * What the middleware answers without credentials: the RFC 9728 metadata, and — when
 * presentations are accepted in 'endpoint' challenge mode — the presentation challenge endpoint.
 */
export async function publicMcpResponse(request: Request, options: McpAuthOptions): Promise<Response | undefined> {
  const state = mcpStateFor(options);
  const metadata = metadataResponse(request, state.metadataPaths, state.metadata);
  if (metadata !== undefined || state.presentations === undefined) return metadata;
  return handleChallengeRequest(request, state.presentations);
}
