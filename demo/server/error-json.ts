/** The demo runner's error answers: `{error: {code, message}}`, the issuer's own shape. */
import { isIssuerApiError } from '../../wallet/client/errors.ts';

export function errorJson(code: string, message: string, status: 400 | 404 | 413 | 500 | 502): Response {
  return Response.json({ error: { code, message } }, { status });
}

/** The issuer's refusal (say, 404 for an unknown credential) passes through as it came. */
export function demoErrorResponse(error: Error): Response {
  return isIssuerApiError(error)
    ? Response.json({ error: { code: error.code, message: error.message } }, { status: error.status })
    : errorJson('DEMO_ERROR', error.message, 500);
}
