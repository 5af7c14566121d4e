// A restart on the same SQLite file loses nothing: agents, their server-held keys, credentials,
// revocations, tokens, status lists and the audit chain are all as they were, and the
// development secrets are re-read so the issuer keeps its DID and key.
import { afterAll, describe, expect, it } from 'vitest';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import type { MandateCredential } from '../../wallet/vc/types.ts';
import type { AuditRecord } from '../../issuer/audit.ts';
import { newIdentity } from '../support/agents.ts';
import { outsideQuery } from '../support/database.ts';
import {
  externalVerifier,
  mintToken,
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  verifyAtIssuer,
  verifyExternally,
  type TestIssuer,
} from '../support/issuer.ts';

const TARGET = 'files.example.com';
let current: TestIssuer | undefined;
afterAll(() => current?.dispose());

async function serverVp(issuer: TestIssuer, did: string, challenge: string) {
  const res = await issuer.call(`/v1/agents/${encodeURIComponent(did)}/vp`, {
    admin: true,
    body: { targetService: TARGET, challenge },
  });
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
    await first.call(`/v1/vcs/${encodeURIComponent(revoked.vcId)}/revoke`, {
      admin: true,
      body: { reason: 'before restart' },
    });
    const suspendedAgent = await onboardServerAgent(first);
    await first.call(`/v1/vcs/${encodeURIComponent(suspendedAgent.vcId)}/suspend`, { admin: true, body: {} });
    const outstanding = await mintToken(first);
    const usedToken = await mintToken(first);
    await onboardServerAgent(first, usedToken);
    const agentsBefore = (await first.call('/v1/agents?limit=500', { admin: true })).json.agents;
    const auditBefore = (await first.running.ctx.audit.list({ limit: 500 })).records;
    const chainBefore = await first.running.ctx.audit.verifyChain();
    expect(chainBefore.intact).toBe(true);
    const listsBefore = (await first.running.ctx.stores.statusLists.list()).map((l) => l.id);

    const second = await first.restart();
    current = second;
    expect(second.url).toBe(first.url);
    expect(second.running.ctx.issuer.did).toBe(issuerDid);
    expect(second.running.ctx.config.generatedSecrets).toEqual([]);

    // Agents and their details.
    expect((await second.call('/v1/agents?limit=500', { admin: true })).json.agents).toEqual(agentsBefore);
    // The server-held key still decrypts: the agent presents, and the presentation verifies here and externally.
    const vp = await serverVp(second, kept.agentDid, 'after-1');
    expect((await verifyAtIssuer(second, vp, TARGET, 'after-1')).json).toMatchObject({
      valid: true,
      agentDid: kept.agentDid,
    });
    expect(
      await verifyExternally(await serverVp(second, kept.agentDid, 'after-2'), {
        trustedIssuer: issuerDid,
        domain: TARGET,
        challenge: 'after-2',
      }),
    ).toMatchObject({ valid: true });
    // The self-custody agent's credential is still there and valid.
    const credential = (await second.call(`/v1/vcs/${encodeURIComponent(self.vcId)}`)).json
      .verifiableCredential as MandateCredential;
    const selfVp = await signPresentation({ holder, credentials: [credential], challenge: 'after-3', domain: TARGET });
    expect((await verifyAtIssuer(second, selfVp, TARGET, 'after-3')).json.valid).toBe(true);
    // Revocation and suspension survived.
    expect((await second.call(`/v1/vcs/${encodeURIComponent(revoked.vcId)}`)).json).toMatchObject({ state: 'revoked' });
    expect(
      (await verifyAtIssuer(second, await serverVp(second, revoked.agentDid, 'after-4'), TARGET, 'after-4')).json
        .reason,
    ).toBe('CREDENTIAL_REVOKED');
    expect(
      (await verifyAtIssuer(second, await serverVp(second, suspendedAgent.agentDid, 'after-5'), TARGET, 'after-5')).json
        .reason,
    ).toBe('CREDENTIAL_SUSPENDED');
    // Tokens: the outstanding one still works, the used one is still used.
    expect((await second.call('/v1/onboard', { body: { token: usedToken, custody: 'server' } })).json.error.code).toBe(
      'TOKEN_USED',
    );
    await onboardServerAgent(second, outstanding);
    // No new default lists were created.
    expect((await second.running.ctx.stores.statusLists.list()).map((l) => l.id)).toEqual(listsBefore);
    // The audit log is unchanged up to the restart, and the chain continues intact after it.
    const auditAfter = (await second.running.ctx.audit.list({ limit: 500 })).records;
    expect(auditAfter.slice(0, auditBefore.length)).toEqual(auditBefore);
    expect((auditAfter[auditBefore.length] as AuditRecord).prevHash).toBe((auditBefore.at(-1) as AuditRecord).hash);
    const chainAfter = await second.running.ctx.audit.verifyChain();
    expect(chainAfter.intact).toBe(true);
    expect(chainAfter.count).toBeGreaterThan(chainBefore.count);
  });
});

