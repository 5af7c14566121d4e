/**
 * Mounts the issuer's handlers from the contract's endpoint table (wallet/contract/endpoint.ts):
 * each entry becomes one OpenAPI route — its authentication, its validators, its description in
 * GET /v1/openapi.json — and the handler only maps validated input to one service call. A
 * handler cannot exist without its entry (`HandlersOf` has exactly the table's names), nor an
 * entry without its handler.
 */
import { createRoute, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONValue } from 'hono/utils/types';
import {
  impliedErrors,
  successStatus,
  type EndpointAuth,
  type EndpointOutput,
  type Endpoints,
  type EndpointSpec,
  type ValidatedInput,
} from '../../wallet/contract/endpoint.ts';
import { ErrorSchema } from '../../wallet/contract/errors.ts';
import { OAuthErrorSchema, type OAuthErrorCode } from '../../wallet/contract/oauth.ts';
import type { IssuerEnv } from './env.ts';
import { ISSUER_ERRORS, OAUTH_ERROR_STATUS } from './errors.ts';

/** What a handler may answer: the endpoint's declared body (sent with its 2xx status), or a whole Response. */
export type HandlerResult<S extends EndpointSpec> = EndpointOutput<S> | Response;

export type Handler<S extends EndpointSpec> = (
  input: ValidatedInput<S>,
  c: Context<IssuerEnv>,
) => HandlerResult<S> | Promise<HandlerResult<S>>;

/** One handler per entry of a group of endpoints, and nothing else. */
export type HandlersOf<E extends Endpoints> = { readonly [K in keyof E]: Handler<E[K]> };

/** The middleware that authenticates each kind of caller (admin-auth.ts, agent-auth.ts). */
export type Authenticators = Readonly<Record<Exclude<EndpointAuth, 'public'>, MiddlewareHandler<IssuerEnv>>>;

/**
 * What every route runs before its validators, in this order: its authentication (so a caller
 * without a key learns 401 and nothing else about the request), the body size limit (413), the
 * media-type rule and strict JSON reading (415, 400 MALFORMED_JSON; json-bodies.ts) — and,
 * around a public document, CORS for any origin, CORP cross-origin and ETag (304).
 */
export interface MountOptions {
  authenticators: Authenticators;
  bodyLimit: MiddlewareHandler<IssuerEnv>;
  bodies: Readonly<Record<'json' | 'form', MiddlewareHandler<IssuerEnv>>>;
  publicDocument: readonly MiddlewareHandler<IssuerEnv>[];
}

/** The validated members, as the OpenAPI validators stored them (any member the entry lacks is empty). */
interface Validated {
  in: object;
  out: { param: unknown; query: unknown; json: unknown; form: unknown };
}

