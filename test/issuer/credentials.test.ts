// Credential management: direct issuance, reading, revocation, suspension and renewal, and the
// status list each change is published through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeStatusList } from '../../wallet/status/encoded-list.ts';
import { getStatus } from '../../wallet/status/bitstring.ts';
import { newIdentity } from '../support/agents.ts';
import {
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  verifyAtIssuer,
  type TestIssuer,
} from '../support/issuer.ts';

const TARGET = 'files.example.com';
let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.dispose());

const vcPath = (vcId: string, action = '') => `/v1/vcs/${encodeURIComponent(vcId)}${action ? `/${action}` : ''}`;

async function present(agentDid: string, challenge = crypto.randomUUID(), credentialId?: string) {
  const res = await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}/vp`, {
    admin: true,
    body: { targetService: TARGET, challenge, ...(credentialId ? { credentialId } : {}) },
  });
  expect(res.status).toBe(200);
  return verifyAtIssuer(issuer, res.json, TARGET, challenge);
}

describe('POST /v1/vcs (direct issuance)', () => {
  it('issues an AgentCredential with revocation and suspension entries at random indexes', async () => {
    const subject = newIdentity().did;
    const res = await issuer.call('/v1/vcs', {
      admin: true,
      body: {
        subjectDid: subject,
        privilegeScopes: ['calendar:read'],
        delegationDepth: 0,
        domains: ['calendar.example.com'],
        validitySeconds: 3600,
      },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ type: 'AgentCredential', subjectDid: subject, state: 'active' });
    expect(Date.parse(res.json.validUntil) - Date.parse(res.json.validFrom)).toBe(3_600_000);
    const vc = res.json.verifiableCredential;
    expect(vc.credentialSubject).toEqual({
      id: subject,
      privilegeScopes: ['calendar:read'],
      delegationDepth: 0,
      domains: ['calendar.example.com'],
    });
    expect(vc.credentialStatus).toHaveLength(2);
    for (const entry of vc.credentialStatus) {
      expect(entry.statusListCredential).toBe(`${issuer.url}/v1/status-list/${entry.statusPurpose}-1`);
      expect(entry.id).toBe(`${entry.statusListCredential}#${entry.statusListIndex}`);
    }
    // Random, not sequential: two issuances do not take neighbouring indexes (2^-16 chance of a false alarm).
    const again = await issuer.call('/v1/vcs', {
      admin: true,
      body: { subjectDid: subject, privilegeScopes: ['calendar:read'], delegationDepth: 0 },
    });
    const a = Number(vc.credentialStatus[0].statusListIndex);
    const b = Number(again.json.verifiableCredential.credentialStatus[0].statusListIndex);
    expect(Math.abs(a - b)).toBeGreaterThan(1);
    expect(again.json.verifiableCredential.credentialSubject.domains).toBeUndefined();
  });

  it('refuses a subject DID that parses but names nothing a verifier could resolve (400 INVALID_DID), and signs nothing', async () => {
    const before = (await issuer.running.ctx.audit.list({ event: 'CREDENTIAL_ISSUED', limit: 500 })).records.length;
    for (const subjectDid of [
      'did:key:zzzz',
      'did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc',
      'did:web:%E0%A4',
      'did:web:exa_mple.com',
    ]) {
      const res = await issuer.call('/v1/vcs', {
        admin: true,
        body: { subjectDid, privilegeScopes: ['calendar:read'], delegationDepth: 0 },
      });
      expect(res.status, subjectDid).toBe(400);
      expect(res.json.error.code, subjectDid).toBe('INVALID_DID');
    }
    expect((await issuer.running.ctx.audit.list({ event: 'CREDENTIAL_ISSUED', limit: 500 })).records).toHaveLength(
      before,
    );
    // Any other method is the operator's to vouch for: it only has to be a DID.
    expect(
      (
        await issuer.call('/v1/vcs', {
          admin: true,
          body: { subjectDid: 'did:example:agent-7', privilegeScopes: ['calendar:read'], delegationDepth: 0 },
        })
      ).status,
    ).toBe(201);
  });

  it('makes the new credential the current one of an enrolled agent', async () => {
    const { agentDid, vcId } = await onboardServerAgent(issuer);
    const res = await issuer.call('/v1/vcs', {
      admin: true,
      body: { subjectDid: agentDid, privilegeScopes: ['files:read'], delegationDepth: 0, domains: [TARGET] },
    });
    const agent = await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}`, { admin: true });
    expect(agent.json.currentCredentialId).toBe(res.json.vcId);
    expect(agent.json.credentials.map((c: { vcId: string }) => c.vcId)).toEqual([res.json.vcId, vcId]);
    expect((await present(agentDid)).json.effectiveScopes).toEqual(['files:read']);
  });

  it("the agent views show what the agent holds now (its current credential's terms), not what it enrolled with", async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    const viewOf = async () => {
      const detail = (await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}`, { admin: true })).json;
      let listed: Record<string, unknown> | undefined;
      for (let cursor: string | undefined, page; !listed; cursor = page.nextCursor) {
        page = (
          await issuer.call(`/v1/agents?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
            admin: true,
          })
        ).json;
        listed = page.agents.find((a: { did: string }) => a.did === agentDid);
        if (!page.nextCursor) break;
      }
      const pick = (v: Record<string, unknown>) => ({
        privilegeScopes: v.privilegeScopes,
        delegationDepth: v.delegationDepth,
        domains: v.domains,
      });
      expect(pick(listed as Record<string, unknown>)).toEqual(pick(detail));
      return pick(detail);
    };
    expect(await viewOf()).toEqual({
      privilegeScopes: ['files:read', 'files:write'],
      delegationDepth: 2,
      domains: [TARGET],
    });
    const wider = await issuer.call('/v1/vcs', {
      admin: true,
      body: { subjectDid: agentDid, privilegeScopes: ['files', 'mail:send'], delegationDepth: 4 },
    });
    expect(await viewOf()).toEqual({ privilegeScopes: ['files', 'mail:send'], delegationDepth: 4, domains: undefined });
    await issuer.call(vcPath(wider.json.vcId, 'renew'), { admin: true, body: {} });
    expect(await viewOf()).toEqual({ privilegeScopes: ['files', 'mail:send'], delegationDepth: 4, domains: undefined });
  });

  it('supersedes the credential it replaces: revoking the new one revokes the older, wider one too', async () => {
    const { agentDid, vcId: wide } = await onboardServerAgent(issuer);
    const narrow = (
      await issuer.call('/v1/vcs', {
        admin: true,
        body: { subjectDid: agentDid, privilegeScopes: ['files:read'], delegationDepth: 0, domains: [TARGET] },
      })
    ).json.vcId as string;
    const replaced = await issuer.call(vcPath(wide));
    expect(replaced.json).toMatchObject({ state: 'superseded', supersededBy: narrow });
    expect((await present(agentDid, undefined, wide)).json.valid).toBe(true); // until its own validUntil, as after a renewal
    await issuer.call(vcPath(narrow, 'revoke'), { admin: true, body: { reason: 'agent compromised' } });
    expect((await issuer.call(vcPath(wide))).json.state).toBe('revoked');
    expect((await present(agentDid, undefined, wide)).json.reason).toBe('CREDENTIAL_REVOKED');
  });

  it('leaves a suspended credential out of it: reinstating the new one never lifts the old suspension', async () => {
    const { agentDid, vcId: wide } = await onboardServerAgent(issuer);
    await issuer.call(vcPath(wide, 'suspend'), { admin: true, body: {} });
    const narrow = (
      await issuer.call('/v1/vcs', {
        admin: true,
        body: { subjectDid: agentDid, privilegeScopes: ['files:read'], delegationDepth: 0, domains: [TARGET] },
      })
    ).json.vcId as string;
    await issuer.call(vcPath(narrow, 'suspend'), { admin: true, body: {} });
    await issuer.call(vcPath(narrow, 'reinstate'), { admin: true, body: {} });
    expect((await issuer.call(vcPath(wide))).json).toMatchObject({ state: 'suspended' });
    expect((await issuer.call(vcPath(wide))).json.supersededBy).toBeUndefined();
    expect((await present(agentDid, undefined, wide)).json.reason).toBe('CREDENTIAL_SUSPENDED');
  });

  it('revoking the current credential revokes every live credential of the agent, linked or not', async () => {
    const direct = (subjectDid: string, privilegeScopes: string[]) =>
      issuer.call('/v1/vcs', {
        admin: true,
        body: { subjectDid, privilegeScopes, delegationDepth: 0, domains: [TARGET] },
      });
    const revoke = (vcId: string) =>
      issuer.call(vcPath(vcId, 'revoke'), { admin: true, body: { reason: 'agent retired' } });
    // A: the old one was suspended when the new one was issued (so left unlinked), then reinstated.
    const a = await onboardServerAgent(issuer);
    await issuer.call(vcPath(a.vcId, 'suspend'), { admin: true, body: {} });
    const aNew = (await direct(a.agentDid, ['files:read'])).json.vcId as string;
    await issuer.call(vcPath(a.vcId, 'reinstate'), { admin: true, body: {} });
    expect((await revoke(aNew)).status).toBe(200);
    expect((await present(a.agentDid, undefined, a.vcId)).json.reason).toBe('CREDENTIAL_REVOKED');
    // B: renewing the older one made it current again, leaving the newer one unlinked.
    const b = await onboardServerAgent(issuer);
    await issuer.call(vcPath(b.vcId, 'suspend'), { admin: true, body: {} });
    const bNew = (await direct(b.agentDid, ['files:read'])).json.vcId as string;
    await issuer.call(vcPath(b.vcId, 'reinstate'), { admin: true, body: {} });
    const renewed = (await issuer.call(vcPath(b.vcId, 'renew'), { admin: true, body: {} })).json.vcId as string;
    expect((await revoke(renewed)).status).toBe(200);
    expect((await present(b.agentDid, undefined, bNew)).json.reason).toBe('CREDENTIAL_REVOKED');
    // C: a credential issued to the DID before it enrolled.
    const holder = newIdentity();
    const early = (await direct(holder.did, ['files'])).json.vcId as string;
    const enrolled = await onboardSelfAgent(issuer, holder);
    expect((await revoke(enrolled.vcId)).status).toBe(200);
    expect((await issuer.call(vcPath(early))).json.state).toBe('revoked');
    // Each revocation is its own audit record, naming the credential acted on.
    const records = (await issuer.running.ctx.audit.list({ event: 'CREDENTIAL_REVOKED', limit: 500 })).records;
    expect(records.find((r) => r.data?.vcId === a.vcId)?.data).toEqual({ vcId: a.vcId, with: aNew });
    // And the issuance says what it replaced, and whether it took over its lineage.
    const issued = (await issuer.running.ctx.audit.list({ event: 'CREDENTIAL_ISSUED', limit: 500 })).records.find(
      (r) => r.data?.vcId === aNew,
    );
    expect(issued?.data).toEqual({ vcId: aNew, via: 'direct', replaces: a.vcId, supersedes: false });
    // Revoking a credential that is not the current one reaches only what it superseded.
    const c = await onboardServerAgent(issuer);
    const cNew = (await direct(c.agentDid, ['files:read'])).json.vcId as string;
    const stray = (await direct(c.agentDid, ['files:read'])).json.vcId as string; // now current; cNew superseded by it
    expect((await revoke(cNew)).status).toBe(200);
    expect((await present(c.agentDid, undefined, stray)).json.valid).toBe(true);
  });

  it('refuses bad input (400), missing admin key (401)', async () => {
    const bad = await issuer.call('/v1/vcs', {
      admin: true,
      body: { subjectDid: 'not-a-did', privilegeScopes: ['files'], delegationDepth: 0 },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].path).toBe('json.subjectDid');
    const noScopes = await issuer.call('/v1/vcs', {
      admin: true,
      body: { subjectDid: newIdentity().did, privilegeScopes: [], delegationDepth: 0 },
    });
    expect(noScopes.status).toBe(400);
    expect(
      (
        await issuer.call('/v1/vcs', {
          body: { subjectDid: newIdentity().did, privilegeScopes: ['files'], delegationDepth: 0 },
        })
      ).status,
    ).toBe(401);
  });
});

describe('GET /v1/vcs/:vcId', () => {
  it('is public, accepts the urn:uuid or the bare UUID, and 404s unknown ids', async () => {
    const { vcId, verifiableCredential } = await onboardServerAgent(issuer);
    const full = await issuer.call(vcPath(vcId));
    expect(full.status).toBe(200);
    expect(full.json.verifiableCredential).toEqual(verifiableCredential);
    expect(full.json.statusLists.map((l: { purpose: string }) => l.purpose)).toEqual(['revocation', 'suspension']);
    const bare = await issuer.call(`/v1/vcs/${vcId.slice('urn:uuid:'.length)}`);
    expect(bare.json.vcId).toBe(vcId);
    const unknown = await issuer.call(vcPath(`urn:uuid:${crypto.randomUUID()}`));
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('CREDENTIAL_NOT_FOUND');
  });
});

describe('revocation', () => {
  it('is final: a second revocation is 409, unknown ids 404, no key 401', async () => {
    const { vcId } = await onboardServerAgent(issuer);
    expect((await issuer.call(vcPath(vcId, 'revoke'), { method: 'POST' })).status).toBe(401);
    expect((await issuer.call(vcPath(vcId, 'revoke'), { admin: true, method: 'POST' })).status).toBe(200); // no body at all
    const twice = await issuer.call(vcPath(vcId, 'revoke'), { admin: true, body: {} });
    expect(twice.status).toBe(409);
    expect(twice.json.error.code).toBe('CREDENTIAL_ALREADY_REVOKED');
    const unknown = await issuer.call(vcPath(`urn:uuid:${crypto.randomUUID()}`, 'revoke'), { admin: true, body: {} });
    expect(unknown.status).toBe(404);
    const badBody = await issuer.call(vcPath(vcId, 'revoke'), { admin: true, body: { reason: 42 } });
    expect(badBody.status).toBe(400);
  });

  it("answers with every credential it reached: revoking an agent's current credential ends its others too", async () => {
    const { agentDid, vcId: enrolled } = await onboardServerAgent(issuer);
    const replacement = (
      await issuer.call('/v1/vcs', {
        admin: true,
        body: { subjectDid: agentDid, privilegeScopes: ['files:read'], delegationDepth: 0 },
      })
    ).json.vcId as string;
    const renewal = (await issuer.call(vcPath(replacement, 'renew'), { admin: true, body: {} })).json.vcId as string;
    // Named: the middle one. Acted on: its renewal (the current credential), then back down.
    const res = await issuer.call(vcPath(replacement, 'revoke'), { admin: true, body: {} });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ vcId: replacement, state: 'revoked' });
    expect(res.json.changed[0]).toBe(renewal);
    expect([...res.json.changed].sort()).toEqual([enrolled, replacement, renewal].sort());
  });

  it('is visible in the very next fetch of the status list (new ETag, bit set)', async () => {
    const { vcId, verifiableCredential } = await onboardServerAgent(issuer);
    const entry = verifiableCredential.credentialStatus as { statusListCredential: string; statusListIndex: string }[];
    const revocation = entry[0] as { statusListCredential: string; statusListIndex: string };
    const before = await fetch(revocation.statusListCredential);
    const etagBefore = before.headers.get('etag');
    await issuer.call(vcPath(vcId, 'revoke'), { admin: true, body: {} });
    const after = await fetch(revocation.statusListCredential);
    expect(after.headers.get('etag')).not.toBe(etagBefore);
    const list = (await after.json()) as { credentialSubject: { encodedList: string } };
    const bits = await decodeStatusList(list.credentialSubject.encodedList);
    expect(getStatus(bits, Number(revocation.statusListIndex))).toBe(1);
  });
});

describe('suspension', () => {
  it('suspends (CREDENTIAL_SUSPENDED at verification), reinstates, and refuses repeats', async () => {
    const { agentDid, vcId } = await onboardServerAgent(issuer);
    const suspended = await issuer.call(vcPath(vcId, 'suspend'), { admin: true, body: { reason: 'investigation' } });
    expect(suspended.json.state).toBe('suspended');
    const denied = await present(agentDid);
    expect(denied.status).toBe(403);
    expect(denied.json.reason).toBe('CREDENTIAL_SUSPENDED');
    const twice = await issuer.call(vcPath(vcId, 'suspend'), { admin: true, body: {} });
    expect(twice.status).toBe(409);
    expect(twice.json.error.code).toBe('CREDENTIAL_SUSPENDED');
    expect((await issuer.call(vcPath(vcId, 'reinstate'), { admin: true, body: {} })).json.state).toBe('active');
    expect((await present(agentDid)).json.valid).toBe(true);
    const notSuspended = await issuer.call(vcPath(vcId, 'reinstate'), { admin: true, body: {} });
    expect(notSuspended.status).toBe(409);
    expect(notSuspended.json.error.code).toBe('CREDENTIAL_NOT_SUSPENDED');
    await issuer.call(vcPath(vcId, 'revoke'), { admin: true, body: {} });
    const revoked = await issuer.call(vcPath(vcId, 'suspend'), { admin: true, body: {} });
    expect(revoked.status).toBe(409);
    expect(revoked.json.error.code).toBe('CREDENTIAL_REVOKED');
  });
});

describe('renewal', () => {
  it('issues a new credential with the same subject and limits; the old one is superseded, not revoked', async () => {
    const { agentDid, vcId } = await onboardServerAgent(issuer);
    const renewed = await issuer.call(vcPath(vcId, 'renew'), { admin: true, body: { validitySeconds: 7200 } });
    expect(renewed.status).toBe(201);
    expect(renewed.json.previousVcId).toBe(vcId);
    expect(renewed.json.vcId).not.toBe(vcId);
    const oldCredential = (await issuer.call(vcPath(vcId))).json;
    expect(oldCredential.state).toBe('superseded');
    expect(oldCredential.supersededBy).toBe(renewed.json.vcId);
    expect(renewed.json.verifiableCredential.credentialSubject).toEqual(
      oldCredential.verifiableCredential.credentialSubject,
    );
    expect(Date.parse(renewed.json.validUntil) - Date.parse(renewed.json.validFrom)).toBe(7_200_000);
    // The agent's current credential is the newest; the superseded one still verifies until it expires.
    const agent = await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}`, { admin: true });
    expect(agent.json.currentCredentialId).toBe(renewed.json.vcId);
    const fresh = await present(agentDid);
    expect(fresh.json.valid).toBe(true);
    expect((await present(agentDid, undefined, vcId)).json.valid).toBe(true);
    // Renewing the superseded one again is refused.
    const stale = await issuer.call(vcPath(vcId, 'renew'), { admin: true, body: {} });
    expect(stale.status).toBe(409);
    expect(stale.json.error.code).toBe('CREDENTIAL_SUPERSEDED');
    // Without validitySeconds the renewal keeps the original validity period.
    const again = await issuer.call(vcPath(renewed.json.vcId, 'renew'), { admin: true, method: 'POST' });
    expect(Date.parse(again.json.validUntil) - Date.parse(again.json.validFrom)).toBe(7_200_000);
  });

  it('suspending, reinstating and revoking the newest credential does the same to those it superseded', async () => {
    const { agentDid, vcId: first } = await onboardServerAgent(issuer);
    const second = (await issuer.call(vcPath(first, 'renew'), { admin: true, body: {} })).json.vcId as string;
    const third = (await issuer.call(vcPath(second, 'renew'), { admin: true, body: {} })).json.vcId as string;
    const stateOf = async (vcId: string) => (await issuer.call(vcPath(vcId))).json.state as string;
    const reasonWith = async (vcId: string) =>
      (await present(agentDid, undefined, vcId)).json.reason as string | undefined;

    await issuer.call(vcPath(third, 'suspend'), { admin: true, body: {} });
    for (const vcId of [first, second]) expect(await reasonWith(vcId), vcId).toBe('CREDENTIAL_SUSPENDED');
    await issuer.call(vcPath(third, 'reinstate'), { admin: true, body: {} });
    for (const vcId of [first, second, third])
      expect((await present(agentDid, undefined, vcId)).json.valid, vcId).toBe(true);

    await issuer.call(vcPath(third, 'revoke'), { admin: true, body: { reason: 'key leaked' } });
    for (const vcId of [first, second, third]) {
      expect(await stateOf(vcId), vcId).toBe('revoked');
      expect(await reasonWith(vcId), vcId).toBe('CREDENTIAL_REVOKED');
    }
    const audit = await issuer.call(`/v1/audit?agent=${encodeURIComponent(agentDid)}&event=CREDENTIAL_REVOKED`, {
      admin: true,
    });
    const revocations = audit.json.records as Array<{ reason?: string; data: { vcId: string; with?: string } }>;
    expect(revocations.map((r) => r.data.vcId).sort()).toEqual([first, second, third].sort());
    expect(revocations.every((r) => r.reason === 'key leaked')).toBe(true);
    expect(revocations.filter((r) => r.data.with === third)).toHaveLength(2);
  });

  it('a renewal is the same credential: revoking or suspending an older copy acts on the newest, and through it on every copy', async () => {
    const { agentDid, vcId: first } = await onboardServerAgent(issuer);
    const second = (await issuer.call(vcPath(first, 'renew'), { admin: true, body: {} })).json.vcId as string;
    const suspended = await issuer.call(vcPath(first, 'suspend'), { admin: true, body: {} });
    expect(suspended.status).toBe(200);
    for (const vcId of [first, second])
      expect((await present(agentDid, undefined, vcId)).json.reason, vcId).toBe('CREDENTIAL_SUSPENDED');
    // Reinstating through either copy lifts both.
    expect((await issuer.call(vcPath(first, 'reinstate'), { admin: true, body: {} })).status).toBe(200);
    for (const vcId of [first, second]) expect((await present(agentDid, undefined, vcId)).json.valid, vcId).toBe(true);
    const revoked = await issuer.call(vcPath(first, 'revoke'), { admin: true, body: {} });
    expect(revoked.json.state).toBe('revoked');
    expect((await present(agentDid, undefined, second)).json.reason).toBe('CREDENTIAL_REVOKED');
    const audit = await issuer.call(`/v1/audit?agent=${encodeURIComponent(agentDid)}&event=CREDENTIAL_REVOKED`, {
      admin: true,
    });
    expect(audit.json.records.map((r: { data: unknown }) => r.data)).toEqual(
      expect.arrayContaining([
        { vcId: second, named: first },
        { vcId: first, with: second },
      ]),
    );
  });

  it('revoke racing a renewal: whenever the revoke answers 200, no credential of the agent verifies', async () => {
    for (let trial = 0; trial < 12; trial++) {
      const { agentDid, vcId } = await onboardServerAgent(issuer);
      const renewal = issuer.call(vcPath(vcId, 'renew'), { admin: true, body: {} });
      // Staggered, so that some revokes land before the renewal commits and some after.
      await new Promise((resolve) => setTimeout(resolve, trial % 4));
      const [renewed, revoked] = await Promise.all([
        renewal,
        issuer.call(vcPath(vcId, 'revoke'), { admin: true, body: {} }),
      ]);
      expect(revoked.status).toBe(200);
      expect([201, 409]).toContain(renewed.status);
      const held = renewed.status === 201 ? [vcId, renewed.json.vcId as string] : [vcId];
      for (const id of held)
        expect((await present(agentDid, undefined, id)).json.reason, `${trial} ${id}`).toBe('CREDENTIAL_REVOKED');
    }
  });

  it('reinstating a renewal lifts only the suspensions it caused, not one the operator put on a replaced credential', async () => {
    const { agentDid, vcId: old } = await onboardServerAgent(issuer);
    // A direct issuance replaces (supersedes) the live credential; then the old copy leaks.
    const replaced = await issuer.call('/v1/vcs', {
      admin: true,
      body: { subjectDid: agentDid, privilegeScopes: ['files:read'], delegationDepth: 0, domains: [TARGET] },
    });
    const current = replaced.json.vcId as string;
    expect((await issuer.call(vcPath(old))).json.supersededBy).toBe(current);
    await issuer.call(vcPath(old, 'suspend'), { admin: true, body: { reason: 'old copy leaked' } });
    // A temporary hold on the current credential, then lifted.
    await issuer.call(vcPath(current, 'suspend'), { admin: true, body: {} });
    await issuer.call(vcPath(current, 'reinstate'), { admin: true, body: {} });
    expect((await present(agentDid, undefined, current)).json.valid).toBe(true);
    expect((await present(agentDid, undefined, old)).json.reason).toBe('CREDENTIAL_SUSPENDED');
  });

  it('refuses revoked (409 CREDENTIAL_REVOKED) and suspended (409 CREDENTIAL_SUSPENDED) credentials', async () => {
    const a = await onboardServerAgent(issuer);
    await issuer.call(vcPath(a.vcId, 'revoke'), { admin: true, body: {} });
    const revoked = await issuer.call(vcPath(a.vcId, 'renew'), { admin: true, body: {} });
    expect(revoked.status).toBe(409);
    expect(revoked.json.error.code).toBe('CREDENTIAL_REVOKED');
    const b = await onboardServerAgent(issuer);
    await issuer.call(vcPath(b.vcId, 'suspend'), { admin: true, body: {} });
    const suspended = await issuer.call(vcPath(b.vcId, 'renew'), { admin: true, body: {} });
    expect(suspended.json.error.code).toBe('CREDENTIAL_SUSPENDED');
    const tooShort = await issuer.call(vcPath(b.vcId, 'renew'), { admin: true, body: { validitySeconds: 1 } });
    expect(tooShort.status).toBe(400);
  });
});
