/**
 * The issuer's authorization-server metadata (RFC 8414 §2) and the OpenID Connect Discovery 1.0
 * §3 subset that workload-identity federation reads. `issuer` is the public base URL
 * (`API_BASE_URL`), not the DID: RFC 8414 §2 requires an https URL (http on loopback in
 * development) and RFC 9068 §2.2 puts the same value in every access token's `iss`. The DID is
 * published beside it as `mandate_issuer_did`.
 *
 * `authorization_endpoint` is published although no flow uses it: RFC 8414 §2 lets it be
 * omitted, but common clients (the MCP SDK's metadata schema) require it. It answers every
 * request with `unsupported_response_type` (routes/oauth.ts).
 */
import {
  CLIENT_ASSERTION_TYPE_JWT_BEARER,
  GRANT_CLIENT_CREDENTIALS,
  GRANT_TOKEN_EXCHANGE,
  TOKEN_TYPE_MANDATE_PRESENTATION,
  type AuthorizationServerMetadata,
  type OpenIdConfiguration,
} from '../../../wallet/contract/oauth.ts';
import { DPOP_ALGS } from '../../../wallet/crypto/dpop.ts';
import type { IssuerConfig } from '../../config/index.ts';

/** JWS algorithms for Ed25519 signatures: RFC 8037 §3.1 `EdDSA` and RFC 9864 §2 `Ed25519`. */
export const ED25519_ALGS = ['EdDSA', 'Ed25519'] as const;

export { CLIENT_ASSERTION_TYPE_JWT_BEARER };

export interface OAuthEndpoints {
  issuer: string;
  /** Answers every request with unsupported_response_type: published because clients require the member. */
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  introspectionEndpoint: string;
}

export function oauthEndpoints(config: Pick<IssuerConfig, 'apiBaseUrl'>): OAuthEndpoints {
  const base = config.apiBaseUrl;
  return {
    issuer: base,
    authorizationEndpoint: `${base}/oauth/authorize`,
    tokenEndpoint: `${base}/oauth/token`,
    jwksUri: `${base}/.well-known/jwks.json`,
    introspectionEndpoint: `${base}/v1/sessions/introspect`,
  };
}

export function authorizationServerMetadata(
  config: Pick<IssuerConfig, 'apiBaseUrl' | 'oauthAllowBearer'>,
  issuerDid: string,
): AuthorizationServerMetadata {
  const endpoints = oauthEndpoints(config);
  return {
    issuer: endpoints.issuer,
    mandate_issuer_did: issuerDid,
    authorization_endpoint: endpoints.authorizationEndpoint,
    token_endpoint: endpoints.tokenEndpoint,
    jwks_uri: endpoints.jwksUri,
    introspection_endpoint: endpoints.introspectionEndpoint,
    grant_types_supported: [GRANT_CLIENT_CREDENTIALS, GRANT_TOKEN_EXCHANGE],
    // RFC 8414 §2 makes this member REQUIRED; the authorization endpoint grants no response type.
    response_types_supported: [],
    token_endpoint_auth_methods_supported: ['private_key_jwt', 'client_secret_basic', 'client_secret_post', 'none'],
    token_endpoint_auth_signing_alg_values_supported: [...ED25519_ALGS],
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    mandate_subject_token_types_supported: [TOKEN_TYPE_MANDATE_PRESENTATION],
    mandate_bearer_tokens_allowed: config.oauthAllowBearer,
  };
}

export function openIdConfiguration(config: Pick<IssuerConfig, 'apiBaseUrl'>, issuerDid: string): OpenIdConfiguration {
  const endpoints = oauthEndpoints(config);
  return {
    issuer: endpoints.issuer,
    authorization_endpoint: endpoints.authorizationEndpoint,
    jwks_uri: endpoints.jwksUri,
    token_endpoint: endpoints.tokenEndpoint,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['EdDSA'],
    grant_types_supported: [GRANT_CLIENT_CREDENTIALS, GRANT_TOKEN_EXCHANGE],
    token_endpoint_auth_methods_supported: ['private_key_jwt', 'client_secret_basic', 'client_secret_post', 'none'],
    token_endpoint_auth_signing_alg_values_supported: [...ED25519_ALGS],
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    mandate_issuer_did: issuerDid,
  };
}
