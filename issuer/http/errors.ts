/**
 * One error shape for every response: `{error: {code, message, details?}}` with the right
 * status, never a stack trace. Services throw a `Refusal` (issuer/refusal.ts: a code, no status);
 * this edge answers it with the status of ISSUER_ERRORS and the headers its hints call for.
 * Hono's own HTTPExceptions (malformed JSON, 415 from the OpenAPI media-type gate) and zod
 * validation failures are translated into the same shape here, and anything unexpected becomes
 * a 500 INTERNAL_ERROR whose details go to the log only — except a storage failure that means
 * the database did not answer (storage/unavailable.ts): 503 DATABASE_UNAVAILABLE with Retry-After.
 *
 * Every refusal (4xx) is written to the audit log as REQUEST_REFUSED with its code, method,
 * path and request id — except unknown routes (404 from notFound) and repeated 429s within one
 * rate-limit window (the first is recorded), so a flood cannot grow the log without bound.
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { ZodError } from 'zod';
import { isMandateError } from '../../wallet/crypto/errors.ts';
import type { JsonObject, JsonValue } from '../../wallet/crypto/json-value.ts';
import type { OAuthErrorCode } from '../../wallet/contract/oauth.ts';
import { clipText, type AuditLog } from '../audit.ts';
import { Refusal, refuse } from '../refusal.ts';
import { databaseUnavailable, type DatabaseUnavailableError } from '../storage/unavailable.ts';
import type { IssuerEnv } from './env.ts';
import type { Logger } from '../log.ts';

/** Every error code of the issuer's API and its HTTP status: services refuse with a code (issuer/refusal.ts), this table answers it. */
export const ISSUER_ERRORS = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  /** A DID (path or body) that is not DID Core §3.1 syntax. */
  INVALID_DID: 400,
  /** A presentation /v1/vp/verify cannot even read (the verifier's MALFORMED). */
  MALFORMED: 400,
  /** A challenge signature that is neither base58btc multibase nor hex of 64 bytes. */
  SIGNATURE_ENCODING_INVALID: 400,
  /** VC-API: the credential to issue is not a VC 2.0 credential. */
  CREDENTIAL_INVALID: 400,
  UNAUTHORIZED: 401,
  TOKEN_INVALID: 403,
  TOKEN_EXPIRED: 403,
  CHALLENGE_EXPIRED: 403,
  CHALLENGE_MISMATCH: 403,
  PROOF_INVALID: 403,
  CUSTODY_MISMATCH: 403,
  /** A provider's audit event whose proof does not verify. */
  EVENT_SIGNATURE_INVALID: 403,
  /** A proof made with a key that is not the claimed signer's (or not in the right relationship). */
  KEY_NOT_AUTHORIZED: 403,
  NOT_FOUND: 404,
  AGENT_NOT_FOUND: 404,
  CHALLENGE_NOT_FOUND: 404,
  CREDENTIAL_NOT_FOUND: 404,
  STATUS_LIST_NOT_FOUND: 404,
  /** VC-API: the credential has no status entry for the purpose named. */
  STATUS_ENTRY_NOT_FOUND: 404,
  DID_NOT_FOUND: 404,
  /** A service id the DID document does not have. */
  SERVICE_NOT_FOUND: 404,
  /** DELETE of an agent's client secret when it has none. */
  CLIENT_SECRET_NOT_FOUND: 404,
  TOKEN_USED: 409,
  CHALLENGE_USED: 409,
  AGENT_EXISTS: 409,
  CREDENTIAL_ALREADY_REVOKED: 409,
  CREDENTIAL_REVOKED: 409,
  CREDENTIAL_SUPERSEDED: 409,
  CREDENTIAL_SUSPENDED: 409,
  CREDENTIAL_NOT_SUSPENDED: 409,
  NO_CURRENT_CREDENTIAL: 409,
  STATUS_LIST_EXISTS: 409,
  /** VC-API: a credential with this id (or options.credentialId) was issued here before. */
  CREDENTIAL_EXISTS: 409,
  /** The DID (or the did:web path chosen for it) already exists here. */
  DID_EXISTS: 409,
  /** The DID document already has a service with this id. */
  SERVICE_EXISTS: 409,
  /** The issuer's own DID cannot be deactivated through the API. */
  ISSUER_DID_PROTECTED: 409,
  /** A provider's audit event id that was already recorded. */
  EVENT_DUPLICATE: 409,
  DID_DEACTIVATED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  DID_METHOD_UNSUPPORTED: 422,
  NOT_REVOCABLE: 422,
  SCOPE_ESCALATION: 422,
  DEPTH_EXCEEDED: 422,
  DOMAIN_ESCALATION: 422,
  CHAIN_BROKEN: 422,
  /** did:key documents are derived from the key: they cannot carry services. */
  DID_KEY_SERVICES_UNSUPPORTED: 422,
  /** The DID's document is not served by this issuer, so it cannot be changed here. */
  DID_NOT_HOSTED: 422,
  /** A DID whose key must check a signature (a provider's) could not be resolved. */
  DID_RESOLUTION_FAILED: 422,
  /** A provider's audit event signed too long ago (or in the future). */
  EVENT_STALE: 422,
  /** VC-API: Mandate authority types are issued only through /v1 (enrollment, /v1/vcs). */
  CREDENTIAL_TYPE_RESERVED: 422,
  /** An entry for a purpose this issuer has no status list for (create one first). */
  STATUS_LIST_UNAVAILABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  /** A server-held key does not decrypt under the key-encryption key, or is not the key on record. */
  CUSTODY_KEY_UNREADABLE: 500,
  SERVICE_UNAVAILABLE: 503,
  /** The database did not answer (down, restarting, out of connection slots): nothing was decided; see Retry-After. */
  DATABASE_UNAVAILABLE: 503,
  /** GET /v1/ready: a dependency (the database) did not answer; `details.checks` names it. */
  NOT_READY: 503,
  /** GET /v1/ready after SIGTERM: this process is finishing its requests and takes no new ones. */
  SHUTTING_DOWN: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type IssuerErrorCode = keyof typeof ISSUER_ERRORS;

