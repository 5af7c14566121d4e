/**
 * The issuer as an OAuth 2.1 authorization server (docs/oauth.md): its metadata (RFC 8414, and
 * the OpenID discovery subset workload-identity federation reads), the token endpoint's request
 * (form-encoded, RFC 6749 §3.2), its answers (RFC 6749 §5.1) and its errors (RFC 6749 §5.2, with
 * the Mandate reason code beside the OAuth code).
 *
 * Unlike the rest of the API, these bodies follow OAuth's conventions: snake_case members, the
 * error code a string (`error`), not the `{error: {code, …}}` object, and the `issuer` a URL
 * (RFC 8414 §2), with the issuer's DID published beside it (`mandate_issuer_did`).
 */
import { z } from 'zod';
import { endpoint } from './endpoint.ts';

/** RFC 6749 §4.4 */
export const GRANT_CLIENT_CREDENTIALS = 'client_credentials';
/** RFC 8693 §2.1 */
export const GRANT_TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 7523 §2.2 */
export const CLIENT_ASSERTION_TYPE_JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/**
 * The token type of a Mandate presentation as an RFC 8693 `subject_token`: the base64url
 * (RFC 4648 §5, unpadded) of the presentation's UTF-8 JSON — the same encoding as the
 * `Authorization: VP` header (docs/verifier.md).
 */
export const TOKEN_TYPE_MANDATE_PRESENTATION = 'urn:mandate:params:oauth:token-type:presentation';
/** RFC 8693 §3: the issued token is an OAuth access token. */
export const TOKEN_TYPE_ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
/** RFC 9068 §2.1: the `typ` header of an access token. */
export const ACCESS_TOKEN_TYP = 'at+jwt';
/** RFC 9449 §4.2: the `typ` header of a DPoP proof. */
export const DPOP_PROOF_TYP = 'dpop+jwt';

/**
 * RFC 6749 §5.2, RFC 8707 §2 (`invalid_target`), RFC 9449 §5/§8 (`invalid_dpop_proof`,
 * `use_dpop_nonce`): the error codes the token endpoint answers; `unsupported_response_type`
 * (RFC 6749 §4.1.2.1) is the authorization endpoint's only answer.
 */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'invalid_dpop_proof',
  'use_dpop_nonce',
  'unsupported_response_type',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

export const OAuthErrorSchema = z
  .object({
    error: z.enum(OAUTH_ERROR_CODES),
    error_description: z.string(),
    mandate_reason: z.string().meta({
      description: 'The Mandate reason code of the refusal (docs/oauth.md §Errors)',
      example: 'CREDENTIAL_REVOKED',
    }),
  })
  .meta({ id: 'OAuthError' });

/** RFC 8414 §2 authorization server metadata, as this issuer publishes it. */
export const AuthorizationServerMetadataSchema = z
  .object({
    issuer: z.url().meta({ description: "The issuer's public base URL; every access token's `iss`" }),
    mandate_issuer_did: z.string().meta({ description: "The issuer's DID (extension member)" }),
    authorization_endpoint: z.url().meta({
      description:
        'Published because clients (the MCP SDK) require it; it refuses every request (no user-facing flows)',
    }),
    token_endpoint: z.url(),
    jwks_uri: z.url(),
    introspection_endpoint: z.url(),
    grant_types_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    token_endpoint_auth_signing_alg_values_supported: z.array(z.string()),
    dpop_signing_alg_values_supported: z.array(z.string()),
    service_documentation: z.url().optional(),
    mandate_subject_token_types_supported: z.array(z.string()),
    mandate_bearer_tokens_allowed: z.boolean(),
  })
  .meta({ id: 'AuthorizationServerMetadata' });

/** The OpenID Connect Discovery 1.0 §3 subset that workload-identity federation reads. */
export const OpenIdConfigurationSchema = z
  .object({
    issuer: z.url(),
    authorization_endpoint: z.url(),
    jwks_uri: z.url(),
    token_endpoint: z.url(),
    response_types_supported: z.array(z.string()),
    subject_types_supported: z.array(z.string()),
    id_token_signing_alg_values_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    token_endpoint_auth_signing_alg_values_supported: z.array(z.string()),
    dpop_signing_alg_values_supported: z.array(z.string()),
    mandate_issuer_did: z.string(),
  })
  .meta({ id: 'OpenIdConfiguration' });

