/**
 * `POST /oauth/token` (RFC 6749 §3.2): form parameters in, an RFC 6749 §5.1 token or an §5.2
 * error out, every answer audited. The steps, in order (docs/oauth.md §Token endpoint):
 *
 * 1. parameters: each at most once (§3.2), within its size bound → `invalid_request`;
 * 2. `grant_type`: client_credentials or token exchange → `unsupported_grant_type`;
 * 3. `resource` (RFC 8707 §2): one absolute URI without fragment → `invalid_target`;
 * 4. DPoP (RFC 9449 §4.3) when a proof is sent, before the grant so that a nonce retry does
 *    not spend a presentation; without one, Bearer only if the operator allows it;
 * 5. the grant (grants.ts) → `invalid_client`, `unauthorized_client`, `invalid_grant`, …;
 * 6. `resource` covered by the authority's domains (wallet/vc/domains.ts: a host entry covers
 *    the https URIs at that host and port) → `invalid_target`;
 * 7. `scope`: every requested scope covered by the effective scopes, else `invalid_scope`;
 *    absent = all effective scopes (RFC 6749 §3.3 default);
 * 8. the access token (access-tokens.ts), recorded for introspection.
 *
 * Audit: OAUTH_TOKEN_ISSUED or OAUTH_TOKEN_REFUSED (reason = the Mandate reason), with the
 * agent, its delegators, the scopes, the resource, the grant, the token's jti and type; a
 * refusal also names the client the request claimed to be (`claimedClient`) — never the
 * token, the secret, the assertion or the presentation.
 */
import type { JsonObject } from '../../../wallet/crypto/json-value.ts';
import { readJwtClaims } from '../../../wallet/crypto/jwt.ts';
import { createVerifiedCredentialCache } from '../../../wallet/vc/credential-cache.ts';
import { domainsCover } from '../../../wallet/vc/domains.ts';
import { assertScope, normalizeScopes, uncovered } from '../../../wallet/vc/scopes.ts';
import {
  GRANT_CLIENT_CREDENTIALS,
  GRANT_TOKEN_EXCHANGE,
  TOKEN_TYPE_ACCESS_TOKEN,
  TokenRequestSchema,
  type OAuthErrorBody,
  type OAuthErrorCode,
  type TokenRequest,
  type TokenResponse,
} from '../../../wallet/contract/oauth.ts';
import { clipText } from '../../audit.ts';
import type { IssuerDeps } from '../../deps.ts';
import type { SessionTokenIssuer } from '../session-tokens.ts';
import { delegatorsOf, issueAccessToken } from './access-tokens.ts';
import { checkDpopProof, createDpopNonces, type DpopBinding } from './dpop.ts';
import { OAuthRefusal, refuse } from './errors.ts';
import { basicCredentials } from './client-secret.ts';
import { clientCredentialsGrant, tokenExchangeGrant, type GrantedAuthority } from './grants.ts';
import { oauthEndpoints } from './metadata.ts';

export interface TokenEndpointRequest {
  form: URLSearchParams;
  /** Every `DPoP` header value. */
  dpop: string[];
  /** The Authorization header (client_secret_basic), if any. */
  authorization?: string | undefined;
  /** Who called (the audit actor). */
  actor: string;
}

/**
 * What the endpoint decided, without HTTP: the edge (routes/oauth.ts) answers a refusal with
 * its OAuth error's status and sends `dpopNonce` as `DPoP-Nonce` (RFC 9449 §8).
 */
export type TokenEndpointAnswer =
  | { ok: true; body: TokenResponse; dpopNonce: string | undefined }
  | {
      ok: false;
      error: OAuthErrorCode;
      body: OAuthErrorBody;
      dpopNonce: string | undefined;
      /** The HTTP authentication scheme the client used, if any (RFC 6749 §5.2: a 401 names it). */
      clientAuthScheme: 'Basic' | undefined;
    };

const KNOWN = Object.keys(TokenRequestSchema.shape) as (keyof TokenRequest)[];

/** Step 1: each known parameter at most once (RFC 6749 §3.2), within its bound; unknown ones ignored (§3.1). */
export function parseTokenRequest(form: URLSearchParams): TokenRequest {
  const raw: Record<string, string> = {};
  for (const name of KNOWN) {
    const values = form.getAll(name);
    if (values.length > 1)
      refuse(
        name === 'resource' ? 'invalid_target' : 'invalid_request',
        name === 'resource' ? 'RESOURCE_INVALID' : 'OAUTH_REQUEST_INVALID',
        `${name} is sent more than once (RFC 6749 §3.2${name === 'resource' ? '; one resource per token' : ''})`,
      );
    if (values[0] !== undefined && values[0] !== '') raw[name] = values[0];
  }
  const parsed = TokenRequestSchema.safeParse(raw);
  if (!parsed.success)
    refuse(
      'invalid_request',
      'OAUTH_REQUEST_INVALID',
      `${parsed.error.issues[0]?.path.join('.') ?? 'a parameter'} is too long`,
    );
  return parsed.data;
}

