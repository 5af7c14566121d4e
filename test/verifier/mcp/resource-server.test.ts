// mandate/verifier as an MCP resource server, against the official MCP SDK on 127.0.0.1: a real
// McpServer behind mcpAuth (Hono) and mcpNodeMiddleware (node:http), a real SDK Client whose
// ClientCredentialsProvider follows the 401 → RFC 9728 metadata → RFC 8414 metadata → token
// flow, and crafted requests provoking every refusal. Tokens come from test/support/mcp.ts's
// small authorization server (jose, Ed25519 JWKS), which can rotate keys and mint malformed tokens
// on demand; test/issuer/mcp.test.ts runs the same flows against the Mandate issuer.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import {
  AGENT,
  DELEGATOR,
  dpopKey,
  dpopProof,
  recordingFetch,
  startHonoMcp,
  startNodeMcp,
  startTokenServer,
  TOOLS,
  type McpFixture,
  type TokenServer,
} from '../../support/mcp.ts';
import { createReplayCache } from '../../../wallet/vc/replay-cache.ts';

let issuer: TokenServer;
let hono: McpFixture;
let node: McpFixture;
const replayCache = createReplayCache();

beforeAll(async () => {
  issuer = await startTokenServer();
  issuer.clients.set(AGENT, { secret: 's3cret', scopes: ['calendar:read'] });
  const options = (resource: string) => ({
    resource,
    authorizationServer: issuer.url,
    tools: TOOLS,
    replayCache,
    jwksCooldownMs: 60_000,
  });
  hono = await startHonoMcp(options);
  node = await startNodeMcp(options);
});

afterAll(async () => {
  await Promise.all([hono?.close(), node?.close(), issuer?.close()]);
});

const call = (name: string, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function sdkClient(url: string, provider?: ClientCredentialsProvider, fetch?: FetchLike): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(provider ? { authProvider: provider } : {}),
      ...(fetch ? { fetch } : {}),
    }),
  );
  return client;
}

const provider = () =>
  new ClientCredentialsProvider({ clientId: AGENT, clientSecret: 's3cret', expectedIssuer: issuer.url });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
type Json = any;

function toolText(result: unknown): Json {
  return JSON.parse((result as { content: { text: string }[] }).content[0]!.text);
}

describe('RFC 9728 protected-resource metadata', () => {
  it('is served at the path-suffixed and the bare well-known URI, naming the issuer', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${hono.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: hono.resource,
        authorization_servers: [issuer.url],
        scopes_supported: ['calendar:read', 'mail:send'],
        bearer_methods_supported: ['header'],
        dpop_signing_alg_values_supported: ['EdDSA', 'Ed25519', 'ES256'],
        dpop_bound_access_tokens_required: false,
      });
    }
    expect((await fetch(`${node.url}/.well-known/oauth-protected-resource/mcp`)).status).toBe(200);
  });
});

describe('the official SDK client', () => {
  for (const which of ['hono', 'node'] as const) {
    it(`follows the 401 to the issuer, gets a token and calls an allowed tool (${which})`, async () => {
      const fixture = which === 'hono' ? hono : node;
      const client = await sdkClient(`${fixture.url}/mcp`, provider());
      const result = await client.callTool({ name: 'read_calendar', arguments: {} });
      const seen = toolText(result);
      expect(seen.tool).toBe('read_calendar');
      expect(seen.authInfo).toMatchObject({
        clientId: AGENT,
        scopes: ['calendar:read'],
        extra: { agentDid: AGENT, delegators: [], via: 'token', issuer: issuer.url },
      });
      await client.close();
    });
  }

  it('is refused without a token, with metadata its discovery reads', async () => {
    await expect(sdkClient(`${hono.url}/mcp`)).rejects.toThrow(/TOKEN_MISSING/);
    const response = await post(`${hono.url}/mcp`, call('read_calendar'));
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ reason: 'TOKEN_MISSING' });
    const params = extractWWWAuthenticateParams(response);
    expect(params.resourceMetadataUrl?.href).toBe(`${hono.url}/.well-known/oauth-protected-resource/mcp`);
    expect(params.scope).toBe('calendar:read mail:send');
    expect(params.error).toBeUndefined();
    const metadata = await discoverOAuthProtectedResourceMetadata(`${hono.url}/mcp`, {
      resourceMetadataUrl: params.resourceMetadataUrl!,
    });
    expect(metadata.authorization_servers).toEqual([issuer.url]);
  });

  it('is stepped up (403 insufficient_scope with the scope) for a tool needing more', async () => {
    const recorded = recordingFetch(hono.resource);
    const client = await sdkClient(`${hono.url}/mcp`, provider(), recorded.fetch);
    // Connecting took the 401 → token flow (the test above); from here on, the call alone.
    recorded.clear();
    const error = await client.callTool({ name: 'send_mail', arguments: {} }).catch((e: unknown) => e);
    await client.close();
    // The token server grants this agent calendar:read only: the token the SDK gets on the
    // step-up is refused again, and the SDK gives up with the 403.
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(403);
    const refused = { status: 403, reason: 'INSUFFICIENT_SCOPE', error: 'insufficient_scope', scope: 'mail:send' };
    expect(recorded.refusals).toEqual([refused, refused]);
    // The challenge's insufficient_scope made the SDK fetch a token once more before retrying
    // (its ClientCredentialsProvider asks for the scope it was configured with, none here).
    expect(recorded.tokenScopes).toEqual([null]);
  });
});

