// agent.fetch against Mandate verifiers, in Node and in Chromium alike: the verifier's Hono
// middleware (agentAuth) answers in process (its app.fetch is the agent's transport), so the
// presentation challenge (endpoint and request modes), RFC 9421 signatures (asked for, or
// always) and the refusals that end a call run without a socket. Also the pieces under them:
// reading WWW-Authenticate, and DPoP proofs made here and checked by the one verifier.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createAgent, type CreateAgentOptions } from '../../../wallet/agent/index.ts';
import { oauthChallenge, parseChallenges, signatureRequest } from '../../../wallet/agent/challenge.ts';
import { createDpopProof, verifyDpopProof } from '../../../wallet/crypto/dpop.ts';
import { generateSeed, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { ed25519SigningKey, es256SigningKey } from '../../../wallet/crypto/jws-key.ts';
import { createMemoryKeyStore } from '../../../wallet/keystore/memory.ts';
import { issueAgentCredential } from '../../../wallet/vc/agent-credential.ts';
import { didKeyIdentity } from '../../../wallet/vc/identity.ts';
import { createReplayCache } from '../../../wallet/vc/replay-cache.ts';
import type { MandateCredential } from '../../../wallet/vc/types.ts';
import { agentAuth, type AgentAuthEnv, type AgentAuthOptions } from '../../../verifier-worker/hono.ts';
import { newIdentity, testResolver } from '../../support/agents.ts';

const TARGET = 'files.example.com';
const URL_ = `https://${TARGET}/files/q3`;

describe('WWW-Authenticate and Accept-Signature', () => {
  it('reads several challenges, quoted strings with escapes and a token68', () => {
    const header =
      'DPoP algs="EdDSA ES256", error="invalid_token", Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="calendar:read mail:send", Basic abc==, VP realm="say \\"hi\\"", challenge-endpoint="https://a.example/c"';
    const challenges = parseChallenges(header);
    expect(challenges.map((c) => c.scheme)).toEqual(['dpop', 'bearer', 'basic', 'vp']);
    expect(challenges[2]?.params['']).toBe('abc==');
    expect(challenges[3]?.params).toEqual({ realm: 'say "hi"', 'challenge-endpoint': 'https://a.example/c' });
    expect(oauthChallenge(challenges)).toEqual({
      scheme: 'dpop',
      error: 'invalid_token',
      scopes: ['calendar:read', 'mail:send'],
      resourceMetadata: 'https://a.example/.well-known/oauth-protected-resource/mcp',
    });
    expect(parseChallenges(null)).toEqual([]);
  });

  it('reads the signature an Accept-Signature field asks for (RFC 9421 §5.1)', () => {
    expect(signatureRequest('sig1=("@method" "@authority" "@path" "content-type");tag="web-bot-auth"')).toEqual({
      label: 'sig1',
      components: ['"content-type"'],
      tag: 'web-bot-auth',
    });
    expect(signatureRequest('not a dictionary (')).toBeUndefined();
  });
});

describe('DPoP proofs (RFC 9449 §4.2) made by the agent', () => {
  const checks = (header: string) => ({
    header,
    method: 'POST',
    url: 'https://rs.example/mcp',
    accessToken: 'the-token',
    maxAgeSec: 60,
    clockSkewSec: 5,
    now: Date.now(),
    acceptsNonce: (nonce: unknown) => nonce === 'n-1',
    firstUse: () => Promise.resolve(true),
  });

  it('verify under the one verifier, Ed25519 and ES256, with htu stripped, ath and nonce', async () => {
    const ed = ed25519SigningKey(seedSigner(generateSeed()));
    const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const es = await es256SigningKey(pair);
    for (const key of [ed, es]) {
      const proof = await createDpopProof(key, {
        method: 'post',
        url: 'https://rs.example/mcp?x=1#f',
        accessToken: 'the-token',
        nonce: 'n-1',
      });
      expect((await verifyDpopProof(checks(proof))).jkt).toBe(key.thumbprint);
    }
    const wrongToken = await createDpopProof(ed, {
      method: 'POST',
      url: 'https://rs.example/mcp',
      accessToken: 'x',
      nonce: 'n-1',
    });
    await expect(verifyDpopProof(checks(wrongToken))).rejects.toMatchObject({ code: 'DPOP_PROOF_INVALID' });
  });
});

/** A platform, an agent with a credential from it for TARGET, and a verifier app for TARGET. */
async function setting(verifier: Partial<AgentAuthOptions> = {}, scopes = ['files:read']) {
  const platform = newIdentity();
  const keyStore = createMemoryKeyStore();
  const identity = didKeyIdentity(await keyStore.signer((await keyStore.generate('agent')).id));
  const credential = (await issueAgentCredential({
    issuer: platform,
    agentDid: identity.did,
    privilegeScopes: scopes,
    delegationDepth: 0,
    domains: [TARGET],
  })) as MandateCredential;
  const seen: Request[] = [];
  const app = new Hono<AgentAuthEnv>();
  app.use('*', async (c, next) => {
    seen.push(c.req.raw.clone());
    await next();
  });
  app.use('*', agentAuth({ trustedIssuers: [platform.did], target: TARGET, resolver: testResolver(), ...verifier }));
  app.all('/files/*', (c) => c.json({ agent: c.var.agent.agentDid, vpId: c.req.header('x-mandate-vp-id') }));
  const fetch = (input: Request | string, init?: RequestInit) => Promise.resolve(app.fetch(new Request(input, init)));
  const agentOptions = (more: Partial<CreateAgentOptions> = {}): CreateAgentOptions => ({
    keyStore,
    credentials: [credential],
    fetch,
    ...more,
  });
  return { app, identity, credential, keyStore, seen, agentOptions };
}

describe('the Mandate presentation challenge', () => {
  it('is answered with a presentation for the realm and the challenge-endpoint nonce (endpoint mode)', async () => {
    const { identity, agentOptions, seen } = await setting();
    const agent = await createAgent(agentOptions());
    const answer = await agent.fetch(URL_);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ agent: identity.did });
    // The refusal, the nonce, the presentation.
    expect(seen.map((r) => new URL(r.url).pathname)).toEqual([
      '/files/q3',
      '/.well-known/mandate/challenge',
      '/files/q3',
    ]);
    expect(seen[2]?.headers.get('authorization')).toMatch(/^VP /);
  });

  it('is answered in request mode with a challenge the agent picks and repeats in the named header', async () => {
    const { agentOptions, seen } = await setting({ challenge: 'request', replayCache: createReplayCache() });
    const agent = await createAgent(agentOptions());
    expect((await agent.fetch(URL_, { method: 'POST', body: 'hello' })).status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(seen[1]?.headers.get('x-mandate-challenge')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await seen[1]?.text()).toBe('hello');
  });

  it("refuses a realm that is not the request's own target: AGENT_CHALLENGE_FAILED, nothing signed", async () => {
    const { agentOptions, seen } = await setting();
    const agent = await createAgent(agentOptions());
    await expect(agent.fetch('https://elsewhere.example/files/q3')).rejects.toMatchObject({
      code: 'AGENT_CHALLENGE_FAILED',
      status: 401,
    });
    expect(seen).toHaveLength(1);
    // Its owner may map the origin to the target.
    const mapped = await createAgent(agentOptions({ targets: { 'https://elsewhere.example': TARGET } }));
    expect((await mapped.fetch('https://elsewhere.example/files/q3')).status).toBe(200);
  });

  it('needs credentials: AGENT_CREDENTIALS_MISSING', async () => {
    const { agentOptions } = await setting();
    const agent = await createAgent(agentOptions({ credentials: [] }));
    await expect(agent.fetch(URL_)).rejects.toMatchObject({ code: 'AGENT_CREDENTIALS_MISSING' });
  });

  it('ends the call when the presentation is refused again: AGENT_SERVICE_REFUSED with the verifier reason', async () => {
    const { agentOptions, identity, seen } = await setting();
    // The agent's DID, but another key signs: the presentation proof cannot verify.
    const impostor = { ...identity, signer: seedSigner(generateSeed()) };
    const agent = await createAgent(agentOptions({ keyStore: undefined, identity: impostor }));
    const error = await agent.fetch(URL_).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AGENT_SERVICE_REFUSED', status: 401, serviceReason: 'VP_SIGNATURE_INVALID' });
    expect(seen.filter((r) => r.url === URL_)).toHaveLength(2);
  });

  it('gives up when the challenge endpoint gives no challenge: AGENT_CHALLENGE_FAILED', async () => {
    const { agentOptions } = await setting({ challengePath: '/.well-known/mandate/nonce' });
    const agent = await createAgent(
      agentOptions({
        fetch: (input, init) => {
          const request = new Request(input, init);
          // The challenge endpoint is down.
          if (new URL(request.url).pathname.endsWith('/nonce'))
            return Promise.resolve(new Response('', { status: 503 }));
          return agentOptions().fetch!(request);
        },
      }),
    );
    await expect(agent.fetch(URL_)).rejects.toMatchObject({ code: 'AGENT_CHALLENGE_FAILED' });
  });
});

