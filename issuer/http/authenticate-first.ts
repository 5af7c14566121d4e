/**
 * Authenticate first: an operation that needs a key (the admin key, an introspection key, an
 * agent's client secret) answers an unauthenticated caller 401 with `WWW-Authenticate` (RFC 6750
 * §3) whatever else is wrong with the request — a body of the wrong type (415) or size (413),
 * malformed JSON, invalid parameters. Otherwise those answers would come first (the body limit
 * and the media-type rule run on every request before routing, app.ts) and tell an anonymous
 * caller about an operation it may not use.
 *
 * The table is the built app's own route list (every route, in registration order, with its own
 * middleware): a request is matched as Hono matches it — method and path, the first registered
 * route wins — and when that route's middleware authenticates (admin-auth.ts `authenticating`),
 * the same check runs here, before the body limit. The route runs it again.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { authenticatorOf, type Authenticator } from './admin-auth.ts';
import type { IssuerEnv } from './env.ts';

export interface Operation {
  method: string;
  pattern: RegExp;
  /** The path parameters' names, in the order of the pattern's groups. */
  names: string[];
  authenticate: Authenticator | undefined;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A Hono route path as Hono matches it: `/v1/agents/:did/vp` → `^/v1/agents/([^/]+)/vp$`. */
export function patternOf(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      const param = /^:([A-Za-z0-9_]+)(?:\{(.+)\})?$/.exec(segment);
      if (param?.[1] === undefined) return escapeRegExp(segment);
      names.push(param[1]);
      return `(${param[2] ?? '[^/]+'})`;
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), names };
}

/**
 * Every route of the built app, in the order Hono tries them (`app.routes` lists each handler of
 * each route, its own middleware first; `app.use` entries are method ALL and left out), with the
 * authenticator among its middleware, if any.
 */
export function operationsOf(app: Hono<IssuerEnv>): Operation[] {
  const operations = new Map<string, Operation>();
  for (const { method, path, handler } of app.routes) {
    if (method === 'ALL') continue;
    const key = `${method} ${path}`;
    const operation = operations.get(key) ?? { method, ...patternOf(path), authenticate: undefined };
    operation.authenticate ??= authenticatorOf(handler);
    operations.set(key, operation);
  }
  return [...operations.values()];
}

/** The gate (app.ts: after the rate limits, before the body limit). `operations` is read per request. */
export function authenticateFirst(operations: () => readonly Operation[]): MiddlewareHandler<IssuerEnv> {
  return async (c, next) => {
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    for (const operation of operations()) {
      const match = operation.method === method ? operation.pattern.exec(c.req.path) : null;
      if (match === null) continue;
      const params = Object.fromEntries(operation.names.map((name, i) => [name, safeDecode(match[i + 1] ?? '')]));
      if (operation.authenticate !== undefined) await operation.authenticate(c, params);
      break;
    }
    return next();
  };
}
