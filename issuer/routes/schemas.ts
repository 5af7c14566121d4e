/**
 * What the routes share to describe themselves in the OpenAPI document (GET /v1/openapi.json):
 * error responses, body and response wrappers, the admin security requirement. The schemas are
 * the contract's (wallet/contract): the routes validate with them and publish them, so the
 * published contract is exactly what is enforced.
 */
import type { z } from 'zod';
import { ErrorSchema } from '../../wallet/contract/errors.ts';

// The contract's schemas the routes share, re-exported for the routes that build on them.
export {
  DidSchema,
  DomainSchema,
  JsonObjectSchema,
  PageQuerySchema,
  PrintableTextSchema,
  ScopeSchema,
  ScopesSchema,
} from '../../wallet/contract/primitives.ts';
export { ErrorSchema };

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
