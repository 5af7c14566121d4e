/**
 * Token-endpoint refusals: an RFC 6749 §5.2 error code (what an OAuth client branches on) and a
 * Mandate reason code (what an operator reads in the audit log and the answer's
 * `mandate_reason`). Every refusal is raised as an OAuthRefusal in one place, documented in
 * docs/oauth.md §Errors and provoked by test/issuer/oauth/*.test.ts. No HTTP status here: the
 * edge answers each OAuth error code with its status (issuer/http/errors.ts OAUTH_ERROR_STATUS).
 */
import { MandateError } from '../../../wallet/crypto/errors.ts';
import type { OAuthErrorBody, OAuthErrorCode } from '../../../wallet/contract/oauth.ts';

/**
 * The Mandate reason codes the token endpoint adds to the verifier's (wallet/vc/reasons.ts) and
 * the issuer's (AGENT_NOT_FOUND, CUSTODY_MISMATCH, NO_CURRENT_CREDENTIAL, …).
 */
export type OAuthReason =
  /** A parameter missing, repeated, or not of its grammar. */
  | 'OAUTH_REQUEST_INVALID'
  /** A grant type this issuer does not issue for. */
  | 'GRANT_TYPE_UNSUPPORTED'
  /** No client authentication where the grant needs it, or an authentication method not supported. */
  | 'CLIENT_AUTH_MISSING'
  /** The client assertion is not a valid RFC 7523 JWT of the client (signature, claims, lifetime). */
  | 'CLIENT_ASSERTION_INVALID'
  /** The client assertion's `jti` was used before. */
  | 'CLIENT_ASSERTION_REPLAYED'
  /** A client secret that is not the agent's current one (api.md §Agent client secrets). */
  | 'CLIENT_SECRET_INVALID'
  /** More than one client authentication method in one request (RFC 6749 §2.3). */
  | 'CLIENT_AUTH_AMBIGUOUS'
  /** A requested scope that is not a Mandate scope, or not covered by the effective scopes. */
  | 'SCOPE_NOT_GRANTED'
  /** `resource` missing or not an absolute URI without fragment (RFC 8707 §2). */
  | 'RESOURCE_INVALID'
  /** The DPoP proof does not hold (RFC 9449 §4.3). */
  | 'DPOP_PROOF_INVALID'
  /** The DPoP proof's `jti` was used before. */
  | 'DPOP_PROOF_REPLAYED'
  /** The proof carries no (or a stale) server nonce (RFC 9449 §8). */
  | 'DPOP_NONCE_REQUIRED'
  /** No DPoP proof, and this issuer does not issue Bearer tokens (SERVICE_OAUTH_ALLOW_BEARER). */
  | 'DPOP_REQUIRED'
  /** The subject token is not of the supported token type, or does not decode. */
  | 'SUBJECT_TOKEN_INVALID'
  /** Token exchange with DPoP: the presentation's challenge is not bound to the DPoP key (presentation-binding.ts). */
  | 'PRESENTATION_NOT_BOUND'
  /** Token exchange without DPoP: the client did not authenticate as the presentation's holder. */
  | 'HOLDER_AUTH_REQUIRED'
  /** The authorization endpoint: this issuer runs no user-facing (redirect) flows. */
  | 'AUTHORIZATION_FLOW_UNSUPPORTED'
  | (string & {});

export class OAuthRefusal extends MandateError<OAuthReason> {
  override name = 'OAuthRefusal';
  readonly error: OAuthErrorCode;
  /** Known once the client is authenticated: who the refusal is about (the audit record's agentDid). */
  agentDid: string | undefined;
  /** The DID a request claimed before it was authenticated: audit data only, never the record's agentDid. */
  claimedClient: string | undefined;

  constructor(error: OAuthErrorCode, reason: OAuthReason, description: string, agentDid?: string) {
    super(reason, description);
    this.error = error;
    this.agentDid = agentDid;
  }

  /** RFC 6749 §5.2 body, with the Mandate reason beside the OAuth code. */
  body(): OAuthErrorBody {
    return { error: this.error, error_description: this.message, mandate_reason: this.code };
  }
}

/** Refuses; `agentDid` only once the agent is authenticated (a signature of its verified). */
export function refuse(error: OAuthErrorCode, reason: OAuthReason, description: string, agentDid?: string): never {
  throw new OAuthRefusal(error, reason, description, agentDid);
}

/** Refuses a request that claimed to come from `claimed` before that could be verified. */
export function refuseClaimed(
  error: OAuthErrorCode,
  reason: OAuthReason,
  description: string,
  claimed: string | undefined,
): never {
  const refusal = new OAuthRefusal(error, reason, description);
  refusal.claimedClient = claimed;
  throw refusal;
}
