// Signed requests bound to a credential chain (docs/protocol.md §Signed requests) through the
// middleware: Hono's agentAuth (a handler sees the claims and the unread body) and mcpAuth, where
// the official MCP SDK client calls a tool with a signature instead of a token — the chain sent
// in full once, by digest afterwards, and a CHAIN_UNKNOWN answered by sending it again.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import express from 'express';
import { Hono } from 'hono';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityRequestSigner } from '../../wallet/http-signatures/sign.ts';
import { issueAgentCredential } from '../../wallet/vc/agent-credential.ts';
import { signChainedRequest } from '../../wallet/vc/chain-request.ts';
import { delegate } from '../../wallet/vc/delegation.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import type { AgentCredential, DelegatedAgentCredential } from '../../wallet/vc/types.ts';
import { agentAuth, type AgentAuthEnv } from '../../verifier-worker/hono.ts';
import { nodeMiddleware, type AgentRequest } from '../../verifier-worker/node-http.ts';
import { newIdentity, testResolver } from '../support/agents.ts';
import { startHonoMcp, startTokenServer, TOOLS, type McpFixture, type TokenServer } from '../support/mcp.ts';

let platform: SigningIdentity;
let parentAgent: SigningIdentity;
let agent: SigningIdentity;

beforeAll(() => {
  platform = newIdentity();
  parentAgent = newIdentity();
  agent = newIdentity();
});

async function chainFor(domain: string, scopes: string[]): Promise<[DelegatedAgentCredential, AgentCredential]> {
  const root = await issueAgentCredential({
    issuer: platform,
    agentDid: parentAgent.did,
    privilegeScopes: scopes,
    delegationDepth: 1,
    domains: [domain],
  });
  return [await delegate(root, { delegator: parentAgent, delegateeDid: agent.did, scopes }), root];
}

describe('agentAuth (Hono)', () => {
  const TARGET = 'files.example.com';

  it('lets a signed request through with the claims, its body unread; refuses a replay with the JSON answer', async () => {
    const chain = await chainFor(TARGET, ['files:write']);
    const app = new Hono<AgentAuthEnv>();
    app.use('*', agentAuth({ trustedIssuers: [platform.did], target: TARGET, resolver: testResolver() }));
    app.post('/files', async (c) =>
      c.json({ agent: c.var.agent.agentDid, body: await c.req.text(), vpId: c.req.header('x-mandate-vp-id') }),
    );
    const sign = (byDigest: boolean) =>
      signChainedRequest(
        new Request(`https://${TARGET}/files`, { method: 'POST', body: '{"name":"a.txt"}' }),
        identityRequestSigner(agent),
        chain,
        { byDigest },
      );
    const first = await sign(false);
    // app.fetch, not app.request: @hono/node-server (another file's server, in this worker) swaps
    // the global Request, and app.request reads a Request of the other class as a URL string.
    const answer = await app.fetch(first.clone());
    expect(answer.status).toBe(200);
    const seen = (await answer.json()) as { agent: string; body: string; vpId: string };
    expect(seen).toMatchObject({ agent: agent.did, body: '{"name":"a.txt"}' });
    expect(seen.vpId).toMatch(/^signature:/);
    expect((await app.fetch(await sign(true))).status).toBe(200);
    const replay = await app.fetch(first);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ valid: false, reason: 'HTTP_SIGNATURE_REPLAYED' });
  });
});

