// mandate/verifier's MCP resource server, continued: `tools/list` narrowed to what the caller may
// call (JSON and SSE answers, Hono and Node), Mandate presentations accepted beside tokens and
// mapped onto the same tool table, an unreachable JWKS, and configurations refused at setup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { issueAgentCredential } from '../../../wallet/vc/agent-credential.ts';
import { delegate } from '../../../wallet/vc/delegation.ts';
import type { SigningIdentity } from '../../../wallet/vc/identity.ts';
import { signPresentation } from '../../../wallet/vc/presentation.ts';
import type { AgentCredential } from '../../../wallet/vc/types.ts';
import { encodePresentationHeader, DEFAULT_CHALLENGE_PATH } from '../../../verifier-worker/request.ts';
import {
  authorizeMcpRequest,
  mcpAuth,
  mcpNodeMiddleware,
  McpAuthOptionsError,
} from '../../../verifier-worker/index.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newIdentity, testResolver } from '../../support/agents.ts';
import {
  dpopKey,
  dpopProof,
  startHonoMcp,
  startNodeMcp,
  startTokenServer,
  TOOLS,
  type McpFixture,
  type TokenServer,
} from '../../support/mcp.ts';

let issuer: TokenServer;
const fixtures: McpFixture[] = [];

beforeAll(async () => {
  issuer = await startTokenServer();
});

afterAll(async () => {
  await Promise.all([...fixtures.map((f) => f.close()), issuer?.close()]);
});

async function fixture(start: Promise<McpFixture>): Promise<McpFixture> {
  const started = await start;
  fixtures.push(started);
  return started;
}

const base = (resource: string) => ({ resource, authorizationServer: issuer.url, tools: TOOLS });

async function listedTools(url: string, authorization: string): Promise<string[]> {
  const client = new Client({ name: 'lister', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization } } }),
  );
  const { tools } = await client.listTools();
  await client.close();
  return tools.map((tool) => tool.name).sort();
}

describe('filterToolsList', () => {
  it('shows a caller only the tools it may call, in JSON and SSE answers, with Hono and Node', async () => {
    const json = await fixture(startHonoMcp((r) => ({ ...base(r), filterToolsList: true }), true));
    const sse = await fixture(startHonoMcp((r) => ({ ...base(r), filterToolsList: true }), false));
    const node = await fixture(startNodeMcp((r) => ({ ...base(r), filterToolsList: true })));
    for (const server of [json, sse, node]) {
      const token = await issuer.mint({ aud: server.resource, scope: 'calendar:read' });
      expect(await listedTools(`${server.url}/mcp`, `Bearer ${token}`)).toEqual(['read_calendar']);
      const both = await issuer.mint({ aud: server.resource, scope: 'calendar mail:send' });
      expect(await listedTools(`${server.url}/mcp`, `Bearer ${both}`)).toEqual(['read_calendar', 'send_mail']);
    }
  });

  it('leaves tools/list whole when not configured (the table still guards every call)', async () => {
    const plain = await fixture(startHonoMcp(base));
    const token = await issuer.mint({ aud: plain.resource, scope: 'calendar:read' });
    expect(await listedTools(`${plain.url}/mcp`, `Bearer ${token}`)).toEqual([
      'read_calendar',
      'send_mail',
      'unlisted_tool',
    ]);
  });
});

