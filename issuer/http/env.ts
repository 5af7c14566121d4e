/** The Hono environment of every issuer route: per-request variables set by the middleware. */
import type { RequestIdVariables } from 'hono/request-id';

export interface IssuerVariables extends RequestIdVariables {
  /** Who is calling, for audit records: `admin` once admin auth passed, else `anonymous` (or a route's own actor). */
  actor: string;
  /** Why the request body was refused, when JSON.parse alone would have read it (app.ts `jsonBodies`). */
  bodyRefusal?: string;
}

export interface IssuerEnv {
  Variables: IssuerVariables;
}
