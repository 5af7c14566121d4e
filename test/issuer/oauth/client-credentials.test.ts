// The issuer as an OAuth 2.1 authorization server, client_credentials with private_key_jwt:
// metadata discovery and the token endpoint through oauth4webapi, the tokens verified by jose on
// its own against the published JWKS, and every refusal provoked from crafted input, with its
// OAuth code, its Mandate reason and its audit record.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { generateSeed, getPublicKey, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { encodePublicKeyMultibase } from '../../../wallet/crypto/multikey.ts';
import { serverSigningIdentity } from '../../../issuer/services/custody.ts';
import {
  mintToken,
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  type TestIssuer,
} from '../../support/issuer.ts';
import {
  agentAssertion,
  assertion,
  assertionClaims,
  ASSERTION_TYPE,
  discover,
  ed25519Key,
  INSECURE,
  oauthAgent,
  RESOURCE,
  tokenRequest,
  type OAuthAgent,
} from '../../support/oauth.ts';

let issuer: TestIssuer;
let as: oauth.AuthorizationServer;
let agent: OAuthAgent;

beforeAll(async () => {
  issuer = await startTestIssuer({ SERVICE_OAUTH_ALLOW_BEARER: 'true' });
  as = await discover(issuer);
  agent = await oauthAgent(issuer);
});
afterAll(() => issuer.dispose());

const now = () => Math.floor(Date.now() / 1000);

/** A client assertion's claims for `did` with overrides (undefined removes a claim). */
const claimsFor = (did: string, overrides: Record<string, unknown> = {}) => assertionClaims(issuer, did, overrides);

async function ccForm(extra: Record<string, string | string[]> = {}, claims: Record<string, unknown> = {}) {
  return {
    grant_type: 'client_credentials',
    client_id: agent.did,
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: await agentAssertion(issuer, agent, claims),
    resource: RESOURCE,
    ...extra,
  };
}

async function latestAudit(event: string) {
  const page = await issuer.call(`/v1/audit?event=${event}&order=desc&limit=1`, { admin: true });
  return page.json.records[0];
}

async function grant(parameters: Record<string, string>, auth = agent.clientAuth, client = agent.client) {
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    client,
    auth,
    new URLSearchParams(parameters),
    INSECURE,
  );
  return oauth.processClientCredentialsResponse(as, client, response);
}

