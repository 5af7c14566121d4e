/**
 * `mcpNodeMiddleware`: the Node `http` / Express / Connect form of `mcpAuth` (docs/mcp.md §Node).
 * It answers the RFC 9728 metadata paths and refusals itself; for an accepted request it sets
 * `req.auth` (the MCP SDK's `AuthInfo`, which `StreamableHTTPServerTransport` hands to tool
 * handlers as `extra.authInfo`), `req.mcpCaller`, and `req.body` (the parsed JSON-RPC body, read
 * here within `maxBodyBytes`: pass it on as `transport.handleRequest(req, res, req.body)`).
 * Request URLs are resolved against the origin of `resource`, never the client's Host header.
 * With `filterToolsList`, the answer written to `res` is narrowed on its way out (node-list-filter.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendResponse } from '../node-http.ts';
import { authorizeMcpRequest, publicMcpResponse, type McpAuthInfo, type McpCaller } from './authorize.ts';
import { refusal } from './challenge.ts';
import { invalidMcpOptions } from './errors.ts';
import { filterNodeToolsList } from './node-list-filter.ts';
import { mcpStateFor, type McpAuthOptions } from './options.ts';
import { mayCall } from './tool-scopes.ts';

/** An IncomingMessage `mcpNodeMiddleware` accepted. */
export type McpRequest = IncomingMessage & { auth: McpAuthInfo; mcpCaller: McpCaller; body?: unknown };

/** The request body, or undefined when it exceeds `maxBytes` (the rest is not read). */
async function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function webRequest(req: IncomingMessage, origin: string, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const url = new URL(origin + (req.url?.startsWith('/') ? req.url : '/'));
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    ...(body === undefined ? {} : { body: new Uint8Array(body) as BodyInit }),
  });
}

/**
 * `app.use(mcpNodeMiddleware(options))` (Express/Connect), or call it from an `http` handler with
 * a `next` of your own. Errors go to `next(error)`.
 */
export function mcpNodeMiddleware(
  options: McpAuthOptions,
): (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => Promise<void> {
  const state = mcpStateFor(options);
  const origin = state.resourceUrl.origin;
  return async (req, res, next) => {
    try {
      const open = await publicMcpResponse(webRequest(req, origin, undefined), options);
      if (open) return await sendResponse(res, open);
      const isPost = (req.method ?? '').toUpperCase() === 'POST';
      // A body parser mounted before this middleware has drained the stream: judging an empty
      // body would refuse every call, and trusting its parsed copy would skip the I-JSON check.
      if (isPost && req.readableEnded)
        invalidMcpOptions('mount mcpNodeMiddleware before any body parser: the body was already read');
      const body = isPost ? await readNodeBody(req, state.maxBodyBytes) : undefined;
      if (isPost && body === undefined) {
        const message = `the body is larger than ${state.maxBodyBytes} bytes`;
        return await sendResponse(
          res.setHeader('connection', 'close'),
          refusal('BODY_TOO_LARGE', message, state.challenge),
        );
      }
      const outcome = await authorizeMcpRequest(webRequest(req, origin, body), options);
      if (!outcome.allowed) return await sendResponse(res, outcome.response);
      const accepted = req as McpRequest;
      accepted.auth = outcome.authInfo;
      accepted.mcpCaller = outcome.caller;
      if (isPost) accepted.body = outcome.body;
      const ids = outcome.demand?.listIds ?? [];
      if (state.filterToolsList && ids.length > 0) {
        const held = outcome.caller.scopes;
        filterNodeToolsList(res, ids, (tool) => mayCall(state.tools, tool, held));
      }
    } catch (error) {
      return next(error);
    }
    next();
  };
}
