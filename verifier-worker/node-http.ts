/**
 * The Node `http` adapter of `verifyRequest` (docs/verifier.md §Node, Express, Fastify): the
 * verifier speaks Web `Request`/`Response`; Node servers speak IncomingMessage/ServerResponse.
 *
 * - `toWebRequest(req)`: the request line and headers as a `Request`, WITHOUT the body stream —
 *   the application still owns it — unless a body parser before the verifier kept the bytes
 *   (`req.rawBody`, or `req.body` as a Buffer): a signed request's `Content-Digest` is checked
 *   against those. A request-target the application could read as another path is refused
 *   (RequestTargetError).
 * - `nodeHandler(options, next)`: a complete `http.createServer` handler.
 * - `nodeMiddleware(options)`: a Connect/Express-style `(req, res, next)` middleware.
 * - `verifyNodeRequest(req, options)`: the verdict alone, for other frameworks.
 *
 * Node caps request headers at 16 KiB by default (`--max-http-header-size`), less than the
 * 64 KiB presentations this verifier accepts: long delegation chains need
 * `createServer({ maxHeaderSize })`. Only types are imported from `node:http`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MandateError } from '../wallet/crypto/errors.ts';
import {
  CLAIM_HEADERS,
  denialResponse,
  handleChallengeRequest,
  isMandateHeaderName,
  prepareVerifier,
  verifyRequestWithBody,
  type AgentClaims,
  type RequestDenied,
  type RequestVerdict,
  type VerifyRequestOptions,
} from './request.ts';

export interface ToWebRequestOptions {
  /**
   * Origin the request path is resolved against (e.g. `https://api.example.com`). Default:
   * `http://` + the Host header, which the client chose: set it when you rely on the URL's host.
   */
  baseUrl?: string;
}

export interface NodeVerifierOptions extends VerifyRequestOptions, ToWebRequestOptions {
  /** Replace Authorization and incoming X-Mandate-* headers by the claim headers (default true). */
  forwardHeaders?: boolean;
}

/** The Node entry points' own options, beside the verifier's. */
const NODE_KEYS = ['baseUrl', 'forwardHeaders'] as const satisfies ReadonlyArray<keyof NodeVerifierOptions>;

/** An IncomingMessage the verifier accepted: `req.agent` holds the claims. */
export type AgentRequest = IncomingMessage & { agent: AgentClaims };

function originOf(req: IncomingMessage, options: ToWebRequestOptions): string {
  if (options.baseUrl !== undefined) return options.baseUrl;
  try {
    return new URL(`http://${req.headers.host ?? ''}`).origin;
  } catch {
    return 'http://localhost';
  }
}

/**
 * A request line the verifier cannot judge as the application will read it: a target with dot
 * segments or backslashes (AMBIGUOUS_REQUEST_TARGET), or a method a Web `Request` cannot carry
 * (UNSUPPORTED_METHOD: CONNECT, TRACE, TRACK — Fetch §2.2.1 "forbidden method").
 */
export class RequestTargetError extends MandateError<'AMBIGUOUS_REQUEST_TARGET' | 'UNSUPPORTED_METHOD'> {
  override name = 'RequestTargetError';
}

const FORBIDDEN_METHOD = /^(?:CONNECT|TRACE|TRACK)$/i;

/**
 * The body bytes a parser before the verifier read and kept: `req.rawBody` (Express's
 * `express.json({ verify })` hook, Fastify's raw-body plugin), else `req.body` when it is
 * bytes (`express.raw()`). The application reads the same bytes, so the signed request's
 * `Content-Digest` (RFC 9530) is judged on what it will act on.
 */
function keptBody(req: IncomingMessage): Uint8Array<ArrayBuffer> | undefined {
  const { rawBody, body } = req as { rawBody?: unknown; body?: unknown };
  const kept = rawBody instanceof Uint8Array ? rawBody : body instanceof Uint8Array ? body : undefined;
  return kept === undefined ? undefined : new Uint8Array(kept);
}