describe('metadata (RFC 8414, OpenID discovery subset)', () => {
  it('publishes the base URL as issuer, the DID beside it, and the endpoints', async () => {
    expect(as.issuer).toBe(issuer.url);
    expect(as.token_endpoint).toBe(`${issuer.url}/oauth/token`);
    expect(as.jwks_uri).toBe(`${issuer.url}/.well-known/jwks.json`);
    expect(as.introspection_endpoint).toBe(`${issuer.url}/v1/sessions/introspect`);
    expect(as.grant_types_supported).toEqual(['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange']);
    expect(as.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(as.token_endpoint_auth_signing_alg_values_supported).toEqual(['EdDSA', 'Ed25519']);
    expect(as.dpop_signing_alg_values_supported).toEqual(['EdDSA', 'Ed25519', 'ES256']);
    const health = await issuer.call('/v1/health');
    expect(as.mandate_issuer_did).toBe(health.json.issuer);
  });

  it('parses as the MCP SDK reads it (its schema requires an authorization endpoint, which refuses every request)', async () => {
    const discovered = await discoverAuthorizationServerMetadata(new URL(issuer.url));
    expect(discovered).toMatchObject({ issuer: issuer.url, token_endpoint: `${issuer.url}/oauth/token` });
    const authorize = await fetch(`${discovered?.authorization_endpoint}?response_type=code&client_id=x`);
    expect(authorize.status).toBe(400);
    expect(await authorize.json()).toMatchObject({
      error: 'unsupported_response_type',
      mandate_reason: 'AUTHORIZATION_FLOW_UNSUPPORTED',
    });
  });

  it('serves the OpenID discovery subset that workload-identity federation reads', async () => {
    const url = new URL(issuer.url);
    const oidc = await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, INSECURE));
    expect(oidc).toMatchObject({ issuer: issuer.url, jwks_uri: as.jwks_uri, token_endpoint: as.token_endpoint });
    const res = await fetch(`${issuer.url}/.well-known/openid-configuration`);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('client_credentials with private_key_jwt', () => {
  it('issues an RFC 9068 token that jose verifies with the published JWKS', async () => {
    const result = await grant({ scope: 'files:read', resource: RESOURCE });
    expect(result.token_type).toBe('bearer');
    expect(result.scope).toBe('files:read');
    expect(result.expires_in).toBeLessThanOrEqual(300);
    const jwks = createRemoteJWKSet(new URL(as.jwks_uri as string));
    const { payload, protectedHeader } = await jwtVerify(result.access_token, jwks, {
      issuer: issuer.url,
      audience: RESOURCE,
      typ: 'at+jwt',
      algorithms: ['EdDSA'],
    });
    expect(protectedHeader.kid).toBeTypeOf('string');
    expect(payload).toMatchObject({ sub: agent.did, client_id: agent.did, scope: 'files:read' });
    expect((payload.exp as number) - (payload.iat as number)).toBeLessThanOrEqual(300);
    expect(payload.act).toBeUndefined();
    expect(payload.cnf).toBeUndefined();
    const audit = await latestAudit('OAUTH_TOKEN_ISSUED');
    expect(audit).toMatchObject({ agentDid: agent.did, reason: 'VALID' });
    expect(audit.data).toMatchObject({
      grantType: 'client_credentials',
      resource: RESOURCE,
      scopes: ['files:read'],
      tokenType: 'Bearer',
      jti: payload.jti,
    });
    expect(JSON.stringify(audit)).not.toContain(result.access_token.split('.')[2]);
  });

  it('gives all effective scopes when none are requested, and answers no-store', async () => {
    const res = await tokenRequest(issuer, await ccForm());
    expect(res.status).toBe(200);
    expect(res.json.scope).toBe('files:read files:write');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts the token endpoint URL as assertion audience, and an assertion without kid', async () => {
    const form = await ccForm({}, { aud: `${issuer.url}/oauth/token` });
    expect((await tokenRequest(issuer, form)).status).toBe(200);
    const noKid = await assertion(agent.privateKey, claimsFor(agent.did));
    expect((await tokenRequest(issuer, { ...(await ccForm()), client_assertion: noKid })).status).toBe(200);
  });
});

interface Refusal {
  name: string;
  form: () => Promise<Record<string, string | string[]>>;
  status?: number;
  error: string;
  reason: string;
}

const refusals: Refusal[] = [
  {
    name: 'no grant_type',
    form: async () => ({ resource: RESOURCE }),
    error: 'invalid_request',
    reason: 'OAUTH_REQUEST_INVALID',
  },
  {
    name: 'a repeated parameter',
    form: async () => ccForm({ scope: ['files:read', 'files:write'] }),
    error: 'invalid_request',
    reason: 'OAUTH_REQUEST_INVALID',
  },
  {
    name: 'a parameter over its bound (scope > 4096 characters)',
    form: async () => ccForm({ scope: 'files:read '.repeat(400).trim() }),
    error: 'invalid_request',
    reason: 'OAUTH_REQUEST_INVALID',
  },
  {
    name: 'an unknown grant',
    form: async () => ({ grant_type: 'password', resource: RESOURCE }),
    error: 'unsupported_grant_type',
    reason: 'GRANT_TYPE_UNSUPPORTED',
  },
  {
    name: 'no resource',
    form: async () => ccForm({ resource: [] }),
    error: 'invalid_target',
    reason: 'RESOURCE_INVALID',
  },
  {
    name: 'a relative resource',
    form: async () => ccForm({ resource: '/mcp' }),
    error: 'invalid_target',
    reason: 'RESOURCE_INVALID',
  },
  {
    name: 'a resource with a fragment',
    form: async () => ccForm({ resource: `${RESOURCE}#x` }),
    error: 'invalid_target',
    reason: 'RESOURCE_INVALID',
  },
  {
    name: 'two resources',
    form: async () => ccForm({ resource: [RESOURCE, 'https://other.example/mcp'] }),
    error: 'invalid_target',
    reason: 'RESOURCE_INVALID',
  },
  {
    name: 'a resource outside the domains',
    form: async () => ccForm({ resource: 'https://mail.example.com/mcp' }),
    error: 'invalid_target',
    reason: 'TARGET_MISMATCH',
  },
  {
    name: 'no client authentication',
    form: async () => ({ grant_type: 'client_credentials', client_id: agent.did, resource: RESOURCE }),
    status: 401,
    error: 'invalid_client',
    reason: 'CLIENT_AUTH_MISSING',
  },
  {
    name: 'another assertion type',
    form: async () => ccForm({ client_assertion_type: 'urn:example:saml' }),
    status: 401,
    error: 'invalid_client',
    reason: 'CLIENT_AUTH_MISSING',
  },
  {
    name: 'an assertion that is no JWT',
    form: async () => ccForm({ client_assertion: 'not-a-jwt' }),
    status: 401,
    error: 'invalid_client',
    reason: 'CLIENT_ASSERTION_INVALID',
  },
  {
    name: 'an assertion for another audience',
    form: async () => ccForm({}, { aud: 'https://elsewhere.example' }),
    status: 401,
    error: 'invalid_client',
    reason: 'CLIENT_ASSERTION_INVALID',
  },
  {
    name: 'an expired assertion',
    form: async () => ccForm({}, { exp: now() - 120, iat: now() - 180 }),
    status: 401,
    error: 'invalid_client',
    reason: 'CLIENT_ASSERTION_INVALID',
  },
  {
    name: 'an assertion living over 5 minutes',
    form: async () => ccForm({}, { exp: now() + 3600 }),
    status: 401,
    error: 'invalid_client',
    reason: 'CLIENT_ASSERTION_INVALID',
  },
  {
    name: 'an assertion without jti',
    form: async () => ccForm({}, { jti: undefined }),
    status: 401,
    error: 'invalid_client',
    reason: 'CLIENT_ASSERTION_INVALID',
  },
  {
    name: 'sub differing from iss',
    form: async () => ccForm({}, { sub: 'did:key:z6Mkother' }),
    status: 401,
    error: 'invalid_client',
    reason: 'CLIENT_ASSERTION_INVALID',
  },
  {
    name: 'client_id differing from iss',
    form: async () => ccForm({ client_id: 'did:key:z6Mkother' }),
    status: 401,
    error: 'invalid_client',
    reason: 'CLIENT_ASSERTION_INVALID',
  },
  {
    name: 'an assertion signed by a key the DID does not list',
    form: async () => ({
      ...(await ccForm()),
      client_assertion: await assertion(await ed25519Key(generateSeed()), claimsFor(agent.did), {
        kid: agent.identity.verificationMethod,
      }),
    }),
    status: 401,
    error: 'invalid_client',
    reason: 'CLIENT_ASSERTION_INVALID',
  },
  {
    name: 'a kid of another DID',
    form: async () => ({
      ...(await ccForm()),
      client_assertion: await assertion(agent.privateKey, claimsFor(agent.did), {
        kid: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      }),
    }),
    status: 401,
    error: 'invalid_client',
    reason: 'KEY_NOT_AUTHORIZED',
  },
  {
    name: 'a scope not granted',
    form: async () => ccForm({ scope: 'files:read mail:send' }),
    error: 'invalid_scope',
    reason: 'SCOPE_NOT_GRANTED',
  },
  {
    name: 'a scope outside the grammar',
    form: async () => ccForm({ scope: 'Files:Read' }),
    error: 'invalid_scope',
    reason: 'SCOPE_NOT_GRANTED',
  },
];

describe('refusals: RFC 6749 §5.2 bodies with the Mandate reason, each audited', () => {
  for (const refusal of refusals) {
    it(`${refusal.name} → ${refusal.error} / ${refusal.reason}`, async () => {
      const res = await tokenRequest(issuer, await refusal.form());
      expect(res.status).toBe(refusal.status ?? 400);
      expect(res.json).toEqual({
        error: refusal.error,
        error_description: expect.any(String),
        mandate_reason: refusal.reason,
      });
      expect(res.headers.get('cache-control')).toBe('no-store');
      const audit = await latestAudit('OAUTH_TOKEN_REFUSED');
      expect(audit.reason).toBe(refusal.reason);
      expect(audit.data.error).toBe(refusal.error);
    });
  }

  it('a replayed assertion → invalid_client / CLIENT_ASSERTION_REPLAYED (oauth4webapi sees the error)', async () => {
    const form = await ccForm();
    expect((await tokenRequest(issuer, form)).status).toBe(200);
    const again = await tokenRequest(issuer, form);
    expect(again.status).toBe(401);
    expect(again.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'CLIENT_ASSERTION_REPLAYED' });
    const error = await grant({ scope: 'mail:send', resource: RESOURCE }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(oauth.ResponseBodyError);
    expect(error).toMatchObject({ error: 'invalid_scope', cause: { mandate_reason: 'SCOPE_NOT_GRANTED' } });
  });

  it('a refusal before authentication names the claimed DID in data only, never as the record’s agent', async () => {
    const forged = await assertion(await ed25519Key(generateSeed()), claimsFor(agent.did), {
      kid: agent.identity.verificationMethod,
    });
    const res = await tokenRequest(issuer, { ...(await ccForm()), client_assertion: forged });
    expect(res.json.mandate_reason).toBe('CLIENT_ASSERTION_INVALID');
    const audit = await latestAudit('OAUTH_TOKEN_REFUSED');
    expect(audit.agentDid).toBeUndefined();
    expect(audit.data.claimedClient).toBe(agent.did);
    expect(JSON.stringify(audit)).not.toContain(forged.split('.')[2]);
  });

  it('every refusal names the client the request claimed (client_id, Basic user, assertion iss), never its secret', async () => {
    const secret = 'mandate_cs_not-a-real-secret';
    const cases: [Record<string, string | string[]>, Record<string, string>, string][] = [
      [{ ...(await ccForm()), resource: 'not a uri' }, {}, 'RESOURCE_INVALID'],
      [{ ...(await ccForm()), scope: ['files:read', 'files:write'] }, {}, 'OAUTH_REQUEST_INVALID'],
      [
        { grant_type: 'password', resource: RESOURCE },
        { authorization: `Basic ${Buffer.from(`${agent.did}:${secret}`).toString('base64')}` },
        'GRANT_TYPE_UNSUPPORTED',
      ],
      [{ ...(await ccForm()), client_id: '' }, { dpop: 'not-a-proof' }, 'DPOP_PROOF_INVALID'],
    ];
    for (const [form, headers, reason] of cases) {
      const res = await tokenRequest(issuer, form, headers);
      expect(res.json.mandate_reason).toBe(reason);
      const audit = await latestAudit('OAUTH_TOKEN_REFUSED');
      expect(audit).toMatchObject({ reason, data: { claimedClient: agent.did } });
      expect(JSON.stringify(audit)).not.toContain(secret);
    }
  });

  it('a client DID deactivated here → invalid_client / DID_DEACTIVATED', async () => {
    const seed = generateSeed();
    const hosted = await issuer.call('/v1/dids', {
      admin: true,
      body: { publicKeyMultibase: encodePublicKeyMultibase(getPublicKey(seed)), name: `oauth-${crypto.randomUUID()}` },
    });
    expect(hosted.status).toBe(201);
    const did = hosted.json.did as string;
    const holder = {
      did,
      signer: seedSigner(seed),
      verificationMethod: hosted.json.didDocument.verificationMethod[0].id,
    };
    await onboardSelfAgent(issuer, holder, await mintToken(issuer, { requestedDomains: [RESOURCE] }));
    const key = await ed25519Key(seed);
    const form = async () => ({
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(key, claimsFor(did), { kid: holder.verificationMethod }),
      resource: RESOURCE,
    });
    expect((await tokenRequest(issuer, await form())).status).toBe(200);
    const deactivated = await issuer.call(`/v1/dids/${encodeURIComponent(did)}/deactivate`, { admin: true, body: {} });
    expect(deactivated.status).toBe(200);
    const res = await tokenRequest(issuer, await form());
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'DID_DEACTIVATED' });
  });

  it('a client DID that does not resolve → invalid_client / DID_RESOLUTION_FAILED', async () => {
    const did = 'did:web:nowhere.invalid';
    const res = await tokenRequest(issuer, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(agent.privateKey, claimsFor(did)),
      resource: RESOURCE,
    });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'DID_RESOLUTION_FAILED' });
  });

  it('an unknown agent → invalid_client / AGENT_NOT_FOUND', async () => {
    const stranger = await oauthAgent(issuer);
    // A second issuer never enrolled this agent.
    const other = await startTestIssuer({ SERVICE_OAUTH_ALLOW_BEARER: 'true' });
    try {
      const form = {
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(stranger.privateKey, { ...claimsFor(stranger.did), aud: other.url }),
        resource: RESOURCE,
      };
      const res = await tokenRequest(other, form);
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'AGENT_NOT_FOUND' });
    } finally {
      await other.dispose();
    }
  });

  it('a server-custody agent → unauthorized_client / CUSTODY_MISMATCH', async () => {
    const server = await onboardServerAgent(issuer);
    const identity = await serverSigningIdentity(issuer.running.ctx, server.agentDid);
    const header = bytesToBase64url(utf8ToBytes(JSON.stringify({ alg: 'EdDSA', kid: identity.verificationMethod })));
    const payload = bytesToBase64url(utf8ToBytes(JSON.stringify(claimsFor(server.agentDid))));
    const signature = bytesToBase64url(await identity.signer.sign(utf8ToBytes(`${header}.${payload}`)));
    const res = await tokenRequest(issuer, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: `${header}.${payload}.${signature}`,
      resource: RESOURCE,
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: 'unauthorized_client', mandate_reason: 'CUSTODY_MISMATCH' });
  });

  it('a suspended, then a revoked credential → invalid_grant / CREDENTIAL_SUSPENDED, CREDENTIAL_REVOKED', async () => {
    const subject = await oauthAgent(issuer);
    const form = async () => ({
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(subject.privateKey, claimsFor(subject.did)),
      resource: RESOURCE,
    });
    const vc = encodeURIComponent(subject.vcId);
    expect((await issuer.call(`/v1/vcs/${vc}/suspend`, { admin: true, body: { reason: 'check' } })).status).toBe(200);
    expect((await tokenRequest(issuer, await form())).json).toMatchObject({
      error: 'invalid_grant',
      mandate_reason: 'CREDENTIAL_SUSPENDED',
    });
    expect((await issuer.call(`/v1/vcs/${vc}/revoke`, { admin: true, body: { reason: 'gone' } })).status).toBe(200);
    expect((await tokenRequest(issuer, await form())).json).toMatchObject({
      error: 'invalid_grant',
      mandate_reason: 'CREDENTIAL_REVOKED',
    });
    const audit = await latestAudit('OAUTH_TOKEN_REFUSED');
    expect(audit).toMatchObject({ agentDid: subject.did, reason: 'CREDENTIAL_REVOKED' });
  });

  it('a body that is not form-encoded → 415 (the issuer’s own error shape)', async () => {
    const res = await issuer.call('/oauth/token', { body: { grant_type: 'client_credentials' } });
    expect(res.status).toBe(415);
    expect(res.json.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('bearer tokens need the operator’s consent', () => {
  it('without SERVICE_OAUTH_ALLOW_BEARER, a request with no DPoP proof → invalid_request / DPOP_REQUIRED', async () => {
    const strict = await startTestIssuer();
    try {
      const self = await oauthAgent(strict);
      const meta = await discover(strict);
      expect(meta.mandate_bearer_tokens_allowed).toBe(false);
      const res = await tokenRequest(strict, {
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(self.privateKey, { ...claimsFor(self.did), aud: strict.url }),
        resource: RESOURCE,
      });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: 'invalid_request', mandate_reason: 'DPOP_REQUIRED' });
    } finally {
      await strict.dispose();
    }
  });
});

describe('a credential outside its validity', () => {
  it.each([
    ['CREDENTIAL_EXPIRED', 'once the issuer’s clock passes validUntil', 120_000],
    ['CREDENTIAL_NOT_YET_VALID', 'while the issuer’s clock is before validFrom', -120_000],
  ])('→ invalid_grant / %s %s', async (reason, _when, shift) => {
    let offset = 0;
    const clocked = await startTestIssuer(
      { SERVICE_OAUTH_ALLOW_BEARER: 'true', SERVICE_CREDENTIAL_TTL_SECONDS: '60' },
      { now: () => Date.now() + offset },
    );
    try {
      const self = await oauthAgent(clocked);
      offset = shift;
      const at = Math.floor((Date.now() + offset) / 1000);
      const res = await tokenRequest(clocked, {
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(self.privateKey, {
          ...claimsFor(self.did),
          aud: clocked.url,
          iat: at,
          exp: at + 60,
        }),
        resource: RESOURCE,
      });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: 'invalid_grant', mandate_reason: reason });
    } finally {
      await clocked.dispose();
    }
  });
});