describe('Mandate presentations beside tokens', () => {
  const TARGET = 'calendar.example';
  let platform: SigningIdentity;
  let agent: SigningIdentity;
  let subAgent: SigningIdentity;
  let root: AgentCredential;
  let server: McpFixture;

  beforeAll(async () => {
    platform = newIdentity();
    agent = newIdentity();
    subAgent = newIdentity();
    root = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['calendar:read', 'mail:send'],
      delegationDepth: 1,
      domains: [TARGET],
    });
    const presentations = { trustedIssuers: [platform.did], target: TARGET, resolver: testResolver() };
    server = await fixture(startHonoMcp((r) => ({ ...base(r), presentations })));
  });

  async function header(holder: SigningIdentity, credentials: Parameters<typeof signPresentation>[0]['credentials']) {
    const answer = await fetch(`${server.url}${DEFAULT_CHALLENGE_PATH}`);
    const { challenge } = (await answer.json()) as { challenge: string };
    return encodePresentationHeader(await signPresentation({ holder, credentials, challenge, domain: TARGET }));
  }

  it('accepts a delegated chain, maps its scopes onto the tool table and names the delegator', async () => {
    const child = await delegate(root, {
      delegator: agent,
      delegateeDid: subAgent.did,
      scopes: ['calendar:read'],
      domains: [TARGET],
    });
    const authorization = await header(subAgent, [child, root]);
    // One presentation per request (its challenge is single use): a raw call, then a refused one.
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_calendar' } }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { content: { text: string }[] } };
    const seen = JSON.parse(body.result.content[0]!.text) as { authInfo: Record<string, unknown> };
    expect(seen.authInfo).toMatchObject({
      clientId: subAgent.did,
      scopes: ['calendar:read'],
      extra: { agentDid: subAgent.did, delegators: [agent.did], via: 'presentation' },
    });
    const mail = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: await header(subAgent, [child, root]),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'send_mail' } }),
    });
    expect(mail.status).toBe(403);
    expect(await mail.json()).toMatchObject({ reason: 'INSUFFICIENT_SCOPE', scope: 'mail:send' });
  });

  it("answers a refused presentation with the presentation verifier's own refusal", async () => {
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: 'VP not*base64', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ valid: false, reason: 'MALFORMED' });
  });
});

describe('behind a proxy', () => {
  it("judges a DPoP proof's htu against the resource's origin, not the URL the proxy forwarded to", async () => {
    const resource = 'https://calendar.example/mcp';
    const key = await dpopKey();
    const token = await issuer.mint({ aud: resource, cnf: { jkt: key.jkt } });
    const forwarded = (proof: string) =>
      new Request('http://10.0.0.7:8080/mcp', {
        method: 'POST',
        headers: { authorization: `DPoP ${token}`, dpop: proof, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    const settings = base(resource);
    expect(
      (await authorizeMcpRequest(forwarded(await dpopProof(key, 'POST', resource, token)), settings)).allowed,
    ).toBe(true);
    const inner = await authorizeMcpRequest(
      forwarded(await dpopProof(key, 'POST', 'http://10.0.0.7:8080/mcp', token)),
      settings,
    );
    expect(inner).toMatchObject({ allowed: false, reason: 'DPOP_PROOF_INVALID' });
  });
});

describe('failures of the setting', () => {
  it('answers 503 JWKS_UNAVAILABLE when the issuer keys cannot be read', async () => {
    const down = await fixture(
      startHonoMcp((r) => ({ ...base(r), jwksUri: 'http://127.0.0.1:1/.well-known/jwks.json' })),
    );
    const token = await issuer.mint({ aud: down.resource });
    const response = await fetch(`${down.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable', reason: 'JWKS_UNAVAILABLE' });
  });

  it.each([
    ['a relative resource', { resource: '/mcp' }],
    ['a resource with a fragment', { resource: 'https://x.example/mcp#a' }],
    ['a non-URL issuer', { authorizationServer: 'issuer' }],
    ['a tool with a bad scope', { tools: { search: ['Not A Scope'] } }],
    ['tools as a list', { tools: ['search'] }],
    ['a negative clock skew', { clockSkewSec: -1 }],
  ])('refuses %s at setup (INVALID_MCP_AUTH_OPTIONS)', (_, bad) => {
    const options = { ...base('https://x.example/mcp'), ...bad } as Parameters<typeof mcpAuth>[0];
    expect(() => mcpAuth(options)).toThrow(McpAuthOptionsError);
  });
});

describe('mcpNodeMiddleware after a body parser', () => {
  it('passes an McpAuthOptionsError to next() instead of judging a drained body', async () => {
    const guard = mcpNodeMiddleware(base('http://127.0.0.1/mcp'));
    const seen: unknown[] = [];
    const server: Server = createServer((req, res) => {
      req.resume(); // a body parser before it
      req.on('end', () => {
        void guard(req, res, (error?: unknown) => {
          seen.push(error);
          res.writeHead(500).end();
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(500);
      expect(seen[0]).toBeInstanceOf(McpAuthOptionsError);
    } finally {
      server.close();
    }
  });
});
