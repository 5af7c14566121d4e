// User challenges against a real issuer: a provider gets a single-use nonce, the user signs it
// (raw signature, a signed UserConsent, or a DID-Auth presentation), and the issuer judges each
// challenge exactly once and keeps what was signed as consent evidence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, utf8ToBytes } from '../../wallet/crypto/bytes.ts';
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { encodeBase58btc } from '../../wallet/crypto/multikey.ts';
import { createConsent } from '../../wallet/vc/grant.ts';
import { didKeyIdentity, type SigningIdentity } from '../../wallet/vc/identity.ts';
import { statusOf } from '../../issuer/http/errors.ts';
import { refuse } from '../../issuer/refusal.ts';
import { decodeSignature } from '../../issuer/services/challenges.ts';
import { startTestIssuer, type TestIssuer } from '../support/issuer.ts';

const PROVIDER = 'did:web:files.example.com';
let issuer: TestIssuer;
let clock = Date.now();

function newUser(): SigningIdentity {
  return didKeyIdentity(seedSigner(generateSeed()));
}

async function challengeFor(userDid: string): Promise<{ challengeId: string; challenge: string; expiresAt: string }> {
  const res = await issuer.call('/v1/challenges', { body: { userDid } });
  expect(res.status).toBe(201);
  return res.json;
}

function answer(challengeId: string, body: Record<string, unknown>) {
  return issuer.call(`/v1/challenges/${challengeId}/verify`, { body });
}

async function signChallenge(user: SigningIdentity, challenge: string): Promise<Uint8Array> {
  return user.signer.sign(utf8ToBytes(challenge));
}

beforeAll(async () => {
  issuer = await startTestIssuer({}, { now: () => clock });
});
afterAll(() => issuer.dispose());

