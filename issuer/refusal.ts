/**
 * The issuer's domain refusal: a stable code, a message a person can act on, and optional
 * details — never an HTTP status or a header name. Services throw `refuse(CODE, …)`; the HTTP
 * edge (issuer/http/errors.ts) is the one place that turns the code into a status and the
 * semantic hints below (seconds to wait, an authentication challenge) into headers.
 */
import { MandateError } from '../wallet/crypto/errors.ts';
import type { JsonValue } from '../wallet/crypto/json-value.ts';
// The codes the issuer answers with: the reason registry's codes that carry an issuer status
// (wallet/reasons/registry.ts), so a refusal needs nothing from the HTTP edge.
import type { IssuerCode } from '../wallet/reasons/registry.ts';

export type IssuerErrorCode = IssuerCode;

/** An RFC 6750 §3 Bearer challenge: which credential was missing or wrong, for the client to fix. */
export interface BearerChallenge {
  scheme: 'Bearer';
  realm: string;
  /** RFC 6750 §3.1: invalid_request (no or malformed credential) or invalid_token (not a valid one). */
  error: 'invalid_request' | 'invalid_token';
}

export interface RefusalOptions {
  details?: JsonValue;
  /** The agent concerned, for the audit record of the refusal. */
  agentDid?: string;
  /** false: do not audit this refusal (repeated 429s, an unavailable database). */
  audit?: boolean;
  /**
   * The audit event of an answer that is not a refusal though it is not a success: a repeated
   * revoke (CREDENTIAL_ALREADY_REVOKED) is an idempotent outcome for clients, recorded as what it is.
   */
  auditEvent?: string;
  /** Whole seconds after which a retry can succeed (a rate-limit window, a database restart). */
  retryAfterSeconds?: number;
  /** The authentication the client must present (UNAUTHORIZED). */
  challenge?: BearerChallenge;
  cause?: unknown;
}

export class Refusal extends MandateError<IssuerErrorCode> {
  override name = 'Refusal';
  readonly details: JsonValue | undefined;
  readonly agentDid: string | undefined;
  readonly audit: boolean;
  readonly auditEvent: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly challenge: BearerChallenge | undefined;

  constructor(code: IssuerErrorCode, message: string, options: RefusalOptions = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.details = options.details;
    this.agentDid = options.agentDid;
    this.audit = options.audit ?? true;
    this.auditEvent = options.auditEvent;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.challenge = options.challenge;
  }
}

/** A Refusal to throw: `throw refuse('AGENT_NOT_FOUND', \`${did} is not enrolled here\`)`. */
export function refuse(code: IssuerErrorCode, message: string, options?: RefusalOptions): Refusal {
  return new Refusal(code, message, options);
}

/** A page cursor this issuer never gave: refused, lest a mistyped one read as "no more results". */
export function invalidCursor(): Refusal {
  return refuse('VALIDATION_FAILED', 'cursor is not one this list gave: pass nextCursor back as it came', {
    details: [{ path: 'query.cursor', message: 'unknown cursor' }],
  });
}
