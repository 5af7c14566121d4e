// The console's server side: the static route (strict headers, no path escape, a clear page
// when the console is not built) and the read-only views the console needs
// (issuer/routes/console-support.ts), against a real issuer over HTTP.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, consoleRoutes } from '../../issuer/routes/console.ts';
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { createConsent } from '../../wallet/vc/grant.ts';
import { didKeyIdentity } from '../../wallet/vc/identity.ts';
import { mintToken, onboardServerAgent, startTestIssuer, type TestIssuer } from '../support/issuer.ts';

let issuer: TestIssuer;
let first: { agentDid: string; vcId: string };
let second: { agentDid: string; vcId: string };

beforeAll(async () => {
  issuer = await startTestIssuer();
  first = await onboardServerAgent(
    issuer,
    await mintToken(issuer, { requestedScopes: ['files:read'], requestedDomains: ['files.example.com'] }),
  );
  second = await onboardServerAgent(
    issuer,
    await mintToken(issuer, { requestedScopes: ['orders:write'], requestedDomains: ['orders.example.com'] }),
  );
});
afterAll(async () => {
  await issuer?.dispose();
});

describe('GET /console (static console)', () => {
  let dist: string;
  beforeAll(() => {
    dist = mkdtempSync(join(tmpdir(), 'mandate-console-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
    writeFileSync(join(dist, 'secret.txt'), 'not an asset');
  });
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it('serves the page and its assets with a self-only CSP and no framing', async () => {
    const routes = consoleRoutes(issuer.running.ctx, { distDir: dist });
    const page = await routes.request('/console');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await page.text()).toContain('<title>console</title>');
    const asset = await routes.request('/console/assets/index-abc.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('text/javascript');
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('serves nothing outside the built assets', async () => {
    const routes = consoleRoutes(issuer.running.ctx, { distDir: dist });
    for (const path of [
      '/console/assets/..%2Fsecret.txt',
      '/console/assets/%2e%2e%2findex.html',
      '/console/assets/missing.js',
      '/console/assets/secret.txt',
    ]) {
      expect((await routes.request(path)).status, path).toBe(404);
    }
  });

  it('says clearly when the console has not been built (503)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'mandate-console-empty-'));
    try {
      const res = await consoleRoutes(issuer.running.ctx, { distDir: empty }).request('/console/');
      expect(res.status).toBe(503);
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(await res.text()).toContain('npm run build:console');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('is mounted on the issuer at /console', async () => {
    const res = await fetch(`${issuer.url}/console`);
    expect([200, 503]).toContain(res.status);
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
  });
});

describe('GET /v1/console/agents', () => {
  it('is described in the OpenAPI document with the other console views', async () => {
    const doc = await issuer.call('/v1/openapi.json');
    for (const path of [
      '/v1/console/agents',
      '/v1/console/agents/{did}/delegations',
      '/v1/console/status-lists',
      '/v1/console/audit/latest',
    ]) {
      expect(doc.json.paths[path]?.get?.security, path).toEqual([{ adminBearer: [] }]);
    }
  });

  it('requires the admin key', async () => {
    const res = await issuer.call('/v1/console/agents');
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('UNAUTHORIZED');
  });

  it('lists agents with their credential state and finds them by scope, domain or DID', async () => {
    const all = await issuer.call('/v1/console/agents', { admin: true });
    expect(all.status).toBe(200);
    expect(all.json.agents.map((a: { did: string }) => a.did)).toEqual([first.agentDid, second.agentDid]);
    expect(all.json.agents[0]).toMatchObject({
      custody: 'server',
      privilegeScopes: ['files:read'],
      credentialState: 'active',
      domains: ['files.example.com'],
    });
    const byScope = await issuer.call('/v1/console/agents?q=ORDERS:write', { admin: true });
    expect(byScope.json.agents.map((a: { did: string }) => a.did)).toEqual([second.agentDid]);
    const byDomain = await issuer.call('/v1/console/agents?q=files.example', { admin: true });
    expect(byDomain.json.agents.map((a: { did: string }) => a.did)).toEqual([first.agentDid]);
    const none = await issuer.call('/v1/console/agents?q=nothing-like-this', { admin: true });
    expect(none.json.agents).toEqual([]);
  });

  it('refuses a cursor no list gave (400), on every paged list, rather than answer an empty page', async () => {
    for (const path of [
      '/v1/enrollment-tokens?cursor=garbage',
      '/v1/enrollment-tokens?cursor=1|x',
      '/v1/agents?cursor=did:example:nobody',
      '/v1/dids?cursor=garbage',
      '/v1/console/agents?cursor=did:example:nobody',
    ]) {
      const res = await issuer.call(path, { admin: true });
      expect(res.status, path).toBe(400);
      expect(res.json.error.code, path).toBe('VALIDATION_FAILED');
    }
    // What the lists do give still pages on.
    const first = await issuer.call('/v1/enrollment-tokens?limit=1', { admin: true });
    expect(
      (
        await issuer.call(`/v1/enrollment-tokens?limit=1&cursor=${encodeURIComponent(first.json.nextCursor)}`, {
          admin: true,
        })
      ).status,
    ).toBe(200);
    const agents = await issuer.call('/v1/agents?limit=1', { admin: true });
    expect(
      (await issuer.call(`/v1/agents?limit=1&cursor=${encodeURIComponent(agents.json.nextCursor)}`, { admin: true }))
        .status,
    ).toBe(200);
  });

  it('pages with a cursor', async () => {
    const one = await issuer.call('/v1/console/agents?limit=1', { admin: true });
    expect(one.json.agents).toHaveLength(1);
    expect(one.json.nextCursor).toBe(first.agentDid);
    const two = await issuer.call(`/v1/console/agents?limit=1&cursor=${encodeURIComponent(one.json.nextCursor)}`, {
      admin: true,
    });
    expect(two.json.agents.map((a: { did: string }) => a.did)).toEqual([second.agentDid]);
    expect(two.json.nextCursor).toBeUndefined();
  });

  it('refuses a bad limit (400 VALIDATION_FAILED)', async () => {
    const res = await issuer.call('/v1/console/agents?limit=0', { admin: true });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('GET /v1/console/agents/{did}/delegations', () => {
  it('lists the delegations an agent signed', async () => {
    const delegatee = second.agentDid;
    const made = await issuer.call(`/v1/agents/${encodeURIComponent(first.agentDid)}/delegations`, {
      admin: true,
      body: { delegateeDid: delegatee, scopes: ['files:read'], lifetimeSeconds: 600, delegationDepth: 0 },
    });
    expect(made.status).toBe(201);
    const res = await issuer.call(`/v1/console/agents/${encodeURIComponent(first.agentDid)}/delegations`, {
      admin: true,
    });
    expect(res.status).toBe(200);
    expect(res.json.delegations).toHaveLength(1);
    expect(res.json.delegations[0]).toMatchObject({
      vcId: made.json.vcId,
      type: 'DelegatedAgentCredential',
      subjectDid: delegatee,
      issuerDid: first.agentDid,
      state: 'active',
    });
    const none = await issuer.call(`/v1/console/agents/${encodeURIComponent(second.agentDid)}/delegations`, {
      admin: true,
    });
    expect(none.json.delegations).toEqual([]);
  });

  it('answers 404 AGENT_NOT_FOUND for a DID that is not enrolled', async () => {
    const res = await issuer.call(
      `/v1/console/agents/${encodeURIComponent('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK')}/delegations`,
      { admin: true },
    );
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('AGENT_NOT_FOUND');
  });
});

describe('GET /v1/console/status-lists', () => {
  it('shows each list with how full it is and how many entries are set', async () => {
    const before = await issuer.call('/v1/console/status-lists', { admin: true });
    const revocation = before.json.statusLists.find((l: { purpose: string }) => l.purpose === 'revocation');
    expect(revocation.allocated).toBeGreaterThanOrEqual(2);
    expect(revocation.fill).toBeCloseTo(revocation.allocated / revocation.length);
    expect(revocation.url).toContain(`/v1/status-list/${revocation.listId}`);
    expect(
      (await issuer.call(`/v1/vcs/${encodeURIComponent(second.vcId)}/revoke`, { admin: true, body: {} })).status,
    ).toBe(200);
    const after = await issuer.call('/v1/console/status-lists', { admin: true });
    const revoked = after.json.statusLists.find((l: { listId: string }) => l.listId === revocation.listId);
    expect(revoked.set).toBe(revocation.set + 1);
  });
});

describe('GET /v1/console/audit/latest', () => {
  it('returns the newest matching records first', async () => {
    const all = await issuer.call('/v1/audit?limit=500', { admin: true });
    const seqs: number[] = all.json.records.map((r: { seq: number }) => r.seq);
    const latest = await issuer.call('/v1/console/audit/latest?limit=3', { admin: true });
    expect(latest.json.records.map((r: { seq: number }) => r.seq)).toEqual(seqs.slice(-3).reverse());
    const filtered = await issuer.call('/v1/console/audit/latest?event=REQUEST_REFUSED', { admin: true });
    expect(filtered.json.records.length).toBeGreaterThan(0);
    expect(filtered.json.records.every((r: { event: string }) => r.event === 'REQUEST_REFUSED')).toBe(true);
    const forAgent = await issuer.call(
      `/v1/console/audit/latest?agent=${encodeURIComponent(first.agentDid)}&limit=500`,
      { admin: true },
    );
    expect(forAgent.json.records.length).toBeGreaterThan(0);
    expect(forAgent.json.records.every((r: { agentDid?: string }) => r.agentDid === first.agentDid)).toBe(true);
  });

  it("keeps an agent's own history apart from reports naming it: anonymous consents and provider events do not push it off the agent page", async () => {
    const revoked = await issuer.call(`/v1/vcs/${encodeURIComponent(first.vcId)}/revoke`, {
      admin: true,
      body: { reason: 'rotated' },
    });
    expect(revoked.status).toBe(200);
    const agent = encodeURIComponent(first.agentDid);
    // 25 throwaway users each file a verified consent naming the agent; a throwaway provider files an event.
    for (let i = 0; i < 25; i++) {
      const user = didKeyIdentity(seedSigner(generateSeed()));
      const { challengeId, challenge } = (await issuer.call('/v1/challenges', { body: { userDid: user.did } })).json;
      const consent = await createConsent({
        user,
        agentDid: first.agentDid,
        providerDid: 'did:web:files.example.com',
        privilegeScopes: ['files:read'],
        challenge,
      });
      expect(
        (await issuer.call(`/v1/challenges/${challengeId}/verify`, { body: { proof: consent } })).json.verified,
      ).toBe(true);
    }
    const provider = didKeyIdentity(seedSigner(generateSeed()));
    const event = await createProof(
      {
        type: 'AuditEvent',
        id: `urn:uuid:${crypto.randomUUID()}`,
        provider: provider.did,
        event: 'action',
        agentDid: first.agentDid,
        action: 'files:read /q3.pdf',
      },
      { signer: provider.signer, verificationMethod: provider.verificationMethod, proofPurpose: 'assertionMethod' },
    );
    expect((await issuer.call('/v1/audit/events', { body: event })).status).toBe(201);

    const everything = (await issuer.call(`/v1/console/audit/latest?agent=${agent}&limit=20`, { admin: true })).json
      .records as { event: string }[];
    expect(everything.map((r) => r.event)).not.toContain('CREDENTIAL_REVOKED'); // what the agent page showed before
    const own = (await issuer.call(`/v1/console/audit/latest?agent=${agent}&reported=false&limit=20`, { admin: true }))
      .json.records as { event: string }[];
    expect(own.map((r) => r.event)).toEqual(expect.arrayContaining(['CREDENTIAL_REVOKED', 'AGENT_ENROLLED']));
    expect(own.map((r) => r.event)).not.toContain('CONSENT_VERIFIED');
    const reports = (
      await issuer.call(`/v1/console/audit/latest?agent=${agent}&reported=true&limit=500`, { admin: true })
    ).json.records as { event: string }[];
    expect(reports.map((r) => r.event)).toEqual(['PROVIDER_ACTION', ...Array(25).fill('CONSENT_VERIFIED')]);
    // The same filter on the paged log, oldest first.
    const paged = await issuer.call(`/v1/audit?agent=${agent}&reported=false&limit=500`, { admin: true });
    expect(paged.json.records.map((r: { event: string }) => r.event)).toEqual(own.map((r) => r.event).reverse());
    expect((await issuer.call('/v1/audit?reported=maybe', { admin: true })).json.error.code).toBe('VALIDATION_FAILED');
  });

  it('refuses a time range whose start is after its end (400 VALIDATION_FAILED)', async () => {
    const res = await issuer.call('/v1/console/audit/latest?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', {
      admin: true,
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_FAILED');
  });
});