describe('POST /v1/challenges', () => {
  it('issues a 256-bit challenge for a user DID, valid for 5 minutes', async () => {
    const user = newUser();
    const issued = await challengeFor(user.did);
    expect(issued.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Date(issued.expiresAt).getTime() - clock).toBe(5 * 60_000);
  });

  it('refuses what is not a DID (400)', async () => {
    const res = await issuer.call('/v1/challenges', { body: { userDid: 'alice' } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_FAILED');
    const fragment = await issuer.call('/v1/challenges', { body: { userDid: 'did:key:z6Mk#frag' } });
    expect(fragment.status).toBe(400);
  });

  it("keeps at most 256 characters of an anonymous caller's DID in the audit trail, which is never pruned", async () => {
    const long = `did:example:${'a'.repeat(2000)}`;
    const issued = await challengeFor(long);
    const record = (await issuer.running.ctx.audit.list({ event: 'USER_CHALLENGE_ISSUED', limit: 500 })).records.find(
      (r) => r.data?.challengeId === issued.challengeId,
    );
    const userDid = record?.data?.userDid;
    expect(typeof userDid === 'string' && userDid.length).toBeLessThanOrEqual(256);
    expect(userDid).toMatch(/^did:example:a+/);
  });
});

describe('POST /v1/challenges/:id/verify', () => {
  it('accepts a base58btc signature by the user DID authentication key, once', async () => {
    const user = newUser();
    const { challengeId, challenge } = await challengeFor(user.did);
    const signature = encodeBase58btc(await signChallenge(user, challenge));
    const res = await answer(challengeId, { signature });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      verified: true,
      userDid: user.did,
      challengeId,
      evidence: 'signature',
      verificationMethod: user.verificationMethod,
    });
    const again = await answer(challengeId, { signature });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('CHALLENGE_USED');
  });

  it('accepts a hex signature naming its verification method', async () => {
    const user = newUser();
    const { challengeId, challenge } = await challengeFor(user.did);
    const res = await answer(challengeId, {
      signature: bytesToHex(await signChallenge(user, challenge)),
      verificationMethod: user.verificationMethod,
    });
    expect(res.status).toBe(200);
    expect(res.json.verified).toBe(true);
  });

  it('records a signed UserConsent as consent evidence: stored row and CONSENT_VERIFIED audit with the approved scopes', async () => {
    const user = newUser();
    const agentDid = newUser().did;
    const { challengeId, challenge } = await challengeFor(user.did);
    const consent = await createConsent({
      user,
      agentDid,
      providerDid: PROVIDER,
      privilegeScopes: ['files:read'],
      challenge,
    });
    const res = await answer(challengeId, { proof: consent });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      verified: true,
      evidence: 'UserConsent',
      consent: { user: user.did, agent: agentDid, provider: PROVIDER, privilegeScopes: ['files:read'] },
    });
    const row = await issuer.running.ctx.stores.challenges.get(challengeId);
    expect(row?.verified).toBe(true);
    expect(JSON.parse(row?.evidence ?? 'null')).toMatchObject({
      form: 'UserConsent',
      signed: { type: 'UserConsent', user: user.did },
    });
    const audit = await issuer.call(`/v1/audit?event=CONSENT_VERIFIED&agent=${encodeURIComponent(agentDid)}`, {
      admin: true,
    });
    expect(audit.json.records).toHaveLength(1);
    expect(audit.json.records[0].data).toMatchObject({
      challengeId,
      userDid: user.did,
      consent: { privilegeScopes: ['files:read'] },
    });
  });

  it("files a consent under its agent only when the agent is a DID: other text the signer chose stays in the record's data", async () => {
    const user = newUser();
    const agent = 'did:key:z6Mk\u001b[1A\u001b[2KREVOKED ALL';
    const { challengeId, challenge } = await challengeFor(user.did);
    const consent = await createProof(
      { type: 'UserConsent', user: user.did, agent, provider: PROVIDER, privilegeScopes: ['files:read'] },
      { signer: user.signer, verificationMethod: user.verificationMethod, proofPurpose: 'authentication', challenge },
    );
    expect((await answer(challengeId, { proof: consent })).json).toMatchObject({ verified: true, consent: { agent } });
    const records = (await issuer.call('/v1/audit?event=CONSENT_VERIFIED&limit=500', { admin: true })).json.records as {
      agentDid?: string;
      data: { challengeId: string; consent: { agent: string } };
    }[];
    const record = records.find((r) => r.data.challengeId === challengeId);
    expect(record?.data.consent.agent).toBe(agent);
    expect(record).not.toHaveProperty('agentDid');
  });

  it('records a consent whose long agent name is cut inside an emoji (the cut never splits a surrogate pair)', async () => {
    const user = newUser();
    const agent = `did:key:${'a'.repeat(503)}\u{1F600}`; // the emoji's halves at UTF-16 indexes 511 and 512
    const { challengeId, challenge } = await challengeFor(user.did);
    const consent = await createProof(
      { type: 'UserConsent', user: user.did, agent, provider: PROVIDER, privilegeScopes: ['files:read'] },
      { signer: user.signer, verificationMethod: user.verificationMethod, proofPurpose: 'authentication', challenge },
    );
    const res = await answer(challengeId, { proof: consent });
    expect(res.status).toBe(200);
    expect(res.json.consent.agent).toBe(agent.slice(0, 511));
    expect((await answer(challengeId, { proof: consent })).json.error.code).toBe('CHALLENGE_USED');
  });

  it('accepts a DID-Auth presentation by the user with this challenge', async () => {
    const user = newUser();
    const { challengeId, challenge } = await challengeFor(user.did);
    const vp = await createProof(
      { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], holder: user.did },
      {
        signer: user.signer,
        verificationMethod: user.verificationMethod,
        proofPurpose: 'authentication',
        challenge,
        domain: PROVIDER,
      },
    );
    const res = await answer(challengeId, { proof: vp });
    expect(res.status).toBe(200);
    expect(res.json.evidence).toBe('VerifiablePresentation');
  });

  it('SIGNATURE_INVALID: a signature by another key is refused (403) and uses the challenge up', async () => {
    const user = newUser();
    const { challengeId, challenge } = await challengeFor(user.did);
    const res = await answer(challengeId, { signature: encodeBase58btc(await signChallenge(newUser(), challenge)) });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ verified: false, userDid: user.did, reason: 'SIGNATURE_INVALID' });
    const retry = await answer(challengeId, { signature: encodeBase58btc(await signChallenge(user, challenge)) });
    expect(retry.status).toBe(409);
    const audit = await issuer.call('/v1/audit?event=CONSENT_REJECTED', { admin: true });
    expect(
      audit.json.records.some(
        (r: { reason?: string; data?: { challengeId?: string } }) =>
          r.data?.challengeId === challengeId && r.reason === 'SIGNATURE_INVALID',
      ),
    ).toBe(true);
  });

  it('KEY_NOT_AUTHORIZED: naming a key of another DID', async () => {
    const user = newUser();
    const other = newUser();
    const { challengeId, challenge } = await challengeFor(user.did);
    const res = await answer(challengeId, {
      signature: encodeBase58btc(await signChallenge(other, challenge)),
      verificationMethod: other.verificationMethod,
    });
    expect(res.status).toBe(403);
    expect(res.json.reason).toBe('KEY_NOT_AUTHORIZED');
  });

  it('USER_MISMATCH: a UserConsent signed by someone else', async () => {
    const user = newUser();
    const { challengeId, challenge } = await challengeFor(user.did);
    const consent = await createConsent({
      user: newUser(),
      agentDid: newUser().did,
      providerDid: PROVIDER,
      privilegeScopes: ['files:read'],
      challenge,
    });
    const res = await answer(challengeId, { proof: consent });
    expect(res.status).toBe(403);
    expect(res.json.reason).toBe('USER_MISMATCH');
  });

  it('CHALLENGE_MISMATCH: a consent signed for another challenge', async () => {
    const user = newUser();
    const { challengeId } = await challengeFor(user.did);
    const consent = await createConsent({
      user,
      agentDid: newUser().did,
      providerDid: PROVIDER,
      privilegeScopes: ['files:read'],
      challenge: 'some-other-challenge',
    });
    const res = await answer(challengeId, { proof: consent });
    expect(res.status).toBe(403);
    expect(res.json.reason).toBe('CHALLENGE_MISMATCH');
  });

  it('PROOF_INVALID: a proof with the wrong purpose, or a consent with unusable scopes', async () => {
    const user = newUser();
    const first = await challengeFor(user.did);
    const asAssertion = await createProof(
      {
        type: 'UserConsent',
        user: user.did,
        agent: newUser().did,
        provider: PROVIDER,
        privilegeScopes: ['files:read'],
      },
      {
        signer: user.signer,
        verificationMethod: user.verificationMethod,
        proofPurpose: 'assertionMethod',
        challenge: first.challenge,
      },
    );
    const purpose = await answer(first.challengeId, { proof: asAssertion });
    expect(purpose.status).toBe(403);
    expect(purpose.json.reason).toBe('PROOF_INVALID');
    const second = await challengeFor(user.did);
    const badScopes = await createProof(
      {
        type: 'UserConsent',
        user: user.did,
        agent: newUser().did,
        provider: PROVIDER,
        privilegeScopes: ['Files Read'],
      },
      {
        signer: user.signer,
        verificationMethod: user.verificationMethod,
        proofPurpose: 'authentication',
        challenge: second.challenge,
      },
    );
    const scopes = await answer(second.challengeId, { proof: badScopes });
    expect(scopes.status).toBe(403);
    expect(scopes.json.reason).toBe('PROOF_INVALID');
  });

  it('DID_RESOLUTION_FAILED and DID_DEACTIVATED: the user DID must resolve and be active', async () => {
    const ownDomainGhost = `${issuer.running.ctx.issuer.did}:users:ghost`;
    const ghost = await challengeFor(ownDomainGhost);
    const unresolved = await answer(ghost.challengeId, { signature: encodeBase58btc(new Uint8Array(64)) });
    expect(unresolved.status).toBe(403);
    expect(unresolved.json.reason).toBe('DID_RESOLUTION_FAILED');

    const user = newUser();
    await issuer.call('/v1/dids', { admin: true, body: { did: user.did } });
    await issuer.call(`/v1/dids/${encodeURIComponent(user.did)}/deactivate`, { admin: true, body: {} });
    const { challengeId, challenge } = await challengeFor(user.did);
    const res = await answer(challengeId, { signature: encodeBase58btc(await signChallenge(user, challenge)) });
    expect(res.status).toBe(403);
    expect(res.json.reason).toBe('DID_DEACTIVATED');
  });

  it('SIGNATURE_ENCODING_INVALID: a malformed signature is a 400 that leaves the challenge usable', async () => {
    const user = newUser();
    const { challengeId, challenge } = await challengeFor(user.did);
    for (const signature of ['zzzz', 'abc', 'f'.repeat(126), 'not-a-signature']) {
      const res = await answer(challengeId, { signature });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('SIGNATURE_ENCODING_INVALID');
    }
    expect(
      (await answer(challengeId, { signature: encodeBase58btc(await signChallenge(user, challenge)) })).status,
    ).toBe(200);
  });

  it('wants exactly one of signature and proof, and a proof that is a consent or a presentation', async () => {
    const user = newUser();
    const { challengeId } = await challengeFor(user.did);
    expect((await answer(challengeId, {})).json.error.code).toBe('VALIDATION_FAILED');
    expect((await answer(challengeId, { signature: 'z1', proof: {} })).json.error.code).toBe('VALIDATION_FAILED');
    expect((await answer(challengeId, { proof: { type: 'Something' } })).json.error.code).toBe('VALIDATION_FAILED');
  });

  it('refuses a signed answer over 4 KiB, which would be kept for good, and leaves the challenge usable', async () => {
    const user = newUser();
    const { challengeId, challenge } = await challengeFor(user.did);
    const padded = await createProof(
      {
        type: 'UserConsent',
        user: user.did,
        agent: newUser().did,
        provider: PROVIDER,
        privilegeScopes: ['files:read'],
        note: 'x'.repeat(4000),
      },
      { signer: user.signer, verificationMethod: user.verificationMethod, proofPurpose: 'authentication', challenge },
    );
    const res = await answer(challengeId, { proof: padded });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_FAILED');
    expect(res.json.error.message).toContain('4096 bytes');
    const row = await issuer.running.ctx.stores.challenges.get(challengeId);
    expect(row).toMatchObject({ id: challengeId });
    expect([row?.usedAt, row?.evidence]).toEqual([undefined, undefined]);
    const consent = await createConsent({
      user,
      agentDid: newUser().did,
      providerDid: PROVIDER,
      privilegeScopes: ['files:read'],
      challenge,
    });
    expect((await answer(challengeId, { proof: consent })).json.verified).toBe(true);
  });

  it('answers 404 for an unknown challenge and 403 CHALLENGE_EXPIRED after five minutes', async () => {
    expect((await answer(crypto.randomUUID(), { signature: 'z1' })).status).toBe(404);
    const user = newUser();
    const { challengeId, challenge } = await challengeFor(user.did);
    clock += 5 * 60_000 + 1;
    const res = await answer(challengeId, { signature: encodeBase58btc(await signChallenge(user, challenge)) });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('CHALLENGE_EXPIRED');
  });

  it('deletes challenges left unanswered an hour after they expired; answered and recent ones stay', async () => {
    const user = newUser();
    const rowOf = (id: string) => issuer.running.ctx.stores.challenges.get(id);
    const stale = await Promise.all(Array.from({ length: 12 }, () => challengeFor(user.did)));
    const answered = await challengeFor(user.did);
    expect(
      (
        await answer(answered.challengeId, {
          signature: encodeBase58btc(await signChallenge(user, answered.challenge)),
        })
      ).json.verified,
    ).toBe(true);
    clock += 60 * 60_000;
    const recent = await challengeFor(user.did); // expires at +65 min
    clock += 6 * 60_000; // the stale ones expired 61 minutes ago, the recent one 1 minute ago
    await challengeFor(user.did);
    await challengeFor(user.did); // at most 8 deleted per insert: two inserts drain the 12
    expect(await Promise.all(stale.map((c) => rowOf(c.challengeId)))).toEqual(stale.map(() => undefined));
    expect(await rowOf(answered.challengeId)).toBeDefined();
    expect(await rowOf(recent.challengeId)).toBeDefined();
    const late = await answer(stale[0]!.challengeId, {
      signature: encodeBase58btc(await signChallenge(user, stale[0]!.challenge)),
    });
    expect(late.status).toBe(404);
    expect(late.json.error.code).toBe('CHALLENGE_NOT_FOUND');
    expect(
      (await answer(recent.challengeId, { signature: encodeBase58btc(await signChallenge(user, recent.challenge)) }))
        .json.error.code,
    ).toBe('CHALLENGE_EXPIRED');
  });

  it('judges a challenge once even when answered concurrently', async () => {
    const user = newUser();
    const { challengeId, challenge } = await challengeFor(user.did);
    const signature = encodeBase58btc(await signChallenge(user, challenge));
    const results = await Promise.all(Array.from({ length: 20 }, () => answer(challengeId, { signature })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
  });

  it('decodeSignature accepts exactly 64 bytes in base58btc or hex', () => {
    expect(decodeSignature('ab'.repeat(64))).toHaveLength(64);
    expect(decodeSignature(encodeBase58btc(new Uint8Array(64).fill(7)))).toHaveLength(64);
    expect(() => decodeSignature(encodeBase58btc(new Uint8Array(63)))).toThrow(
      expect.objectContaining({ code: 'SIGNATURE_ENCODING_INVALID' }),
    );
    // The refusal carries a code, no status: the HTTP edge answers that code with 400.
    expect(statusOf(refuse('SIGNATURE_ENCODING_INVALID', 'a signature of 63 bytes'))).toBe(400);
  });
});