const param = (max: number) => z.string().min(1).max(max).optional();

/** RFC 6749 §3.2 form parameters of `POST /oauth/token` (each at most once; unknown ones ignored, §3.1). */
export const TokenRequestSchema = z
  .object({
    grant_type: param(128),
    scope: param(4096),
    resource: param(2048),
    client_id: param(2048),
    client_assertion_type: param(128),
    client_assertion: param(8192),
    client_secret: param(256),
    subject_token: param(60_000),
    subject_token_type: param(128),
    requested_token_type: param(128),
    actor_token: param(8192),
    actor_token_type: param(128),
  })
  .meta({ id: 'TokenRequest' });

/** RFC 6749 §5.1 (and RFC 8693 §2.2.1 `issued_token_type` for a token exchange). */
export const TokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.enum(['Bearer', 'DPoP']),
    expires_in: z.number().int().positive(),
    scope: z.string(),
    issued_token_type: z.literal(TOKEN_TYPE_ACCESS_TOKEN).optional(),
  })
  .meta({ id: 'TokenResponse' });

export type OAuthErrorBody = z.infer<typeof OAuthErrorSchema>;
export type AuthorizationServerMetadata = z.infer<typeof AuthorizationServerMetadataSchema>;
export type OpenIdConfiguration = z.infer<typeof OpenIdConfigurationSchema>;
export type TokenRequest = z.infer<typeof TokenRequestSchema>;
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

/**
 * The OAuth endpoints. All public: the token endpoint authenticates its clients itself
 * (private_key_jwt, a client secret, or the presentation), and reads its form body itself so a
 * repeated parameter is seen (RFC 6749 §3.2) — hence no body schema here: `TokenRequestSchema`
 * describes it in the document.
 */
export const oauthEndpoints = {
  authorizationServerMetadata: endpoint({
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    publicDocument: true,
    tag: 'OAuth',
    summary: 'RFC 8414 authorization server metadata (issuer = the base URL; the DID in mandate_issuer_did). Public.',
    auth: 'public',
    responses: { 200: { schema: AuthorizationServerMetadataSchema, description: 'The metadata' } },
    errors: [],
  }),
  openIdConfiguration: endpoint({
    method: 'GET',
    path: '/.well-known/openid-configuration',
    publicDocument: true,
    tag: 'OAuth',
    summary:
      'The OpenID Connect Discovery subset workload-identity federation reads (issuer, jwks_uri, token_endpoint). Public.',
    auth: 'public',
    responses: { 200: { schema: OpenIdConfigurationSchema, description: 'The discovery document' } },
    errors: [],
  }),
  oauthToken: endpoint({
    method: 'POST',
    path: '/oauth/token',
    tag: 'OAuth',
    summary:
      'OAuth token endpoint (RFC 6749 §3.2), form-encoded: client_credentials with private_key_jwt, or RFC 8693 token exchange of a Mandate presentation; DPoP (RFC 9449). Answers RFC 6749 §5.2 errors with mandate_reason. Public.',
    description:
      'Form parameters: ' +
      Object.keys(TokenRequestSchema.shape).join(', ') +
      '. See docs/oauth.md. The body is read by the endpoint itself (repeated parameters are refused).',
    auth: 'public',
    ownBody: 'form',
    responses: { 200: { schema: TokenResponseSchema, description: 'RFC 6749 §5.1' } },
    errors: [
      'invalid_request',
      'invalid_client',
      'invalid_grant',
      'unauthorized_client',
      'unsupported_grant_type',
      'invalid_scope',
      'invalid_target',
      'invalid_dpop_proof',
      'use_dpop_nonce',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
    ],
  }),
  oauthAuthorize: endpoint({
    method: 'GET',
    path: '/oauth/authorize',
    tag: 'OAuth',
    summary:
      'The authorization endpoint the metadata must name: no user-facing flow exists, so every request is 400 unsupported_response_type (RFC 6749 §4.1.2.1, never redirected). Public.',
    auth: 'public',
    responses: {},
    errors: ['unsupported_response_type'],
  }),
};
