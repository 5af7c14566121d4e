/**
 * The provider's MCP server (`/mcp` of the page origin): the official SDK's `McpServer` over its
 * web-standard Streamable HTTP transport, stateless (a server and transport per request, as MCP
 * 2026-07-28 expects), behind mandate/verifier's `mcpAuth`. The middleware publishes the RFC 9728
 * metadata naming the demo's issuer, demands a DPoP-bound access token from it on every request,
 * and holds each `tools/call` to the tool table (MCP_TOOLS): the sub-agent's `files:read` token
 * may list and read files, never write them (403 insufficient_scope).
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { mcpAuth, mcpMetadataHandler, type McpAuthEnv, type McpAuthOptions } from '../../verifier-worker/index.ts';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { ProviderAuditEvent, ProviderAuditResult } from '../provider.ts';
import { MCP_PATH, MCP_TOOLS } from './story.ts';

export interface DemoMcpOptions {
  /** This endpoint's URL, its RFC 8707 resource: tokens' `aud` must name it. */
  resource: string;
  /** The issuer's base URL (its RFC 8414 `issuer`): tokens' `iss`. */
  issuerUrl: string;
  /** The provider signs an audit event for each tool call it answers. */
  recordEvent(event: ProviderAuditEvent): Promise<ProviderAuditResult>;
}

/** What "Demo Files" holds: the report the sub-agent reads in steps 5 and 6. */
const FILES: Readonly<Record<string, string>> = {
  'q3-report': 'Q3 report: revenue 4.2 M€ (+12 %), 3 new customers, churn 1.1 %.',
  roadmap: 'Roadmap: MCP access for every agent in Q4.',
};

type ToolAnswer = { content: Array<{ type: 'text'; text: string }>; isError?: boolean };

/** The caller mcpAuth verified, as the SDK hands it to tools (`extra.authInfo`; docs/mcp.md). */
function callerOf(authInfo: AuthInfo | undefined) {
  const extra = authInfo?.extra;
  if (extra === undefined || typeof extra.agentDid !== 'string') return undefined;
  const delegators = Array.isArray(extra.delegators) ? extra.delegators.filter((d) => typeof d === 'string') : [];
  return { agentDid: extra.agentDid, delegators, scopes: authInfo?.scopes ?? [], via: extra.via };
}

/** A tool's answer: its output, then who called it; the provider records the call in the issuer's audit trail. */
async function answer(options: DemoMcpOptions, tool: string, authInfo: AuthInfo | undefined, output: string) {
  const caller = callerOf(authInfo);
  const audit = await options.recordEvent({
    ...(caller ? { agentDid: caller.agentDid } : {}),
    action: `MCP tools/call ${tool}`,
    result: 'allowed',
  });
  const result: ToolAnswer = {
    content: [
      { type: 'text', text: output },
      { type: 'text', text: JSON.stringify({ caller: caller ?? null, audit: audit.detail }) },
    ],
  };
  return result;
}

/** The three tools of MCP_TOOLS. Their handlers run only for calls mcpAuth allowed. */
function filesServer(options: DemoMcpOptions): McpServer {
  const server = new McpServer({ name: 'demo-files', version: '1.0.0' });
  server.registerTool('list_files', { description: 'List the files (files:read)' }, (extra) =>
    answer(options, 'list_files', extra.authInfo, Object.keys(FILES).join('\n')),
  );
  server.registerTool(
    'read_file',
    { description: 'Read a file (files:read)', inputSchema: { name: z.string().max(64) } },
    (args, extra) => {
      const text = FILES[args.name];
      if (text === undefined)
        return { content: [{ type: 'text' as const, text: `no file named ${args.name}` }], isError: true };
      return answer(options, 'read_file', extra.authInfo, text);
    },
  );
  server.registerTool(
    'write_file',
    {
      description: 'Write a file (files:write)',
      inputSchema: { name: z.string().max(64), text: z.string().max(4096) },
    },
    (args, extra) =>
      answer(options, 'write_file', extra.authInfo, `would write ${args.text.length} characters to ${args.name}`),
  );
  return server;
}

/** `/mcp` and its RFC 9728 metadata paths, ready to mount on the page origin. */
export function mcpRoutes(options: DemoMcpOptions): Hono<McpAuthEnv> {
  const auth: McpAuthOptions = {
    resource: options.resource,
    authorizationServer: options.issuerUrl,
    tools: MCP_TOOLS,
    filterToolsList: true,
    // The demo's issuer issues no Bearer tokens (docs/oauth.md §DPoP); say so in the metadata too.
    requireDpop: true,
    resourceName: 'Demo Files (MCP)',
  };
  const routes = new Hono<McpAuthEnv>();
  routes.get('/.well-known/oauth-protected-resource/*', mcpMetadataHandler(auth));
  routes.get('/.well-known/oauth-protected-resource', mcpMetadataHandler(auth));
  routes.use(MCP_PATH, mcpAuth(auth));
  routes.all(MCP_PATH, async (c) => {
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await filesServer(options).connect(transport);
    return transport.handleRequest(c.req.raw, { authInfo: c.var.mcpAuth });
  });
  return routes;
}