/** Step 3: RFC 8707 §2: an absolute URI, no fragment. */
export function checkResource(resource: string | undefined): string {
  if (resource === undefined)
    return refuse(
      'invalid_target',
      'RESOURCE_INVALID',
      'resource is required: the RFC 8707 URI of the resource server',
    );
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return refuse('invalid_target', 'RESOURCE_INVALID', 'resource must be an absolute URI (RFC 8707 §2)');
  }
  if (resource.includes('#') || url.hash !== '')
    refuse('invalid_target', 'RESOURCE_INVALID', 'resource must not include a fragment (RFC 8707 §2)');
  return resource;
}

/** Step 7: the scopes of the token. */
export function grantedScopes(requested: string | undefined, effective: readonly string[], agentDid: string): string[] {
  if (requested === undefined) {
    if (effective.length === 0) refuse('invalid_scope', 'SCOPE_NOT_GRANTED', 'the authority holds no scope', agentDid);
    return normalizeScopes(effective);
  }
  const scopes = requested.split(' ');
  for (const scope of scopes) {
    try {
      assertScope(scope);
    } catch {
      refuse(
        'invalid_scope',
        'SCOPE_NOT_GRANTED',
        `${JSON.stringify(scope.slice(0, 64))} is not a Mandate scope (RFC 6749 §3.3)`,
        agentDid,
      );
    }
  }
  const missing = uncovered(scopes, effective);
  if (missing.length > 0)
    refuse(
      'invalid_scope',
      'SCOPE_NOT_GRANTED',
      `not covered by the effective scopes: ${missing.join(' ').slice(0, 300)}`,
      agentDid,
    );
  return normalizeScopes(scopes);
}

interface Attempt {
  grantType: string | undefined;
  resource: string | undefined;
  authority: GrantedAuthority | undefined;
  scopes: string[] | undefined;
}

function auditData(attempt: Attempt, extra: JsonObject): JsonObject {
  return {
    grantType: attempt.grantType === undefined ? null : clipText(attempt.grantType, 128),
    resource: attempt.resource === undefined ? null : clipText(attempt.resource, 256),
    delegators: delegatorsOf(attempt.authority?.act),
    scopes: attempt.scopes ?? null,
    ...extra,
  };
}

/**
 * The client a request claims to be, whether or not it authenticated: `client_id`, the Basic
 * user name, or the client assertion's unverified `iss` — so an operator can follow failed
 * logins. Never the secret, the assertion or the presentation.
 */
function claimedClientOf(request: TokenEndpointRequest): string | undefined {
  const id = request.form.get('client_id');
  if (id !== null && id !== '') return id;
  try {
    const basic = basicCredentials(request.authorization);
    if (basic !== undefined) return basic.clientId;
  } catch {
    // Basic credentials without a secret part: nothing to name.
  }
  const assertion = request.form.get('client_assertion');
  if (assertion === null) return undefined;
  const iss = readJwtClaims(assertion)?.iss;
  return typeof iss === 'string' ? iss : undefined;
}

async function recordRefusal(
  deps: Pick<IssuerDeps, 'audit'>,
  request: TokenEndpointRequest,
  attempt: Attempt,
  error: OAuthRefusal,
): Promise<void> {
  const actor = request.actor;
  const claimedClient = error.claimedClient ?? claimedClientOf(request);
  const agentDid = attempt.authority?.agentDid ?? error.agentDid;
  await deps.audit.record({
    event: 'OAUTH_TOKEN_REFUSED',
    actor,
    ...(agentDid === undefined ? {} : { agentDid: clipText(agentDid, 256) }),
    reason: error.code,
    data: auditData(attempt, {
      error: error.error,
      message: clipText(error.message, 300),
      ...(claimedClient === undefined ? {} : { claimedClient: clipText(claimedClient, 256) }),
    }),
  });
}

/** The refusal, and the scheme the client authenticated with over HTTP (Basic), none when it did so in the body. */
function refusalAnswer(
  error: OAuthRefusal,
  authorization: string | undefined,
  dpopNonce: string | undefined,
): TokenEndpointAnswer {
  return {
    ok: false,
    error: error.error,
    body: error.body(),
    dpopNonce,
    clientAuthScheme: /^Basic /i.test(authorization ?? '') ? 'Basic' : undefined,
  };
}