/** HTTP status of each OAuth error code (RFC 6749 §5.2: 400, and 401 for invalid_client). */
export const OAUTH_ERROR_STATUS: Record<OAuthErrorCode, 400 | 401> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  invalid_dpop_proof: 400,
  use_dpop_nonce: 400,
  unsupported_response_type: 400,
};

/** The status a refusal is answered with: the table's, the one place a code meets HTTP. */
export function statusOf(refusal: Refusal): ContentfulStatusCode {
  return ISSUER_ERRORS[refusal.code];
}

/** The headers a refusal's hints become: Retry-After (RFC 9110 §10.2.3), WWW-Authenticate (RFC 6750 §3). */
export function refusalHeaders(refusal: Refusal): Record<string, string> {
  const headers: Record<string, string> = {};
  if (refusal.retryAfterSeconds !== undefined) headers['Retry-After'] = String(refusal.retryAfterSeconds);
  const challenge = refusal.challenge;
  if (challenge !== undefined)
    headers['WWW-Authenticate'] = `${challenge.scheme} realm="${challenge.realm}", error="${challenge.error}"`;
  return headers;
}

export interface ErrorBody {
  error: { code: string; message: string; details?: JsonValue };
}

export function errorBody(code: string, message: string, details?: JsonValue): ErrorBody {
  return { error: { code, message, ...(details === undefined ? {} : { details }) } };
}

/** Hono's own refusals in our shape; any other HTTPException is treated as unexpected (500). */
function fromHttpException(error: HTTPException, bodyRefusal: string | undefined): Refusal | undefined {
  switch (error.status) {
    case 400:
      // The JSON validator's "Malformed JSON in request body".
      return /json/i.test(error.message)
        ? refuse('MALFORMED_JSON', bodyRefusal ?? 'the request body is not valid JSON')
        : refuse('VALIDATION_FAILED', 'the request is malformed');
    case 415:
      // The OpenAPI media-type gate.
      return refuse('UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json');
    default:
      return undefined;
  }
}

/** The zod issues as `details`: `[{path: "json.requestedScopes.0", message}]`. */
export function validationDetails(target: string, error: ZodError): JsonValue {
  return error.issues
    .slice(0, 20)
    .map((issue) => ({ path: [target, ...issue.path.map(String)].join('.'), message: issue.message }));
}

/** The OpenAPIHono defaultHook: a failed validation becomes 400 VALIDATION_FAILED with the zod issues. */
export function validationHook(result: { success: boolean; target: string; error?: ZodError }): void {
  if (!result.success && result.error) {
    throw refuse('VALIDATION_FAILED', `invalid ${result.target === 'json' ? 'request body' : result.target}`, {
      details: validationDetails(result.target, result.error),
    });
  }
}

