/** The Hono environment of every issuer route: per-request variables set by the middleware. */
import type { RequestIdVariables } from 'hono/request-id';

export interface IssuerVariables extends RequestIdVariables {
  /** Who is calling, for audit records: `admin` once admin auth passed, else `anonymous` (or a route's own actor). */
  actor: string;
  /** Why the request body was refused, when JSON.parse alone would have read it (http/json-bodies.ts). */
  bodyRefusal?: string;
  /** Set once the request body was read to its end (http/json-bodies.ts); else the answer closes the connection. */
  bodyRead?: boolean;
}

export interface IssuerEnv {
  Variables: IssuerVariables;
}
