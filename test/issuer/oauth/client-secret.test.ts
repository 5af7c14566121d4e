// Server-custody agents at the token endpoint with their own client secret (RFC 6749 §2.3.1):
// client_secret_basic and client_secret_post through oauth4webapi, the MCP SDK's
// ClientCredentialsProvider (which sends the DID unencoded in Basic), the token verified by jose,
// and every refusal with its Mandate reason.
import { discoverAuthorizationServerMetadata, fetchToken } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentPath,
  mintToken,
  onboardServerAgent,
  startTestIssuer,
  TEST_ADMIN_KEY,
  type TestIssuer,
} from '../../support/issuer.ts';
import { discover, INSECURE, oauthAgent, RESOURCE, tokenRequest } from '../../support/oauth.ts';

let issuer: TestIssuer;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  issuer = await startTestIssuer({ SERVICE_OAUTH_ALLOW_BEARER: 'true' });
  as = await discover(issuer);
});
afterAll(() => issuer.dispose());

async function serverAgentWithSecret(): Promise<{ did: string; secret: string }> {
  const { agentDid } = await onboardServerAgent(issuer, await mintToken(issuer, { requestedDomains: [RESOURCE] }));
  const issued = await issuer.call(agentPath(agentDid, '/client-secret'), { method: 'POST', admin: true });
  return { did: agentDid, secret: issued.json.clientSecret as string };
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const cc = { grant_type: 'client_credentials', resource: RESOURCE };

async function verified(token: string) {
  const jwks = createRemoteJWKSet(new URL(`${issuer.url}/.well-known/jwks.json`));
  return (await jwtVerify(token, jwks, { issuer: issuer.url, audience: RESOURCE, typ: 'at+jwt' })).payload;
}

describe('client_credentials with a client secret (server custody)', () => {
  it('is advertised in the metadata', () => {
    expect(as.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['private_key_jwt', 'client_secret_basic', 'client_secret_post']),
    );
  });

  it('client_secret_basic and client_secret_post through oauth4webapi: a token for the agent, jose verifies it', async () => {
    const agent = await serverAgentWithSecret();
    for (const auth of [oauth.ClientSecretBasic(agent.secret), oauth.ClientSecretPost(agent.secret)]) {
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        { client_id: agent.did },
        auth,
        new URLSearchParams({ resource: RESOURCE, scope: 'files:read' }),
        INSECURE,
      );
      const tokens = await oauth.processClientCredentialsResponse(as, { client_id: agent.did }, response);
      expect(tokens.scope).toBe('files:read');
      expect(await verified(tokens.access_token)).toMatchObject({ sub: agent.did, client_id: agent.did });
    }
    const audit = await issuer.call(`/v1/audit?agent=${encodeURIComponent(agent.did)}&event=OAUTH_TOKEN_ISSUED`, {
      admin: true,
    });
    expect(audit.json.records).toHaveLength(2);
    expect(JSON.stringify(audit.json.records)).not.toContain(agent.secret);
  });

  it("the MCP SDK's ClientCredentialsProvider gets a token (the DID unencoded in Basic)", async () => {
    const agent = await serverAgentWithSecret();
    const provider = new ClientCredentialsProvider({
      clientId: agent.did,
      clientSecret: agent.secret,
      expectedIssuer: issuer.url,
    });
    const metadata = await discoverAuthorizationServerMetadata(issuer.url);
    const tokens = await fetchToken(provider, issuer.url, { metadata, resource: new URL(RESOURCE) });
    expect(tokens.token_type).toBe('Bearer');
    expect(await verified(tokens.access_token)).toMatchObject({ sub: agent.did, scope: 'files:read files:write' });
  });

  it('a wrong, rotated or revoked secret → 401 invalid_client / CLIENT_SECRET_INVALID (Basic answered with WWW-Authenticate)', async () => {
    const agent = await serverAgentWithSecret();
    const wrong = await tokenRequest(issuer, cc, { authorization: basic(agent.did, `${agent.secret.slice(0, -1)}x`) });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'CLIENT_SECRET_INVALID' });
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="mandate-issuer"');

    const post = await tokenRequest(issuer, { ...cc, client_id: agent.did, client_secret: 'mandate_cs_nope' });
    expect(post.status).toBe(401);
    expect(post.json).toMatchObject({ mandate_reason: 'CLIENT_SECRET_INVALID' });
    expect(post.headers.get('www-authenticate')).toBeNull();

    const other = await serverAgentWithSecret();
    const crossed = await tokenRequest(issuer, cc, { authorization: basic(other.did, agent.secret) });
    expect(crossed.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'CLIENT_SECRET_INVALID' });

    await issuer.call(agentPath(agent.did, '/client-secret'), { method: 'DELETE', admin: true });
    const revoked = await tokenRequest(issuer, cc, { authorization: basic(agent.did, agent.secret) });
    expect(revoked.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'CLIENT_SECRET_INVALID' });
    const refused = await issuer.call(`/v1/audit?event=OAUTH_TOKEN_REFUSED&order=desc&limit=1`, { admin: true });
    expect(refused.json.records[0]).toMatchObject({
      reason: 'CLIENT_SECRET_INVALID',
      data: { claimedClient: agent.did },
    });
  });

  it('an agent whose current credential is not held here → invalid_grant / NO_CURRENT_CREDENTIAL', async () => {
    const agent = await serverAgentWithSecret();
    // A record naming a credential the store lacks (an operator's partial restore, say): the
    // endpoint refuses rather than issue a token with no authority behind it.
    const terms = { privilegeScopes: ['files:read'], delegationDepth: 0, domains: null };
    await issuer.running.ctx.stores.agents.setCurrentCredential(agent.did, 'urn:uuid:not-held-here', terms);
    const res = await tokenRequest(issuer, cc, { authorization: basic(agent.did, agent.secret) });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: 'invalid_grant', mandate_reason: 'NO_CURRENT_CREDENTIAL' });
  });

  it('Basic credentials without a secret part → invalid_client / CLIENT_SECRET_INVALID', async () => {
    const noColon = await tokenRequest(issuer, cc, {
      authorization: `Basic ${Buffer.from('did:key:z6Mk').toString('base64').replace(/=+$/, '')}`,
    });
    expect(noColon.status).toBe(401);
    expect(noColon.json).toMatchObject({ mandate_reason: 'CLIENT_SECRET_INVALID' });
  });

  it('two authentication methods → invalid_request / CLIENT_AUTH_AMBIGUOUS; post without client_id → OAUTH_REQUEST_INVALID', async () => {
    const agent = await serverAgentWithSecret();
    const both = await tokenRequest(
      issuer,
      { ...cc, client_id: agent.did, client_secret: agent.secret },
      { authorization: basic(agent.did, agent.secret) },
    );
    expect(both.status).toBe(400);
    expect(both.json).toMatchObject({ error: 'invalid_request', mandate_reason: 'CLIENT_AUTH_AMBIGUOUS' });
    const noId = await tokenRequest(issuer, { ...cc, client_secret: agent.secret });
    expect(noId.json).toMatchObject({ error: 'invalid_request', mandate_reason: 'OAUTH_REQUEST_INVALID' });
  });

  it('a deactivated agent DID: its secret gets no token (invalid_client / DID_DEACTIVATED), its tokens introspect inactive', async () => {
    const agent = await serverAgentWithSecret();
    const introspect = async (token: string) =>
      (
        await issuer.call('/v1/sessions/introspect', {
          body: new URLSearchParams({ token }).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${TEST_ADMIN_KEY}` },
        })
      ).json as Record<string, unknown>;
    const before = await tokenRequest(issuer, { ...cc, client_id: agent.did, client_secret: agent.secret });
    expect(before.status).toBe(200);
    const issuedBefore = before.json.access_token as string;
    expect(await introspect(issuedBefore)).toMatchObject({ active: true, sub: agent.did });

    const deactivated = await issuer.call(`/v1/dids/${encodeURIComponent(agent.did)}/deactivate`, {
      admin: true,
      body: {},
    });
    expect(deactivated.status).toBe(200);
    for (const authorization of [undefined, basic(agent.did, agent.secret)]) {
      const refused = await tokenRequest(
        issuer,
        authorization === undefined ? { ...cc, client_id: agent.did, client_secret: agent.secret } : cc,
        authorization === undefined ? {} : { authorization },
      );
      expect(refused.status).toBe(401);
      expect(refused.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'DID_DEACTIVATED' });
    }
    // Issued before the deactivation: inactive from then on (RFC 7662 §2.2: nothing more).
    expect(await introspect(issuedBefore)).toEqual({ active: false });
  });

  it('a self-custody agent cannot authenticate by secret: its DID has none (CLIENT_SECRET_INVALID)', async () => {
    const self = await oauthAgent(issuer);
    const res = await tokenRequest(issuer, { ...cc, client_id: self.did, client_secret: 'mandate_cs_guess' });
    expect(res.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'CLIENT_SECRET_INVALID' });
  });
});
