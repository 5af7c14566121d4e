// The token endpoint's `resource` (RFC 8707) against an agent's `domains`, by the one rule of
// docs/protocol.md §Where authority applies: an agent limited to the host `files.example.com`
// gets tokens for the https resource URIs at exactly that host and port, by either grant.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { signPresentation } from '../../../wallet/vc/presentation.ts';
import type { MandateCredential } from '../../../wallet/vc/types.ts';
import { startTestIssuer, type TestIssuer } from '../../support/issuer.ts';
import {
  agentAssertion,
  ASSERTION_TYPE,
  discover,
  INSECURE,
  oauthAgent,
  tokenRequest,
  type OAuthAgent,
} from '../../support/oauth.ts';

const HOST = 'files.example.com';
const MCP = 'https://files.example.com/mcp';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const PRESENTATION = 'urn:mandate:params:oauth:token-type:presentation';

/** Not at exactly that host and port over https: a subdomain, plain http, another port, userinfo. */
const OUTSIDE = [
  'https://sub.files.example.com/mcp',
  'http://files.example.com/mcp',
  'https://files.example.com:8443/mcp',
  'https://user@files.example.com/mcp',
];

let issuer: TestIssuer;
let as: oauth.AuthorizationServer;
let agent: OAuthAgent;

beforeAll(async () => {
  issuer = await startTestIssuer({ SERVICE_OAUTH_ALLOW_BEARER: 'true' });
  as = await discover(issuer);
  // Limited to the host alone: no resource URI listed.
  agent = await oauthAgent(issuer, { requestedDomains: [HOST] });
});
afterAll(() => issuer.dispose());

async function audienceOf(token: string): Promise<unknown> {
  const jwks = createRemoteJWKSet(new URL(as.jwks_uri as string));
  return (await jwtVerify(token, jwks, { issuer: issuer.url, typ: 'at+jwt' })).payload.aud;
}

async function clientCredentials(resource: string) {
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    agent.client,
    agent.clientAuth,
    new URLSearchParams({ resource }),
    INSECURE,
  );
  return oauth.processClientCredentialsResponse(as, agent.client, response);
}

/** A token exchange of the agent's own presentation, the client authenticated as its holder. */
async function exchange(resource: string, domain = resource) {
  const vp = await signPresentation({
    holder: agent.identity,
    credentials: [agent.credential as unknown as MandateCredential],
    challenge: crypto.randomUUID(),
    domain,
  });
  const parameters = {
    subject_token: bytesToBase64url(utf8ToBytes(JSON.stringify(vp))),
    subject_token_type: PRESENTATION,
    resource,
  };
  const response = await oauth.genericTokenEndpointRequest(as, agent.client, agent.clientAuth, EXCHANGE, parameters, {
    ...INSECURE,
  });
  return oauth.processGenericTokenEndpointResponse(as, agent.client, response);
}

/** The refusal of a raw client_credentials request for `resource`. */
async function refusedFor(resource: string) {
  return tokenRequest(issuer, {
    grant_type: 'client_credentials',
    client_id: agent.did,
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: await agentAssertion(issuer, agent),
    resource,
  });
}

describe('resource (RFC 8707) within domains: a host entry covers the https URIs at that host', () => {
  it('client_credentials: an agent limited to files.example.com gets a token for https://files.example.com/mcp', async () => {
    const result = await clientCredentials(MCP);
    expect(await audienceOf(result.access_token)).toBe(MCP);
    const other = await clientCredentials('https://files.example.com:443/other?x=1');
    expect(await audienceOf(other.access_token)).toBe('https://files.example.com:443/other?x=1');
  });

  it.each(OUTSIDE)('client_credentials: %s is refused (invalid_target, TARGET_MISMATCH)', async (resource) => {
    const res = await refusedFor(resource);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: 'invalid_target', mandate_reason: 'TARGET_MISMATCH' });
  });

  it('token exchange: a presentation for the resource URI, or for the host, is exchanged for it', async () => {
    expect(await audienceOf((await exchange(MCP)).access_token)).toBe(MCP);
    expect(await audienceOf((await exchange(MCP, HOST)).access_token)).toBe(MCP);
  });

  it.each(OUTSIDE)('token exchange: %s is refused (invalid_target, TARGET_MISMATCH)', async (resource) => {
    const error = await exchange(resource).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(oauth.ResponseBodyError);
    expect((error as oauth.ResponseBodyError).error).toBe('invalid_target');
    expect((error as oauth.ResponseBodyError).cause).toMatchObject({ mandate_reason: 'TARGET_MISMATCH' });
  });
});
