// Public documents of the issuer: its did:web document, hosted agent documents, the Mandate
// context, health; and what an unknown route answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANDATE_CONTEXT } from '../../wallet/vc/context.ts';
import { createResolver } from '../../wallet/did/registry.ts';
import { createWebResolver } from '../../wallet/did/web.ts';
import { verifyPresentation } from '../../wallet/vc/verify.ts';
import { onboardServerAgent, startTestIssuer, type TestIssuer } from '../support/issuer.ts';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.dispose());

describe('issuer documents', () => {
  it('serves its did:web document, which the wallet resolver accepts over HTTP', async () => {
    const res = await issuer.call('/.well-known/did.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/did\+json/);
    const did = issuer.running.ctx.issuer.did;
    expect(did).toBe(`did:web:127.0.0.1%3A${new URL(issuer.url).port}`);
    expect(res.json.id).toBe(did);
    expect(res.json.assertionMethod).toEqual([`${did}#key-1`]);
    // An independent resolver (the wallet's, over real HTTP) gets the same document.
    const resolver = createResolver({ methods: { web: createWebResolver({ allowHttpLoopback: true }) } });
    const resolved = await resolver.resolve(did);
    expect(resolved.didDocument).toEqual(res.json);
  });

  it('hosts server-custody agents at /agents/:id/did.json (did:web path form)', async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    const id = agentDid.split(':').pop() as string;
    expect(agentDid).toBe(`${issuer.running.ctx.issuer.did}:agents:${id}`);
    const res = await issuer.call(`/agents/${id}/did.json`);
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(agentDid);
    const resolver = createResolver({ methods: { web: createWebResolver({ allowHttpLoopback: true }) } });
    expect((await resolver.resolve(agentDid)).didDocument?.authentication).toEqual([`${agentDid}#key-1`]);
  });

  it('stops serving a deactivated agent document (410 DID_DEACTIVATED), and verification refuses it', async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    const vp = await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}/vp`, {
      admin: true,
      body: { targetService: 'files.example.com', challenge: 'c' },
    });
    const ctx = issuer.running.ctx;
    await ctx.stores.dids.deactivate(agentDid, ctx.now());
    const res = await issuer.call(`/agents/${agentDid.split(':').pop()}/did.json`);
    expect(res.status).toBe(410);
    expect(res.json.error.code).toBe('DID_DEACTIVATED');
    // The issuer's own resolver reads hosted documents live: no cache to wait out.
    const resolved = await ctx.resolver.resolve(agentDid);
    expect(resolved.didDocumentMetadata.deactivated).toBe(true);
    const verdict = await verifyPresentation(vp.json, {
      trustedIssuers: [ctx.issuer.did],
      expectedDomain: 'files.example.com',
      expectedChallenge: 'c',
      resolver: ctx.resolver,
      statusLists: ctx.statusLists,
    });
    expect(verdict).toMatchObject({ valid: false, reason: 'DID_DEACTIVATED' });
  });

  it('answers an unknown agent document with 404 DID_NOT_FOUND', async () => {
    const res = await issuer.call('/agents/no-such-agent/did.json');
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('DID_NOT_FOUND');
  });

  it('serves the Mandate JSON-LD context and a health probe', async () => {
    const ctx = await issuer.call('/contexts/mandate/v1');
    expect(ctx.status).toBe(200);
    expect(ctx.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect(ctx.json).toEqual(MANDATE_CONTEXT);
    const health = await issuer.call('/v1/health');
    expect(health.json).toEqual({ ok: true, issuer: issuer.running.ctx.issuer.did });
  });

  it('answers unknown routes with the standard error shape and security headers', async () => {
    const res = await issuer.call('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: { code: 'NOT_FOUND', message: 'no route for GET /v1/nothing-here' } });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
