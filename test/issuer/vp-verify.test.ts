// POST /v1/vp/verify and session tokens, against a real issuer: what a service provider relies
// on when it asks the issuer instead of embedding the wallet — the verdict, its reason code, the
// audit record, and a session JWT it can check offline with the published key.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { delegate } from '../../wallet/vc/delegation.ts';
import { didKeyIdentity, type SigningIdentity } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import type { AgentCredential, MandateCredential } from '../../wallet/vc/types.ts';
import { actorClaimOf, createSessionTokenIssuer, SessionTokenError } from '../../issuer/services/session-tokens.ts';
import { encrypt } from '../../wallet/crypto/aead.ts';
import {
  mintToken,
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  TEST_ADMIN_KEY,
  type TestIssuer,
} from '../support/issuer.ts';

const TARGET = 'files.example.com';
let issuer: TestIssuer;

function newAgent(): SigningIdentity {
  return didKeyIdentity(seedSigner(generateSeed()));
}

async function present(
  holder: SigningIdentity,
  credentials: MandateCredential[],
  options: { challenge?: string; domain?: string } = {},
) {
  return signPresentation({
    holder,
    credentials,
    challenge: options.challenge ?? crypto.randomUUID(),
    domain: options.domain ?? TARGET,
  });
}

async function selfAgent(): Promise<{ agent: SigningIdentity; credential: AgentCredential; vcId: string }> {
  const agent = newAgent();
  const enrolled = await onboardSelfAgent(issuer, agent);
  return { agent, credential: enrolled.verifiableCredential as unknown as AgentCredential, vcId: enrolled.vcId };
}

async function auditOf(event: string, vpId: string) {
  const res = await issuer.call(`/v1/audit?event=${event}&limit=500`, { admin: true });
  return (
    res.json.records as Array<{ vpId?: string; reason?: string; agentDid?: string; data?: Record<string, unknown> }>
  ).find((r) => r.vpId === vpId);
}

beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.dispose());

/**
 * Whether the replay cache holds `key` unexpired, asked through its one operation: a key it
 * holds is refused again; one it does not is recorded by asking (so ask that last).
 */
async function spent(key: string): Promise<boolean> {
  const now = Date.now();
  return !(await issuer.running.ctx.stores.replay.remember(key, now + 3_600_000, now));
}

