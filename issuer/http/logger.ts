/**
 * The request log (the logger itself is ../log.ts): one `request` line per request, naming
 * only method, path (no query string), status, duration and request id.
 */
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../log.ts';
import type { IssuerEnv } from './env.ts';

/** One `request` line per request, written after the response (errors included). */
export function requestLogger(log: Logger): MiddlewareHandler<IssuerEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    log.info('request', {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      requestId: c.get('requestId'),
    });
  };
}
