/**
 * An answer given before the request body was read to its end — 401, 413, 415, 429, a refusal
 * before validation — says `Connection: close` (RFC 9112 §9.6). The server discards the unread
 * rest only briefly and then closes the socket (@hono/node-server drains for 500 ms): a
 * keep-alive client that sent its next, unrelated request on that socket meanwhile would see it
 * fail. Told to close, the client opens a new connection instead.
 */
import type { MiddlewareHandler } from 'hono';
import type { IssuerEnv } from './env.ts';
import { hasRequestBody } from './json-bodies.ts';

export function closeUnreadBodies(): MiddlewareHandler<IssuerEnv> {
  return async (c, next) => {
    await next();
    if (c.get('bodyRead') !== true && hasRequestBody(c)) c.header('connection', 'close');
  };
}
