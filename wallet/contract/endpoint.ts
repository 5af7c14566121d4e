/**
 * One endpoint of the issuer API, defined once: method, path, who may call it, what it reads
 * (path, query, body) and answers, and the error codes it may answer besides the ones every
 * endpoint of its kind can (`impliedErrors`). The issuer mounts its handler from this entry
 * (issuer/http/mount.ts), `IssuerClient.call` and the console call through it, and the OpenAPI
 * document (GET /v1/openapi.json) and the /docs reference are generated from it — so what is
 * published is what is enforced, and a path is written in exactly one place.
 */
import type { z } from 'zod';
import type { IssuerCode, OAuthError } from '../reasons/registry.ts';

export type EndpointMethod = 'GET' | 'POST' | 'DELETE';

/**
 * Who may call: `public` anyone; `admin` the admin key; `admin-or-open` the admin key, or anyone
 * when the operator allows it (SERVICE_OPEN_ENROLLMENT); `agent` the admin key or the client
 * secret of the agent named by the `did` path parameter; `introspection` the admin key or a
 * SERVICE_INTROSPECTION_KEYS key (RFC 7662 §2.1).
 */
export type EndpointAuth = 'public' | 'admin' | 'admin-or-open' | 'agent' | 'introspection';

export interface EndpointBody {
  schema: z.ZodType;
  /** `form`: application/x-www-form-urlencoded (OAuth, RFC 6749 §4.1.3; RFC 7662 §2.1). Default `json`. */
  media?: 'json' | 'form';
  /** The body may be omitted (then validated as `{}`). */
  optional?: boolean;
  description?: string;
}

export interface EndpointResponse {
  schema: z.ZodType;
  description: string;
  /** Media types the body is served as (content negotiation); default application/json. */
  mediaTypes?: readonly string[];
}

export interface EndpointSpec {
  method: EndpointMethod;
  /** OpenAPI path template: `/v1/status-list/{listId}`. */
  path: `/${string}`;
  /** The OpenAPI tag (the reference's section). */
  tag: string;
  summary: string;
  /** More than the summary says, when a reader needs it (what a body read by the handler itself holds). */
  description?: string;
  auth: EndpointAuth;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: EndpointBody;
  /**
   * The answers with a body: one 2xx, and any other status whose body is an answer (403 of
   * /v1/vp/verify). No 2xx only for an endpoint that exists to refuse (GET /oauth/authorize).
   */
  responses: Readonly<Partial<Record<number, EndpointResponse>>>;
  /**
   * Error codes this endpoint answers beyond `impliedErrors`: codes of the reason registry with an
   * issuer status (wallet/reasons/registry.ts; docs/api.md §Error codes), checked at compile time,
   * or RFC 6749 §5.2 `error` codes for the OAuth endpoints, which answer `{error, error_description}`.
   */
  errors: readonly (IssuerCode | OAuthError)[];
  /** A POST a client may repeat after a lost answer: repeating cannot do more than the first call. */
  repeatable?: boolean;
  /**
   * A body the handler reads itself, of this media type, instead of a validated `body` (the token
   * endpoint: a repeated form parameter must be seen, RFC 6749 §3.2).
   */
  ownBody?: 'form';
  /** Served but left out of the OpenAPI document (the console's HTML). */
  hidden?: boolean;
  /**
   * A document verifiers in any origin must read (DID documents, status lists, key sets, the
   * context, metadata): CORS for any origin, `Cross-Origin-Resource-Policy: cross-origin` (Fetch
   * §3.7) and ETag with 304 on If-None-Match.
   */
  publicDocument?: boolean;
}

/** Defines an endpoint; the literal types are kept, so handlers and calls are typed from it. */
export function endpoint<const S extends EndpointSpec>(spec: S): S {
  return spec;
}

/** Codes any endpoint with this shape may answer, whatever its handler does. */
export function impliedErrors(spec: EndpointSpec): IssuerCode[] {
  const codes: IssuerCode[] = ['RATE_LIMITED', 'DATABASE_UNAVAILABLE', 'INTERNAL_ERROR'];
  if (spec.auth !== 'public') codes.push('UNAUTHORIZED');
  if (spec.params !== undefined || spec.query !== undefined || spec.body !== undefined) codes.push('VALIDATION_FAILED');
  if (spec.body !== undefined) codes.push('MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  return codes;
}

/** The 2xx status of an endpoint (each has exactly one). */
export function successStatus(spec: EndpointSpec): number {
  const status = Object.keys(spec.responses)
    .map(Number)
    .find((s) => s >= 200 && s < 300);
  if (status === undefined) throw new TypeError(`${spec.method} ${spec.path} has no 2xx response`);
  return status;
}

/** The path with its `{name}` parameters filled in, each percent-encoded (RFC 3986 §3.3). */
export function pathOf(spec: Pick<EndpointSpec, 'path'>, params: Readonly<Record<string, string>> = {}): string {
  return spec.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${spec.path}: missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

type Input<T> = T extends z.ZodType ? z.input<T> : never;
type Output<T> = T extends z.ZodType ? z.output<T> : never;
type BodyOf<S extends EndpointSpec> = S['body'] extends EndpointBody ? S['body']['schema'] : undefined;

/** What a caller sends: only the members the endpoint reads, each as the schema accepts it. */
export type EndpointInput<S extends EndpointSpec> = (S['params'] extends z.ZodType
  ? { params: Input<S['params']> }
  : { params?: undefined }) &
  (S['query'] extends z.ZodType ? { query?: Input<S['query']> } : { query?: undefined }) &
  (BodyOf<S> extends z.ZodType
    ? S['body'] extends { optional: true }
      ? { body?: Input<BodyOf<S>> }
      : { body: Input<BodyOf<S>> }
    : { body?: undefined });

/** What the handler receives: the validated members (schema outputs). */
export interface ValidatedInput<S extends EndpointSpec> {
  params: S['params'] extends z.ZodType ? Output<S['params']> : Record<string, never>;
  query: S['query'] extends z.ZodType ? Output<S['query']> : Record<string, never>;
  body: BodyOf<S> extends z.ZodType ? Output<BodyOf<S>> : undefined;
}

/** Any answer with a body the endpoint declares (the 2xx one, or e.g. a 403 denial). */
export type EndpointOutput<S extends EndpointSpec> = {
  [K in keyof S['responses']]: S['responses'][K] extends EndpointResponse ? Output<S['responses'][K]['schema']> : never;
}[keyof S['responses']];

/** A group of endpoints by name (one per contract module). */
export type Endpoints = Readonly<Record<string, EndpointSpec>>;
