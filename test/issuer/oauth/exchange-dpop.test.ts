// Token exchange of Mandate presentations (RFC 8693), DPoP-bound tokens (RFC 9449) and their
// introspection (RFC 7662), through oauth4webapi against a real issuer on 127.0.0.1; the tokens
// verified by jose on its own. Every refusal is provoked from crafted input.
import { calculateJwkThumbprint, createRemoteJWKSet, exportJWK, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { delegate } from '../../../wallet/vc/delegation.ts';
import type { SigningIdentity } from '../../../wallet/vc/identity.ts';
import { signPresentation } from '../../../wallet/vc/presentation.ts';
import type { ChainCredential, MandateCredential } from '../../../wallet/vc/types.ts';
import { startTestIssuer, TEST_ADMIN_KEY, type TestIssuer } from '../../support/issuer.ts';
import {
  discover,
  dpopChallenge,
  holderAuth,
  INSECURE,
  newHolder,
  oauthAgent,
  RESOURCE,
  tokenRequest,
  type Holder,
  type OAuthAgent,
} from '../../support/oauth.ts';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const PRESENTATION = 'urn:mandate:params:oauth:token-type:presentation';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

let issuer: TestIssuer;
let as: oauth.AuthorizationServer;
let parent: OAuthAgent;
let child: SigningIdentity;
let childHolder: Holder;
let delegated: MandateCredential;

beforeAll(async () => {
  issuer = await startTestIssuer({ SERVICE_OAUTH_ALLOW_BEARER: 'true' });
  as = await discover(issuer);
  parent = await oauthAgent(issuer);
  childHolder = await newHolder();
  child = childHolder.identity;
  delegated = await delegate(parent.credential as unknown as ChainCredential, {
    delegator: parent.identity,
    delegateeDid: child.did,
    scopes: ['files:read'],
    domains: [RESOURCE],
  });
});
afterAll(() => issuer.dispose());

const now = () => Math.floor(Date.now() / 1000);
const childClient = (): oauth.Client => ({ client_id: child.did });

async function subjectToken(
  domain = RESOURCE,
  holder = child,
  credentials = [delegated, parent.credential as unknown as MandateCredential],
  challenge: string = crypto.randomUUID(),
) {
  const vp = await signPresentation({ holder, credentials, challenge, domain });
  return bytesToBase64url(utf8ToBytes(JSON.stringify(vp)));
}

/** The child authenticating as itself (private_key_jwt): the binding of a Bearer exchange. */
const childAuth = () => holderAuth(issuer, childHolder);

/** Through oauth4webapi; without DPoP the child authenticates as the holder, with DPoP the challenge names the key. */
async function exchange(parameters: Record<string, string>, options: oauth.TokenEndpointRequestOptions = {}) {
  const client = { client_id: child.did };
  const auth = options.DPoP
    ? oauth.None()
    : oauth.PrivateKeyJwt({ key: childHolder.privateKey, kid: child.verificationMethod });
  const response = await oauth.genericTokenEndpointRequest(as, client, auth, EXCHANGE, parameters, {
    ...INSECURE,
    ...options,
  });
  return oauth.processGenericTokenEndpointResponse(as, client, response);
}

async function verified(token: string, resource = RESOURCE): Promise<JWTPayload> {
  const jwks = createRemoteJWKSet(new URL(as.jwks_uri as string));
  return (
    await jwtVerify(token, jwks, { issuer: issuer.url, audience: resource, typ: 'at+jwt', algorithms: ['EdDSA'] })
  ).payload;
}

async function introspect(token: string) {
  const res = await fetch(`${issuer.url}/v1/sessions/introspect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  return (await res.json()) as Record<string, unknown>;
}

describe('token exchange (RFC 8693) of a Mandate presentation', () => {
  it('gives the delegated agent a token for exactly its chain, with act = the delegator', async () => {
    const result = await exchange({
      subject_token: await subjectToken(),
      subject_token_type: PRESENTATION,
      resource: RESOURCE,
    });
    expect(result).toMatchObject({
      token_type: 'bearer',
      scope: 'files:read',
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    });
    const claims = await verified(result.access_token);
    expect(claims).toMatchObject({
      sub: child.did,
      client_id: child.did,
      scope: 'files:read',
      act: { sub: parent.did },
    });
    const audit = (await issuer.call('/v1/audit?event=OAUTH_TOKEN_ISSUED&order=desc&limit=1', { admin: true })).json
      .records[0];
    expect(audit).toMatchObject({
      agentDid: child.did,
      data: { grantType: EXCHANGE, delegators: [parent.did], scopes: ['files:read'], resource: RESOURCE },
    });
  });

  const refusals: { name: string; form: () => Promise<Record<string, string>>; error: string; reason: string }[] = [
    {
      name: 'no subject_token',
      form: async () => ({ subject_token_type: PRESENTATION }),
      error: 'invalid_request',
      reason: 'OAUTH_REQUEST_INVALID',
    },
    {
      name: 'another subject_token_type',
      form: async () => ({
        subject_token: await subjectToken(),
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      }),
      error: 'invalid_request',
      reason: 'SUBJECT_TOKEN_INVALID',
    },
    {
      name: 'a subject_token that is not base64url JSON',
      form: async () => ({ subject_token: '!!!', subject_token_type: PRESENTATION }),
      error: 'invalid_request',
      reason: 'SUBJECT_TOKEN_INVALID',
    },
    {
      name: 'an actor_token',
      form: async () => ({
        subject_token: await subjectToken(),
        subject_token_type: PRESENTATION,
        actor_token: 'x',
        actor_token_type: PRESENTATION,
      }),
      error: 'invalid_request',
      reason: 'OAUTH_REQUEST_INVALID',
    },
    {
      name: 'another requested_token_type',
      form: async () => ({
        subject_token: await subjectToken(),
        subject_token_type: PRESENTATION,
        requested_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      }),
      error: 'invalid_request',
      reason: 'OAUTH_REQUEST_INVALID',
    },
    {
      name: 'a presentation for another resource',
      form: async () => ({
        subject_token: await subjectToken('https://other.example/mcp'),
        subject_token_type: PRESENTATION,
        ...(await childAuth()),
      }),
      error: 'invalid_target',
      reason: 'TARGET_MISMATCH',
    },
    {
      name: 'a scope beyond the chain',
      form: async () => ({
        subject_token: await subjectToken(),
        subject_token_type: PRESENTATION,
        scope: 'files:write',
        ...(await childAuth()),
      }),
      error: 'invalid_scope',
      reason: 'SCOPE_NOT_GRANTED',
    },
    {
      name: 'a client authenticated as another agent than the holder',
      form: async () => ({
        subject_token: await subjectToken(),
        subject_token_type: PRESENTATION,
        client_id: parent.did,
        ...(await holderAuth(issuer, parent)),
      }),
      error: 'invalid_grant',
      reason: 'HOLDER_MISMATCH',
    },
    {
      name: 'a presentation signed by someone else',
      form: async () => {
        const other = await newHolder();
        return {
          subject_token: await subjectToken(RESOURCE, other.identity),
          subject_token_type: PRESENTATION,
          ...(await holderAuth(issuer, other)),
        };
      },
      error: 'invalid_request',
      reason: 'HOLDER_MISMATCH',
    },
  ];
  for (const refusal of refusals) {
    it(`${refusal.name} → ${refusal.error} / ${refusal.reason}`, async () => {
      const res = await tokenRequest(issuer, { grant_type: EXCHANGE, resource: RESOURCE, ...(await refusal.form()) });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: refusal.error, mandate_reason: refusal.reason });
    });
  }

  it('a presentation used twice → invalid_request / REPLAYED', async () => {
    const form = {
      grant_type: EXCHANGE,
      resource: RESOURCE,
      subject_token: await subjectToken(),
      subject_token_type: PRESENTATION,
    };
    expect((await tokenRequest(issuer, { ...form, ...(await childAuth()) })).status).toBe(200);
    expect((await tokenRequest(issuer, { ...form, ...(await childAuth()) })).json).toMatchObject({
      error: 'invalid_request',
      mandate_reason: 'REPLAYED',
    });
  });
});

describe('binding the presentation to its client: a stolen presentation is worthless', () => {
  const form = async (subject_token: string, extra: Record<string, string> = {}) => ({
    grant_type: EXCHANGE,
    resource: RESOURCE,
    subject_token,
    subject_token_type: PRESENTATION,
    ...extra,
  });
  const refusedAudit = async () =>
    (await issuer.call('/v1/audit?event=OAUTH_TOKEN_REFUSED&order=desc&limit=1', { admin: true })).json.records[0];

  it('with DPoP: a challenge that is not the DPoP key’s thumbprint → invalid_request / PRESENTATION_NOT_BOUND', async () => {
    const keys = await oauth.generateKeyPair('Ed25519', { extractable: true });
    const unbound = await subjectToken(); // a random challenge
    const res = await tokenRequest(issuer, await form(unbound), { dpop: await dpopProof(keys, {}) });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: 'invalid_request', mandate_reason: 'PRESENTATION_NOT_BOUND' });
    expect(await refusedAudit()).toMatchObject({
      reason: 'PRESENTATION_NOT_BOUND',
      data: { claimedClient: child.did },
    });
  });

  it('with DPoP: a presentation bound to the holder’s key, sent with a thief’s key, is refused and stays the holder’s', async () => {
    const holderKeys = await oauth.generateKeyPair('Ed25519', { extractable: true });
    const thiefKeys = await oauth.generateKeyPair('Ed25519', { extractable: true });
    const jkt = await calculateJwkThumbprint(await exportJWK(holderKeys.publicKey));
    for (const challenge of [jkt, `${jkt}.${crypto.randomUUID()}`]) {
      const stolen = await subjectToken(RESOURCE, child, undefined, challenge);
      const thief = await tokenRequest(issuer, await form(stolen, { client_id: child.did }), {
        dpop: await dpopProof(thiefKeys, {}),
      });
      expect(thief.json).toMatchObject({ error: 'invalid_request', mandate_reason: 'PRESENTATION_NOT_BOUND' });
      // Without DPoP the thief cannot sign as the holder either.
      const bare = await tokenRequest(issuer, await form(stolen, { client_id: child.did }));
      expect(bare.status).toBe(401);
      expect(bare.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'HOLDER_AUTH_REQUIRED' });
      // Nothing was spent: the holder, with its key, still gets the token.
      const own = await tokenRequest(issuer, await form(stolen), { dpop: await dpopProof(holderKeys, {}) });
      expect(own.status).toBe(200);
      expect(((await verified(own.json.access_token as string)).cnf as { jkt: string }).jkt).toBe(jkt);
    }
  });

  it('without DPoP: no client authentication as the holder → invalid_client / HOLDER_AUTH_REQUIRED', async () => {
    const presentation = await subjectToken();
    const anonymous: Record<string, string>[] = [{}, { client_id: child.did }];
    for (const extra of anonymous) {
      const res = await tokenRequest(issuer, await form(presentation, extra));
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ error: 'invalid_client', mandate_reason: 'HOLDER_AUTH_REQUIRED' });
    }
    // Another agent authenticating as itself: HOLDER_MISMATCH, and the presentation is not spent.
    const other = await tokenRequest(issuer, await form(presentation, await holderAuth(issuer, parent)));
    expect(other.json).toMatchObject({ error: 'invalid_grant', mandate_reason: 'HOLDER_MISMATCH' });
    const own = await tokenRequest(issuer, await form(presentation, await childAuth()));
    expect(own.status).toBe(200);
  });
});

async function dpopProof(
  key: CryptoKeyPair,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
  alg = 'EdDSA',
) {
  const jwk = await exportJWK(key.publicKey);
  return new SignJWT({ htm: 'POST', htu: `${issuer.url}/oauth/token`, iat: now(), jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk, ...header })
    .sign(key.privateKey);
}

async function ccForm(agent: OAuthAgent = parent) {
  const assertion = await new SignJWT({
    iss: agent.did,
    sub: agent.did,
    aud: issuer.url,
    jti: crypto.randomUUID(),
    exp: now() + 60,
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: agent.identity.verificationMethod })
    .sign(agent.privateKey);
  return {
    grant_type: 'client_credentials',
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: assertion,
    resource: RESOURCE,
  };
}

describe('DPoP (RFC 9449) at the token endpoint', () => {
  for (const alg of ['Ed25519', 'ES256']) {
    it(`binds a client_credentials token to an ${alg} key (cnf.jkt, token_type DPoP)`, async () => {
      const keys = await oauth.generateKeyPair(alg, { extractable: true });
      const dpop = oauth.DPoP(parent.client, keys);
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        parent.client,
        parent.clientAuth,
        { resource: RESOURCE, scope: 'files:read' },
        { ...INSECURE, DPoP: dpop },
      );
      const result = await oauth.processClientCredentialsResponse(as, parent.client, response);
      expect(result.token_type).toBe('dpop');
      const claims = await verified(result.access_token);
      expect(claims.cnf).toEqual({ jkt: await calculateJwkThumbprint(await exportJWK(keys.publicKey)) });
      const answer = await introspect(result.access_token);
      expect(answer).toMatchObject({ active: true, token_type: 'DPoP', client_id: parent.did, cnf: claims.cnf });
    });
  }

  it('binds an exchanged token too', async () => {
    const keys = await oauth.generateKeyPair('Ed25519');
    const subject_token = await subjectToken(RESOURCE, child, undefined, await dpopChallenge(keys.publicKey));
    const result = await exchange(
      { subject_token, subject_token_type: PRESENTATION, resource: RESOURCE },
      { DPoP: oauth.DPoP(childClient(), keys) },
    );
    expect(result.token_type).toBe('dpop');
  });

  const proofs: { name: string; proof: (keys: CryptoKeyPair) => Promise<string | string[]>; reason: string }[] = [
    { name: 'a proof that is no JWS', proof: async () => 'garbage', reason: 'DPOP_PROOF_INVALID' },
    { name: 'typ JWT', proof: (k) => dpopProof(k, {}, { typ: 'JWT' }), reason: 'DPOP_PROOF_INVALID' },
    { name: 'htm GET', proof: (k) => dpopProof(k, { htm: 'GET' }), reason: 'DPOP_PROOF_INVALID' },
    {
      name: 'htu of another endpoint',
      proof: (k) => dpopProof(k, { htu: `${issuer.url}/v1/vp/verify` }),
      reason: 'DPOP_PROOF_INVALID',
    },
    { name: 'an iat 10 minutes old', proof: (k) => dpopProof(k, { iat: now() - 600 }), reason: 'DPOP_PROOF_INVALID' },
    { name: 'no jti', proof: (k) => dpopProof(k, { jti: undefined }), reason: 'DPOP_PROOF_INVALID' },
    {
      name: 'a jwk of another key',
      proof: async (k) =>
        dpopProof(
          k,
          {},
          { jwk: await exportJWK((await oauth.generateKeyPair('Ed25519', { extractable: true })).publicKey) },
        ),
      reason: 'DPOP_PROOF_INVALID',
    },
    {
      name: 'a private key in the jwk',
      proof: async (k) => dpopProof(k, {}, { jwk: { ...(await exportJWK(k.publicKey)), d: 'AAAA' } }),
      reason: 'DPOP_PROOF_INVALID',
    },
    {
      name: 'two proofs',
      proof: async (k) => [await dpopProof(k, {}), await dpopProof(k, {})],
      reason: 'DPOP_PROOF_INVALID',
    },
  ];
  for (const { name, proof, reason } of proofs) {
    it(`${name} → invalid_dpop_proof / ${reason}`, async () => {
      const keys = await oauth.generateKeyPair('Ed25519', { extractable: true });
      const value = await proof(keys);
      const res = await tokenRequest(issuer, await ccForm(), { dpop: Array.isArray(value) ? value.join(', ') : value });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: 'invalid_dpop_proof', mandate_reason: reason });
    });
  }

  it('an HS256 proof → invalid_dpop_proof', async () => {
    const secret = new Uint8Array(32);
    const proof = await new SignJWT({ htm: 'POST', htu: `${issuer.url}/oauth/token`, iat: now(), jti: 'x' })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct' } })
      .sign(secret);
    const res = await tokenRequest(issuer, await ccForm(), { dpop: proof });
    expect(res.json).toMatchObject({ error: 'invalid_dpop_proof', mandate_reason: 'DPOP_PROOF_INVALID' });
  });

  it('a replayed proof jti → invalid_dpop_proof / DPOP_PROOF_REPLAYED', async () => {
    const keys = await oauth.generateKeyPair('Ed25519', { extractable: true });
    const proof = await dpopProof(keys, {});
    expect((await tokenRequest(issuer, await ccForm(), { dpop: proof })).status).toBe(200);
    const again = await tokenRequest(issuer, await ccForm(), { dpop: proof });
    expect(again.json).toMatchObject({ error: 'invalid_dpop_proof', mandate_reason: 'DPOP_PROOF_REPLAYED' });
  });

  it('with SERVICE_OAUTH_DPOP_NONCE: use_dpop_nonce with a DPoP-Nonce, which oauth4webapi retries with', async () => {
    const strict = await startTestIssuer({ SERVICE_OAUTH_DPOP_NONCE: 'true' });
    try {
      const agent = await oauthAgent(strict);
      const meta = await discover(strict);
      const keys = await oauth.generateKeyPair('Ed25519');
      const dpop = oauth.DPoP(agent.client, keys);
      const request = () =>
        oauth.clientCredentialsGrantRequest(
          meta,
          agent.client,
          agent.clientAuth,
          { resource: RESOURCE },
          { ...INSECURE, DPoP: dpop },
        );
      const first = await request();
      expect(first.headers.get('dpop-nonce')).toBeTruthy();
      const error = await oauth.processClientCredentialsResponse(meta, agent.client, first).catch((e: unknown) => e);
      expect(oauth.isDPoPNonceError(error)).toBe(true);
      expect(error).toMatchObject({ cause: { mandate_reason: 'DPOP_NONCE_REQUIRED' } });
      const result = await oauth.processClientCredentialsResponse(meta, agent.client, await request());
      expect(result.token_type).toBe('dpop');
    } finally {
      await strict.dispose();
    }
  });
});

describe('introspection (RFC 7662) of access tokens', () => {
  it('is active until a credential of the chain is revoked, for client_credentials and exchanged tokens alike', async () => {
    const agent = await oauthAgent(issuer);
    const grandchildHolder = await newHolder();
    const grandchild = grandchildHolder.identity;
    const link = await delegate(agent.credential as unknown as ChainCredential, {
      delegator: agent.identity,
      delegateeDid: grandchild.did,
      scopes: ['files:read'],
      domains: [RESOURCE],
    });
    const own = await tokenRequest(issuer, await ccForm(agent));
    const exchanged = await tokenRequest(issuer, {
      grant_type: EXCHANGE,
      resource: RESOURCE,
      subject_token_type: PRESENTATION,
      subject_token: await subjectToken(RESOURCE, grandchild, [link, agent.credential as unknown as MandateCredential]),
      ...(await holderAuth(issuer, grandchildHolder)),
    });
    const tokens = [own.json.access_token as string, exchanged.json.access_token as string];
    expect(await introspect(tokens[0] as string)).toMatchObject({
      active: true,
      token_type: 'Bearer',
      sub: agent.did,
      aud: RESOURCE,
      iss: issuer.url,
    });
    expect(await introspect(tokens[1] as string)).toMatchObject({
      active: true,
      sub: grandchild.did,
      act: { sub: agent.did },
    });
    const vc = encodeURIComponent(agent.vcId);
    expect((await issuer.call(`/v1/vcs/${vc}/revoke`, { admin: true, body: { reason: 'gone' } })).status).toBe(200);
    for (const token of tokens) expect(await introspect(token)).toEqual({ active: false });
  });

  it('answers active:false for a token signed by another key', async () => {
    const forged = await new SignJWT({
      iss: issuer.url,
      sub: 'did:key:z6Mkx',
      aud: RESOURCE,
      jti: 'j',
      exp: now() + 60,
    })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
      .sign((await oauth.generateKeyPair('Ed25519')).privateKey);
    expect(await introspect(forged)).toEqual({ active: false });
  });
});
