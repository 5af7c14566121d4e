// A server-custody agent's own client secret: issued and rotated by the operator, accepted for
// that agent's /vp and /delegations only, revocable, audited, stored hashed, used by IssuerClient
// and the CLI — so the agent's process never holds the admin key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IssuerApiError } from '../../wallet/client/errors.ts';
import { IssuerClient } from '../../wallet/client/issuer-client.ts';
import { newIdentity } from '../support/agents.ts';
import { outsideQuery } from '../support/database.ts';
import {
  agentPath,
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  TEST_ADMIN_KEY,
  type TestIssuer,
} from '../support/issuer.ts';

const TARGET = 'files.example.com';
let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.dispose());

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

async function issueSecret(did: string): Promise<string> {
  const res = await issuer.call(agentPath(did, '/client-secret'), { method: 'POST', admin: true });
  expect(res.status).toBe(201);
  expect(res.headers.get('cache-control') ?? '').not.toContain('public');
  return res.json.clientSecret as string;
}

describe('agent client secrets', () => {
  it('lets the agent get its presentations signed and delegate within its authority, as itself', async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    const secret = await issueSecret(agentDid);
    expect(secret).toMatch(/^mandate_cs_[A-Za-z0-9_-]{43}$/);

    const vp = await issuer.call(agentPath(agentDid, '/vp'), {
      headers: bearer(secret),
      body: { targetService: TARGET },
    });
    expect(vp.status).toBe(200);
    expect(vp.json.holder).toBe(agentDid);

    const sub = newIdentity();
    const delegated = await issuer.call(agentPath(agentDid, '/delegations'), {
      headers: bearer(secret),
      body: { delegateeDid: sub.did, scopes: ['files:read'], lifetimeSeconds: 3600, domains: [TARGET] },
    });
    expect(delegated.status).toBe(201);
    const escalation = await issuer.call(agentPath(agentDid, '/delegations'), {
      headers: bearer(secret),
      body: { delegateeDid: sub.did, scopes: ['files:admin'], lifetimeSeconds: 3600, domains: [TARGET] },
    });
    expect(escalation.status).toBe(422);
    expect(escalation.json.error.code).toBe('SCOPE_ESCALATION');

    const audit = await issuer.call(`/v1/audit?agent=${encodeURIComponent(agentDid)}&event=PRESENTATION_SIGNED`, {
      admin: true,
    });
    expect(audit.json.records.at(-1).actor).toBe(`agent:${agentDid}`);
  });

  it('is accepted for its own agent only, and never for admin routes', async () => {
    const a = await onboardServerAgent(issuer);
    const b = await onboardServerAgent(issuer);
    const secretA = await issueSecret(a.agentDid);
    const forB = await issuer.call(agentPath(b.agentDid, '/vp'), {
      headers: bearer(secretA),
      body: { targetService: TARGET },
    });
    expect(forB.status).toBe(401);
    expect(forB.json.error.code).toBe('UNAUTHORIZED');
    expect(forB.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await issuer.call('/v1/agents', { headers: bearer(secretA) })).status).toBe(401);
    expect((await issuer.call(agentPath(a.agentDid), { headers: bearer(secretA) })).status).toBe(401);
    const rotateItself = await issuer.call(agentPath(a.agentDid, '/client-secret'), {
      method: 'POST',
      headers: bearer(secretA),
    });
    expect(rotateItself.status).toBe(401);
    const none = await issuer.call(agentPath(a.agentDid, '/vp'), { body: { targetService: TARGET } });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('error="invalid_request"');
    // The admin key keeps working for operators.
    const admin = await issuer.call(agentPath(b.agentDid, '/vp'), { admin: true, body: { targetService: TARGET } });
    expect(admin.status).toBe(200);
  });

  it('rotation replaces the secret at once; revocation removes it; both are audited without the secret', async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    const first = await issueSecret(agentDid);
    const second = await issueSecret(agentDid);
    expect(second).not.toBe(first);
    const old = await issuer.call(agentPath(agentDid, '/vp'), {
      headers: bearer(first),
      body: { targetService: TARGET },
    });
    expect(old.status).toBe(401);
    const current = await issuer.call(agentPath(agentDid, '/vp'), {
      headers: bearer(second),
      body: { targetService: TARGET },
    });
    expect(current.status).toBe(200);

    const revoked = await issuer.call(agentPath(agentDid, '/client-secret'), { method: 'DELETE', admin: true });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toEqual({ clientId: agentDid, revoked: true });
    const after = await issuer.call(agentPath(agentDid, '/vp'), {
      headers: bearer(second),
      body: { targetService: TARGET },
    });
    expect(after.status).toBe(401);
    const again = await issuer.call(agentPath(agentDid, '/client-secret'), { method: 'DELETE', admin: true });
    expect(again.status).toBe(404);
    expect(again.json.error.code).toBe('CLIENT_SECRET_NOT_FOUND');

    const records = (await issuer.call(`/v1/audit?agent=${encodeURIComponent(agentDid)}`, { admin: true })).json
      .records;
    const events = records.map((r: { event: string }) => r.event);
    expect(events).toEqual(
      expect.arrayContaining(['AGENT_SECRET_ISSUED', 'AGENT_SECRET_ROTATED', 'AGENT_SECRET_REVOKED']),
    );
    const everything = JSON.stringify(records);
    expect(everything).not.toContain(first.slice('mandate_cs_'.length));
    expect(everything).not.toContain(second.slice('mandate_cs_'.length));
  });

  it('is stored only as its SHA-256', async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    const secret = await issueSecret(agentDid);
    const row = await issuer.running.ctx.stores.agentSecrets.get(agentDid);
    expect(row?.secretHash).toMatch(/^[0-9a-f]{64}$/);
    const dump = JSON.stringify(await outsideQuery(issuer, 'SELECT * FROM agent_client_secrets'));
    expect(dump).not.toContain(secret);
  });

  it('is refused for self-custody agents, unknown agents and non-DIDs', async () => {
    const { agentDid } = await onboardSelfAgent(issuer, newIdentity());
    const self = await issuer.call(agentPath(agentDid, '/client-secret'), { method: 'POST', admin: true });
    expect(self.status).toBe(403);
    expect(self.json.error.code).toBe('CUSTODY_MISMATCH');
    const unknown = await issuer.call(agentPath(newIdentity().did, '/client-secret'), { method: 'POST', admin: true });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('AGENT_NOT_FOUND');
    const bad = await issuer.call('/v1/agents/not-a-did/client-secret', { method: 'POST', admin: true });
    expect(bad.status).toBe(400);
    const revokeUnknown = await issuer.call(agentPath(newIdentity().did, '/client-secret'), {
      method: 'DELETE',
      admin: true,
    });
    expect(revokeUnknown.status).toBe(404);
  });

  it('works through IssuerClient: the operator issues it, the agent process acts with it alone', async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    const operator = new IssuerClient({ baseUrl: issuer.url, adminKey: TEST_ADMIN_KEY });
    const { clientId, clientSecret } = await operator.issueAgentClientSecret(agentDid);
    expect(clientId).toBe(agentDid);
    const agent = new IssuerClient({ baseUrl: issuer.url, clientSecret });
    const vp = await agent.requestVp(agentDid, { target: TARGET });
    expect(vp.holder).toBe(agentDid);
    await operator.revokeAgentClientSecret(agentDid);
    await expect(agent.requestVp(agentDid, { target: TARGET })).rejects.toBeInstanceOf(IssuerApiError);
    expect(() => new IssuerClient({ baseUrl: issuer.url, adminKey: TEST_ADMIN_KEY, clientSecret })).toThrow(
      /adminKey or clientSecret/,
    );
  });
});
