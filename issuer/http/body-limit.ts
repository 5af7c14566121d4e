/**
 * The request-body size limit (413), decided from `Content-Length` when the request has one and
 * no `Transfer-Encoding` — as Hono's bodyLimit decides it — without touching `c.req.raw.body`.
 * Under @hono/node-server that property builds the whole web Request (a ReadableStream over the
 * socket, an AbortController, a Headers copy) on every request, GETs included, and the body is
 * then read through that stream instead of straight from the socket: about a third of a
 * `/v1/health` request's time (docs/benchmarks.md). A chunked body still goes through Hono's
 * bodyLimit, which counts the bytes as they stream.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';
import type { IssuerEnv } from './env.ts';
import { hasRequestBody } from './json-bodies.ts';

export interface BodyLimitOptions {
  maxSize: number;
  /** Answers (or throws) when the body is larger than `maxSize`. */
  onError: (c: Context<IssuerEnv>) => Response | Promise<Response>;
}

export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler<IssuerEnv> {
  const streaming = streamingBodyLimit(options);
  return async (c, next) => {
    if (!hasRequestBody(c)) return next();
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return streaming(c, next);
    return Number.parseInt(length, 10) > options.maxSize ? options.onError(c) : next();
  };
}