/** `/v1/status-list/{listId}` as Hono writes it: `/v1/status-list/:listId`. */
function honoPath(path: string): string {
  return path.replaceAll(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

function isOAuthErrorCode(code: string): code is OAuthErrorCode {
  return Object.hasOwn(OAUTH_ERROR_STATUS, code);
}

/**
 * A code's status and the body it is answered with: the issuer's error, or RFC 6749 §5.2's
 * (`errors` holds registry codes with an issuer status or OAuth codes, checked at compile time).
 */
function errorAnswer(code: EndpointSpec['errors'][number]): { status: number; oauth: boolean } {
  if (isOAuthErrorCode(code)) return { status: OAUTH_ERROR_STATUS[code], oauth: true };
  return { status: ISSUER_ERRORS[code], oauth: false };
}

/** The error answers of an entry by status, each described by the codes it carries. */
function errorResponses(spec: EndpointSpec): RouteConfig['responses'] {
  const byStatus = new Map<number, { codes: string[]; issuer: boolean; oauth: boolean }>();
  for (const code of new Set([...spec.errors, ...impliedErrors(spec)])) {
    const { status, oauth } = errorAnswer(code);
    const seen = byStatus.get(status) ?? { codes: [], issuer: false, oauth: false };
    byStatus.set(status, {
      codes: [...seen.codes, code],
      issuer: seen.issuer || !oauth,
      oauth: seen.oauth || oauth,
    });
  }
  return Object.fromEntries(
    [...byStatus].map(([status, { codes, issuer, oauth }]) => [
      status,
      {
        description: codes.join(', '),
        content: {
          'application/json': {
            schema: issuer && oauth ? ErrorSchema.or(OAuthErrorSchema) : oauth ? OAuthErrorSchema : ErrorSchema,
          },
        },
      },
    ]),
  );
}

function routeOf(spec: EndpointSpec, middleware: MiddlewareHandler<IssuerEnv>[]): RouteConfig {
  const body = spec.body;
  const media = body?.media === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
  const responses = Object.fromEntries(
    Object.entries(spec.responses).map(([status, response]) => [
      status,
      {
        description: response?.description ?? '',
        content: Object.fromEntries(
          (response?.mediaTypes ?? ['application/json']).map((type) => [type, { schema: response?.schema }]),
        ),
      },
    ]),
  );
  return createRoute({
    method: spec.method === 'DELETE' ? 'delete' : spec.method === 'POST' ? 'post' : 'get',
    path: spec.path,
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.hidden ? { hide: true } : {}),
    ...(spec.auth === 'public' ? {} : { security: [{ adminBearer: [] }] }),
    middleware,
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(body
        ? {
            body: {
              required: body.optional !== true,
              content: { [media]: { schema: body.schema } },
              ...(body.description ? { description: body.description } : {}),
            },
          }
        : {}),
    },
    // A declared answer at an error status (a VC-API verdict of 400) is what the client reads there.
    responses: { ...errorResponses(spec), ...responses },
  } as RouteConfig);
}

/** A handler seen from the mount: its input is whatever the entry's validators produced. */
type MountedHandler = (input: ValidatedInput<EndpointSpec>, c: Context<IssuerEnv>) => unknown;

function mountOne(
  app: OpenAPIHono<IssuerEnv>,
  spec: EndpointSpec,
  handler: MountedHandler,
  options: MountOptions,
): void {
  // An endpoint that exists to refuse (no 2xx) answers only whole Responses.
  const status = Object.keys(spec.responses).some((s) => Number(s) < 300)
    ? (successStatus(spec) as ContentfulStatusCode)
    : undefined;
  const bodyTarget = spec.body?.media === 'form' ? 'form' : 'json';
  const run = async (c: Context<IssuerEnv, string, Validated>): Promise<Response> => {
    const input = {
      params: spec.params ? c.req.valid('param') : {},
      query: spec.query ? c.req.valid('query') : {},
      body: spec.body ? c.req.valid(bodyTarget) : undefined,
    } as ValidatedInput<EndpointSpec>;
    const result = await handler(input, c);
    if (result instanceof Response) return result;
    if (status === undefined) throw new TypeError(`${spec.method} ${spec.path} has no 2xx answer to send`);
    return c.json(result as JSONValue, status);
  };
  const guards = [
    ...(spec.auth === 'public' ? [] : [options.authenticators[spec.auth]]),
    options.bodyLimit,
    options.bodies[spec.body?.media ?? spec.ownBody ?? 'json'],
  ];
  // app.use, not route middleware: CORS answers the preflight (OPTIONS) of the document's path too.
  if (spec.publicDocument === true) app.use(honoPath(spec.path), ...options.publicDocument);
  app.openapi(routeOf(spec, guards), run);
}

/** Mounts every entry of `endpoints` with its handler. */
export function mount<E extends Endpoints>(
  app: OpenAPIHono<IssuerEnv>,
  endpoints: E,
  handlers: HandlersOf<E>,
  options: MountOptions,
): void {
  for (const name of Object.keys(endpoints)) {
    const spec = endpoints[name];
    const handler = handlers[name];
    if (spec === undefined || handler === undefined) throw new TypeError(`endpoint ${name} has no handler`);
    // HandlersOf typed each handler against its own entry; the mount only passes validated input through.
    mountOne(app, spec, handler as never, options);
  }
}
