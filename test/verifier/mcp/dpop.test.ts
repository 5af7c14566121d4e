// DPoP end to end with nothing stood in: oauth4webapi gets a DPoP-bound token from a running
// Mandate issuer (at its default: DPoP required) and calls a tool of a real MCP server (the SDK's
// McpServer) behind mcpAuth with a fresh proof of the same key. One verifier
// (wallet/crypto/dpop.ts) judges the proofs at both ends, so every algorithm the issuer advertises
// works at the resource: ES256 (oauth4webapi's default key) and Ed25519.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestIssuer, type TestIssuer } from '../../support/issuer.ts';
import { startHonoMcp, TOOLS, type McpFixture } from '../../support/mcp.ts';
import { discover, INSECURE, oauthAgent, type OAuthAgent } from '../../support/oauth.ts';

let issuer: TestIssuer;
let mcp: McpFixture;
let as: oauth.AuthorizationServer;
let agent: OAuthAgent;

beforeAll(async () => {
  issuer = await startTestIssuer();
  mcp = await startHonoMcp((resource) => ({ resource, authorizationServer: issuer.url, tools: TOOLS }));
  as = await discover(issuer);
  agent = await oauthAgent(issuer, { requestedScopes: ['calendar:read'], requestedDomains: [mcp.resource] });
});
afterAll(async () => {
  await mcp?.close();
  await issuer?.dispose();
});

const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_calendar', arguments: {} } };

/** A DPoP-bound token for the MCP server from the issuer, then one tools/call with it. */
async function tokenThenCall(keys: CryptoKeyPair): Promise<{ token: oauth.TokenEndpointResponse; answer: Response }> {
  const dpop = oauth.DPoP(agent.client, keys);
  const grant = await oauth.clientCredentialsGrantRequest(
    as,
    agent.client,
    agent.clientAuth,
    { resource: mcp.resource, scope: 'calendar:read' },
    { ...INSECURE, DPoP: dpop },
  );
  const token = await oauth.processClientCredentialsResponse(as, agent.client, grant);
  const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
  const answer = await oauth.protectedResourceRequest(
    token.access_token,
    'POST',
    new URL(mcp.resource),
    headers,
    JSON.stringify(call),
    { ...INSECURE, DPoP: dpop },
  );
  return { token, answer };
}

describe('DPoP-bound tokens from the issuer at an MCP server behind mcpAuth', () => {
  it('the metadata of both advertise the same proof algorithms, ES256 among them', async () => {
    const resource = (await (await fetch(`${mcp.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<
      string,
      unknown
    >;
    expect(as.dpop_signing_alg_values_supported).toContain('ES256');
    expect(resource.dpop_signing_alg_values_supported).toEqual(as.dpop_signing_alg_values_supported);
  });

  it("an ES256 (P-256) DPoP key, oauth4webapi's and WebCrypto's common choice, gets a token and calls the tool", async () => {
    const keys = await oauth.generateKeyPair('ES256');
    expect(keys.privateKey.algorithm.name).toBe('ECDSA');
    const { token, answer } = await tokenThenCall(keys);
    expect(token.token_type).toBe('dpop');
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { result: { content: { text: string }[] } };
    expect(JSON.parse(body.result.content[0]!.text).authInfo).toMatchObject({ clientId: agent.did });
  });

  it('an Ed25519 DPoP key still works', async () => {
    const { token, answer } = await tokenThenCall(await oauth.generateKeyPair('Ed25519'));
    expect(token.token_type).toBe('dpop');
    expect(answer.status).toBe(200);
  });

  it('a proof of another ES256 key is refused as DPOP_BINDING_MISMATCH', async () => {
    const keys = await oauth.generateKeyPair('ES256');
    const { token } = await tokenThenCall(keys);
    const other = oauth.DPoP(agent.client, await oauth.generateKeyPair('ES256'));
    const error = await oauth
      .protectedResourceRequest(
        token.access_token,
        'POST',
        new URL(mcp.resource),
        new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
        JSON.stringify(call),
        { ...INSECURE, DPoP: other },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const { response } = error as oauth.WWWAuthenticateChallengeError;
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_token', reason: 'DPOP_BINDING_MISMATCH' });
  });
});