/** Step 4 without a proof where Bearer is not allowed. A client without DPoP (the MCP SDK's) meets this first: name the operator's switch. */
function refuseBearer(): never {
  return refuse(
    'invalid_request',
    'DPOP_REQUIRED',
    'send a DPoP proof (RFC 9449): this issuer issues no Bearer tokens unless its operator sets SERVICE_OAUTH_ALLOW_BEARER=true',
  );
}

export interface TokenEndpoint {
  handle(request: TokenEndpointRequest): Promise<TokenEndpointAnswer>;
}

/** What the token endpoint uses of the issuer's dependencies. */
export type TokenEndpointDeps = Pick<
  IssuerDeps,
  'config' | 'stores' | 'issuer' | 'resolver' | 'statusLists' | 'replayCache' | 'audit' | 'now'
>;

export function createTokenEndpoint(deps: TokenEndpointDeps, sessions: SessionTokenIssuer): TokenEndpoint {
  const endpoints = oauthEndpoints(deps.config);
  const nonces = deps.config.oauthDpopNonce ? createDpopNonces(() => deps.now()) : undefined;
  const credentialCache = createVerifiedCredentialCache({ ttlMs: 5 * 60_000, now: () => deps.now() });
  const dpopNonce = (): string | undefined => nonces?.current();

  type Exchange = { resource: string; binding: DpopBinding | undefined };
  const grant = (params: TokenRequest, exchange: Exchange, authorization: string | undefined) =>
    params.grant_type === GRANT_CLIENT_CREDENTIALS
      ? clientCredentialsGrant(deps, endpoints, params, basicCredentials(authorization))
      : tokenExchangeGrant(deps, endpoints, params, exchange, credentialCache);

  async function issue(request: TokenEndpointRequest, attempt: Attempt): Promise<TokenEndpointAnswer> {
    const params = parseTokenRequest(request.form);
    attempt.grantType = params.grant_type;
    if (params.grant_type === undefined) refuse('invalid_request', 'OAUTH_REQUEST_INVALID', 'grant_type is required');
    if (params.grant_type !== GRANT_CLIENT_CREDENTIALS && params.grant_type !== GRANT_TOKEN_EXCHANGE)
      refuse(
        'unsupported_grant_type',
        'GRANT_TYPE_UNSUPPORTED',
        `grant_type ${JSON.stringify(params.grant_type.slice(0, 64))} is not supported`,
      );
    attempt.resource = params.resource;
    const resource = checkResource(params.resource);
    const binding: DpopBinding | undefined = await checkDpopProof(deps, {
      headers: request.dpop,
      htu: endpoints.tokenEndpoint,
      nonces,
    });
    if (binding === undefined && !deps.config.oauthAllowBearer) refuseBearer();
    const authority = await grant(params, { resource, binding }, request.authorization);
    attempt.authority = authority;
    if (!domainsCover(authority.domains, resource))
      refuse(
        'invalid_target',
        'TARGET_MISMATCH',
        `this authority is limited to ${(authority.domains ?? []).join(', ').slice(0, 300)}`,
        authority.agentDid,
      );
    attempt.scopes = grantedScopes(params.scope, authority.effectiveScopes, authority.agentDid);
    const issued = await issueAccessToken(deps, sessions, endpoints.issuer, {
      agentDid: authority.agentDid,
      resource,
      scopes: attempt.scopes,
      act: authority.act,
      statusEntries: authority.statusEntries,
      jkt: binding?.jkt,
    });
    const tokenType = binding === undefined ? 'Bearer' : 'DPoP';
    await deps.audit.record({
      event: 'OAUTH_TOKEN_ISSUED',
      actor: request.actor,
      agentDid: authority.agentDid,
      reason: 'VALID',
      data: auditData(attempt, { tokenType, jti: issued.jti, expiresIn: issued.expiresIn }),
    });
    const body: TokenResponse = {
      access_token: issued.token,
      token_type: tokenType,
      expires_in: issued.expiresIn,
      scope: attempt.scopes.join(' '),
      ...(params.grant_type === GRANT_TOKEN_EXCHANGE ? { issued_token_type: TOKEN_TYPE_ACCESS_TOKEN } : {}),
    };
    return { ok: true, body, dpopNonce: dpopNonce() };
  }

  return {
    async handle(request) {
      const attempt: Attempt = { grantType: undefined, resource: undefined, authority: undefined, scopes: undefined };
      try {
        return await issue(request, attempt);
      } catch (error) {
        if (!(error instanceof OAuthRefusal)) throw error;
        await recordRefusal(deps, request, attempt, error);
        return refusalAnswer(error, request.authorization, dpopNonce());
      }
    },
  };
}