describe('access tokens', () => {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  async function refusal(token: string, url = `${hono.url}/mcp`): Promise<{ status: number; body: Json; www: string }> {
    const response = await post(url, call('read_calendar'), bearer(token));
    return {
      status: response.status,
      body: await response.json(),
      www: response.headers.get('www-authenticate') ?? '',
    };
  }

  it('accepts a valid token and hands the caller (agent, delegators, scopes) to the tool', async () => {
    const token = await issuer.mint({
      aud: hono.resource,
      act: { sub: DELEGATOR, act: { sub: 'did:web:boss.example' } },
    });
    const response = await post(`${hono.url}/mcp`, call('read_calendar'), bearer(token));
    expect(response.status).toBe(200);
    const seen = toolText(((await response.json()) as { result: unknown }).result);
    expect(seen.authInfo.extra.delegators).toEqual([DELEGATOR, 'did:web:boss.example']);
    expect(seen.authInfo.resource).toBe(hono.resource);
  });

  it('refuses a token for another resource', async () => {
    const result = await refusal(await issuer.mint({ aud: 'http://127.0.0.1:1/other' }));
    expect(result).toMatchObject({ status: 401, body: { error: 'invalid_token', reason: 'TOKEN_AUDIENCE_MISMATCH' } });
    expect(result.www).toMatch(
      /^Bearer resource_metadata="[^"]+", scope="calendar:read mail:send", error="invalid_token"/,
    );
  });

  it.each([
    ['TOKEN_MALFORMED', () => 'not-a-jwt'],
    ['TOKEN_TYPE_INVALID', () => issuer.mint({ aud: hono.resource }, { typ: 'JWT' })],
    ['TOKEN_KEY_UNKNOWN', () => issuer.mint({ aud: hono.resource }, { kid: 'no-such-key' })],
    ['TOKEN_ISSUER_MISMATCH', () => issuer.mint({ aud: hono.resource, iss: 'http://127.0.0.1:1' })],
    ['TOKEN_EXPIRED', () => issuer.mint({ aud: hono.resource, iat: 1_000, exp: 1_300 })],
    ['TOKEN_NOT_YET_VALID', () => issuer.mint({ aud: hono.resource, nbf: Math.floor(Date.now() / 1000) + 3600 })],
    ['TOKEN_CLAIM_INVALID', () => issuer.mint({ aud: hono.resource, client_id: undefined })],
  ])('refuses %s', async (reason, make) => {
    expect(await refusal(await make())).toMatchObject({ status: 401, body: { reason } });
  });

  it('refuses a token whose signature does not verify', async () => {
    const token = await issuer.mint({ aud: hono.resource });
    const [h, p, s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), scope: 'mail:send' })).toString('base64url')}.${s}`;
    expect(await refusal(forged)).toMatchObject({ status: 401, body: { reason: 'TOKEN_SIGNATURE_INVALID' } });
  });

  it('refuses with 403 insufficient_scope and the scope needed', async () => {
    const response = await post(
      `${hono.url}/mcp`,
      call('send_mail'),
      bearer(await issuer.mint({ aud: hono.resource })),
    );
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      error: 'insufficient_scope',
      reason: 'INSUFFICIENT_SCOPE',
      scope: 'mail:send',
    });
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", scope="mail:send"/);
  });

  it('refuses a tool the table does not name, fail closed', async () => {
    const token = await issuer.mint({ aud: hono.resource, scope: 'calendar:read mail:send' });
    const response = await post(`${hono.url}/mcp`, call('unlisted_tool'), bearer(token));
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ reason: 'TOOL_NOT_LISTED' });
  });

  it('matches method names exactly: "tools/call " and other unknown methods are refused (METHOD_NOT_ALLOWED), at both middlewares', async () => {
    const params = { name: 'unlisted_tool', arguments: {} };
    for (const fixture of [hono, node]) {
      const url = `${fixture.url}/mcp`;
      const token = await issuer.mint({ aud: fixture.resource, scope: 'calendar:read mail:send' });
      for (const method of ['tools/call ', 'Tools/call', 'tools/call\u0000', 'admin/exec', 'notifications/whatever']) {
        const response = await post(url, { jsonrpc: '2.0', id: 1, method, params }, bearer(token));
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({
          error: { code: -32601, data: { reason: 'METHOD_NOT_ALLOWED' } },
        });
      }
      const notification = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, bearer(token));
      expect(notification.status).toBe(202); // a known notification still passes
      const methodless = await post(url, { jsonrpc: '2.0', id: 1, params }, bearer(token));
      expect(await methodless.json()).toMatchObject({ error: { data: { reason: 'BODY_MALFORMED' } } });
    }
  });

  it('passes a method the server allows by policy (allowMethods), and only that exact name', async () => {
    const fixture = await startHonoMcp((resource) => ({
      resource,
      authorizationServer: issuer.url,
      tools: TOOLS,
      allowMethods: ['vendor/status'],
    }));
    try {
      const token = await issuer.mint({ aud: fixture.resource });
      const send = (method: string) => post(`${fixture.url}/mcp`, { jsonrpc: '2.0', id: 1, method }, bearer(token));
      const allowed = await (await send('vendor/status')).json();
      expect(allowed.error.code).toBe(-32601); // through to the MCP server, which does not know it
      expect(allowed.error.data?.reason).toBeUndefined();
      expect(await (await send('vendor/status ')).json()).toMatchObject({
        error: { data: { reason: 'METHOD_NOT_ALLOWED' } },
      });
    } finally {
      await fixture.close();
    }
  });

  it('judges batches by every call in them, and refuses malformed and oversized bodies', async () => {
    const token = await issuer.mint({ aud: hono.resource });
    const batch = await post(`${hono.url}/mcp`, [call('read_calendar', 1), call('send_mail', 2)], bearer(token));
    expect(batch.status).toBe(403);
    const broken = await post(`${hono.url}/mcp`, '{"jsonrpc":"2.0",', bearer(token));
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: -32700, data: { reason: 'BODY_MALFORMED' } } });
    const nameless = await post(
      `${hono.url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} },
      bearer(token),
    );
    expect(await nameless.json()).toMatchObject({ error: { data: { reason: 'BODY_MALFORMED' } } });
    const duplicate =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_calendar","name":"send_mail"}}';
    expect((await post(`${hono.url}/mcp`, duplicate, bearer(token))).status).toBe(400);
    for (const url of [`${hono.url}/mcp`, `${node.url}/mcp`]) {
      const huge = await post(
        url,
        { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } },
        bearer(token),
      );
      expect(huge.status).toBe(413);
      expect(await huge.json()).toMatchObject({ error: { data: { reason: 'BODY_TOO_LARGE' } } });
    }
  });
});

