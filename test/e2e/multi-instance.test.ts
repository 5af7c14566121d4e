// Issue 26 §2: every guarantee of one issuer holds for three issuer processes behind a load
// balancer, sharing one PostgreSQL database and one Redis (docs/operations.md §Scaling out).
// Real processes (`issuer/main.ts`), requests spread round-robin over them; each guarantee is
// checked so that it fails if an instance decided on its own (per-process state).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, utf8ToBytes } from '../../wallet/crypto/bytes.ts';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { getStatus } from '../../wallet/status/bitstring.ts';
import { decodeStatusList } from '../../wallet/status/encoded-list.ts';
import { didKeyIdentity } from '../../wallet/vc/identity.ts';
import { deploymentEnv, startIssuerProcess, type IssuerProcess } from '../support/issuer-process.ts';
import { agentPath, call, type CallOptions, type CallResult } from '../support/issuer.ts';
import { freshDatabase, redisUrl, type FreshDatabase } from '../support/servers.ts';

const TARGET = 'files.example.com';
const INSTANCES = 3;
let db: FreshDatabase;
let env: Record<string, string>;
let issuers: IssuerProcess[] = [];

/** Instance `i mod INSTANCES`: a round-robin load balancer. */
function at(i: number, path: string, options: CallOptions = {}): Promise<CallResult> {
  return call((issuers[i % issuers.length] as IssuerProcess).url, path, options);
}

async function mintToken(i = 0): Promise<string> {
  const res = await at(i, '/v1/enrollment-tokens', {
    admin: true,
    body: { requestedScopes: ['files:read'], maxDelegationDepth: 1, requestedDomains: [TARGET] },
  });
  expect(res.status).toBe(201);
  return res.json.token as string;
}

async function onboard(i: number): Promise<{ agentDid: string; vcId: string; verifiableCredential: Credential }> {
  const start = await at(i, '/v1/onboard', { body: { token: await mintToken(i + 1), custody: 'server' } });
  const done = await at(i + 2, '/v1/onboard/verify', {
    body: { challengeId: start.json.challengeId, challenge: start.json.challenge },
  });
  expect(done.status).toBe(201);
  return done.json;
}

interface Credential {
  credentialStatus: { statusPurpose: string; statusListCredential: string; statusListIndex: string }[];
}

const winners = (results: CallResult[], status: number) => results.filter((r) => r.status === status).length;

beforeAll(async () => {
  db = await freshDatabase();
  env = deploymentEnv({ databaseUrl: db.url, poolSize: 8, redisUrl: redisUrl() });
  // Started together: the schema, the issuer's DID document and keys are created once.
  issuers = await Promise.all(Array.from({ length: INSTANCES }, () => startIssuerProcess(env)));
}, 120_000);

afterAll(async () => {
  await Promise.all(issuers.map((i) => i.stop()));
  await db?.drop();
});

