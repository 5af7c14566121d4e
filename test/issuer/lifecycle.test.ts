// The full lifecycle, both custody modes, both issuer DID methods:
// mint → onboard → present → verify → revoke → verify denied as CREDENTIAL_REVOKED.
// Verification runs twice: at the issuer (POST /v1/vp/verify) and at an independent verifier
// that fetches the did:web documents and the status list over HTTP like a third party would.
import { afterAll, describe, expect, it } from 'vitest';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import type { MandateCredential } from '../../wallet/vc/types.ts';
import { newIdentity } from '../support/agents.ts';
import {
  mintToken,
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  verifyAtIssuer,
  verifyExternally,
  type TestIssuer,
} from '../support/issuer.ts';

const TARGET = 'files.example.com';
const started: TestIssuer[] = [];
afterAll(async () => {
  for (const issuer of started) await issuer.dispose();
});

async function issuerWith(didMethod: 'web' | 'key'): Promise<TestIssuer> {
  const issuer = await startTestIssuer({ DID_METHOD: didMethod });
  started.push(issuer);
  return issuer;
}

type Presenter = (challenge: string) => Promise<unknown>;

async function enrollServer(issuer: TestIssuer): Promise<{ agentDid: string; vcId: string; present: Presenter }> {
  const { agentDid, vcId } = await onboardServerAgent(issuer, await mintToken(issuer));
  const present: Presenter = async (challenge) => {
    const res = await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}/vp`, {
      admin: true,
      body: { targetService: TARGET, challenge },
    });
    expect(res.status).toBe(200);
    return res.json;
  };
  return { agentDid, vcId, present };
}

async function enrollSelf(issuer: TestIssuer): Promise<{ agentDid: string; vcId: string; present: Presenter }> {
  const holder = newIdentity();
  const { agentDid, vcId } = await onboardSelfAgent(issuer, holder, await mintToken(issuer));
  // The agent fetches its credential (public by id) and signs its own presentations.
  const fetched = await issuer.call(`/v1/vcs/${encodeURIComponent(vcId)}`);
  expect(fetched.status).toBe(200);
  const credential = fetched.json.verifiableCredential as MandateCredential;
  const present: Presenter = (challenge) =>
    signPresentation({ holder, credentials: [credential], challenge, domain: TARGET });
  return { agentDid, vcId, present };
}

const cases = [
  { custody: 'server', didMethod: 'web', enroll: enrollServer },
  { custody: 'self', didMethod: 'web', enroll: enrollSelf },
  { custody: 'server', didMethod: 'key', enroll: enrollServer },
  { custody: 'self', didMethod: 'key', enroll: enrollSelf },
] as const;

describe('full lifecycle', () => {
  for (const { custody, didMethod, enroll } of cases) {
    it(`${custody} custody, issuer did:${didMethod}: mint → onboard → present → verify → revoke → CREDENTIAL_REVOKED`, async () => {
      const issuer = await issuerWith(didMethod);
      const issuerDid = issuer.running.ctx.issuer.did;
      expect(issuerDid.startsWith(`did:${didMethod}:`)).toBe(true);
      const { agentDid, vcId, present } = await enroll(issuer);
      if (custody === 'server')
        expect(agentDid.startsWith(didMethod === 'web' ? `${issuerDid}:agents:` : 'did:key:')).toBe(true);

      const vp1 = await present('challenge-1');
      const accepted = await verifyAtIssuer(issuer, vp1, TARGET, 'challenge-1');
      expect(accepted.status).toBe(200);
      expect(accepted.json).toMatchObject({
        valid: true,
        agentDid,
        privilegeScopes: ['files:read', 'files:write'],
        effectiveScopes: ['files:read', 'files:write'],
      });
      const external = await verifyExternally(await present('challenge-2'), {
        trustedIssuer: issuerDid,
        domain: TARGET,
        challenge: 'challenge-2',
      });
      expect(external).toMatchObject({ valid: true, agentDid });

      const revoked = await issuer.call(`/v1/vcs/${encodeURIComponent(vcId)}/revoke`, {
        admin: true,
        body: { reason: 'key compromised' },
      });
      expect(revoked.status).toBe(200);
      expect(revoked.json.state).toBe('revoked');

      const denied = await verifyAtIssuer(issuer, await present('challenge-3'), TARGET, 'challenge-3');
      expect(denied.status).toBe(403);
      expect(denied.json).toMatchObject({ valid: false, reason: 'CREDENTIAL_REVOKED' });
      const externalDenied = await verifyExternally(await present('challenge-4'), {
        trustedIssuer: issuerDid,
        domain: TARGET,
        challenge: 'challenge-4',
      });
      expect(externalDenied).toMatchObject({ valid: false, reason: 'CREDENTIAL_REVOKED' });

      // Every step is in the audit log, and the chain is intact.
      const events = (await issuer.running.ctx.audit.list({ agentDid, limit: 500 })).records.map((r) => r.event);
      expect(events).toEqual(expect.arrayContaining(['AGENT_ENROLLED', 'CREDENTIAL_ISSUED', 'CREDENTIAL_REVOKED']));
      const revocation = (await issuer.running.ctx.audit.list({ event: 'CREDENTIAL_REVOKED' })).records.at(-1);
      expect(revocation).toMatchObject({ actor: 'admin', reason: 'key compromised', agentDid, data: { vcId } });
      expect((await issuer.running.ctx.audit.verifyChain()).intact).toBe(true);
    });
  }

  it('DID_METHOD=key serves no did:web documents', async () => {
    const issuer = await issuerWith('key');
    const res = await issuer.call('/.well-known/did.json');
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('DID_NOT_FOUND');
    expect((await issuer.call('/agents/x/did.json')).status).toBe(404);
  });
});