/** `.`, `..` and their percent-encoded spellings (WHATWG URL §4.1 single-/double-dot segments). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Refuses dot segments and `\` in the request-target: a `URL` resolves them, Node routers do not,
 * so the verifier and the application would judge different paths (docs/verifier.md, Dot segments).
 */
function assertPlainTarget(target: string): void {
  const path = target.split(/[?#]/, 1)[0] ?? '';
  if (path.includes('\\') || path.split('/').some((segment) => DOT_SEGMENT.test(segment))) {
    throw new RequestTargetError(
      'AMBIGUOUS_REQUEST_TARGET',
      'the request target has a dot segment or a backslash: the application could read it as another path than the verifier',
    );
  }
}

/**
 * The request line and headers of `req` as a Web `Request` (HTTP/2 pseudo-headers skipped),
 * with the body only when a parser before kept its bytes (`req.rawBody`, or `req.body` as a
 * Buffer; never for GET or HEAD). The path is the full one: under an Express/Connect mount (`app.use('/api', …)`),
 * `req.url` has lost the mount's prefix, which `req.originalUrl` keeps, and rules are written
 * for full paths. Throws RequestTargetError for a target with dot segments or backslashes, and
 * for a method a `Request` cannot carry.
 */
export function toWebRequest(req: IncomingMessage, options: ToWebRequestOptions = {}): Request {
  const { url, init, body } = webRequestParts(req, options);
  return new Request(url, body === undefined ? init : { ...init, body });
}

/** What `toWebRequest` builds its Request of: the URL, method and headers, and the kept body apart. */
function webRequestParts(
  req: IncomingMessage,
  options: ToWebRequestOptions,
): { url: URL; init: { method: string; headers: Headers }; body: Uint8Array<ArrayBuffer> | undefined } {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // An origin-form target is appended to the origin, never resolved against it: resolved,
  // `//api/admin/x` would be read as host `api` and path `/admin/x`.
  const { originalUrl } = req as { originalUrl?: unknown };
  const target = typeof originalUrl === 'string' ? originalUrl : (req.url ?? '/');
  assertPlainTarget(target);
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHOD.test(method))
    throw new RequestTargetError('UNSUPPORTED_METHOD', `${method} requests cannot be verified`);
  const base = new URL(originOf(req, options));
  const url = target.startsWith('/') ? new URL(base.origin + target) : new URL(target, base);
  const body = /^(?:GET|HEAD)$/i.test(method) ? undefined : keptBody(req);
  return { url, init: { method, headers }, body };
}

/** Writes a Web `Response` (status, headers, body) to `res`. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = await response.text();
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  res.end(body);
}

/**
 * Removes `Authorization` and every incoming `x-mandate-*` header from `req` (`headers`,
 * `headersDistinct` and `rawHeaders`), then sets the claim headers and `req.agent`.
 */
export function applyNodeClaims(req: IncomingMessage, claims: AgentClaims): asserts req is AgentRequest {
  const stripped = (name: string): boolean => {
    return name.toLowerCase() === 'authorization' || isMandateHeaderName(name);
  };
  // Node builds headersDistinct lazily from rawHeaders (with the header count as received), and
  // keeps it: read it now, before rawHeaders changes, and edit it like `headers`.
  const distinct = req.headersDistinct;
  for (const name of Object.keys(req.headers)) if (stripped(name)) delete req.headers[name];
  for (const name of Object.keys(distinct)) if (stripped(name)) delete distinct[name];
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (stripped(raw[i] as string)) raw.splice(i, 2);
  const claimHeaders: [string, string][] = [
    [CLAIM_HEADERS.agentDid, claims.agentDid],
    [CLAIM_HEADERS.scopes, claims.effectiveScopes.join(' ')],
    [CLAIM_HEADERS.vpId, claims.vpId],
  ];
  for (const [name, value] of claimHeaders) {
    req.headers[name.toLowerCase()] = value;
    distinct[name.toLowerCase()] = [value];
    raw.push(name, value);
  }
  (req as AgentRequest).agent = claims;
}

/** A request as the verifier judges it: the body's bytes beside a Request that carries none. */
interface JudgedRequest {
  request: Request;
  body: Uint8Array | undefined;
}

/**
 * `req` as `toWebRequest` reads it, the kept body handed to the verifier as bytes rather than
 * as the Request's stream (which it would have to clone and read back); or — for a request line
 * it cannot judge (RequestTargetError) — its 400 MALFORMED refusal.
 */
function webRequestOrRefusal(req: IncomingMessage, options: ToWebRequestOptions): JudgedRequest | RequestDenied {
  try {
    const { url, init, body } = webRequestParts(req, options);
    return { request: new Request(url, init), body };
  } catch (error) {
    if (!(error instanceof RequestTargetError)) throw error;
    const { message } = error;
    return {
      allowed: false,
      status: 400,
      body: { valid: false, reason: 'MALFORMED', message },
      headers: {},
      failedCheck: 'presentation',
      checks: [{ check: 'presentation', ok: false, reason: 'MALFORMED', message }],
    };
  }
}

/**
 * `verifyRequest` for a Node request (Fastify's `req.raw`, Koa's `ctx.req`, …): the verdict on
 * `toWebRequest(req)`, where a target with dot segments or backslashes is a 400 MALFORMED
 * refusal rather than an exception.
 */
export async function verifyNodeRequest(req: IncomingMessage, options: NodeVerifierOptions): Promise<RequestVerdict> {
  prepareVerifier(options, NODE_KEYS);
  const judged = webRequestOrRefusal(req, options);
  return 'request' in judged ? verifyRequestWithBody(judged.request, options, judged.body) : judged;
}

/** Challenge endpoint, then verification; a Response to send, or the accepted claims. */
async function judge(req: IncomingMessage, options: NodeVerifierOptions): Promise<Response | AgentClaims> {
  const judged = webRequestOrRefusal(req, options);
  if (!('request' in judged)) return denialResponse(judged);
  const challenge = await handleChallengeRequest(judged.request, options);
  if (challenge) return challenge;
  const verdict = await verifyRequestWithBody(judged.request, options, judged.body);
  return verdict.allowed ? verdict.claims : denialResponse(verdict);
}

function accept(req: IncomingMessage, claims: AgentClaims, options: NodeVerifierOptions): AgentRequest {
  if (options.forwardHeaders !== false) applyNodeClaims(req, claims);
  else (req as AgentRequest).agent = claims;
  return req as AgentRequest;
}

const INTERNAL_ERROR = JSON.stringify({ error: 'internal error' });

/**
 * An `http.createServer` handler: answers the challenge endpoint and refusals itself, and calls
 * `next(req, res)` with `req.agent` set for accepted requests. It never rejects: an exception
 * (in the verifier or in `next`) becomes a 500 without details, so it cannot crash the process.
 */
export function nodeHandler(
  options: NodeVerifierOptions,
  next: (req: AgentRequest, res: ServerResponse) => unknown,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  prepareVerifier(options, NODE_KEYS);
  return async (req, res) => {
    try {
      const outcome = await judge(req, options);
      if (outcome instanceof Response) return await sendResponse(res, outcome);
      await next(accept(req, outcome, options), res);
    } catch {
      if (res.headersSent) res.destroy();
      else
        res
          .writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
          .end(INTERNAL_ERROR);
    }
  };
}

/**
 * A Connect/Express middleware: `app.use(nodeMiddleware(options))`. Refusals are answered here;
 * accepted requests continue with `req.agent`; errors go to `next(error)`.
 */
export function nodeMiddleware(
  options: NodeVerifierOptions,
): (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => Promise<void> {
  prepareVerifier(options, NODE_KEYS);
  return async (req, res, next) => {
    let outcome: Response | AgentClaims;
    try {
      outcome = await judge(req, options);
      if (outcome instanceof Response) return await sendResponse(res, outcome);
      accept(req, outcome, options);
    } catch (error) {
      return next(error);
    }
    next();
  };
}
