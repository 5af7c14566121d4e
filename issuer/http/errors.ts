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
import { issuerStatuses, type IssuerCode } from '../../wallet/reasons/registry.ts';
import { clipText, type AuditLog } from '../audit.ts';
import { Refusal, refuse } from '../refusal.ts';
import { databaseUnavailable, type DatabaseUnavailableError } from '../storage/unavailable.ts';
import type { IssuerEnv } from './env.ts';
import type { Logger } from '../log.ts';

/**
 * Every error code of the issuer's API and its HTTP status: services refuse with a code
 * (issuer/refusal.ts), this table answers it. A view of the reason registry (wallet/reasons/registry.ts, the codes with an `issuer`
 * status), where each code's meaning is, and from which docs/api.md §Error codes is generated.
 */
export const ISSUER_ERRORS = issuerStatuses();

/** Compile-time: every status of the table is one Hono can answer with a body. */
const _contentfulStatuses: Readonly<Record<IssuerCode, ContentfulStatusCode>> = ISSUER_ERRORS;

export type IssuerErrorCode = IssuerCode;

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
