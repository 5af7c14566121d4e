// End to end with nothing stood in: a running Mandate issuer as the authorization server, a real
// MCP server (the official SDK's McpServer and Streamable HTTP transport) behind mandate/verifier's
// mcpAuth, and the SDK's Client whose OAuth provider gets its token from the issuer —
// ClientCredentialsProvider for a server-custody agent (its own client secret),
// PrivateKeyJwtProvider for a self-custody agent, and a token exchange for a delegated agent.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../wallet/crypto/bytes.ts';
import { generateSeed, getPublicKey, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { didKeyIdentity } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import type { MandateCredential } from '../../wallet/vc/types.ts';
import {
  agentPath,
  mintToken,
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  TEST_ADMIN_KEY,
  type TestIssuer,
} from '../support/issuer.ts';
import { recordingFetch, startHonoMcp, TOOLS, type McpFixture } from '../support/mcp.ts';
import { holderAuth, newHolder, tokenRequest } from '../support/oauth.ts';

let issuer: TestIssuer;
let mcp: McpFixture;

beforeAll(async () => {
  // The SDK sends no DPoP proof: the operator allows Bearer tokens (docs/oauth.md §DPoP).
  issuer = await startTestIssuer({ SERVICE_OAUTH_ALLOW_BEARER: 'true' });
  mcp = await startHonoMcp((resource) => ({ resource, authorizationServer: issuer.url, tools: TOOLS }));
});
afterAll(async () => {
  await mcp?.close();
  await issuer?.dispose();
});

/** An enrollment token for the calendar scope, limited to the MCP server's resource URI. */
const calendarToken = (extraDomains: string[] = []) =>
  mintToken(issuer, { requestedScopes: ['calendar:read'], requestedDomains: [mcp.resource, ...extraDomains] });

async function connect(provider?: OAuthClientProvider, bearer?: string, fetch?: FetchLike): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcp.resource), {
    ...(provider ? { authProvider: provider } : {}),
    ...(bearer ? { requestInit: { headers: { authorization: `Bearer ${bearer}` } } } : {}),
    ...(fetch ? { fetch } : {}),
  });
  await client.connect(transport);
  return client;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tool echoes JSON
function seen(result: unknown): any {
  return JSON.parse((result as { content: { text: string }[] }).content[0]!.text);
}

async function serverAgent(extraDomains: string[] = []) {
  const { agentDid, vcId } = await onboardServerAgent(issuer, await calendarToken(extraDomains));
  const issued = await issuer.call(agentPath(agentDid, '/client-secret'), { method: 'POST', admin: true });
  return { did: agentDid, vcId, secret: issued.json.clientSecret as string };
}

const secretProvider = (agent: { did: string; secret: string }) =>
  new ClientCredentialsProvider({ clientId: agent.did, clientSecret: agent.secret, expectedIssuer: issuer.url });

async function introspect(token: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${issuer.url}/v1/sessions/introspect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  return (await res.json()) as Record<string, unknown>;
}

