// A restart on the same SQLite file loses nothing: agents, their server-held keys, credentials,
// revocations, tokens, status lists and the audit chain are all as they were, and the
// development secrets are re-read so the issuer keeps its DID and key.
import { afterAll, describe, expect, it } from 'vitest';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import type { MandateCredential } from '../../wallet/vc/types.ts';
import type { AuditRecord } from '../../issuer/audit.ts';
import { newIdentity } from '../support/agents.ts';
import { mintToken, onboardSelfAgent, onboardServerAgent, startTestIssuer, verifyAtIssuer, verifyExternally, type TestIssuer } from '../support/issuer.ts';

const TARGET = 'files.example.com';
let current: TestIssuer | undefined;
afterAll(() => current?.dispose());

async function serverVp(issuer: TestIssuer, did: string, challenge: string) {
  const res = await issuer.call(`/v1/agents/${encodeURIComponent(did)}/vp`, { admin: true, body: { targetService: TARGET, challenge } });
  expect(res.status).toBe(200);
  return res.json;
}

describe('restart on the same file', () => {
  it('keeps agents, keys, credentials, revocations, tokens, status lists and the audit chain', async () => {
    // No signing key or KEK in the environment: development secrets are generated beside the database.
    const first = await startTestIssuer();
    current = first;
    const issuerDid = first.running.ctx.issuer.did;
    const kept = await onboardServerAgent(first);
    const revoked = await onboardServerAgent(first);
    const holder = newIdentity();
    const self = await onboardSelfAgent(first, holder);
    await first.call(`/v1/vcs/${encodeURIComponent(revoked.vcId)}/revoke`, { admin: true, body: { reason: 'before restart' } });
    const suspendedAgent = await onboardServerAgent(first);
    await first.call(`/v1/vcs/${encodeURIComponent(suspendedAgent.vcId)}/suspend`, { admin: true, body: {} });
    const outstanding = await mintToken(first);
    const usedToken = await mintToken(first);
    await onboardServerAgent(first, usedToken);
    const agentsBefore = (await first.call('/v1/agents?limit=500', { admin: true })).json.agents;
    const auditBefore = first.running.ctx.audit.list({ limit: 500 }).records;
    const chainBefore = await first.running.ctx.audit.verifyChain();
    expect(chainBefore.intact).toBe(true);
    const listsBefore = first.running.ctx.stores.statusLists.list().map((l) => l.id);

    const second = await first.restart();
    current = second;
    expect(second.url).toBe(first.url);
    expect(second.running.ctx.issuer.did).toBe(issuerDid);
    expect(second.running.ctx.config.generatedSecrets).toEqual([]);

    // Agents and their details.
    expect((await second.call('/v1/agents?limit=500', { admin: true })).json.agents).toEqual(agentsBefore);
    // The server-held key still decrypts: the agent presents, and the presentation verifies here and externally.
    const vp = await serverVp(second, kept.agentDid, 'after-1');
    expect((await verifyAtIssuer(second, vp, TARGET, 'after-1')).json).toMatchObject({ valid: true, agentDid: kept.agentDid });
    expect(await verifyExternally(await serverVp(second, kept.agentDid, 'after-2'), { trustedIssuer: issuerDid, domain: TARGET, challenge: 'after-2' })).toMatchObject({ valid: true });
    // The self-custody agent's credential is still there and valid.
    const credential = (await second.call(`/v1/vcs/${encodeURIComponent(self.vcId)}`)).json.verifiableCredential as MandateCredential;
    const selfVp = await signPresentation({ holder, credentials: [credential], challenge: 'after-3', domain: TARGET });
    expect((await verifyAtIssuer(second, selfVp, TARGET, 'after-3')).json.valid).toBe(true);
    // Revocation and suspension survived.
    expect((await second.call(`/v1/vcs/${encodeURIComponent(revoked.vcId)}`)).json).toMatchObject({ state: 'revoked' });
    expect((await verifyAtIssuer(second, await serverVp(second, revoked.agentDid, 'after-4'), TARGET, 'after-4')).json.reason).toBe('CREDENTIAL_REVOKED');
    expect((await verifyAtIssuer(second, await serverVp(second, suspendedAgent.agentDid, 'after-5'), TARGET, 'after-5')).json.reason).toBe('CREDENTIAL_SUSPENDED');
    // Tokens: the outstanding one still works, the used one is still used.
    expect((await second.call('/v1/onboard', { body: { token: usedToken, custody: 'server' } })).json.error.code).toBe('TOKEN_USED');
    await onboardServerAgent(second, outstanding);
    // No new default lists were created.
    expect(second.running.ctx.stores.statusLists.list().map((l) => l.id)).toEqual(listsBefore);
    // The audit log is unchanged up to the restart, and the chain continues intact after it.
    const auditAfter = second.running.ctx.audit.list({ limit: 500 }).records;
    expect(auditAfter.slice(0, auditBefore.length)).toEqual(auditBefore);
    expect((auditAfter[auditBefore.length] as AuditRecord).prevHash).toBe((auditBefore.at(-1) as AuditRecord).hash);
    const chainAfter = await second.running.ctx.audit.verifyChain();
    expect(chainAfter.intact).toBe(true);
    expect(chainAfter.count).toBeGreaterThan(chainBefore.count);
  });
});

describe('restart with another signing key', () => {
  it('republishes the issuer document with the new key and audits the change', async () => {
    const first = await startTestIssuer({ SERVICE_SIGNING_KEY: '11'.repeat(32) });
    const before = (await first.call('/.well-known/did.json')).json;
    const second = await first.restart({ SERVICE_SIGNING_KEY: '22'.repeat(32) });
    try {
      const after = (await second.call('/.well-known/did.json')).json;
      expect(after.id).toBe(before.id);
      expect(after.verificationMethod[0].publicKeyMultibase).not.toBe(before.verificationMethod[0].publicKeyMultibase);
      expect(second.running.ctx.audit.list({ event: 'ISSUER_KEY_CHANGED' }).records).toHaveLength(1);
      expect((await second.running.ctx.audit.verifyChain()).intact).toBe(true);
    } finally {
      await second.dispose();
    }
  });
});
