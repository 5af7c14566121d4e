// Enrollment tokens and onboarding, against a real issuer: who may mint, what a token carries,
// both custody modes, every refusal (each leaving nothing behind), and the 50-way token race.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bytesToHex } from '../../wallet/crypto/bytes.ts';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';
import { encodePublicKeyMultibase } from '../../wallet/crypto/multikey.ts';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import { newIdentity } from '../support/agents.ts';
import { everythingStored } from '../support/database.ts';
import {
  didAuthProof,
  mintToken,
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  type TestIssuer,
} from '../support/issuer.ts';

let issuer: TestIssuer;
let clock = Date.now();
const advance = (ms: number) => {
  clock += ms;
};

beforeAll(async () => {
  issuer = await startTestIssuer({}, { now: () => clock });
});
afterAll(() => issuer.dispose());

/** How many agents, credentials and onboarding sessions the issuer holds, read through its stores. */
const counts = {
  async agents(): Promise<number> {
    let n = 0;
    for (let page = await issuer.running.ctx.stores.agents.list({ limit: 500 }); page?.length;) {
      n += page.length;
      page = await issuer.running.ctx.stores.agents.list({ cursor: page.at(-1)?.did, limit: 500 });
    }
    return n;
  },
  // Every credential here is an AgentCredential the issuer signed (no delegations in this file).
  credentials: async (): Promise<number> =>
    (await issuer.running.ctx.stores.credentials.listByIssuer(issuer.running.ctx.issuer.did, 100_000)).length,
  // A session is inserted in the transaction that audits ONBOARDING_STARTED, one record each.
  sessions: async (): Promise<number> =>
    (await issuer.running.ctx.stores.audit.list({ event: 'ONBOARDING_STARTED', limit: 100_000 })).length,
};

async function start(body: Record<string, unknown>) {
  return issuer.call('/v1/onboard', { body });
}