describe('three issuer instances on one PostgreSQL and one Redis', () => {
  it('act as one issuer: one DID, one DID document, one session-token key', async () => {
    const answers = await Promise.all(
      issuers.map(async (_, i) => ({
        health: (await at(i, '/v1/health')).json,
        jwks: (await at(i, '/.well-known/jwks.json')).json,
        metadata: (await at(i, '/.well-known/oauth-authorization-server')).json,
      })),
    );
    const [first, ...rest] = answers;
    expect(first?.jwks.keys).toHaveLength(1);
    for (const other of rest) expect(other).toEqual(first);
  });

  it('50 concurrent onboardings with one token, spread over the instances, enroll exactly one agent', async () => {
    const token = await mintToken();
    const starts = await Promise.all(
      Array.from({ length: 50 }, (_, i) => at(i, '/v1/onboard', { body: { token, custody: 'server' } })),
    );
    expect(winners(starts, 201)).toBe(50);
    const done = await Promise.all(
      starts.map((s, i) =>
        at(i + 1, '/v1/onboard/verify', { body: { challengeId: s.json.challengeId, challenge: s.json.challenge } }),
      ),
    );
    expect(winners(done, 201)).toBe(1);
    expect(new Set(done.filter((r) => r.status !== 201).map((r) => r.json.error.code))).toEqual(
      new Set(['TOKEN_USED']),
    );
  });

  it('one onboarding challenge completes once, and one user challenge is answered once', async () => {
    const start = await at(0, '/v1/onboard', { body: { token: await mintToken(), custody: 'server' } });
    const body = { challengeId: start.json.challengeId, challenge: start.json.challenge };
    const done = await Promise.all(Array.from({ length: 30 }, (_, i) => at(i, '/v1/onboard/verify', { body })));
    expect(winners(done, 201)).toBe(1);

    const user = didKeyIdentity(seedSigner(generateSeed()));
    const issued = await at(1, '/v1/challenges', { body: { userDid: user.did } });
    const answer = {
      signature: bytesToHex(await user.signer.sign(utf8ToBytes(issued.json.challenge as string))),
      verificationMethod: user.verificationMethod,
    };
    const verdicts = await Promise.all(
      Array.from({ length: 30 }, (_, i) => at(i, `/v1/challenges/${issued.json.challengeId}/verify`, { body: answer })),
    );
    expect(winners(verdicts, 200)).toBe(1);
    expect(verdicts.filter((r) => r.status !== 200).every((r) => r.json.error.code === 'CHALLENGE_USED')).toBe(true);
  });

  it('hands out every status-list index once under concurrent issuance on all instances', async () => {
    const agents = await Promise.all(Array.from({ length: 24 }, (_, i) => onboard(i)));
    const positions = agents.flatMap((a) =>
      a.verifiableCredential.credentialStatus.map((s) => `${s.statusListCredential}#${s.statusListIndex}`),
    );
    expect(positions).toHaveLength(48);
    expect(new Set(positions).size).toBe(48);
  });

  it('keeps one linear audit hash chain under concurrent writers on all instances', async () => {
    await Promise.all(Array.from({ length: 30 }, (_, i) => mintToken(i)));
    const verdicts = await Promise.all(issuers.map((_, i) => at(i, '/v1/audit/verify', { admin: true })));
    for (const v of verdicts) expect(v.json).toMatchObject({ intact: true });
    // Every instance sees the same chain (the count can only have grown between the calls).
    expect(new Set(verdicts.map((v) => v.json.count as number)).size).toBeLessThanOrEqual(2);
  });

  it('refuses on one instance as REPLAYED a presentation another accepted', async () => {
    const { agentDid } = await onboard(0);
    const vp = await at(1, agentPath(agentDid, '/vp'), { admin: true, body: { targetService: TARGET } });
    const body = { presentation: vp.json, expectedTarget: TARGET };
    const first = await at(0, '/v1/vp/verify', { body });
    expect(first.json).toMatchObject({ valid: true, agentDid });
    for (const i of [1, 2]) expect((await at(i, '/v1/vp/verify', { body })).json).toMatchObject({ reason: 'REPLAYED' });
  });

  it("a revocation through one instance is in every instance's next status list and verification", async () => {
    const { agentDid, vcId, verifiableCredential } = await onboard(1);
    const revocation = verifiableCredential.credentialStatus.find((s) => s.statusPurpose === 'revocation');
    const listPath = new URL(revocation?.statusListCredential ?? '').pathname;
    const revoked = await at(0, `/v1/vcs/${encodeURIComponent(vcId)}/revoke`, { admin: true, body: {} });
    expect(revoked.status).toBe(200);
    for (const i of [0, 1, 2]) {
      const list = await at(i, listPath);
      const bits = await decodeStatusList(list.json.credentialSubject.encodedList as string);
      expect(getStatus(bits, Number(revocation?.statusListIndex))).toBe(1);
      const vp = await at(i, agentPath(agentDid, '/vp'), { admin: true, body: { targetService: TARGET } });
      const verdict = await at(i + 1, '/v1/vp/verify', { body: { presentation: vp.json, expectedTarget: TARGET } });
      expect(verdict.json).toMatchObject({ valid: false, reason: 'CREDENTIAL_REVOKED' });
    }
  });

  it('loses no acknowledged write when one instance is killed -9 under write load; the others keep serving', async () => {
    const victim = issuers[2] as IssuerProcess;
    const acknowledged: string[] = [];
    // The kill lands once the victim has answered 8 of its 75 writes (writers 2, 5 and 8), while
    // those writers still have the rest to send.
    let victimAnswered = 0;
    let victimUnanswered = 0;
    let loaded!: () => void;
    const underLoad = new Promise<void>((resolve) => (loaded = resolve));
    const writer = async (i: number) => {
      for (let n = 0; n < 25; n++) {
        const res = await at(i, '/v1/enrollment-tokens', {
          admin: true,
          body: { requestedScopes: ['files:read'], maxDelegationDepth: 0, requestedDomains: [TARGET] },
        }).catch(() => undefined);
        if (res?.status === 201) acknowledged.push(res.json.tokenId as string);
        if (i % INSTANCES !== 2) continue;
        if (!res) victimUnanswered++;
        else if (++victimAnswered === 8) loaded();
      }
    };
    const load = Promise.all(Array.from({ length: 9 }, (_, i) => writer(i)));
    await underLoad;
    victim.child.kill('SIGKILL');
    await load;
    // The kill cut the victim's writers short: their remaining requests found no one to answer.
    expect(victimUnanswered).toBeGreaterThan(0);
    issuers = issuers.slice(0, 2);
    expect(acknowledged.length).toBeGreaterThan(100);
    const listed = new Set<string>();
    for (let cursor: string | undefined; ;) {
      const page = await at(0, `/v1/enrollment-tokens?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { admin: true });
      for (const t of page.json.tokens as { tokenId: string }[]) listed.add(t.tokenId);
      cursor = page.json.nextCursor as string | undefined;
      if (!cursor) break;
    }
    expect(acknowledged.filter((id) => !listed.has(id))).toEqual([]);
    for (const i of [0, 1])
      expect((await at(i, '/v1/audit/verify', { admin: true })).json).toMatchObject({ intact: true });
  }, 60_000);

  it('rotate the signing key as one issuer: restarted together with a new key, they agree on key-2 and still verify key-1', async () => {
    const before = await onboard(0);
    await Promise.all(issuers.map((i) => i.stop()));
    const rotated = { ...env, SERVICE_SIGNING_KEY: bytesToHex(randomBytes(32)) };
    issuers = await Promise.all(Array.from({ length: INSTANCES }, () => startIssuerProcess(rotated)));
    const documents = await Promise.all(issuers.map((_, i) => at(i, '/.well-known/did.json')));
    const [first, ...rest] = documents.map((d) => d.json as { id: string; verificationMethod: { id: string }[] });
    expect(first?.verificationMethod.map((m) => m.id)).toEqual([`${first?.id}#key-2`, `${first?.id}#key-1`]);
    for (const other of rest) expect(other).toEqual(first);
    const after = await onboard(1);
    expect(JSON.stringify(after.verifiableCredential)).toContain('#key-2');
    for (const [n, agent] of [before, after].entries()) {
      const vp = await at(n, agentPath(agent.agentDid, '/vp'), { admin: true, body: { targetService: TARGET } });
      const verdict = await at(n + 1, '/v1/vp/verify', { body: { presentation: vp.json, expectedTarget: TARGET } });
      expect(verdict.json).toMatchObject({ valid: true, agentDid: agent.agentDid });
    }
  }, 120_000);
});
