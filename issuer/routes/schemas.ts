/**
 * zod schemas shared by the routes: they validate requests AND generate the OpenAPI document
 * (GET /v1/openapi.json), so the published contract is exactly what is enforced.
 */
import { z } from '@hono/zod-openapi';
import { MAX_SCOPE_LENGTH, MAX_SCOPES } from '../../wallet/vc/scopes.ts';
import { DID_SYNTAX } from '../../wallet/did/parse.ts';

// docs/scopes.md grammar (wallet/vc/scopes.ts SCOPE_RE): segment(:segment)*, segments [a-z0-9._-]+.
export const ScopeSchema = z
  .string()
  .max(MAX_SCOPE_LENGTH)
  .regex(/^[a-z0-9._-]+(?::[a-z0-9._-]+)*$/, 'a scope is segment(:segment)* with segments [a-z0-9._-]+')
  .openapi({ example: 'files:read' });

export const ScopesSchema = z.array(ScopeSchema).min(1).max(MAX_SCOPES);

// DID Core §3.1 syntax, bounded (wallet/did/parse.ts MAX_DID_URL_LENGTH is for DID URLs; DIDs here are shorter).
export const DidSchema = z
  .string()
  .max(2048)
  .regex(DID_SYNTAX, 'must be a DID (did:<method>:<id>, DID Core §3.1)')
  .openapi({ example: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' });

/**
 * Free text that ends up in the audit trail and on operators' screens: no control characters
 * (a terminal would act on them) and no bidirectional formatting characters (they reorder
 * what is shown, CVE-2021-42574).
 */
export const PrintableTextSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(
    /^[^\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+$/u,
    'must not contain control or bidirectional formatting characters',
  );

/** A target service name as presentations and credentials carry it (`domain`). */
export const DomainSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
  .openapi({ example: 'files.example.com' });

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'VALIDATION_FAILED' }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi('Error');

/** Every route's error responses, described once. */
export function errorResponses(
  ...statuses: number[]
): Record<number, { description: string; content: { 'application/json': { schema: typeof ErrorSchema } } }> {
  const descriptions: Record<number, string> = {
    400: 'Malformed request (VALIDATION_FAILED, MALFORMED_JSON)',
    401: 'Missing or wrong admin API key (UNAUTHORIZED)',
    403: 'Refused',
    404: 'Not found',
    409: 'Conflicts with the current state',
    410: 'Gone (deactivated)',
    413: 'Body too large (PAYLOAD_TOO_LARGE)',
    415: 'Body is not JSON (UNSUPPORTED_MEDIA_TYPE)',
    422: 'Semantically invalid',
    429: 'Rate limited (RATE_LIMITED), see Retry-After',
  };
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: descriptions[status] ?? 'Error', content: { 'application/json': { schema: ErrorSchema } } },
    ]),
  );
}

/** `{ json: schema }` request body, required. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { required: true, content: { 'application/json': { schema } }, ...(description ? { description } : {}) };
}

/** `{ json: schema }` request body that may be omitted (then validated as `{}`). */
export function optionalJsonBody<T extends z.ZodType>(schema: T) {
  return { required: false, content: { 'application/json': { schema } } };
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export const ADMIN_SECURITY = [{ adminBearer: [] }];

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Any JSON object (credentials, presentations, DID documents), validated further by the wallet
 * and handed on exactly as received: z.record would build a copy, and the copy loses an own
 * `__proto__` member (assigning it sets the prototype), so a member the wallet refuses as
 * MALFORMED would be gone before the wallet saw it.
 */
export const JsonObjectSchema = z
  .custom<Record<string, unknown>>(isJsonObject, { message: 'must be a JSON object' })
  .openapi({ type: 'object', additionalProperties: true });

export const PageQuerySchema = z.object({
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
