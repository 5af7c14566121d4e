// The revocation bound at an MCP server behind mcpAuth, measured with nothing stood in: a running
// Mandate issuer, a real MCP server, a server-custody agent's token; its credential is revoked
// at the issuer, and the MCP server's clock (mcpAuth's `now`) is moved by hand, so the bound is
// read off the clock without sleeping. Without introspection a revoked token is honoured until
// `exp` + clockSkewSec (300 + 60 s by default); with `introspection` until the cached answer
// is `cacheTtlSec` old.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpAuth, McpAuthOptionsError, type McpAuthOptions } from '../../../verifier-worker/index.ts';
import { agentPath, mintToken, onboardServerAgent, startTestIssuer, type TestIssuer } from '../../support/issuer.ts';
import { startHonoMcp, TOOLS, type McpFixture } from '../../support/mcp.ts';
import { tokenRequest } from '../../support/oauth.ts';

const INTROSPECTION_KEY = 'rs-introspection-key-0123456789abcdef';
const TTL_SEC = 5;

let issuer: TestIssuer;

beforeAll(async () => {
  issuer = await startTestIssuer({ SERVICE_OAUTH_ALLOW_BEARER: 'true', SERVICE_INTROSPECTION_KEYS: INTROSPECTION_KEY });
});
afterAll(() => issuer?.dispose());

/** An MCP server on a clock the test moves; `introspection` as given. */
async function mcpServer(extra: Partial<McpAuthOptions>): Promise<{ mcp: McpFixture; clock: { ms: number } }> {
  const clock = { ms: Date.now() };
  const mcp = await startHonoMcp((resource) => ({
    resource,
    authorizationServer: issuer.url,
    tools: TOOLS,
    now: () => clock.ms,
    ...extra,
  }));
  return { mcp, clock };
}

/** A server-custody agent for `resource`, its Bearer token (client secret) and its credential's id. */
async function agentToken(resource: string): Promise<{ token: string; vcId: string; iat: number; exp: number }> {
  const enrolment = await mintToken(issuer, { requestedScopes: ['calendar:read'], requestedDomains: [resource] });
  const { agentDid, vcId } = await onboardServerAgent(issuer, enrolment);
  const secret = (await issuer.call(agentPath(agentDid, '/client-secret'), { method: 'POST', admin: true })).json
    .clientSecret as string;
  const issued = await tokenRequest(
    issuer,
    { grant_type: 'client_credentials', resource },
    { authorization: `Basic ${Buffer.from(`${agentDid}:${secret}`).toString('base64')}` },
  );
  expect(issued.status).toBe(200);
  const token = issued.json.access_token as string;
  const { iat, exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
    iat: number;
    exp: number;
  };
  return { token, vcId, iat, exp };
}

async function callTool(mcp: McpFixture, token: string): Promise<{ status: number; reason?: string }> {
  const response = await fetch(mcp.resource, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_calendar' } }),
  });
  const body = (await response.json()) as { reason?: string };
  return { status: response.status, ...(body.reason === undefined ? {} : { reason: body.reason }) };
}

async function revoke(vcId: string): Promise<void> {
  const revoked = await issuer.call(`/v1/vcs/${encodeURIComponent(vcId)}/revoke`, {
    admin: true,
    body: { reason: 'compromised' },
  });
  expect(revoked.status).toBe(200);
}

describe('the revocation bound at an MCP server (mcpAuth)', () => {
  it('without introspection: a revoked token is honoured until exp + clockSkewSec (360 s at the defaults), then refused', async () => {
    const { mcp, clock } = await mcpServer({});
    try {
      const { token, vcId, iat, exp } = await agentToken(mcp.resource);
      await revoke(vcId);
      clock.ms = Date.now();
      const revokedAt = clock.ms;
      expect(await callTool(mcp, token)).toEqual({ status: 200 });
      clock.ms = (exp + 60) * 1000 - 1; // the last moment it passes: 60 s (the default skew) past exp
      expect(await callTool(mcp, token)).toEqual({ status: 200 });
      expect(clock.ms - revokedAt).toBeGreaterThan(300_000); // longer than the token's lifetime
      clock.ms = (exp + 60) * 1000 + 1000;
      expect(await callTool(mcp, token)).toEqual({ status: 401, reason: 'TOKEN_EXPIRED' });
      expect(exp + 60 - iat).toBe(360); // the bound: lifetime (300 s) + skew (60 s), from issuance
    } finally {
      await mcp.close();
    }
  });

  it(`with introspection (cacheTtlSec ${TTL_SEC}): refused within ${TTL_SEC} s of the revocation (TOKEN_INACTIVE)`, async () => {
    const { mcp, clock } = await mcpServer({ introspection: { key: INTROSPECTION_KEY, cacheTtlSec: TTL_SEC } });
    try {
      const { token, vcId } = await agentToken(mcp.resource);
      expect(await callTool(mcp, token)).toEqual({ status: 200 }); // introspected: active, kept TTL_SEC
      await revoke(vcId);
      const revokedAt = clock.ms;
      expect(await callTool(mcp, token)).toEqual({ status: 200 }); // the kept answer, not yet stale
      clock.ms = revokedAt + TTL_SEC * 1000 - 1;
      expect(await callTool(mcp, token)).toEqual({ status: 200 });
      clock.ms = revokedAt + TTL_SEC * 1000;
      expect(await callTool(mcp, token)).toEqual({ status: 401, reason: 'TOKEN_INACTIVE' });
      // A token first seen after the revocation is refused at once.
      const other = await agentToken(mcp.resource);
      await revoke(other.vcId);
      expect(await callTool(mcp, other.token)).toEqual({ status: 401, reason: 'TOKEN_INACTIVE' });
    } finally {
      await mcp.close();
    }
  });

  it('an introspection endpoint that refuses the resource server fails closed: 503 INTROSPECTION_UNAVAILABLE, Retry-After', async () => {
    const { mcp } = await mcpServer({ introspection: { key: 'not-a-key-of-this-issuer-0123456789' } });
    try {
      const { token } = await agentToken(mcp.resource);
      const response = await fetch(mcp.resource, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBeTruthy();
      expect(await response.json()).toMatchObject({ reason: 'INTROSPECTION_UNAVAILABLE' });
    } finally {
      await mcp.close();
    }
  });

  it('refuses a cacheTtlSec above 30 s, and an introspection without a key, at setup', () => {
    const options = (introspection: unknown) =>
      ({
        resource: 'https://calendar.example.com/mcp',
        authorizationServer: issuer.url,
        tools: TOOLS,
        introspection,
      }) as McpAuthOptions;
    expect(() => mcpAuth(options({ key: INTROSPECTION_KEY, cacheTtlSec: 31 }))).toThrow(/at most 30/);
    expect(() => mcpAuth(options({ cacheTtlSec: 5 }))).toThrow(McpAuthOptionsError);
  });
});
