/**
 * The client's two error classes. `IssuerApiError` is the issuer's own refusal, carrying its
 * HTTP status and the API's stable code (`TOKEN_USED`, `CREDENTIAL_NOT_FOUND`, … docs/api.md);
 * `IssuerClientError` is a failure on this side of the wire (network, timeout, an unreadable
 * answer). Callers branch on `code`. Neither ever carries a secret: messages and details
 * coming from the server are redacted of the admin key and the call's own secrets (enrollment
 * token, challenge) before they reach an error.
 */
import { MandateError } from '../crypto/errors.ts';
import type { JsonValue } from '../crypto/json-value.ts';

export type IssuerClientErrorCode =
  /** Options or input that cannot work: a base URL that is not http(s), plain http to a non-loopback host, bad numbers, a body JSON cannot carry. */
  | 'CONFIG_INVALID'
  /** An operator call on a client configured without `adminKey`. */
  | 'ADMIN_KEY_REQUIRED'
  /** The request never got an HTTP answer (connection refused, reset, DNS). */
  | 'NETWORK_ERROR'
  /** No complete answer within `timeoutMs` (headers and body). */
  | 'TIMEOUT'
  /** The caller's AbortSignal fired. */
  | 'ABORTED'
  /** A success answer that is not the JSON the API documents (or a redirect, which is refused). */
  | 'RESPONSE_INVALID'
  /** An answer larger than `maxResponseBytes`. */
  | 'RESPONSE_TOO_LARGE'
  /** The session-token key (or the issuer's DID) could not be fetched from the issuer. */
  | 'KEY_UNAVAILABLE';

export class IssuerClientError extends MandateError<IssuerClientErrorCode> {
  override name = 'IssuerClientError';
}

/** The API's error codes are UPPER_SNAKE; anything else in an error body is not trusted as one. */
const API_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/** A refusal by the issuer: `{error: {code, message, details?}}` with its HTTP status. */
export class IssuerApiError extends MandateError<string> {
  override name = 'IssuerApiError';
  readonly status: number;
  readonly details: JsonValue | undefined;
  /** X-Request-Id of the answer, to find it in the issuer's logs. */
  readonly requestId: string | undefined;
  /** Retry-After of a 429/503, in seconds, when the issuer sent one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { details?: JsonValue; requestId?: string; retryAfterSeconds?: number } = {},
  ) {
    super(API_CODE.test(code) ? code : 'HTTP_ERROR', message);
    this.status = status;
    this.details = extra.details;
    this.requestId = extra.requestId;
    this.retryAfterSeconds = extra.retryAfterSeconds;
  }
}

export function isIssuerApiError(error: unknown, code?: string): error is IssuerApiError {
  return error instanceof IssuerApiError && (code === undefined || error.code === code);
}

const REDACTED = '[redacted]';

/**
 * `value` with every occurrence of each secret replaced. Secrets shorter than 8 characters are
 * not searched for (they would match ordinary words); the ones passed here are far longer.
 */
export function redact<T extends JsonValue | undefined>(value: T, secrets: readonly string[]): T {
  const live = secrets.filter((s) => s.length >= 8);
  if (live.length === 0 || value === undefined) return value;
  const scrub = (v: JsonValue): JsonValue => {
    if (typeof v === 'string') return live.reduce((text, secret) => text.split(secret).join(REDACTED), v);
    if (Array.isArray(v)) return v.map(scrub);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [scrub(k) as string, scrub(inner)]));
    return v;
  };
  return scrub(value) as T;
}