/** A router for one group of routes: OpenAPI-described, validated with `validationHook`. */
export function createRouter(): OpenAPIHono<IssuerEnv> {
  return new OpenAPIHono<IssuerEnv>({ defaultHook: validationHook });
}

export interface ErrorHandlerDeps {
  audit: AuditLog;
  log: Logger;
}

function send(c: Context<IssuerEnv>, error: Refusal): Response {
  for (const [name, value] of Object.entries(refusalHeaders(error))) c.header(name, value);
  return c.json(errorBody(error.code, error.message, error.details), statusOf(error));
}

/** app.onError: every thrown error becomes the standard shape; refusals are audited. */
export function createErrorHandler(deps: ErrorHandlerDeps): ErrorHandler<IssuerEnv> {
  return async (thrown, c) => {
    const error: Refusal | undefined =
      thrown instanceof Refusal
        ? thrown
        : thrown instanceof HTTPException
          ? fromHttpException(thrown, c.get('bodyRefusal'))
          : undefined;
    const requestId = c.get('requestId');
    const database = error ? undefined : databaseUnavailable(thrown);
    if (database) return databaseRefusal(deps, c, database);
    if (!error) {
      // Unexpected: the name and code (if any) go to the log; the client learns nothing more.
      deps.log.error('unhandled error', {
        requestId,
        method: c.req.method,
        path: c.req.path,
        error: thrown instanceof Error ? thrown.name : typeof thrown,
        code: isMandateError(thrown) ? thrown.code : sqliteCode(thrown),
        message: isMandateError(thrown) ? thrown.message : undefined,
      });
      await safeAudit(deps, c, 'REQUEST_FAILED', refuse('INTERNAL_ERROR', 'internal error'));
      return send(c, refuse('INTERNAL_ERROR', 'internal error'));
    }
    if (error.audit)
      await safeAudit(
        deps,
        c,
        error.auditEvent ?? (statusOf(error) >= 500 ? 'REQUEST_FAILED' : 'REQUEST_REFUSED'),
        error,
      );
    return send(c, error);
  };
}

/** Seconds a client is told to wait when the database did not answer (a restart, a failover). */
const DATABASE_RETRY_SECONDS = 5;

/**
 * 503 DATABASE_UNAVAILABLE with Retry-After for a request the database could not serve; logged
 * with the driver's code (57P01, ECONNREFUSED, 53300, …), not audited: the audit log lives in
 * that database, and an outage would flood it.
 */
function databaseRefusal(deps: ErrorHandlerDeps, c: Context<IssuerEnv>, error: DatabaseUnavailableError): Response {
  deps.log.warn('database unavailable', {
    requestId: c.get('requestId'),
    method: c.req.method,
    path: c.req.path,
    error: error.name,
    code: error.driverCode,
  });
  return send(
    c,
    refuse('DATABASE_UNAVAILABLE', `the database is unavailable right now; retry after ${DATABASE_RETRY_SECONDS} s`, {
      retryAfterSeconds: DATABASE_RETRY_SECONDS,
      audit: false,
    }),
  );
}

/** A SqliteError's result code (`SQLITE_BUSY`, …): a fixed name, safe to log, that says what failed. */
function sqliteCode(thrown: unknown): string | undefined {
  const code: unknown =
    thrown instanceof Error && thrown.name === 'SqliteError' ? (thrown as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^SQLITE_[A-Z_]{1,40}$/.test(code) ? code : undefined;
}

/** Records the refusal before it is answered; a failing audit write is logged, never answered as a 500 loop. */
async function safeAudit(deps: ErrorHandlerDeps, c: Context<IssuerEnv>, event: string, error: Refusal): Promise<void> {
  const data: JsonObject = {
    method: c.req.method,
    path: clipText(c.req.path, 256),
    status: statusOf(error),
    requestId: c.get('requestId') ?? null,
  };
  try {
    await deps.audit.record({
      event,
      actor: c.get('actor') ?? 'anonymous',
      reason: error.code,
      ...(error.agentDid ? { agentDid: error.agentDid } : {}),
      data,
    });
  } catch {
    deps.log.error('audit record failed', { requestId: c.get('requestId'), event });
  }
}

/** app.notFound: unknown routes in the standard shape (not audited: nothing was refused). */
export const notFoundHandler: NotFoundHandler<IssuerEnv> = (c) =>
  c.json(errorBody('NOT_FOUND', `no route for ${c.req.method} ${c.req.path.slice(0, 200)}`), 404);
