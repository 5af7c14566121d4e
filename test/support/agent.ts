// Fixtures for agent.fetch tests (Node): an MCP server behind mcpAuth on 127.0.0.1 whose requests
// are counted and may pass a gate first (a resource server that demands DPoP nonces), a
// recording fetch for the agent, and a JSON-RPC tool call.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono, type MiddlewareHandler } from 'hono';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { mcpAuth, type McpAuthEnv, type McpAuthOptions } from '../../verifier-worker/index.ts';
import { buildMcpServer } from './mcp.ts';

export interface GuardedMcp {
  url: string;
  resource: string;
  /** Requests that reached the server at /mcp (gate included), with the status each got. */
  hits: { method: string; status: number; authorization: string | null }[];
  close(): Promise<void>;
}

/** A stateless MCP endpoint at /mcp behind `mcpAuth`, with `gate` (when given) in front of it. */
export async function startGuardedMcp(
  options: (resource: string) => McpAuthOptions,
  gate?: MiddlewareHandler<McpAuthEnv>,
): Promise<GuardedMcp> {
  const app = new Hono<McpAuthEnv>();
  const slot: { guard?: ReturnType<typeof mcpAuth> } = {};
  const hits: GuardedMcp['hits'] = [];
  app.use('/mcp', async (c, next) => {
    await next();
    hits.push({ method: c.req.method, status: c.res.status, authorization: c.req.header('authorization') ?? null });
  });
  if (gate) app.use('/mcp', gate);
  app.use('*', async (c, next) => slot.guard!(c, next));
  app.all('/mcp', async (c) => {
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await buildMcpServer().connect(transport);
    return transport.handleRequest(c.req.raw, { authInfo: c.var.mcpAuth });
  });
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s as Server));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const resource = `${url}/mcp`;
  slot.guard = mcpAuth(options(resource));
  return {
    url,
    resource,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Recorded {
  method: string;
  url: string;
  status: number;
}

/** A fetch for the agent that records every request it sends. */
export function recordingAgentFetch(): {
  fetch: (input: Request | string, init?: RequestInit) => Promise<Response>;
  requests: Recorded[];
} {
  const requests: Recorded[] = [];
  return {
    requests,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const response = await fetch(request);
      requests.push({ method: request.method, url: request.url, status: response.status });
      return response;
    },
  };
}

/** A `tools/call` of `name` through `fetchFn`: the HTTP status and the tool's echo (its authInfo). */
export async function callTool(
  fetchFn: (input: string, init?: RequestInit) => Promise<Response>,
  resource: string,
  name: string,
): Promise<{ status: number; authInfo?: Record<string, unknown>; body: unknown }> {
  const response = await fetchFn(resource, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  });
  const body: unknown = await response.json();
  const text = (body as { result?: { content?: { text?: string }[] } }).result?.content?.[0]?.text;
  const authInfo =
    text === undefined ? undefined : (JSON.parse(text) as { authInfo: Record<string, unknown> }).authInfo;
  return { status: response.status, body, ...(authInfo ? { authInfo } : {}) };
}
