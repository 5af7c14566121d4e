/**
 * Token-endpoint refusals: an RFC 6749 §5.2 error code (what an OAuth client branches on) and a
 * Mandate reason code (what an operator reads in the audit log and the answer's
 * `mandate_reason`). Every refusal is raised as an OAuthRefusal in one place, documented in
 * docs/oauth.md §Errors and provoked by test/issuer/oauth/*.test.ts. No HTTP status here: the
 * edge answers each OAuth error code with its status (issuer/http/errors.ts OAUTH_ERROR_STATUS).
 */
import { MandateError } from '../../../wallet/crypto/errors.ts';
import type { OAuthErrorBody, OAuthErrorCode } from '../../../wallet/contract/oauth.ts';
import { isOAuthReasonCode, type OAuthError, type OAuthReasonCode } from '../../../wallet/reasons/registry.ts';

/**
 * The Mandate reasons the token endpoint answers (`mandate_reason`): the registry's codes that
 * carry an OAuth `error` (wallet/reasons/registry.ts) — its own (OAUTH_REQUEST_INVALID,
 * CLIENT_ASSERTION_INVALID, DPOP_PROOF_INVALID, …), the verifier's (a refused presentation) and the
 * issuer's (AGENT_NOT_FOUND, CUSTODY_MISMATCH, NO_CURRENT_CREDENTIAL, …). docs/oauth.md §Errors is
 * generated from the same entries.
 */
export type OAuthReason = OAuthReasonCode;

/** Compile-time: the registry's OAuth errors are exactly the contract's. */
const _sameOAuthErrors: [OAuthError, OAuthErrorCode] extends [OAuthErrorCode, OAuthError] ? true : never = true;

/** `code` when it is a reason the token endpoint answers, else `fallback`. */
export function oauthReasonOf(code: unknown, fallback: OAuthReason): OAuthReason {
  return isOAuthReasonCode(code) ? code : fallback;
}

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