describe('nodeMiddleware (Express)', () => {
  const TARGET = '127.0.0.1';

  it('checks a signed body that express.raw() read before it; without it the digest cannot match', async () => {
    const chain = await chainFor(TARGET, ['files:write']);
    const options = { trustedIssuers: [platform.did], target: TARGET, resolver: testResolver() };
    const app = express();
    app.post('/raw/files', express.raw({ type: '*/*' }), nodeMiddleware(options), (req, res) => {
      res.json({ agent: (req as unknown as AgentRequest).agent.agentDid, body: String(req.body) });
    });
    app.post('/stream/files', nodeMiddleware(options), (_req, res) => void res.json({}));
    app.get('/stream/files', nodeMiddleware(options), (_req, res) => void res.json({ ok: true }));
    const server = await new Promise<Server>((resolve) => {
      const s = createServer(app).listen(0, TARGET, () => resolve(s));
    });
    const origin = `http://${TARGET}:${(server.address() as AddressInfo).port}`;
    try {
      const send = async (path: string, method: string, body?: string) =>
        fetch(
          await signChainedRequest(
            new Request(`${origin}${path}`, { method, ...(body === undefined ? {} : { body }) }),
            identityRequestSigner(agent),
            chain,
          ),
        );
      const raw = await send('/raw/files', 'POST', '{"name":"a.txt"}');
      expect(raw.status).toBe(200);
      expect(await raw.json()).toEqual({ agent: agent.did, body: '{"name":"a.txt"}' });
      expect((await send('/stream/files', 'GET')).status).toBe(200);
      const unread = await send('/stream/files', 'POST', '{"name":"a.txt"}');
      expect(unread.status).toBe(401);
      expect(await unread.json()).toMatchObject({ reason: 'CONTENT_DIGEST_MISMATCH' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('mcpAuth: an MCP SDK client calling tools with signed requests', () => {
  let issuer: TokenServer;
  let server: McpFixture;
  let chain: [DelegatedAgentCredential, AgentCredential];
  const TARGET = 'calendar.example';

  beforeAll(async () => {
    issuer = await startTokenServer();
    chain = await chainFor(TARGET, ['calendar:read']);
    const presentations = { trustedIssuers: [platform.did], target: TARGET, resolver: testResolver() };
    server = await startHonoMcp((resource) => ({
      resource,
      authorizationServer: issuer.url,
      tools: TOOLS,
      presentations,
    }));
  });

  afterAll(async () => {
    await Promise.all([server?.close(), issuer?.close()]);
  });

  /**
   * A fetch that signs every request, naming `credentials` by digest once the server took them in
   * full (or from the start, `held`), and in full again after a CHAIN_UNKNOWN.
   */
  function signingFetch(
    answers: Array<{ status: number; byDigest: boolean }>,
    credentials: readonly unknown[] = chain,
    held = false,
  ) {
    const send = async (request: Request, byDigest: boolean): Promise<Response> => {
      const signed = await signChainedRequest(request, identityRequestSigner(agent), credentials, { byDigest });
      const response = await fetch(signed);
      answers.push({ status: response.status, byDigest });
      return response;
    };
    return async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(url, init);
      let response = await send(request.clone(), held);
      if (response.status === 401 && held) {
        const { reason } = (await response.clone().json()) as { reason?: string };
        if (reason === 'CHAIN_UNKNOWN') response = await send(request, (held = false));
      }
      if (response.ok) held = true;
      return response;
    };
  }

  it('calls a tool it holds the scope for, with no token; is refused one it does not', async () => {
    const answers: Array<{ status: number; byDigest: boolean }> = [];
    const client = new Client({ name: 'signed', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { fetch: signingFetch(answers) }),
    );
    const result = await client.callTool({ name: 'read_calendar', arguments: {} });
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    const seen = JSON.parse(text) as {
      authInfo: { clientId: string; scopes: string[]; extra: Record<string, unknown> };
    };
    expect(seen.authInfo).toMatchObject({
      clientId: agent.did,
      scopes: ['calendar:read'],
      extra: { agentDid: agent.did, delegators: [parentAgent.did], via: 'signature' },
    });
    await expect(client.callTool({ name: 'send_mail', arguments: {} })).rejects.toThrow();
    await client.close();
    // The chain travelled in full once, then by digest.
    expect(answers[0]).toEqual({ status: 200, byDigest: false });
    expect(answers.slice(1).some((a) => a.byDigest && a.status === 200)).toBe(true);
    // send_mail: refused by the tool table (403 INSUFFICIENT_SCOPE), no other request refused.
    expect(answers.filter((a) => a.status >= 400)).toEqual([{ status: 403, byDigest: true }]);
  });

  it('answers CHAIN_UNKNOWN to a digest it does not hold, and the client recovers by sending the chain', async () => {
    const answers: Array<{ status: number; byDigest: boolean }> = [];
    const other = await chainFor(TARGET, ['calendar:read']);
    const listed = await signingFetch(
      answers,
      other,
      true,
    )(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect(answers).toEqual([
      { status: 401, byDigest: true },
      { status: 200, byDigest: false },
    ]);
  });
});
