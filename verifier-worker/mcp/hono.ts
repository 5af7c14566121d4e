/**
 * `mcpAuth`: Hono middleware protecting a Streamable HTTP MCP endpoint (docs/mcp.md). It answers
 * the RFC 9728 metadata paths, judges every other request (authorize.ts), and on success sets
 * `c.var.mcpAuth` (the SDK's `AuthInfo`: pass it to
 * `transport.handleRequest(c.req.raw, { authInfo: c.var.mcpAuth })`) and `c.var.mcpCaller`.
 * The body is read from a clone, so the transport still reads the request as it came.
 *
 * @example
 * ```ts
 * const app = new Hono<McpAuthEnv>();
 * app.use('*', mcpAuth({ resource: 'https://tools.example.com/mcp', authorizationServer: ISSUER, tools: { search: ['docs:read'] } }));
 * app.all('/mcp', (c) => transport.handleRequest(c.req.raw, { authInfo: c.var.mcpAuth }));
 * ```
 */
import { createMiddleware } from 'hono/factory';
import type { MiddlewareHandler } from 'hono';
import { authorizeMcpRequest, publicMcpResponse, type McpAuthInfo, type McpCaller } from './authorize.ts';
import { filterToolsListResponse } from './list-filter.ts';
import { mcpStateFor, type McpAuthOptions } from './options.ts';
import { mayCall } from './tool-scopes.ts';

export interface McpAuthVariables {
  mcpAuth: McpAuthInfo;
  mcpCaller: McpCaller;
}

export interface McpAuthEnv {
  Variables: McpAuthVariables;
}

/** Protects the routes it is mounted on; a bad options object throws McpAuthOptionsError here, at setup. */
export function mcpAuth(options: McpAuthOptions): MiddlewareHandler<McpAuthEnv> {
  const state = mcpStateFor(options);
  return createMiddleware<McpAuthEnv>(async (c, next) => {
    const open = await publicMcpResponse(c.req.raw, options);
    if (open) return open;
    const outcome = await authorizeMcpRequest(c.req.raw, options);
    if (!outcome.allowed) return outcome.response;
    c.set('mcpAuth', outcome.authInfo);
    c.set('mcpCaller', outcome.caller);
    await next();
    const ids = outcome.demand?.listIds ?? [];
    if (state.filterToolsList && ids.length > 0) {
      const held = outcome.caller.scopes;
      const filtered = await filterToolsListResponse(c.res, ids, (tool) => mayCall(state.tools, tool, held));
      // Hono merges the old response's headers into an assigned one unless it is cleared first,
      // and the old Content-Length no longer fits.
      c.res = undefined;
      c.res = filtered;
    }
  });
}

/** The RFC 9728 metadata (and the presentation challenge endpoint) alone, for apps that mount `mcpAuth` on the MCP path only. */
export function mcpMetadataHandler(options: McpAuthOptions): MiddlewareHandler {
  mcpStateFor(options);
  return createMiddleware(async (c, next) => {
    const open = await publicMcpResponse(c.req.raw, options);
    if (open) return open;
    await next();
  });
}