describe('DPoP-bound tokens (RFC 9449)', () => {
  it('accepts a bound token with a fresh proof, and refuses a missing, wrong-key, wrong-target or replayed one', async () => {
    const key = await dpopKey();
    const url = `${hono.url}/mcp`;
    const token = await issuer.mint({ aud: hono.resource, cnf: { jkt: key.jkt } });
    const send = (headers: Record<string, string>) => post(url, call('read_calendar'), headers);
    const reason = async (response: Response) => ((await response.json()) as { reason: string }).reason;

    expect(await reason(await send({ authorization: `Bearer ${token}` }))).toBe('DPOP_PROOF_MISSING');
    expect(await reason(await send({ authorization: `DPoP ${token}` }))).toBe('DPOP_PROOF_MISSING');
    const other = await dpopKey();
    const wrongKey = await dpopProof(other, 'POST', url, token);
    expect(await reason(await send({ authorization: `DPoP ${token}`, dpop: wrongKey }))).toBe('DPOP_BINDING_MISMATCH');
    for (const overrides of [{ htu: `${hono.url}/elsewhere` }, { htm: 'GET' }, { ath: 'x' }, { iat: 1000 }]) {
      const proof = await dpopProof(key, 'POST', url, token, overrides);
      const response = await send({ authorization: `DPoP ${token}`, dpop: proof });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(
        /^DPoP algs="EdDSA Ed25519 ES256", error="invalid_dpop_proof"/,
      );
      expect(await reason(response)).toBe('DPOP_PROOF_INVALID');
    }
    const unbound = await issuer.mint({ aud: hono.resource });
    const unboundProof = await dpopProof(key, 'POST', url, unbound);
    expect(await reason(await send({ authorization: `DPoP ${unbound}`, dpop: unboundProof }))).toBe(
      'DPOP_PROOF_MISSING',
    );
    const proof = await dpopProof(key, 'POST', `${url}?q=1`, token);
    expect((await send({ authorization: `DPoP ${token}`, dpop: proof })).status).toBe(200);
    expect(await reason(await send({ authorization: `DPoP ${token}`, dpop: proof }))).toBe('DPOP_PROOF_REPLAYED');
  });
  it('two DPoP header lines are one invalid proof: 401 invalid_dpop_proof / DPOP_PROOF_INVALID (RFC 9449 §4.3 item 1, §7.1)', async () => {
    const key = await dpopKey();
    const url = `${hono.url}/mcp`;
    const token = await issuer.mint({ aud: hono.resource, cnf: { jkt: key.jkt } });
    const proofs = [await dpopProof(key, 'POST', url, token), await dpopProof(key, 'POST', url, token)];
    // node:http sends an array value as two header lines, as a client or proxy repeating it would.
    const answer = await new Promise<{ status: number; challenge: string; body: Json }>((resolve, reject) => {
      const body = JSON.stringify(call('read_calendar'));
      const req = httpRequest(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `DPoP ${token}`, dpop: proofs },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            challenge: String(res.headers['www-authenticate']),
            body: JSON.parse(text),
          }),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/^DPoP algs="[^"]*", error="invalid_dpop_proof"/);
    expect(answer.body).toMatchObject({ error: 'invalid_dpop_proof', reason: 'DPOP_PROOF_INVALID' });
  });
});