describe('restart with another signing key', () => {
  it('keeps the previous key for what it signed until that expires, signs with the new one, and can drop it at once', async () => {
    const first = await startTestIssuer({ SERVICE_SIGNING_KEY: '11'.repeat(32) });
    current = first;
    const did = first.running.ctx.issuer.did;
    const before = await onboardServerAgent(first);
    const kept = await onboardServerAgent(first);
    const oldCredential = (await first.call(`/v1/vcs/${encodeURIComponent(before.vcId)}`)).json;
    const lastToExpire = (await first.call(`/v1/vcs/${encodeURIComponent(kept.vcId)}`)).json.validUntil as string; // issued after `before`
    const accepts = async (issuer: TestIssuer, agentDid: string, challenge: string) =>
      verifyExternally(await serverVp(issuer, agentDid, challenge), { trustedIssuer: did, domain: TARGET, challenge });
    // A service that verified before the rotation, and so holds the old DID document in its cache.
    let serviceClock = Date.now();
    const service = externalVerifier(() => serviceClock);
    expect(
      (
        await service(await serverVp(first, kept.agentDid, 'cached-0'), {
          trustedIssuer: did,
          domain: TARGET,
          challenge: 'cached-0',
        })
      ).valid,
    ).toBe(true);

    const second = await first.restart({ SERVICE_SIGNING_KEY: '22'.repeat(32) });
    current = second;
    const document = (await second.call('/.well-known/did.json')).json;
    expect(document.verificationMethod.map((m: { id: string }) => m.id)).toEqual([`${did}#key-2`, `${did}#key-1`]);
    // The previous key: assertions only, until an hour after the last credential it signed expires.
    expect(Date.parse(document.verificationMethod[1].expires)).toBe(Date.parse(lastToExpire) + 3_600_000);
    expect(document.assertionMethod).toEqual([`${did}#key-2`, `${did}#key-1`]);
    expect(document.authentication).toEqual([`${did}#key-2`]);
    expect(second.running.ctx.issuer.verificationMethod).toBe(`${did}#key-2`);
    // What the old key signed still verifies at a third party; what is new is signed by the new key.
    expect((await accepts(second, before.agentDid, 'old-1')).valid).toBe(true);
    const after = await onboardServerAgent(second);
    const newCredential = (await second.call(`/v1/vcs/${encodeURIComponent(after.vcId)}`)).json;
    expect(newCredential.verifiableCredential.proof.verificationMethod).toBe(`${did}#key-2`);
    expect((await accepts(second, after.agentDid, 'new-1')).valid).toBe(true);
    // The service's cached document lacks #key-2: it looks once more rather than refuse the new
    // credential, or the status list of an old one, which is now signed with #key-2 too (once its
    // copy is older than the 30 s refresh cooldown; it stays cached for 5 minutes).
    serviceClock += 31_000;
    const refreshed = await service(await serverVp(second, after.agentDid, 'cached-1'), {
      trustedIssuer: did,
      domain: TARGET,
      challenge: 'cached-1',
    });
    expect(refreshed.valid).toBe(true);
    // What it reports relying on is the document it fetched again, not the 31 s old copy.
    if (refreshed.valid) expect(refreshed.sources.dids.find((d) => d.id === did)?.ageMs).toBe(0);
    expect(
      (
        await service(await serverVp(second, kept.agentDid, 'cached-2'), {
          trustedIssuer: did,
          domain: TARGET,
          challenge: 'cached-2',
        })
      ).valid,
    ).toBe(true);
    // Status lists are signed again with the new key, and revocation still reaches old credentials.
    const list = (await second.call(new URL(oldCredential.statusLists[0].url).pathname)).json;
    expect(list.proof.verificationMethod).toBe(`${did}#key-2`);
    await second.call(`/v1/vcs/${encodeURIComponent(before.vcId)}/revoke`, { admin: true, body: {} });
    expect((await accepts(second, before.agentDid, 'old-2')).valid).toBe(false);
    const changes = (await second.running.ctx.audit.list({ event: 'ISSUER_KEY_CHANGED' })).records;
    expect(changes).toHaveLength(1);
    expect(changes[0]?.data).toMatchObject({
      verificationMethod: `${did}#key-2`,
      previousKeys: [{ id: `${did}#key-1`, expires: document.verificationMethod[1].expires }],
    });

    // Found compromised: dropped at once, and what it signed stops verifying.
    expect((await accepts(second, kept.agentDid, 'kept-1')).valid).toBe(true);
    const third = await second.restart({ SERVICE_SIGNING_KEY: '22'.repeat(32), SERVICE_PREVIOUS_SIGNING_KEYS: 'drop' });
    current = third;
    expect(
      (await third.call('/.well-known/did.json')).json.verificationMethod.map((m: { id: string }) => m.id),
    ).toEqual([`${did}#key-2`]);
    expect((await third.running.ctx.audit.list({ event: 'ISSUER_DOCUMENT_UPDATED' })).records).toHaveLength(1);
    expect(await accepts(third, kept.agentDid, 'kept-2')).toMatchObject({ valid: false, reason: 'KEY_NOT_AUTHORIZED' });
    // The dropped key is compromised: configured again (a stale replica, a rolled-back secret, an
    // old .env), it is refused at start, and nothing changes.
    await expect(
      third.restart({ SERVICE_SIGNING_KEY: '11'.repeat(32), SERVICE_PREVIOUS_SIGNING_KEYS: 'keep' }),
    ).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(
        /^SERVICE_SIGNING_KEY: this key \(z6Mk\w+\) was removed with SERVICE_PREVIOUS_SIGNING_KEYS=drop as compromised/,
      ),
    });
    // A later rotation takes the next number: a method id never names two keys.
    const fourth = await third.restart({ SERVICE_SIGNING_KEY: '33'.repeat(32), SERVICE_PREVIOUS_SIGNING_KEYS: 'keep' });
    current = fourth;
    expect(
      (await fourth.call('/.well-known/did.json')).json.verificationMethod.map((m: { id: string }) => m.id),
    ).toEqual([`${did}#key-3`, `${did}#key-2`]);
    expect((await accepts(fourth, after.agentDid, 'after-rotation-2')).valid).toBe(true);
    expect((await fourth.running.ctx.audit.verifyChain()).intact).toBe(true);
  });

  it('with DID_METHOD=key a new key is a new DID: its status lists are signed again under it', async () => {
    const first = await startTestIssuer({ DID_METHOD: 'key', SERVICE_SIGNING_KEY: '44'.repeat(32) });
    current = first;
    const early = await onboardServerAgent(first);
    // A verification fetches the lists, which signs (and stores) them under the first DID.
    const firstDid = first.running.ctx.issuer.did;
    expect(
      await verifyExternally(await serverVp(first, early.agentDid, 'old-did-1'), {
        trustedIssuer: firstDid,
        domain: TARGET,
        challenge: 'old-did-1',
      }),
    ).toMatchObject({ valid: true });
    const second = await first.restart({ SERVICE_SIGNING_KEY: '55'.repeat(32) });
    current = second;
    const did = second.running.ctx.issuer.did;
    expect(did).not.toBe(firstDid);
    const agent = await onboardServerAgent(second);
    const vp = await serverVp(second, agent.agentDid, 'new-did-1');
    expect(await verifyExternally(vp, { trustedIssuer: did, domain: TARGET, challenge: 'new-did-1' })).toMatchObject({
      valid: true,
    });
  });
});