describe('an MCP server protected by Mandate, its tokens from the Mandate issuer', () => {
  it('a server-custody agent (ClientCredentialsProvider) follows the 401, gets a token and calls an allowed tool', async () => {
    const agent = await serverAgent();
    const recorded = recordingFetch(mcp.resource);
    const client = await connect(secretProvider(agent), undefined, recorded.fetch);
    const result = seen(await client.callTool({ name: 'read_calendar', arguments: {} }));
    expect(result.authInfo).toMatchObject({
      clientId: agent.did,
      scopes: ['calendar:read'],
      extra: { agentDid: agent.did, delegators: [], via: 'token', issuer: issuer.url },
    });
    // Step-up: the tool needs a scope the agent's credential does not hold. The SDK fetches a
    // token once more on the 403 insufficient_scope, the issuer grants what the credential holds
    // (calendar:read), the retry is refused the same way, and the SDK gives up with the 403.
    recorded.clear();
    const error = await client.callTool({ name: 'send_mail', arguments: {} }).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(403);
    const refused = { status: 403, reason: 'INSUFFICIENT_SCOPE', error: 'insufficient_scope', scope: 'mail:send' };
    expect(recorded.refusals).toEqual([refused, refused]);
    expect(recorded.tokenScopes).toEqual([null]);
  });

  it('a self-custody agent (PrivateKeyJwtProvider) calls the tool with its own key', async () => {
    const seed = generateSeed();
    const identity = didKeyIdentity(seedSigner(seed));
    const { agentDid } = await onboardSelfAgent(issuer, identity, await calendarToken());
    const provider = new PrivateKeyJwtProvider({
      clientId: agentDid,
      privateKey: { kty: 'OKP', crv: 'Ed25519', x: bytesToBase64url(getPublicKey(seed)), d: bytesToBase64url(seed) },
      algorithm: 'EdDSA',
      expectedIssuer: issuer.url,
    });
    const client = await connect(provider);
    expect(seen(await client.callTool({ name: 'read_calendar', arguments: {} })).authInfo.clientId).toBe(agentDid);
    await client.close();
  });

  it('a delegated agent exchanges its presentation for a token; the tool sees the delegator chain', async () => {
    const parent = await serverAgent();
    const child = await newHolder();
    const delegation = await issuer.call(agentPath(parent.did, '/delegations'), {
      headers: { authorization: `Bearer ${parent.secret}` },
      body: { delegateeDid: child.did, scopes: ['calendar:read'], lifetimeSeconds: 3600, domains: [mcp.resource] },
    });
    expect(delegation.status).toBe(201);
    const parentVc = (await issuer.call(`/v1/vcs/${encodeURIComponent(parent.vcId)}`)).json.verifiableCredential;
    const vp = await signPresentation({
      holder: child.identity,
      credentials: [delegation.json.verifiableCredential as MandateCredential, parentVc as MandateCredential],
      challenge: crypto.randomUUID(),
      domain: mcp.resource,
    });
    const exchanged = await tokenRequest(issuer, {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: bytesToBase64url(utf8ToBytes(JSON.stringify(vp))),
      subject_token_type: 'urn:mandate:params:oauth:token-type:presentation',
      resource: mcp.resource,
      client_id: child.did,
      // No DPoP (a Bearer client): the child authenticates as the presentation's holder.
      ...(await holderAuth(issuer, child)),
    });
    expect(exchanged.status).toBe(200);
    const client = await connect(undefined, exchanged.json.access_token as string);
    const result = seen(await client.callTool({ name: 'read_calendar', arguments: {} }));
    expect(result.authInfo.extra).toMatchObject({ agentDid: child.did, delegators: [parent.did] });
    await client.close();
  });

  it('a token for another resource is refused by the MCP server', async () => {
    const agent = await serverAgent(['https://elsewhere.example/mcp']);
    const other = await tokenRequest(
      issuer,
      { grant_type: 'client_credentials', resource: 'https://elsewhere.example/mcp' },
      { authorization: `Basic ${Buffer.from(`${agent.did}:${agent.secret}`).toString('base64')}` },
    );
    expect(other.status).toBe(200);
    await expect(connect(undefined, other.json.access_token as string)).rejects.toThrow(
      /401|TOKEN_AUDIENCE|invalid_token/i,
    );
  });

  it('once the credential is revoked: refused at the token endpoint, and a live token introspects inactive', async () => {
    const agent = await serverAgent();
    const live = await tokenRequest(
      issuer,
      { grant_type: 'client_credentials', resource: mcp.resource },
      { authorization: `Basic ${Buffer.from(`${agent.did}:${agent.secret}`).toString('base64')}` },
    );
    expect((await introspect(live.json.access_token as string)).active).toBe(true);
    const revoked = await issuer.call(`/v1/vcs/${encodeURIComponent(agent.vcId)}/revoke`, {
      admin: true,
      body: { reason: 'compromised' },
    });
    expect(revoked.status).toBe(200);
    expect(await introspect(live.json.access_token as string)).toEqual({ active: false });
    await expect(connect(secretProvider(agent))).rejects.toThrow();
    const refused = await issuer.call(
      `/v1/audit?agent=${encodeURIComponent(agent.did)}&event=OAUTH_TOKEN_REFUSED&order=desc&limit=1`,
      { admin: true },
    );
    expect(refused.json.records[0]).toMatchObject({ reason: 'CREDENTIAL_REVOKED', data: { resource: mcp.resource } });
  });
});