describe('RFC 9421 signatures', () => {
  it('signs when the service asks (Accept-Signature), with the chain and the asked label and tag', async () => {
    const { app, identity, agentOptions } = await setting();
    const asking = new Hono();
    asking.use('*', async (c, next) => {
      if (c.req.header('signature-input') === undefined)
        return c.json({ reason: 'SIGNATURE_REQUIRED' }, 401, {
          'accept-signature': 'agent=("@method" "@authority" "@path" "content-type");tag="mandate"',
        });
      return next();
    });
    asking.all('*', (c) => app.fetch(c.req.raw));
    const agent = await createAgent(
      agentOptions({ fetch: (input, init) => Promise.resolve(asking.fetch(new Request(input, init))) }),
    );
    const answer = await agent.fetch(URL_, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      agent: identity.did,
      vpId: expect.stringMatching(/^signature:/) as unknown,
    });
  });

  it("signs every request with sign: 'always': the chain in full once, by digest afterwards", async () => {
    const { agentOptions, seen } = await setting();
    const agent = await createAgent(agentOptions({ sign: 'always' }));
    expect((await agent.fetch(URL_)).status).toBe(200);
    expect((await agent.fetch(URL_)).status).toBe(200);
    expect(seen.map((r) => [r.headers.has('mandate-chain'), r.headers.has('mandate-chain-digest')])).toEqual([
      [true, false],
      [false, true],
    ]);
  });
});

describe('createAgent', () => {
  it('refuses options it cannot act on: AGENT_OPTIONS_INVALID', async () => {
    await expect(createAgent({})).rejects.toMatchObject({ code: 'AGENT_OPTIONS_INVALID' });
    const two = createMemoryKeyStore();
    await two.generate('a');
    await two.generate('b');
    await expect(createAgent({ keyStore: two })).rejects.toMatchObject({ code: 'AGENT_OPTIONS_INVALID' });
    await expect(createAgent({ keyStore: two, keyId: 'c' })).rejects.toMatchObject({ code: 'AGENT_OPTIONS_INVALID' });
    await expect(createAgent({ keyStore: two, keyId: 'a', sign: 'always' })).rejects.toMatchObject({
      code: 'AGENT_OPTIONS_INVALID',
    });
    const agent = await createAgent({ keyStore: two, keyId: 'a' });
    expect(agent.did).toMatch(/^did:key:z6Mk/);
    expect(agent.dpopKey?.thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