describe('the key-encryption key', () => {
  it('a restart with another key-encryption key is refused at start, not with 500s later', async () => {
    const first = await startTestIssuer();
    current = first;
    await onboardServerAgent(first);
    await first.stop();
    const restarted = first.restart({ SERVICE_KEY_ENCRYPTION_KEY: '77'.repeat(32) });
    await expect(restarted).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/^SERVICE_KEY_ENCRYPTION_KEY: does not decrypt the server-held keys/),
    });
    current = await first.restart();
    expect((await current.call('/v1/health')).status).toBe(200);
  });

  it('CUSTODY_KEY_UNREADABLE: a key row whose envelope or public key is not its own is refused, never used', async () => {
    const issuer = await startTestIssuer();
    current = issuer;
    const a = await onboardServerAgent(issuer);
    const b = await onboardServerAgent(issuer);
    const row = async (did: string) =>
      (
        await outsideQuery<{ envelope: string; public_key_multibase: string }>(
          issuer,
          'SELECT envelope, public_key_multibase FROM agent_keys WHERE did = ?',
          did,
        )
      )[0] as { envelope: string; public_key_multibase: string };
    const askVp = (did: string) =>
      issuer.call(`/v1/agents/${encodeURIComponent(did)}/vp`, {
        admin: true,
        body: { targetService: TARGET, challenge: 'c' },
      });
    // b's public key on a's row: a's seed decrypts, but it is not the key on record.
    await outsideQuery(
      issuer,
      'UPDATE agent_keys SET public_key_multibase = ? WHERE did = ?',
      (await row(b.agentDid)).public_key_multibase,
      a.agentDid,
    );
    const mismatched = await askVp(a.agentDid);
    expect([mismatched.status, mismatched.json.error.code]).toEqual([500, 'CUSTODY_KEY_UNREADABLE']);
    expect(mismatched.json.error.message).toContain('is not the key on record');
    // b's envelope on a's row: bound to b's DID, it does not decrypt as a's.
    await outsideQuery(
      issuer,
      'UPDATE agent_keys SET envelope = ? WHERE did = ?',
      (await row(b.agentDid)).envelope,
      a.agentDid,
    );
    const swapped = await askVp(a.agentDid);
    expect([swapped.status, swapped.json.error.code]).toEqual([500, 'CUSTODY_KEY_UNREADABLE']);
    expect((await askVp(b.agentDid)).status).toBe(200);
  });
});