describe('JWKS rotation', () => {
  it('follows a key rotation with one refetch, and rate-limits refetches for unknown kids', async () => {
    const own = await startTokenServer();
    let clock = Date.now();
    const fixture = await startHonoMcp((resource) => ({
      resource,
      authorizationServer: own.url,
      tools: TOOLS,
      jwksCooldownMs: 30_000,
      now: () => clock,
    }));
    const send = async (token: string) =>
      post(`${fixture.url}/mcp`, call('read_calendar'), { authorization: `Bearer ${token}` });
    try {
      expect((await send(await own.mint({ aud: fixture.resource }))).status).toBe(200);
      expect(own.jwksHits()).toBe(1);
      for (let i = 0; i < 5; i++) {
        const response = await send(await own.mint({ aud: fixture.resource }, { kid: `bogus-${i}` }));
        expect(await response.json()).toMatchObject({ reason: 'TOKEN_KEY_UNKNOWN' });
      }
      expect(own.jwksHits()).toBe(1); // within the cooldown: no fetch per made-up kid
      clock += 31_000;
      await own.rotate();
      expect((await send(await own.mint({ aud: fixture.resource }))).status).toBe(200);
      expect(own.jwksHits()).toBe(2); // the new kid: one refetch
    } finally {
      await fixture.close();
      await own.close();
    }
  });
});

describe('requireDpop, and requests without a body', () => {
  it('refuses unbound tokens when DPoP is required, and says so in the metadata', async () => {
    const strict = await startNodeMcp((resource) => ({
      resource,
      authorizationServer: issuer.url,
      tools: TOOLS,
      requireDpop: true,
    }));
    try {
      const metadata = await (await fetch(`${strict.url}/.well-known/oauth-protected-resource/mcp`)).json();
      expect(metadata).toMatchObject({ dpop_bound_access_tokens_required: true });
      const token = await issuer.mint({ aud: strict.resource });
      const response = await post(`${strict.url}/mcp`, call('read_calendar'), { authorization: `Bearer ${token}` });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ reason: 'DPOP_PROOF_MISSING' });
      const key = await dpopKey();
      const bound = await issuer.mint({ aud: strict.resource, cnf: { jkt: key.jkt } });
      const proof = await dpopProof(key, 'POST', strict.resource, bound);
      const ok = await post(`${strict.url}/mcp`, call('read_calendar'), {
        authorization: `DPoP ${bound}`,
        dpop: proof,
      });
      expect(ok.status).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('lets GET and DELETE through with a valid token only (the transport answers them), refuses them without', async () => {
    for (const method of ['GET', 'DELETE']) {
      expect((await fetch(`${hono.url}/mcp`, { method })).status).toBe(401);
      const token = await issuer.mint({ aud: hono.resource });
      const response = await fetch(`${hono.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      });
      expect(response.status).not.toBe(401);
      expect(response.status).not.toBe(403);
      await response.body?.cancel();
    }
  });
});