describe('POST /v1/vp/verify', () => {
  it('accepts a self-custody agent, reports its scopes and audits VP_VERIFIED with the vpId', async () => {
    const { agent, credential } = await selfAgent();
    const vp = await present(agent, [credential], { challenge: 'nonce-1' });
    const res = await issuer.call('/v1/vp/verify', {
      body: { presentation: vp, expectedTarget: TARGET, challenge: 'nonce-1' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      valid: true,
      agentDid: agent.did,
      privilegeScopes: ['files:read', 'files:write'],
      effectiveScopes: ['files:read', 'files:write'],
      vpId: vp.id,
      target: TARGET,
    });
    const record = await auditOf('VP_VERIFIED', vp.id);
    expect(record).toMatchObject({ agentDid: agent.did, reason: 'VALID', vpId: vp.id });
  });

  it('denies a replayed presentation with 403 REPLAYED and audits VP_REJECTED with reason and vpId', async () => {
    const { agent, credential } = await selfAgent();
    const vp = await present(agent, [credential]);
    expect((await issuer.call('/v1/vp/verify', { body: { presentation: vp, expectedTarget: TARGET } })).status).toBe(
      200,
    );
    const again = await issuer.call('/v1/vp/verify', { body: { presentation: vp, expectedTarget: TARGET } });
    expect(again.status).toBe(403);
    expect(again.json).toMatchObject({ valid: false, reason: 'REPLAYED', failedCheck: 'replay', vpId: vp.id });
    expect(await auditOf('VP_REJECTED', vp.id)).toMatchObject({ reason: 'REPLAYED', vpId: vp.id });
  });

  it('one presentation sent 12 times at once: accepted once (spent with its record), REPLAYED 11 times', async () => {
    const { agent, credential } = await selfAgent();
    const challenge = `burst-${crypto.randomUUID()}`;
    const vp = await present(agent, [credential], { challenge });
    const body = { presentation: vp, expectedTarget: TARGET, challenge };
    const answers = await Promise.all(Array.from({ length: 12 }, () => issuer.call('/v1/vp/verify', { body })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array<number>(11).fill(403)]);
    expect(answers.filter((a) => a.json.reason === 'REPLAYED')).toHaveLength(11);
    const audit = await issuer.call('/v1/audit?limit=500&order=desc', { admin: true });
    const records = (audit.json.records as Array<{ vpId?: string; event: string; reason?: string }>).filter(
      (r) => r.vpId === vp.id,
    );
    expect(records.filter((r) => r.event === 'VP_VERIFIED')).toHaveLength(1);
    expect(records.filter((r) => r.reason === 'REPLAYED')).toHaveLength(11);
    expect(await spent(`vp:${vp.id}`)).toBe(true);
    expect(await spent(`challenge:${TARGET}:${challenge}`)).toBe(true);
  });

  it("a nonce is one target's: another agent answering the same nonce for another target is accepted; a replay records nothing", async () => {
    const other = 'mail.example.com';
    const x = await selfAgent();
    const yAgent = newAgent();
    const y = await onboardSelfAgent(issuer, yAgent, await mintToken(issuer, { requestedDomains: [other] }));
    const nonce = `order-${crypto.randomUUID()}`;
    const atFiles = await present(x.agent, [x.credential], { challenge: nonce });
    expect(
      (
        await issuer.call('/v1/vp/verify', {
          body: { presentation: atFiles, expectedTarget: TARGET, challenge: nonce },
        })
      ).status,
    ).toBe(200);
    const atMail = await present(yAgent, [y.verifiableCredential as unknown as AgentCredential], {
      challenge: nonce,
      domain: other,
    });
    const accepted = await issuer.call('/v1/vp/verify', {
      body: { presentation: atMail, expectedTarget: other, challenge: nonce },
    });
    expect(accepted.json).toMatchObject({ valid: true, agentDid: yAgent.did });
    // The same nonce at the same target again, in a new presentation: refused, and its id not spent.
    const again = await present(yAgent, [y.verifiableCredential as unknown as AgentCredential], {
      challenge: nonce,
      domain: other,
    });
    expect(
      (await issuer.call('/v1/vp/verify', { body: { presentation: again, expectedTarget: other, challenge: nonce } }))
        .json,
    ).toMatchObject({ reason: 'REPLAYED' });
    expect(await spent(`vp:${again.id}`)).toBe(false);
  });

  it('still denies it as REPLAYED after a restart: the replay cache is in the SQLite file', async () => {
    const { agent, credential } = await selfAgent();
    const vp = await present(agent, [credential], { challenge: 'nonce-restart' });
    const body = { presentation: vp, expectedTarget: TARGET, challenge: 'nonce-restart', session: true };
    expect((await issuer.call('/v1/vp/verify', { body })).status).toBe(200);
    issuer = await issuer.restart();
    const again = await issuer.call('/v1/vp/verify', { body });
    expect(again.status).toBe(403);
    expect(again.json).toMatchObject({ reason: 'REPLAYED', vpId: vp.id });
    expect(again.json.sessionToken).toBeUndefined();
  });

  it('denies a presentation made for another service (TARGET_MISMATCH) and one with the wrong challenge', async () => {
    const { agent, credential } = await selfAgent();
    const elsewhere = await present(agent, [credential], { domain: 'other.example.com' });
    const wrongTarget = await issuer.call('/v1/vp/verify', {
      body: { presentation: elsewhere, expectedTarget: TARGET },
    });
    expect(wrongTarget.status).toBe(403);
    expect(wrongTarget.json.reason).toBe('TARGET_MISMATCH');
    const vp = await present(agent, [credential], { challenge: 'issued-nonce' });
    const wrongChallenge = await issuer.call('/v1/vp/verify', {
      body: { presentation: vp, expectedTarget: TARGET, challenge: 'another-nonce' },
    });
    expect(wrongChallenge.status).toBe(403);
    expect(wrongChallenge.json.reason).toBe('CHALLENGE_MISMATCH');
  });

  it('without expectedTarget judges against the proof domain and says so', async () => {
    const { agent, credential } = await selfAgent();
    const vp = await present(agent, [credential]);
    const res = await issuer.call('/v1/vp/verify', { body: { presentation: vp } });
    expect(res.status).toBe(200);
    expect(res.json.target).toBe(TARGET);
  });

  it('enforces requiredScopes (INSUFFICIENT_SCOPE)', async () => {
    const { agent, credential } = await selfAgent();
    const vp = await present(agent, [credential]);
    const res = await issuer.call('/v1/vp/verify', {
      body: { presentation: vp, expectedTarget: TARGET, requiredScopes: ['calendar:read'] },
    });
    expect(res.status).toBe(403);
    expect(res.json.reason).toBe('INSUFFICIENT_SCOPE');
  });

  it('answers 400 MALFORMED in the standard error shape for an unreadable presentation, and audits it', async () => {
    const vpId = `urn:uuid:${crypto.randomUUID()}`;
    const res = await issuer.call('/v1/vp/verify', {
      body: { presentation: { id: vpId, type: ['VerifiablePresentation'] }, expectedTarget: TARGET },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('MALFORMED');
    expect(await auditOf('VP_REJECTED', vpId)).toMatchObject({ reason: 'MALFORMED' });
  });

  it('audits the refusal of a presentation whose proof domain runs long, cut to fit the trail', async () => {
    const vpId = `urn:uuid:${crypto.randomUUID()}`;
    const res = await issuer.call('/v1/vp/verify', {
      body: { presentation: { id: vpId, proof: { domain: `x${'y'.repeat(20_000)}` } } },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('MALFORMED');
    const audited = await auditOf('VP_REJECTED', vpId);
    expect(audited).toMatchObject({ reason: 'MALFORMED' });
    expect((audited as { data: { target: string } }).data.target).toBe(`x${'y'.repeat(255)}`);
  });

  it('refuses a presentation holding a lone surrogate before reading it (400 MALFORMED_JSON, I-JSON), audited as a refused request', async () => {
    const vpId = `urn:uuid:${crypto.randomUUID()}`;
    // JSON can spell a lone surrogate half; no one could sign, store or compare it.
    const body = `{"presentation":{"id":"${vpId}\\ud800","proof":{"domain":"x\\ud800"}}}`;
    const res = await issuer.fetch(`${issuer.url}/v1/vp/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('MALFORMED_JSON');
    const refused = (await issuer.call('/v1/audit?event=REQUEST_REFUSED&limit=500', { admin: true })).json
      .records as Array<{ reason: string; data: { path: string } }>;
    expect(refused.at(-1)).toMatchObject({ reason: 'MALFORMED_JSON', data: { path: '/v1/vp/verify' } });
  });

  it('hands the verifier the presentation exactly as received: an unsigned "__proto__" member is refused, not dropped and accepted', async () => {
    const { agent, credential } = await selfAgent();
    const vp = await present(agent, [credential], { challenge: 'nonce-proto' });
    // JSON.parse keeps "__proto__" as an own member; a rebuilt copy would lose it (and the signature would then verify).
    const body = `{"presentation":{"__proto__":{"admin":true},${JSON.stringify(vp).slice(1)},"expectedTarget":"${TARGET}","challenge":"nonce-proto"}`;
    const res = await issuer.fetch(`${issuer.url}/v1/vp/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('MALFORMED');
    // The same presentation without it is accepted: the refusal was for that member alone.
    expect(
      (
        await issuer.call('/v1/vp/verify', {
          body: { presentation: vp, expectedTarget: TARGET, challenge: 'nonce-proto' },
        })
      ).status,
    ).toBe(200);
  });

  it('answers 400 MALFORMED when neither expectedTarget nor a proof domain names the target', async () => {
    const res = await issuer.call('/v1/vp/verify', { body: { presentation: { id: 'urn:uuid:x', proof: {} } } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('MALFORMED');
  });

  it('refuses a body without a presentation (400 VALIDATION_FAILED)', async () => {
    const res = await issuer.call('/v1/vp/verify', { body: { expectedTarget: TARGET } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_FAILED');
  });

  it('full lifecycle, self custody: mint → onboard → present → verify → revoke → CREDENTIAL_REVOKED', async () => {
    const { agent, credential, vcId } = await selfAgent();
    expect(
      (
        await issuer.call('/v1/vp/verify', {
          body: { presentation: await present(agent, [credential]), expectedTarget: TARGET },
        })
      ).json.valid,
    ).toBe(true);
    expect(
      (await issuer.call(`/v1/vcs/${encodeURIComponent(vcId)}/revoke`, { admin: true, body: { reason: 'test' } }))
        .status,
    ).toBe(200);
    const res = await issuer.call('/v1/vp/verify', {
      body: { presentation: await present(agent, [credential]), expectedTarget: TARGET },
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ valid: false, reason: 'CREDENTIAL_REVOKED', failedCheck: 'status' });
  });

  it('full lifecycle, server custody: the server-signed presentation verifies, then CREDENTIAL_REVOKED', async () => {
    const { agentDid, vcId } = await onboardServerAgent(issuer);
    const presentFor = async () =>
      (
        await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}/vp`, {
          admin: true,
          body: { targetService: TARGET },
        })
      ).json;
    const ok = await issuer.call('/v1/vp/verify', {
      body: { presentation: await presentFor(), expectedTarget: TARGET },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.agentDid).toBe(agentDid);
    expect((await issuer.call(`/v1/vcs/${encodeURIComponent(vcId)}/revoke`, { admin: true, body: {} })).status).toBe(
      200,
    );
    const denied = await issuer.call('/v1/vp/verify', {
      body: { presentation: await presentFor(), expectedTarget: TARGET },
    });
    expect(denied.status).toBe(403);
    expect(denied.json.reason).toBe('CREDENTIAL_REVOKED');
  });

  it('refuses a deactivated agent DID with DID_DEACTIVATED', async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    const vp = (
      await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}/vp`, {
        admin: true,
        body: { targetService: TARGET },
      })
    ).json;
    expect(
      (await issuer.call(`/v1/dids/${encodeURIComponent(agentDid)}/deactivate`, { admin: true, body: {} })).status,
    ).toBe(200);
    const res = await issuer.call('/v1/vp/verify', { body: { presentation: vp, expectedTarget: TARGET } });
    expect(res.status).toBe(403);
    expect(res.json.reason).toBe('DID_DEACTIVATED');
  });
});

describe('session tokens', () => {
  it('issues an EdDSA JWT that verifies with jose against the published JWKS, with the documented claims', async () => {
    const { agent, credential } = await selfAgent();
    const vp = await present(agent, [credential], { challenge: 'nonce-s1' });
    const res = await issuer.call('/v1/vp/verify', {
      body: { presentation: vp, expectedTarget: TARGET, challenge: 'nonce-s1', session: true },
    });
    expect(res.status).toBe(200);
    const token = res.json.sessionToken as string;
    const issuerDid = issuer.running.ctx.issuer.did;
    const jwks = createRemoteJWKSet(new URL(`${issuer.url}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: issuerDid,
      audience: TARGET,
      algorithms: ['EdDSA'],
    });
    expect(protectedHeader.alg).toBe('EdDSA');
    expect(payload).toMatchObject({
      iss: issuerDid,
      sub: agent.did,
      aud: TARGET,
      scope: 'files:read files:write',
      vpId: vp.id,
    });
    expect(typeof payload.jti).toBe('string');
    expect((payload.exp as number) - (payload.iat as number)).toBe(300);
    expect(payload.act).toBeUndefined(); // a root credential: nobody delegated
    expect(new Date(res.json.sessionExpiresAt).getTime()).toBe((payload.exp as number) * 1000);
    // The single-key endpoint publishes the same key.
    const single = await issuer.call('/v1/sessions/public-key');
    expect(single.json.kid).toBe(decodeProtectedHeader(token).kid);
    expect(single.json).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(single.json.d).toBeUndefined();
  });

  it('carries the delegation path as nested RFC 8693 act claims', async () => {
    const { agent: root, credential } = await selfAgent();
    const middle = newAgent();
    const leaf = newAgent();
    const toMiddle = await delegate(credential, {
      delegator: root,
      delegateeDid: middle.did,
      scopes: ['files:read', 'files:write'],
    });
    const toLeaf = await delegate(toMiddle, { delegator: middle, delegateeDid: leaf.did, scopes: ['files:read'] });
    const vp = await present(leaf, [toLeaf, toMiddle, credential], { challenge: 'nonce-s2' });
    const res = await issuer.call('/v1/vp/verify', {
      body: { presentation: vp, expectedTarget: TARGET, challenge: 'nonce-s2', session: true },
    });
    expect(res.status).toBe(200);
    expect(res.json.effectiveScopes).toEqual(['files:read']);
    const jwks = createRemoteJWKSet(new URL(`${issuer.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(res.json.sessionToken, jwks, { audience: TARGET });
    expect(payload.sub).toBe(leaf.did);
    expect(payload.scope).toBe('files:read');
    expect(payload.act).toEqual({ sub: middle.did, act: { sub: root.did } });
  });

  it('no token without session: true, and none for a denied presentation', async () => {
    const { agent, credential } = await selfAgent();
    const plain = await issuer.call('/v1/vp/verify', {
      body: { presentation: await present(agent, [credential]), expectedTarget: TARGET },
    });
    expect(plain.json.sessionToken).toBeUndefined();
    const denied = await issuer.call('/v1/vp/verify', {
      body: {
        presentation: await present(agent, [credential], { domain: 'x.example', challenge: 'nonce-s3' }),
        expectedTarget: TARGET,
        challenge: 'nonce-s3',
        session: true,
      },
    });
    expect(denied.status).toBe(403);
    expect(denied.json.sessionToken).toBeUndefined();
  });

  it('mints a token only for a presentation that answered the target’s own nonce (400 without expectedTarget or challenge)', async () => {
    const { agent, credential } = await selfAgent();
    // A presentation that leaked before its target used it: without the target's nonce and name, no token.
    const leaked = await present(agent, [credential], { challenge: 'nonce-of-the-target' });
    for (const body of [
      { presentation: leaked, expectedTarget: TARGET, session: true },
      { presentation: leaked, challenge: 'nonce-of-the-target', session: true },
    ]) {
      const res = await issuer.call('/v1/vp/verify', { body });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_FAILED');
      expect(res.json.sessionToken).toBeUndefined();
    }
  });

  it('keeps the same session key across a restart (encrypted in settings, not the signing key)', async () => {
    const own = await startTestIssuer();
    try {
      const before = (await own.call('/v1/sessions/public-key')).json;
      const stored = JSON.parse((await own.running.ctx.stores.sessionKey.load()) as string);
      expect(stored.envelope).toMatchObject({ v: 1, alg: 'A256GCM' });
      expect(Object.keys(stored).sort()).toEqual(['envelope', 'v', 'x']); // no private key in clear
      const restarted = await own.restart();
      // The first request may meet a pooled keep-alive socket of the previous server: retried once.
      const after = await restarted
        .call('/v1/sessions/public-key')
        .catch(() => restarted.call('/v1/sessions/public-key'));
      expect(after.json).toEqual(before);
      await restarted.dispose();
    } finally {
      await own.stop().catch(() => undefined);
    }
  });

  it('actorClaimOf nests delegators leaf-first and ignores the platform root and grants', () => {
    const link = (
      type: 'AgentCredential' | 'DelegatedAgentCredential' | 'DelegationGrantCredential',
      issuerDid: string,
    ) => ({ id: 'urn:x', type, issuer: issuerDid, subject: 's', privilegeScopes: [], cached: false });
    expect(actorClaimOf([link('AgentCredential', 'did:web:platform')])).toBeUndefined();
    expect(
      actorClaimOf([
        link('DelegatedAgentCredential', 'did:b'),
        link('DelegatedAgentCredential', 'did:a'),
        link('AgentCredential', 'did:web:platform'),
        link('DelegationGrantCredential', 'did:p'),
      ]),
    ).toEqual({
      sub: 'did:b',
      act: { sub: 'did:a' },
    });
  });

  it('SESSION_KEY_UNREADABLE: a corrupted row or a wrong key-encryption key is reported, never replaced', async () => {
    const kek = crypto.getRandomValues(new Uint8Array(32));
    const garbage = createSessionTokenIssuer({
      store: { load: () => Promise.resolve('{"v":2}'), saveIfAbsent: (v) => Promise.resolve(v) },
      keyEncryptionKey: kek,
      issuerDid: 'did:web:x',
    });
    await expect(garbage.publicJwk()).rejects.toMatchObject({ code: 'SESSION_KEY_UNREADABLE' });
    const envelope = await encrypt(crypto.getRandomValues(new Uint8Array(32)), new Uint8Array(32));
    const stored = JSON.stringify({ v: 1, x: 'A'.repeat(43), envelope });
    const wrongKek = createSessionTokenIssuer({
      store: { load: () => Promise.resolve(stored), saveIfAbsent: (v) => Promise.resolve(v) },
      keyEncryptionKey: kek,
      issuerDid: 'did:web:x',
    });
    const failure = await wrongKek
      .issue({ agentDid: 'did:key:z', target: 't', scopes: [], vpId: 'urn:x', chain: [] })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SessionTokenError);
    expect((failure as SessionTokenError).code).toBe('SESSION_KEY_UNREADABLE');
  });

  it('two first requests racing to create the key end up with one key', async () => {
    let value: string | undefined;
    const store = {
      load: () => Promise.resolve(value),
      saveIfAbsent: (v: string) => Promise.resolve((value ??= v)),
    };
    const kek = crypto.getRandomValues(new Uint8Array(32));
    const a = createSessionTokenIssuer({ store, keyEncryptionKey: kek, issuerDid: 'did:web:x' });
    const b = createSessionTokenIssuer({ store, keyEncryptionKey: kek, issuerDid: 'did:web:x' });
    const [ka, kb] = await Promise.all([a.publicJwk(), b.publicJwk()]);
    expect(ka).toEqual(kb);
  });

  it('mints tokens for many concurrent verifications (one token each)', async () => {
    const token = await mintToken(issuer);
    const agent = newAgent();
    const enrolled = await onboardSelfAgent(issuer, agent, token);
    const credential = enrolled.verifiableCredential as unknown as AgentCredential;
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) =>
        issuer.call('/v1/vp/verify', {
          body: {
            presentation: await present(agent, [credential], { challenge: `nonce-c${i}` }),
            expectedTarget: TARGET,
            challenge: `nonce-c${i}`,
            session: true,
          },
        }),
      ),
    );
    const jtis = new Set(
      results.map(
        (r) => JSON.parse(Buffer.from(String(r.json.sessionToken).split('.')[1] ?? '', 'base64url').toString()).jti,
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(jtis.size).toBe(20);
  });
});

describe('POST /v1/sessions/introspect (RFC 7662)', () => {
  const SERVICE_KEY = 'svc-introspection-key-0123456789abcdefghijklmnop';
  let own: TestIssuer;
  let clock = Date.now();
  beforeAll(async () => {
    own = await startTestIssuer({ SERVICE_INTROSPECTION_KEYS: SERVICE_KEY }, { now: () => clock });
  });
  afterAll(() => own.dispose());

  async function introspect(
    token: string,
    key: string | null = SERVICE_KEY,
    body = new URLSearchParams({ token }).toString(),
  ) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (key !== null) headers.authorization = `Bearer ${key}`;
    const res = await fetch(`${own.url}/v1/sessions/introspect`, { method: 'POST', headers, body });
    return {
      status: res.status,
      cacheControl: res.headers.get('cache-control'),
      json: (await res.json()) as Record<string, unknown>,
    };
  }

  async function session(chain?: { leaf: SigningIdentity; credentials: MandateCredential[] }) {
    const agent = newAgent();
    const enrolled = await onboardSelfAgent(own, agent);
    const credential = enrolled.verifiableCredential as unknown as AgentCredential;
    const holder = chain?.leaf ?? agent;
    const challenge = crypto.randomUUID();
    const vp = await present(holder, chain?.credentials ?? [credential], { challenge });
    const res = await own.call('/v1/vp/verify', {
      body: { presentation: vp, expectedTarget: TARGET, challenge, session: true },
    });
    expect(res.status).toBe(200);
    return { token: res.json.sessionToken as string, vcId: enrolled.vcId, agent, credential };
  }

  it('answers active with the token claims, then active: false once its credential is revoked — before the token expires', async () => {
    const { token, vcId, agent } = await session();
    const active = await introspect(token);
    expect(active.status).toBe(200);
    expect(active.cacheControl).toBe('no-store');
    expect(active.json).toMatchObject({
      active: true,
      token_type: 'Bearer',
      iss: own.running.ctx.issuer.did,
      sub: agent.did,
      aud: TARGET,
      scope: 'files:read files:write',
    });
    expect(await introspect(token, TEST_ADMIN_KEY)).toMatchObject({ status: 200, json: { active: true } });
    expect((await own.call(`/v1/vcs/${encodeURIComponent(vcId)}/revoke`, { admin: true, body: {} })).status).toBe(200);
    // Nothing else: RFC 7662 §2.2 says no more about an inactive token.
    expect((await introspect(token)).json).toEqual({ active: false });
  });

  it('follows suspension both ways, and a revocation anywhere in a delegated chain', async () => {
    const { token, vcId } = await session();
    expect((await own.call(`/v1/vcs/${encodeURIComponent(vcId)}/suspend`, { admin: true, body: {} })).status).toBe(200);
    expect((await introspect(token)).json).toEqual({ active: false });
    expect((await own.call(`/v1/vcs/${encodeURIComponent(vcId)}/reinstate`, { admin: true, body: {} })).status).toBe(
      200,
    );
    expect((await introspect(token)).json.active).toBe(true);

    const root = await session();
    const leaf = newAgent();
    const delegated = await delegate(root.credential, {
      delegator: root.agent,
      delegateeDid: leaf.did,
      scopes: ['files:read'],
    });
    const { token: leafToken } = await session({ leaf, credentials: [delegated, root.credential] });
    expect((await introspect(leafToken)).json).toMatchObject({
      active: true,
      sub: leaf.did,
      act: { sub: root.agent.did },
    });
    expect((await own.call(`/v1/vcs/${encodeURIComponent(root.vcId)}/revoke`, { admin: true, body: {} })).status).toBe(
      200,
    );
    expect((await introspect(leafToken)).json).toEqual({ active: false });
  });

  it('answers active: false for an expired, forged, foreign or unknown token alike', async () => {
    const { token } = await session();
    const [header, payload] = token.split('.') as [string, string, string];
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;
    const foreign = await createSessionTokenIssuer({
      store: { load: () => Promise.resolve(undefined), saveIfAbsent: (v) => Promise.resolve(v) },
      keyEncryptionKey: new Uint8Array(32).fill(7),
      issuerDid: own.running.ctx.issuer.did,
    }).issue({
      agentDid: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      target: TARGET,
      scopes: ['files:read'],
      vpId: 'urn:uuid:x',
      chain: [],
    });
    for (const other of [forged, foreign.token, 'not-a-jwt'])
      expect((await introspect(other)).json, other).toEqual({ active: false });
    clock += 301_000;
    try {
      expect((await introspect(token)).json).toEqual({ active: false });
    } finally {
      clock = Date.now();
    }
  });

  it('is for the admin and the introspection keys only, form-encoded, one token', async () => {
    const { token } = await session();
    expect((await introspect(token, null)).status).toBe(401);
    expect((await introspect(token, 'svc-wrong-key-0123456789abcdefghijklmnopqrstu')).status).toBe(401);
    const json = await fetch(`${own.url}/v1/sessions/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SERVICE_KEY}` },
      body: JSON.stringify({ token }),
    });
    expect(json.status).toBe(415);
    expect((await introspect(token, SERVICE_KEY, '')).status).toBe(400);
    expect((await introspect(token, SERVICE_KEY, `token=${token}&token=${token}`)).status).toBe(400);
    // An introspection key opens nothing else.
    expect((await own.call('/v1/agents', { headers: { authorization: `Bearer ${SERVICE_KEY}` } })).status).toBe(401);
  });
});
