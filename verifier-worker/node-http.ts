/**
 * The Node `http` adapter of `verifyRequest` (docs/verifier.md §Node, Express, Fastify): the
 * verifier speaks Web `Request`/`Response`; Node servers speak IncomingMessage/ServerResponse.
 *
 * - `toWebRequest(req)`: the request line and headers as a `Request`, WITHOUT the body — the
 *   verifier reads headers only, and the application still owns the unread body stream.
 * - `nodeHandler(options, next)`: a complete `http.createServer` handler.
 * - `nodeMiddleware(options)`: a Connect/Express-style `(req, res, next)` middleware.
 *
 * Node caps request headers at 16 KiB by default (`--max-http-header-size`), less than the
 * 64 KiB presentations this verifier accepts: long delegation chains need
 * `createServer({ maxHeaderSize })`. Only types are imported from `node:http`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  CLAIM_HEADERS,
  denialResponse,
  handleChallengeRequest,
  prepareVerifier,
  verifyRequest,
  type AgentClaims,
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

/** The request line and headers of `req` as a Web `Request` (no body; HTTP/2 pseudo-headers skipped). */
export function toWebRequest(req: IncomingMessage, options: ToWebRequestOptions = {}): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // An origin-form target is appended to the origin, never resolved against it: resolved,
  // `//api/admin/x` would be read as host `api` and path `/admin/x`.
  const target = req.url ?? '/';
  const base = new URL(originOf(req, options));
  const url = target.startsWith('/') ? new URL(base.origin + target) : new URL(target, base);
  return new Request(url, { method: req.method ?? 'GET', headers });
}

/** Writes a Web `Response` (status, headers, body) to `res`. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = await response.text();
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  res.end(body);
}

/**
 * Removes `Authorization` and every incoming `x-mandate-*` header from `req` (both `headers`
 * and `rawHeaders`), then sets the claim headers and `req.agent`.
 */
export function applyNodeClaims(req: IncomingMessage, claims: AgentClaims): asserts req is AgentRequest {
  const stripped = (name: string): boolean => {
    const lower = name.toLowerCase();
    return lower === 'authorization' || lower.startsWith('x-mandate-');
  };
  for (const name of Object.keys(req.headers)) if (stripped(name)) delete req.headers[name];
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (stripped(raw[i] as string)) raw.splice(i, 2);
  const claimHeaders: [string, string][] = [
    [CLAIM_HEADERS.agentDid, claims.agentDid],
    [CLAIM_HEADERS.scopes, claims.effectiveScopes.join(' ')],
    [CLAIM_HEADERS.vpId, claims.vpId],
  ];
  for (const [name, value] of claimHeaders) {
    req.headers[name.toLowerCase()] = value;
    raw.push(name, value);
  }
  (req as AgentRequest).agent = claims;
}

/** Challenge endpoint, then verification; a Response to send, or the accepted claims. */
async function judge(req: IncomingMessage, options: NodeVerifierOptions): Promise<Response | AgentClaims> {
  const request = toWebRequest(req, options);
  const challenge = await handleChallengeRequest(request, options);
  if (challenge) return challenge;
  const verdict = await verifyRequest(request, options);
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
  prepareVerifier(options);
  return async (req, res) => {
    try {
      const outcome = await judge(req, options);
      if (outcome instanceof Response) return await sendResponse(res, outcome);
      await next(accept(req, outcome, options), res);
    } catch {
      if (res.headersSent) res.destroy();
      else res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(INTERNAL_ERROR);
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
  prepareVerifier(options);
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
