// What the issuer signs for server-custody agents (presentations, delegations) and the admin
// views of agents; self-custody agents sign for themselves and are refused here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateFor, presentFor } from '../../issuer/services/agents.ts';
import { revokeCredential, setSuspension } from '../../issuer/services/credentials.ts';
import { deactivateDid } from '../../issuer/services/dids.ts';
import type { IssuerContext } from '../../issuer/context.ts';
import type { IssuerStores } from '../../issuer/storage/stores.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import type { ChainCredential } from '../../wallet/vc/types.ts';
import { newIdentity } from '../support/agents.ts';
import {
  agentPath,
  mintToken,
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

describe('GET /v1/agents', () => {
  it('lists agents with cursor pagination (admin only)', async () => {
    const a = await onboardServerAgent(issuer);
    const b = await onboardServerAgent(issuer);
    const first = await issuer.call('/v1/agents?limit=1', { admin: true });
    expect(first.status).toBe(200);
    expect(first.json.agents).toHaveLength(1);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await issuer.call(`/v1/agents?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        admin: true,
      });
      seen.push(...page.json.agents.map((x: { did: string }) => x.did));
      cursor = page.json.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expect.arrayContaining([a.agentDid, b.agentDid]));
    expect(new Set(seen).size).toBe(seen.length);
    const detail = await issuer.call(agentPath(a.agentDid), { admin: true });
    expect(detail.json.didDocumentUrl).toBe(`${issuer.url}/agents/${a.agentDid.split(':').pop()}/did.json`);
    expect(detail.json.currentCredential.vcId).toBe(a.vcId);
    expect((await issuer.call('/v1/agents')).status).toBe(401);
    expect((await issuer.call('/v1/agents?limit=0', { admin: true })).status).toBe(400);
  });

  it('404s an unknown agent and 400s a non-DID', async () => {
    const unknown = await issuer.call(agentPath(newIdentity().did), { admin: true });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('AGENT_NOT_FOUND');
    expect((await issuer.call('/v1/agents/not-a-did', { admin: true })).status).toBe(400);
  });
});

describe('POST /v1/agents/:did/vp', () => {
  it('signs a presentation for a server-custody agent, bound to target and challenge', async () => {
    const { agentDid, vcId } = await onboardServerAgent(issuer);
    const res = await issuer.call(agentPath(agentDid, '/vp'), {
      admin: true,
      body: { targetService: TARGET, challenge: 'nonce-1' },
    });
    expect(res.status).toBe(200);
    const vp = res.json;
    expect(vp.holder).toBe(agentDid);
    expect(vp.verifiableCredential.map((c: { id: string }) => c.id)).toEqual([vcId]);
    expect(vp.proof).toMatchObject({
      proofPurpose: 'authentication',
      challenge: 'nonce-1',
      domain: TARGET,
      verificationMethod: `${agentDid}#key-1`,
    });
    const verified = await verifyAtIssuer(issuer, vp, TARGET, 'nonce-1');
    expect(verified.json).toMatchObject({ valid: true, agentDid, vpId: vp.id });
    // Bound to its target: another service refuses it.
    const elsewhere = await issuer.call(agentPath(agentDid, '/vp'), { admin: true, body: { targetService: TARGET } });
    const wrongTarget = await verifyAtIssuer(issuer, elsewhere.json, 'other.example.com');
    expect(wrongTarget.json.reason).toBe('TARGET_MISMATCH');
    expect((await issuer.running.ctx.audit.list({ event: 'PRESENTATION_SIGNED', agentDid })).records).toHaveLength(2);
  });

  it('refuses self-custody agents (403 CUSTODY_MISMATCH), unknown agents (404), bad input (400), no key (401)', async () => {
    const holder = newIdentity();
    await onboardSelfAgent(issuer, holder);
    const self = await issuer.call(agentPath(holder.did, '/vp'), { admin: true, body: { targetService: TARGET } });
    expect(self.status).toBe(403);
    expect(self.json.error.code).toBe('CUSTODY_MISMATCH');
    expect(
      (await issuer.call(agentPath(newIdentity().did, '/vp'), { admin: true, body: { targetService: TARGET } })).status,
    ).toBe(404);
    const { agentDid } = await onboardServerAgent(issuer);
    expect(
      (await issuer.call(agentPath(agentDid, '/vp'), { admin: true, body: { targetService: 'has space' } })).status,
    ).toBe(400);
    expect((await issuer.call(agentPath(agentDid, '/vp'), { admin: true, body: {} })).status).toBe(400);
    expect((await issuer.call(agentPath(agentDid, '/vp'), { body: { targetService: TARGET } })).status).toBe(401);
    const unknown = await issuer.call(agentPath(agentDid, '/vp'), {
      admin: true,
      body: { targetService: TARGET, credentialId: `urn:uuid:${crypto.randomUUID()}` },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('CREDENTIAL_NOT_FOUND');
    const another = await onboardServerAgent(issuer);
    const foreign = await issuer.call(agentPath(agentDid, '/vp'), {
      admin: true,
      body: { targetService: TARGET, credentialId: another.vcId },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('CREDENTIAL_NOT_FOUND');
  });

  it('takes credentialId as the full urn:uuid or the bare UUID, like a path {vcId}', async () => {
    const { agentDid, vcId } = await onboardServerAgent(issuer);
    for (const credentialId of [vcId, vcId.slice('urn:uuid:'.length).toUpperCase()]) {
      const res = await issuer.call(agentPath(agentDid, '/vp'), {
        admin: true,
        body: { targetService: TARGET, credentialId },
      });
      expect(res.status, credentialId).toBe(200);
      expect(res.json.verifiableCredential[0].id).toBe(vcId);
    }
  });

  it('is 409 NO_CURRENT_CREDENTIAL when the agent has no credential to present', async () => {
    // An agent record with no credential yet (onboarding writes the agent and its first
    // credential in one transaction, so the API alone never leaves one like this).
    const agentDid = `${issuer.running.ctx.issuer.did}:agents:${crypto.randomUUID()}`;
    await issuer.running.ctx.stores.agents.insert({
      did: agentDid,
      id: agentDid.split(':').at(-1) as string,
      custody: 'server',
      tokenId: null,
      privilegeScopes: ['files:read'],
      delegationDepth: 0,
      domains: null,
      currentCredentialId: null,
      createdAt: issuer.running.ctx.now(),
    });
    const res = await issuer.call(agentPath(agentDid, '/vp'), { admin: true, body: { targetService: TARGET } });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('NO_CURRENT_CREDENTIAL');
  });
});

describe('POST /v1/agents/:did/delegations', () => {
  async function delegator(scopes = ['files:read', 'files:write'], depth = 2) {
    const token = await mintToken(issuer, {
      requestedScopes: scopes,
      maxDelegationDepth: depth,
      requestedDomains: [TARGET, 'backup.example.com'],
    });
    return onboardServerAgent(issuer, token);
  }

  it('signs a narrower DelegatedAgentCredential that the delegatee presents as a chain', async () => {
    const parent = await delegator();
    const delegatee = newIdentity();
    const res = await issuer.call(agentPath(parent.agentDid, '/delegations'), {
      admin: true,
      body: { delegateeDid: delegatee.did, scopes: ['files:read'], lifetimeSeconds: 3600, domains: [TARGET] },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      type: 'DelegatedAgentCredential',
      subjectDid: delegatee.did,
      issuerDid: parent.agentDid,
      parentId: parent.vcId,
    });
    const child = res.json.verifiableCredential as ChainCredential;
    expect(child.credentialSubject).toEqual({
      id: delegatee.did,
      privilegeScopes: ['files:read'],
      delegationDepth: 1,
      domains: [TARGET],
    });
    const vp = await signPresentation({
      holder: delegatee,
      credentials: [child, parent.verifiableCredential as unknown as ChainCredential],
      challenge: 'c',
      domain: TARGET,
    });
    const verified = await verifyAtIssuer(issuer, vp, TARGET, 'c');
    expect(verified.json).toMatchObject({ valid: true, agentDid: delegatee.did, effectiveScopes: ['files:read'] });
    // Revoking the delegator's credential ends the delegation too.
    await issuer.call(`/v1/vcs/${encodeURIComponent(parent.vcId)}/revoke`, { admin: true, body: {} });
    const after = await signPresentation({
      holder: delegatee,
      credentials: [child, parent.verifiableCredential as unknown as ChainCredential],
      challenge: 'd',
      domain: TARGET,
    });
    expect((await verifyAtIssuer(issuer, after, TARGET, 'd')).json.reason).toBe('CREDENTIAL_REVOKED');
    // A delegated credential has no entry of its own on the issuer's lists.
    const revokeChild = await issuer.call(`/v1/vcs/${encodeURIComponent(child.id)}/revoke`, { admin: true, body: {} });
    expect(revokeChild.status).toBe(422);
    expect(revokeChild.json.error.code).toBe('NOT_REVOCABLE');
    // …and a revoked parent delegates no more.
    const more = await issuer.call(agentPath(parent.agentDid, '/delegations'), {
      admin: true,
      body: { delegateeDid: delegatee.did, scopes: ['files:read'], lifetimeSeconds: 60 },
    });
    expect(more.status).toBe(409);
    expect(more.json.error.code).toBe('CREDENTIAL_REVOKED');
  });

  it('lets a server-custody delegatee present the delegated chain through the issuer', async () => {
    const parent = await delegator();
    const child = await onboardServerAgent(issuer);
    const res = await issuer.call(agentPath(parent.agentDid, '/delegations'), {
      admin: true,
      body: { delegateeDid: child.agentDid, scopes: ['files:write'], lifetimeSeconds: 600, domains: [TARGET] },
    });
    const vp = await issuer.call(agentPath(child.agentDid, '/vp'), {
      admin: true,
      body: { targetService: TARGET, challenge: 'x', credentialId: res.json.vcId },
    });
    expect(vp.json.verifiableCredential.map((c: { id: string }) => c.id)).toEqual([res.json.vcId, parent.vcId]);
    expect((await verifyAtIssuer(issuer, vp.json, TARGET, 'x')).json).toMatchObject({
      valid: true,
      effectiveScopes: ['files:write'],
    });
  });

  it('enforces narrowing at issuance with the verifier reason codes (422)', async () => {
    const parent = await delegator(['files:read'], 1);
    const delegateeDid = newIdentity().did;
    const attempt = (body: Record<string, unknown>) =>
      issuer.call(agentPath(parent.agentDid, '/delegations'), {
        admin: true,
        body: { delegateeDid, scopes: ['files:read'], lifetimeSeconds: 600, ...body },
      });
    const cases: [Record<string, unknown>, string][] = [
      [{ scopes: ['files'] }, 'SCOPE_ESCALATION'],
      [{ scopes: ['calendar:read'] }, 'SCOPE_ESCALATION'],
      [{ domains: ['evil.example.com'] }, 'DOMAIN_ESCALATION'],
      [{ delegationDepth: 1 }, 'DEPTH_EXCEEDED'],
      [{ lifetimeSeconds: 10 * 365 * 86_400 }, 'CHAIN_BROKEN'],
    ];
    for (const [body, code] of cases) {
      const res = await attempt(body);
      expect(res.status, code).toBe(422);
      expect(res.json.error.code).toBe(code);
    }
    // Depth 0 below depth 1 is fine once; the depth-0 delegatee could not delegate further.
    expect((await attempt({})).status).toBe(201);
    const leaf = await delegator(['files:read'], 0);
    const none = await issuer.call(agentPath(leaf.agentDid, '/delegations'), {
      admin: true,
      body: { delegateeDid, scopes: ['files:read'], lifetimeSeconds: 600 },
    });
    expect(none.json.error.code).toBe('DEPTH_EXCEEDED');
  });

  it('refuses self-custody delegators (403), bad delegatees (400) and missing fields (400)', async () => {
    const holder = newIdentity();
    await onboardSelfAgent(issuer, holder);
    const self = await issuer.call(agentPath(holder.did, '/delegations'), {
      admin: true,
      body: { delegateeDid: newIdentity().did, scopes: ['files:read'], lifetimeSeconds: 600 },
    });
    expect(self.status).toBe(403);
    expect(self.json.error.code).toBe('CUSTODY_MISMATCH');
    const parent = await delegator();
    const bad = await issuer.call(agentPath(parent.agentDid, '/delegations'), {
      admin: true,
      body: { delegateeDid: 'did:key:', scopes: ['files:read'], lifetimeSeconds: 600 },
    });
    expect(bad.status).toBe(400);
    const missing = await issuer.call(agentPath(parent.agentDid, '/delegations'), {
      admin: true,
      body: { delegateeDid: newIdentity().did, scopes: ['files:read'] },
    });
    expect(missing.status).toBe(400);
    expect(missing.json.error.details[0].path).toBe('json.lifetimeSeconds');
    // DIDs that parse but name nothing a verifier could resolve: no delegation is signed for them.
    for (const delegateeDid of [
      'did:key:zzzz',
      'did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc',
      'did:web:%E0%A4',
      'did:web:example.com:%2E%2E',
    ]) {
      const refused = await issuer.call(agentPath(parent.agentDid, '/delegations'), {
        admin: true,
        body: { delegateeDid, scopes: ['files:read'], lifetimeSeconds: 600 },
      });
      expect(refused.status, delegateeDid).toBe(400);
      expect(refused.json.error.code, delegateeDid).toBe('INVALID_DID');
    }
    expect(
      (await issuer.running.ctx.audit.list({ event: 'DELEGATION_ISSUED', agentDid: parent.agentDid })).records,
    ).toHaveLength(0);
  });

  it('signs nothing from a suspended credential (409) or for a deactivated agent DID (410)', async () => {
    const parent = await delegator();
    const delegate = () =>
      issuer.call(agentPath(parent.agentDid, '/delegations'), {
        admin: true,
        body: { delegateeDid: newIdentity().did, scopes: ['files:read'], lifetimeSeconds: 600 },
      });
    const vcId = (await issuer.call(agentPath(parent.agentDid), { admin: true })).json.currentCredentialId as string;
    await issuer.call(`/v1/vcs/${encodeURIComponent(vcId)}/suspend`, { admin: true, body: {} });
    const suspended = await delegate();
    expect([suspended.status, suspended.json.error.code]).toEqual([409, 'CREDENTIAL_SUSPENDED']);
    await issuer.call(`/v1/vcs/${encodeURIComponent(vcId)}/reinstate`, { admin: true, body: {} });
    expect((await delegate()).status).toBe(201);
    await issuer.call(`/v1/dids/${encodeURIComponent(parent.agentDid)}/deactivate`, { admin: true, body: {} });
    const deactivated = await delegate();
    expect([deactivated.status, deactivated.json.error.code]).toEqual([410, 'DID_DEACTIVATED']);
    const vp = await issuer.call(agentPath(parent.agentDid, '/vp'), { admin: true, body: { targetService: TARGET } });
    expect([vp.status, vp.json.error.code]).toEqual([410, 'DID_DEACTIVATED']);
  });

  it('signs nothing whose retirement commits while it is being signed: the record is refused and nothing is audited', async () => {
    const { ctx } = issuer.running;
    const signed = async (event: string, did: string) =>
      (await ctx.audit.list({ event, agentDid: did, limit: 500 })).records.length;
    // The services' view of the issuer with every transaction held until `land()`: the recording
    // transaction then starts after the retirement committed, on either adapter (on PostgreSQL,
    // round trips would otherwise let the signing finish first).
    const heldUntilLanded = (): { held: IssuerContext; land: () => void } => {
      let land = (): void => undefined;
      const landed = new Promise<void>((resolve) => (land = resolve));
      const stores: IssuerStores = {
        ...ctx.stores,
        transaction: async (fn) => (await landed, ctx.stores.transaction(fn)),
      };
      return { held: Object.create(ctx, { stores: { value: stores } }) as IssuerContext, land };
    };
    // A revoke and a suspend land between the checks before signing and the recording transaction.
    for (const retire of ['revoke', 'suspend'] as const) {
      const parent = await delegator();
      const vcId = (await ctx.stores.agents.get(parent.agentDid))?.currentCredentialId as string;
      const { held, land } = heldUntilLanded();
      const pending = delegateFor(
        held,
        parent.agentDid,
        { delegateeDid: newIdentity().did, scopes: ['files:read'], lifetimeSeconds: 600 },
        'admin',
      );
      // Its refusal may come while the retirement is still being awaited: handled from the start.
      pending.catch(() => undefined);
      if (retire === 'revoke') await revokeCredential(ctx, vcId, undefined, 'admin');
      else await setSuspension(ctx, vcId, true, undefined, 'admin');
      land();
      await expect(pending).rejects.toMatchObject({
        code: retire === 'revoke' ? 'CREDENTIAL_REVOKED' : 'CREDENTIAL_SUSPENDED',
      });
      expect(await signed('DELEGATION_ISSUED', parent.agentDid)).toBe(0);
    }
    // A deactivation lands while a presentation or a delegation is being signed.
    for (const sign of ['presentation', 'delegation'] as const) {
      const agent = await delegator();
      const { held, land } = heldUntilLanded();
      const pending =
        sign === 'presentation'
          ? presentFor(held, agent.agentDid, { targetService: TARGET }, 'admin')
          : delegateFor(
              held,
              agent.agentDid,
              { delegateeDid: newIdentity().did, scopes: ['files:read'], lifetimeSeconds: 600 },
              'admin',
            );
      pending.catch(() => undefined);
      await deactivateDid(ctx, agent.agentDid, 'admin');
      land();
      await expect(pending).rejects.toMatchObject({ code: 'DID_DEACTIVATED' });
      expect(await signed(sign === 'presentation' ? 'PRESENTATION_SIGNED' : 'DELEGATION_ISSUED', agent.agentDid)).toBe(
        0,
      );
    }
  });
});
