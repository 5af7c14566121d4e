/**
 * The agent's own reason codes (each registered once in wallet/reasons/registry.ts, checked here
 * at compile time): why `agent.fetch` could not answer a service's challenge. A refusal by the
 * service or its authorization server carries that party's own codes beside ours (`oauthError`,
 * `serviceReason`), so a caller can tell "the AS said invalid_grant / CREDENTIAL_REVOKED" from
 * "the resource said TOKEN_INACTIVE". Messages never quote a token, a proof, a secret or a
 * presentation. docs/agents.md §Errors.
 */
import { MandateError } from '../crypto/errors.ts';
import type { RegisteredCode } from '../reasons/registry.ts';

export const AGENT_FETCH_CODES = [
  'AGENT_OPTIONS_INVALID',
  'AGENT_METADATA_INVALID',
  'AGENT_RESOURCE_MISMATCH',
  'AGENT_ISSUER_MISMATCH',
  'AGENT_CLIENT_AUTH_UNSUPPORTED',
  'AGENT_TOKEN_REFUSED',
  'AGENT_TOKEN_RESPONSE_INVALID',
  'AGENT_SCOPE_NOT_HELD',
  'AGENT_CREDENTIALS_MISSING',
  'AGENT_CHALLENGE_FAILED',
  'AGENT_SERVICE_REFUSED',
] as const satisfies readonly RegisteredCode[];

export type AgentFetchCode = (typeof AGENT_FETCH_CODES)[number];

export interface AgentFetchErrorDetails {
  /** The HTTP status of the answer that ended the attempt (the service's or the AS's). */
  status?: number;
  /** The OAuth `error` the party answered (RFC 6749 §5.2, RFC 6750 §3.1, RFC 9449). */
  oauthError?: string;
  /** That party's own reason code: the token endpoint's `mandate_reason`, a Mandate service's `reason`. */
  serviceReason?: string;
  /** AGENT_SCOPE_NOT_HELD: the challenged scopes the agent's authority does not cover. */
  scopes?: readonly string[];
  cause?: unknown;
}

/** What `agent.fetch` throws when a challenge cannot be answered (never for a plain non-2xx answer). */
export class AgentFetchError extends MandateError<AgentFetchCode> {
  override name = 'AgentFetchError';
  readonly status: number | undefined;
  readonly oauthError: string | undefined;
  readonly serviceReason: string | undefined;
  readonly scopes: readonly string[];

  constructor(code: AgentFetchCode, message: string, details: AgentFetchErrorDetails = {}) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.oauthError = details.oauthError;
    this.serviceReason = details.serviceReason;
    this.scopes = Object.freeze([...(details.scopes ?? [])]);
  }
}
