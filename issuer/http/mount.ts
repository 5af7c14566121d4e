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
import type { IssuerEnv } from './env.ts';
import { ISSUER_ERRORS } from './errors.ts';

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

/** The validated members, as the OpenAPI validators stored them (any member the entry lacks is empty). */
interface Validated {
  in: object;
  out: { param: unknown; query: unknown; json: unknown; form: unknown };
}

/** The error answers of an entry by status, each described by the codes it carries. */
function errorResponses(spec: EndpointSpec): RouteConfig['responses'] {
  const byStatus = new Map<number, string[]>();
  for (const code of new Set([...spec.errors, ...impliedErrors(spec)])) {
    // `errors` holds registry codes with an issuer status (EndpointSpec, checked at compile time).
    const status = ISSUER_ERRORS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      status,
      { description: codes.join(', '), content: { 'application/json': { schema: ErrorSchema } } },
    ]),
  );
}

function routeOf(spec: EndpointSpec, authenticate: MiddlewareHandler<IssuerEnv> | undefined): RouteConfig {
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
    ...(spec.hidden ? { hide: true } : {}),
    ...(spec.auth === 'public' ? {} : { security: [{ adminBearer: [] }] }),
    ...(authenticate ? { middleware: [authenticate] } : {}),
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
  authenticators: Authenticators,
): void {
  const status = successStatus(spec) as ContentfulStatusCode;
  const bodyTarget = spec.body?.media === 'form' ? 'form' : 'json';
  const run = async (c: Context<IssuerEnv, string, Validated>): Promise<Response> => {
    const input = {
      params: spec.params ? c.req.valid('param') : {},
      query: spec.query ? c.req.valid('query') : {},
      body: spec.body ? c.req.valid(bodyTarget) : undefined,
    } as ValidatedInput<EndpointSpec>;
    const result = await handler(input, c);
    return result instanceof Response ? result : c.json(result as JSONValue, status);
  };
  const authenticate = spec.auth === 'public' ? undefined : authenticators[spec.auth];
  app.openapi(routeOf(spec, authenticate), run);
}

/** Mounts every entry of `endpoints` with its handler. */
export function mount<E extends Endpoints>(
  app: OpenAPIHono<IssuerEnv>,
  endpoints: E,
  handlers: HandlersOf<E>,
  authenticators: Authenticators,
): void {
  for (const name of Object.keys(endpoints)) {
    const spec = endpoints[name];
    const handler = handlers[name];
    if (spec === undefined || handler === undefined) throw new TypeError(`endpoint ${name} has no handler`);
    // HandlersOf typed each handler against its own entry; the mount only passes validated input through.
    mountOne(app, spec, handler as never, authenticators);
  }
}
