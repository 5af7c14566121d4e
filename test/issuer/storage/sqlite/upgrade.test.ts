// An issuer on a file an older issuer wrote, whose revocations did not yet reach what the revoked
// credential superseded or the rest of the agent's (docs/operations.md §Upgrading): such a
// revocation is completed when the upgraded issuer first opens the file, and by revoking again.
import { afterEach, describe, expect, it } from 'vitest';
import { newIdentity } from '../../../support/agents.ts';
import { outsideQuery } from '../../../support/database.ts';
import { onboardSelfAgent, onboardServerAgent, startTestIssuer, type TestIssuer } from '../../../support/issuer.ts';

const vcPath = (vcId: string, action = '') => `/v1/vcs/${encodeURIComponent(vcId)}${action ? `/${action}` : ''}`;

let issuer: TestIssuer | undefined;
afterEach(async () => {
  await issuer?.dispose();
  issuer = undefined;
});

/**
 * Revokes `vcId` the way an issuer older than the cascade did: that credential only. The links
 * the cascade follows (what it superseded, the agent's current credential) are cut for the
 * revocation and put back after it.
 */
async function revokeAlone(running: TestIssuer, vcId: string, agentDid: string): Promise<void> {
  const sql = (text: string, ...params: unknown[]) => outsideQuery<{ id: string }>(running, text, ...params);
  const links = await sql('SELECT id FROM credentials WHERE superseded_by = ?', vcId);
  await sql('UPDATE credentials SET superseded_by = NULL WHERE superseded_by = ?', vcId);
  await sql('UPDATE agents SET current_credential_id = NULL WHERE did = ?', agentDid);
  const revoked = await running.call(vcPath(vcId, 'revoke'), { admin: true, body: {} });
  expect(revoked.json.changed).toEqual([vcId]);
  for (const { id } of links) await sql('UPDATE credentials SET superseded_by = ? WHERE id = ?', vcId, id);
  await sql('UPDATE agents SET current_credential_id = ? WHERE did = ?', vcId, agentDid);
}

const stateOf = async (running: TestIssuer, vcId: string): Promise<string> =>
  (await running.call(vcPath(vcId))).json.state as string;

describe('revocations an older issuer left partial', () => {
  it('revoking again completes one: what it superseded goes too; a revocation that reaches nothing new is 409', async () => {
    issuer = await startTestIssuer();
    const agent = await onboardServerAgent(issuer);
    const renewal = (await issuer.call(vcPath(agent.vcId, 'renew'), { admin: true, body: {} })).json.vcId as string;
    await revokeAlone(issuer, renewal, agent.agentDid);
    expect(await stateOf(issuer, agent.vcId)).toBe('superseded'); // still working: the gap

    const again = await issuer.call(vcPath(renewal, 'revoke'), { admin: true, body: {} });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ state: 'revoked', changed: [agent.vcId] });
    expect(await stateOf(issuer, agent.vcId)).toBe('revoked');
    const third = await issuer.call(vcPath(renewal, 'revoke'), { admin: true, body: {} });
    expect(third.status).toBe(409);
    expect(third.json.error.code).toBe('CREDENTIAL_ALREADY_REVOKED');
  });

  it('suspending again reaches the predecessors an earlier suspension left working', async () => {
    issuer = await startTestIssuer();
    const agent = await onboardServerAgent(issuer);
    const replacement = (
      await issuer.call('/v1/vcs', {
        admin: true,
        body: { subjectDid: agent.agentDid, privilegeScopes: ['files:read'], delegationDepth: 0 },
      })
    ).json.vcId as string;
    expect((await issuer.call(vcPath(replacement, 'suspend'), { admin: true, body: {} })).json.changed).toEqual([
      replacement,
      agent.vcId,
    ]);
    // The replaced copy reinstated by name (or never suspended, by an older issuer).
    expect((await issuer.call(vcPath(agent.vcId, 'reinstate'), { admin: true, body: {} })).json.changed).toEqual([
      agent.vcId,
    ]);
    const again = await issuer.call(vcPath(replacement, 'suspend'), { admin: true, body: {} });
    expect(again.status).toBe(200);
    expect(again.json.changed).toEqual([agent.vcId]);
    const third = await issuer.call(vcPath(replacement, 'suspend'), { admin: true, body: {} });
    expect(third.status).toBe(409);
    expect(third.json.error.code).toBe('CREDENTIAL_SUSPENDED');
  });

  it('are completed when the upgraded issuer opens the file, each with a system audit record', async () => {
    issuer = await startTestIssuer();
    // Renewed, then the renewal revoked alone.
    const agent = await onboardServerAgent(issuer);
    const renewal = (await issuer.call(vcPath(agent.vcId, 'renew'), { admin: true, body: {} })).json.vcId as string;
    await revokeAlone(issuer, renewal, agent.agentDid);
    // A credential issued before the DID enrolled, left working when the current one was revoked.
    const holder = newIdentity();
    const early = (
      await issuer.call('/v1/vcs', {
        admin: true,
        body: { subjectDid: holder.did, privilegeScopes: ['files'], delegationDepth: 0 },
      })
    ).json.vcId as string;
    const enrolled = await onboardSelfAgent(issuer, holder);
    await revokeAlone(issuer, enrolled.vcId, holder.did);
    expect([await stateOf(issuer, agent.vcId), await stateOf(issuer, early)]).toEqual(['superseded', 'active']);

    // A file whose data an issuer before data versions wrote.
    await outsideQuery(issuer, 'PRAGMA user_version = 0');
    issuer = await issuer.restart();
    expect([await stateOf(issuer, agent.vcId), await stateOf(issuer, early)]).toEqual(['revoked', 'revoked']);
    const records = (await issuer.running.ctx.audit.list({ event: 'CREDENTIAL_REVOKED', limit: 50 })).records.filter(
      (r) => r.actor === 'system',
    );
    expect(records.map((r) => r.data)).toEqual(
      expect.arrayContaining([
        { vcId: agent.vcId, with: renewal },
        { vcId: early, with: enrolled.vcId },
      ]),
    );
    expect(records).toHaveLength(2);
    expect((await issuer.call('/v1/audit/verify', { admin: true })).json).toMatchObject({ intact: true });

    // Opened again, the file is current: nothing is repeated.
    issuer = await issuer.restart();
    expect(
      (await issuer.running.ctx.audit.list({ event: 'CREDENTIAL_REVOKED', limit: 50 })).records.filter(
        (r) => r.actor === 'system',
      ),
    ).toHaveLength(2);
  });
});