describe('enrollment tokens', () => {
  it('minting needs the admin key (401 with WWW-Authenticate otherwise)', async () => {
    const body = { requestedScopes: ['files:read'], maxDelegationDepth: 0, requestedDomains: ['files.example.com'] };
    const anonymous = await issuer.call('/v1/enrollment-tokens', { body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error.code).toBe('UNAUTHORIZED');
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm="mandate-issuer"/);
    const wrong = await issuer.call('/v1/enrollment-tokens', {
      body,
      headers: { authorization: 'Bearer not-the-admin-key' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('returns a 256-bit token once and stores only its hash', async () => {
    const res = await issuer.call('/v1/enrollment-tokens', {
      admin: true,
      body: { requestedScopes: ['files:read'], maxDelegationDepth: 1, requestedDomains: ['files.example.com'] },
    });
    expect(res.status).toBe(201);
    expect(res.json.token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes, base64url
    expect(Date.parse(res.json.expiresAt) - clock).toBe(15 * 60_000);
    // Every byte the issuer stored (SQLite: the file and its write-ahead log; PostgreSQL: every
    // row). They hold the token's record — its SHA-256 — and never the token.
    const stored = await everythingStored(issuer);
    expect(stored).toContain(bytesToHex(sha256Utf8(res.json.token)));
    expect(stored).not.toContain(res.json.token);
  });

  it('refuses bad token requests with 400 VALIDATION_FAILED and the offending path', async () => {
    const bad = await issuer.call('/v1/enrollment-tokens', {
      admin: true,
      body: { requestedScopes: ['Files:Read'], maxDelegationDepth: 1, requestedDomains: ['files.example.com'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('VALIDATION_FAILED');
    expect(bad.json.error.details[0].path).toBe('json.requestedScopes.0');
    const extra = await issuer.call('/v1/enrollment-tokens', {
      admin: true,
      body: { requestedScopes: ['files'], maxDelegationDepth: 1, requestedDomains: ['a.example'], role: 'admin' },
    });
    expect(extra.status).toBe(400);
    const negative = await issuer.call('/v1/enrollment-tokens', {
      admin: true,
      body: { requestedScopes: ['files'], maxDelegationDepth: -1, requestedDomains: ['a.example'] },
    });
    expect(negative.json.error.details[0].path).toBe('json.maxDelegationDepth');
  });

  it('lists tokens by state without their values, with cursor pagination', async () => {
    const fresh = await mintToken(issuer);
    await onboardServerAgent(issuer, await mintToken(issuer));
    await mintToken(issuer, { ttlSeconds: 10 });
    advance(11_000);
    const all = await issuer.call('/v1/enrollment-tokens?limit=500', { admin: true });
    expect(all.status).toBe(200);
    expect(JSON.stringify(all.json)).not.toContain(fresh);
    const states = new Set(all.json.tokens.map((t: { state: string }) => t.state));
    expect(states).toEqual(new Set(['outstanding', 'used', 'expired']));
    const used = await issuer.call('/v1/enrollment-tokens?state=used', { admin: true });
    expect(
      used.json.tokens.every(
        (t: { state: string; agentDid?: string }) => t.state === 'used' && t.agentDid?.startsWith('did:'),
      ),
    ).toBe(true);
    // Pages of one, following nextCursor, visit every token exactly once.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await issuer.call(
        `/v1/enrollment-tokens?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { admin: true },
      );
      seen.push(...page.json.tokens.map((t: { tokenId: string }) => t.tokenId));
      cursor = page.json.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.json.tokens.map((t: { tokenId: string }) => t.tokenId));
    // The same with a state filter: pages of one outstanding token each, none skipped.
    const outstanding: string[] = [];
    cursor = undefined;
    do {
      const page = await issuer.call(
        `/v1/enrollment-tokens?state=outstanding&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { admin: true },
      );
      outstanding.push(...page.json.tokens.map((t: { tokenId: string }) => t.tokenId));
      cursor = page.json.nextCursor;
    } while (cursor);
    expect(outstanding).toEqual(
      all.json.tokens
        .filter((t: { state: string }) => t.state === 'outstanding')
        .map((t: { tokenId: string }) => t.tokenId),
    );
    expect(outstanding.length).toBeGreaterThan(1);
    expect((await issuer.call('/v1/enrollment-tokens')).status).toBe(401);
  });

  it('SERVICE_OPEN_ENROLLMENT=true lets anyone mint (development), a wrong key is still refused', async () => {
    const open = await startTestIssuer({ SERVICE_OPEN_ENROLLMENT: 'true' });
    try {
      const body = { requestedScopes: ['files:read'], maxDelegationDepth: 0, requestedDomains: ['files.example.com'] };
      expect((await open.call('/v1/enrollment-tokens', { body })).status).toBe(201);
      expect(
        (await open.call('/v1/enrollment-tokens', { body, headers: { authorization: 'Bearer wrong' } })).status,
      ).toBe(401);
      expect((await open.call('/v1/enrollment-tokens')).status).toBe(401); // listing stays admin-only
    } finally {
      await open.dispose();
    }
  });
});

describe('onboarding, server custody', () => {
  it('step 1 does not consume the token; step 2 creates the agent, its key, its DID document and its credential', async () => {
    const token = await mintToken(issuer, {
      requestedScopes: ['files:read'],
      maxDelegationDepth: 1,
      requestedDomains: ['files.example.com'],
    });
    const first = await start({ token, custody: 'server' });
    const second = await start({ token, custody: 'server' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(first.json.domain).toBe(issuer.running.ctx.issuer.did);
    // Like the token, the challenge is kept only as its hash: a copy of the database cannot complete it.
    const stored = await issuer.running.ctx.stores.tokens.findSession(first.json.challengeId);
    expect(stored?.challengeHash).toBe(bytesToHex(sha256Utf8(first.json.challenge)));
    const withHash = await issuer.call('/v1/onboard/verify', {
      body: { challengeId: first.json.challengeId, challenge: stored?.challengeHash },
    });
    expect(withHash.json.error.code).toBe('CHALLENGE_MISMATCH');
    const done = await issuer.call('/v1/onboard/verify', {
      body: { challengeId: second.json.challengeId, challenge: second.json.challenge },
    });
    expect(done.status).toBe(201);
    const { agentDid, vcId, verifiableCredential } = done.json;
    expect(agentDid).toMatch(new RegExp(`^${issuer.running.ctx.issuer.did}:agents:[0-9a-f-]{36}$`));
    expect(verifiableCredential.id).toBe(vcId);
    expect(verifiableCredential.issuer).toBe(issuer.running.ctx.issuer.did);
    expect(verifiableCredential.credentialSubject).toEqual({
      id: agentDid,
      privilegeScopes: ['files:read'],
      delegationDepth: 1,
      domains: ['files.example.com'],
    });
    expect(verifiableCredential.credentialStatus.map((e: { statusPurpose: string }) => e.statusPurpose)).toEqual([
      'revocation',
      'suspension',
    ]);
    const key = await issuer.running.ctx.stores.agents.getKey(agentDid);
    expect(key?.envelope).toMatchObject({ v: 1, alg: 'A256GCM' });
    const agent = await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}`, { admin: true });
    expect(agent.json).toMatchObject({ did: agentDid, custody: 'server', currentCredentialId: vcId });
    // The other session of the same token can no longer complete.
    const again = await issuer.call('/v1/onboard/verify', {
      body: { challengeId: first.json.challengeId, challenge: first.json.challenge },
    });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('TOKEN_USED');
  });

  it('refuses a wrong challenge (403 CHALLENGE_MISMATCH), a missing one (400) and an unknown id (404)', async () => {
    const s = await start({ token: await mintToken(issuer), custody: 'server' });
    const wrong = await issuer.call('/v1/onboard/verify', {
      body: { challengeId: s.json.challengeId, challenge: 'not-it' },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.json.error.code).toBe('CHALLENGE_MISMATCH');
    const missing = await issuer.call('/v1/onboard/verify', { body: { challengeId: s.json.challengeId } });
    expect(missing.status).toBe(400);
    expect(missing.json.error.details[0].path).toBe('json.challenge');
    const unknown = await issuer.call('/v1/onboard/verify', {
      body: { challengeId: crypto.randomUUID(), challenge: 'x' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('CHALLENGE_NOT_FOUND');
    expect((await issuer.call('/v1/onboard/verify', { body: { challengeId: 'nope', challenge: 'x' } })).status).toBe(
      400,
    );
    // Still usable after the refusals.
    expect(
      (
        await issuer.call('/v1/onboard/verify', {
          body: { challengeId: s.json.challengeId, challenge: s.json.challenge },
        })
      ).status,
    ).toBe(201);
    const replay = await issuer.call('/v1/onboard/verify', {
      body: { challengeId: s.json.challengeId, challenge: s.json.challenge },
    });
    expect(replay.status).toBe(409);
    expect(replay.json.error.code).toBe('CHALLENGE_USED');
  });

  it('refuses unknown (403 TOKEN_INVALID), used (409 TOKEN_USED) and expired (403 TOKEN_EXPIRED) tokens, creating nothing', async () => {
    const before = {
      agents: await counts.agents(),
      credentials: await counts.credentials(),
      sessions: await counts.sessions(),
    };
    const unknown = await start({ token: 'A'.repeat(43), custody: 'server' });
    expect(unknown.status).toBe(403);
    expect(unknown.json.error.code).toBe('TOKEN_INVALID');

    const token = await mintToken(issuer);
    await onboardServerAgent(issuer, token);
    const used = await start({ token, custody: 'server' });
    expect(used.status).toBe(409);
    expect(used.json.error.code).toBe('TOKEN_USED');

    const short = await mintToken(issuer, { ttlSeconds: 10 });
    const session = await start({ token: short, custody: 'server' });
    advance(11_000);
    const expired = await start({ token: short, custody: 'server' });
    expect(expired.status).toBe(403);
    expect(expired.json.error.code).toBe('TOKEN_EXPIRED');
    // The session opened before expiry dies with its token.
    const late = await issuer.call('/v1/onboard/verify', {
      body: { challengeId: session.json.challengeId, challenge: session.json.challenge },
    });
    expect(late.status).toBe(403);
    expect(['CHALLENGE_EXPIRED', 'TOKEN_EXPIRED']).toContain(late.json.error.code);
    expect(await counts.agents()).toBe(before.agents + 1);
    expect(await counts.credentials()).toBe(before.credentials + 1);
    expect(await counts.sessions()).toBe(before.sessions + 2);
  });

  it('expires an onboarding challenge after its lifetime (403 CHALLENGE_EXPIRED)', async () => {
    const s = await start({ token: await mintToken(issuer, { ttlSeconds: 3600 }), custody: 'server' });
    advance(5 * 60_000 + 1);
    const res = await issuer.call('/v1/onboard/verify', {
      body: { challengeId: s.json.challengeId, challenge: s.json.challenge },
    });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('CHALLENGE_EXPIRED');
  });

  it('refuses a DID with server custody (400): the server generates it', async () => {
    const res = await start({ token: await mintToken(issuer), custody: 'server', did: newIdentity().did });
    expect(res.status).toBe(400);
    expect(res.json.error.details[0].path).toBe('json.did');
  });
});

describe('onboarding, self custody', () => {
  it('enrolls a did:key agent that proves possession with a DID-Auth presentation', async () => {
    const holder = newIdentity();
    const { agentDid, verifiableCredential } = await onboardSelfAgent(issuer, holder);
    expect(agentDid).toBe(holder.did);
    expect((verifiableCredential.credentialSubject as { id: string }).id).toBe(holder.did);
    expect(await issuer.running.ctx.stores.agents.getKey(holder.did)).toBeUndefined(); // the issuer holds no key
    const agent = await issuer.call(`/v1/agents/${encodeURIComponent(holder.did)}`, { admin: true });
    expect(agent.json.custody).toBe('self');
  });

  it('enrolls a did:web agent hosted elsewhere (resolved over HTTP)', async () => {
    const base = inject('fixtureBaseUrl');
    const signer = seedSigner(generateSeed());
    const host = new URL(base).host.replace(':', '%3A');
    const path = `agents-${crypto.randomUUID()}`;
    const did = `did:web:${host}:${path}`;
    const vm = `${did}#key-1`;
    const document = {
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
      id: did,
      verificationMethod: [
        { id: vm, type: 'Multikey', controller: did, publicKeyMultibase: encodePublicKeyMultibase(signer.publicKey) },
      ],
      authentication: [vm],
    };
    await fetch(`${base}/host/${path}/did.json`, {
      method: 'PUT',
      body: JSON.stringify(document),
      headers: { 'content-type': 'application/json' },
    });
    const holder: SigningIdentity = { did, verificationMethod: vm, signer };
    const { agentDid } = await onboardSelfAgent(issuer, holder);
    expect(agentDid).toBe(did);
  });

  async function selfSession(holder = newIdentity()) {
    const s = await start({ token: await mintToken(issuer), custody: 'self', did: holder.did });
    expect(s.status).toBe(201);
    return {
      holder,
      challengeId: s.json.challengeId as string,
      challenge: s.json.challenge as string,
      domain: s.json.domain as string,
    };
  }

  it('refuses proofs that do not prove possession for this challenge and this issuer (403 PROOF_INVALID)', async () => {
    const { holder, challengeId, challenge, domain } = await selfSession();
    const other = newIdentity();
    const attempts = [
      await didAuthProof(holder, 'another-challenge', domain),
      await didAuthProof(holder, challenge, 'did:web:someone-else.example'),
      await didAuthProof(holder, challenge, domain, { proofPurpose: 'assertionMethod' }),
      await didAuthProof(other, challenge, domain), // valid proof, wrong DID
      await didAuthProof(other, challenge, domain, { holderDid: holder.did }), // claims the DID, signed by another key
    ];
    const tampered = await didAuthProof(holder, challenge, domain);
    (tampered.proof as { proofValue: string }).proofValue = `z${'1'.repeat(86)}`;
    attempts.push(tampered);
    for (const proof of attempts) {
      const res = await issuer.call('/v1/onboard/verify', { body: { challengeId, proof } });
      expect(res.status, JSON.stringify(res.json)).toBe(403);
      expect(res.json.error.code).toBe('PROOF_INVALID');
    }
    const missing = await issuer.call('/v1/onboard/verify', { body: { challengeId, challenge } });
    expect(missing.status).toBe(400);
    expect(missing.json.error.details[0].path).toBe('json.proof');
    // The honest proof still completes the untouched session.
    const ok = await issuer.call('/v1/onboard/verify', {
      body: { challengeId, proof: await didAuthProof(holder, challenge, domain) },
    });
    expect(ok.status).toBe(201);
  });

  it('refuses a missing DID (400), a DID URL (400), an unsupported method (422) and a DID already enrolled (409)', async () => {
    const token = await mintToken(issuer);
    const missing = await start({ token, custody: 'self' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.details[0].path).toBe('json.did');
    const holder = newIdentity();
    expect((await start({ token, custody: 'self', did: `${holder.did}#frag` })).status).toBe(400);
    const method = await start({ token, custody: 'self', did: 'did:example:123456' });
    expect(method.status).toBe(422);
    expect(method.json.error.code).toBe('DID_METHOD_UNSUPPORTED');
    await onboardSelfAgent(issuer, holder);
    const again = await start({ token, custody: 'self', did: holder.did });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('AGENT_EXISTS');
  });
});

describe('the token is consumed exactly once', () => {
  it('50 concurrent onboardings with one token → exactly one agent (server custody)', async () => {
    const token = await mintToken(issuer);
    const sessions = await Promise.all(Array.from({ length: 50 }, () => start({ token, custody: 'server' })));
    expect(sessions.every((s) => s.status === 201)).toBe(true);
    const agentsBefore = await counts.agents();
    const credentialsBefore = await counts.credentials();
    const results = await Promise.all(
      sessions.map((s) =>
        issuer.call('/v1/onboard/verify', { body: { challengeId: s.json.challengeId, challenge: s.json.challenge } }),
      ),
    );
    const winners = results.filter((r) => r.status === 201);
    const losers = results.filter((r) => r.status !== 201);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(49);
    expect(losers.every((r) => r.status === 409 && r.json.error.code === 'TOKEN_USED')).toBe(true);
    expect(await counts.agents()).toBe(agentsBefore + 1);
    expect(await counts.credentials()).toBe(credentialsBefore + 1);
    const tokens = await issuer.call('/v1/enrollment-tokens?state=used&limit=500', { admin: true });
    expect(
      tokens.json.tokens.filter((t: { agentDid: string }) => t.agentDid === winners[0]?.json.agentDid),
    ).toHaveLength(1);
  });

  it('50 concurrent completions of one challenge → exactly one agent', async () => {
    const s = await start({ token: await mintToken(issuer), custody: 'server' });
    const agentsBefore = await counts.agents();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        issuer.call('/v1/onboard/verify', { body: { challengeId: s.json.challengeId, challenge: s.json.challenge } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).length).toBe(49);
    expect(await counts.agents()).toBe(agentsBefore + 1);
  });

  it('50 different self-custody DIDs racing for one token → exactly one agent', async () => {
    const token = await mintToken(issuer);
    const holders = Array.from({ length: 50 }, () => newIdentity());
    const sessions = await Promise.all(holders.map((h) => start({ token, custody: 'self', did: h.did })));
    const proofs = await Promise.all(
      sessions.map((s, i) => didAuthProof(holders[i] as SigningIdentity, s.json.challenge, s.json.domain)),
    );
    const agentsBefore = await counts.agents();
    const results = await Promise.all(
      sessions.map((s, i) =>
        issuer.call('/v1/onboard/verify', { body: { challengeId: s.json.challengeId, proof: proofs[i] } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.json.error.code === 'TOKEN_USED')).toHaveLength(49);
    expect(await counts.agents()).toBe(agentsBefore + 1);
  });
});
