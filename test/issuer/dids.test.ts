// /v1/dids against a real issuer: creating DIDs whose keys the server holds (encrypted),
// hosting documents for caller-held keys, registering did:keys, services, and deactivation —
// which resolution reports and every verification through the issuer then refuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decrypt } from '../../wallet/crypto/aead.ts';
import { utf8ToBytes } from '../../wallet/crypto/bytes.ts';
import { generateSeed, getPublicKey, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { encodePublicKeyMultibase } from '../../wallet/crypto/multikey.ts';
import { createResolver } from '../../wallet/did/registry.ts';
import { createWebResolver } from '../../wallet/did/web.ts';
import { didKeyIdentity } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import type { AgentCredential } from '../../wallet/vc/types.ts';
import { onboardSelfAgent, onboardServerAgent, startTestIssuer, tempDir, type TestIssuer } from '../support/issuer.ts';

let issuer: TestIssuer;
const enc = encodeURIComponent;

async function createDid(body: Record<string, unknown> = {}) {
  return issuer.call('/v1/dids', { admin: true, body });
}

beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.dispose());

describe('POST /v1/dids', () => {
  it('creates a did:web with a server-held key, encrypted under the KEK with the DID as AAD, served over HTTP', async () => {
    const res = await createDid({ name: 'billing-bot' });
    expect(res.status).toBe(201);
    const did = res.json.did as string;
    expect(did).toBe(`${issuer.running.ctx.issuer.did}:dids:billing-bot`);
    expect(res.json).toMatchObject({ kind: 'managed', serverHeldKey: true, deactivated: false });
    expect(res.json.didDocument.authentication).toEqual([`${did}#key-1`]);
    // The stored seed decrypts only with the KEK and this DID as AAD, and matches the published key.
    const key = await issuer.running.ctx.stores.agents.getKey(did);
    expect(key).toBeDefined();
    const seed = await decrypt(issuer.running.ctx.keyEncryptionKey, key?.envelope, utf8ToBytes(did));
    expect(encodePublicKeyMultibase(getPublicKey(seed))).toBe(
      res.json.didDocument.verificationMethod[0].publicKeyMultibase,
    );
    await expect(
      decrypt(issuer.running.ctx.keyEncryptionKey, key?.envelope, utf8ToBytes(`${did}x`)),
    ).rejects.toMatchObject({ code: 'DECRYPTION_FAILED' });
    // An independent resolver over real HTTP gets the same document.
    const resolver = createResolver({ methods: { web: createWebResolver({ allowHttpLoopback: true }) } });
    expect((await resolver.resolve(did)).didDocument).toEqual(res.json.didDocument);
  });

  it('creates a did:key with a server-held key when asked (method "key")', async () => {
    const res = await createDid({ method: 'key' });
    expect(res.status).toBe(201);
    expect(res.json.did).toMatch(/^did:key:z6Mk/);
    expect(res.json.serverHeldKey).toBe(true);
  });

  it('hosts a did:web for a caller-held key without storing any private key', async () => {
    const publicKey = getPublicKey(generateSeed());
    const res = await createDid({ publicKeyMultibase: encodePublicKeyMultibase(publicKey), name: 'caller-held' });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ kind: 'registered', serverHeldKey: false });
    expect(res.json.didDocument.verificationMethod[0].publicKeyMultibase).toBe(encodePublicKeyMultibase(publicKey));
  });

  it('registers an existing did:key once (409 DID_EXISTS the second time)', async () => {
    const did = didKeyIdentity(seedSigner(generateSeed())).did;
    const first = await createDid({ did });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ did, kind: 'registered', serverHeldKey: false });
    const second = await createDid({ did });
    expect(second.status).toBe(409);
    expect(second.json.error.code).toBe('DID_EXISTS');
    expect((await createDid({ name: 'billing-bot' })).json.error.code).toBe('DID_EXISTS');
  });

  it('refuses to register a did:web (422 DID_METHOD_UNSUPPORTED) and an unusable did:key (400 INVALID_DID)', async () => {
    const web = await createDid({ did: 'did:web:example.com' });
    expect(web.status).toBe(422);
    expect(web.json.error.code).toBe('DID_METHOD_UNSUPPORTED');
    const badKey = await createDid({ did: 'did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc' });
    expect(badKey.status).toBe(400);
    expect(badKey.json.error.code).toBe('INVALID_DID');
  });

  it('validates its input: unknown members, bad names, bad keys, conflicting options', async () => {
    expect((await createDid({ colour: 'red' })).status).toBe(400);
    expect((await createDid({ name: 'a/b' })).json.error.code).toBe('VALIDATION_FAILED');
    expect((await createDid({ publicKeyMultibase: 'z123' })).json.error.code).toBe('VALIDATION_FAILED');
    expect((await createDid({ did: didKeyIdentity(seedSigner(generateSeed())).did, name: 'x' })).json.error.code).toBe(
      'VALIDATION_FAILED',
    );
    expect((await createDid({ method: 'key', name: 'x' })).json.error.code).toBe('VALIDATION_FAILED');
  });

  it('requires the admin key (401 with WWW-Authenticate)', async () => {
    const res = await issuer.call('/v1/dids', { body: {} });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('GET /v1/dids/:did', () => {
  it('returns a DID resolution result for a hosted DID and any did:key', async () => {
    const created = (await createDid({})).json;
    const res = await issuer.call(`/v1/dids/${enc(created.did)}`);
    expect(res.status).toBe(200);
    expect(res.json['@context']).toBe('https://w3id.org/did-resolution/v1');
    expect(res.json.didDocument).toEqual(created.didDocument);
    expect(res.json.didDocumentMetadata.deactivated).toBeUndefined();
    const anyKey = didKeyIdentity(seedSigner(generateSeed())).did;
    const key = await issuer.call(`/v1/dids/${enc(anyKey)}`);
    expect(key.status).toBe(200);
    expect(key.json.didDocument.id).toBe(anyKey);
  });

  it('is not an open resolver: a foreign did:web is 404 DID_NOT_FOUND; garbage is 400', async () => {
    const foreign = await issuer.call(`/v1/dids/${enc('did:web:example.com')}`);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('DID_NOT_FOUND');
    expect((await issuer.call(`/v1/dids/${enc('not-a-did')}`)).status).toBe(400);
    const fragment = await issuer.call(`/v1/dids/${enc('did:key:z6Mk')}`);
    expect(fragment.status).toBe(400);
    expect(fragment.json.error.code).toBe('INVALID_DID');
  });
});

describe('services', () => {
  it('adds and removes services on a hosted did:web; the change is visible at once', async () => {
    const { did } = (await createDid({})).json;
    const added = await issuer.call(`/v1/dids/${enc(did)}/services`, {
      admin: true,
      body: { id: 'files', type: 'LinkedDomains', serviceEndpoint: 'https://files.example.com' },
    });
    expect(added.status).toBe(201);
    expect(added.json.didDocument.service).toEqual([
      { id: `${did}#files`, type: 'LinkedDomains', serviceEndpoint: 'https://files.example.com' },
    ]);
    expect((await issuer.call(`/v1/dids/${enc(did)}`)).json.didDocument.service).toHaveLength(1);
    const duplicate = await issuer.call(`/v1/dids/${enc(did)}/services`, {
      admin: true,
      body: { id: '#files', type: 'X', serviceEndpoint: 'https://x.example' },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.json.error.code).toBe('SERVICE_EXISTS');
    const removed = await issuer.call(`/v1/dids/${enc(did)}/services/files`, { method: 'DELETE', admin: true });
    expect(removed.status).toBe(200);
    expect(removed.json.didDocument.service).toBeUndefined();
    const missing = await issuer.call(`/v1/dids/${enc(did)}/services/files`, { method: 'DELETE', admin: true });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('SERVICE_NOT_FOUND');
  });

  it('gives a service without id a random fragment, and validates the endpoint', async () => {
    const { did } = (await createDid({})).json;
    const added = await issuer.call(`/v1/dids/${enc(did)}/services`, {
      admin: true,
      body: { type: 'MessagingService', serviceEndpoint: ['https://a.example', { uri: 'https://b.example' }] },
    });
    expect(added.status).toBe(201);
    expect(added.json.didDocument.service[0].id).toMatch(new RegExp(`^${did.replace(/[.%]/g, '\\$&')}#service-`));
    const bad = await issuer.call(`/v1/dids/${enc(did)}/services`, {
      admin: true,
      body: { type: 'X', serviceEndpoint: 'not a url' },
    });
    expect(bad.status).toBe(400);
  });

  it('refuses services on a did:key with 422 DID_KEY_SERVICES_UNSUPPORTED (at creation and after)', async () => {
    const { did } = (await createDid({ method: 'key' })).json;
    const res = await issuer.call(`/v1/dids/${enc(did)}/services`, {
      admin: true,
      body: { type: 'LinkedDomains', serviceEndpoint: 'https://x.example' },
    });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('DID_KEY_SERVICES_UNSUPPORTED');
    expect(res.json.error.message).toMatch(/did:key/);
    const atCreation = await createDid({
      method: 'key',
      services: [{ type: 'LinkedDomains', serviceEndpoint: 'https://x.example' }],
    });
    expect(atCreation.json.error.code).toBe('DID_KEY_SERVICES_UNSUPPORTED');
  });

  it("protects the issuer's own document (409 ISSUER_DID_PROTECTED) and answers 404 for DIDs not hosted", async () => {
    const own = issuer.running.ctx.issuer.did;
    const res = await issuer.call(`/v1/dids/${enc(own)}/services`, {
      admin: true,
      body: { type: 'X', serviceEndpoint: 'https://x.example' },
    });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('ISSUER_DID_PROTECTED');
    const deactivate = await issuer.call(`/v1/dids/${enc(own)}/deactivate`, { admin: true, body: {} });
    expect(deactivate.json.error.code).toBe('ISSUER_DID_PROTECTED');
    const elsewhere = await issuer.call(`/v1/dids/${enc('did:web:example.com')}/services`, {
      admin: true,
      body: { type: 'X', serviceEndpoint: 'https://x.example' },
    });
    expect(elsewhere.status).toBe(404);
  });

  it('refuses changes to a did:web of a domain the issuer no longer serves (422 DID_NOT_HOSTED)', async () => {
    const dir = tempDir();
    const first = await startTestIssuer({ DID_DOMAIN: 'old.example' }, { dir });
    const { did } = (await first.call('/v1/dids', { admin: true, body: { name: 'legacy' } })).json;
    expect(did).toBe('did:web:old.example:dids:legacy');
    const moved = await first.restart({ DID_DOMAIN: 'new.example' });
    try {
      const res = await moved.call(`/v1/dids/${enc(did)}/services`, {
        admin: true,
        body: { type: 'X', serviceEndpoint: 'https://x.example' },
      });
      expect(res.status).toBe(422);
      expect(res.json.error.code).toBe('DID_NOT_HOSTED');
    } finally {
      await moved.dispose();
    }
  });
});

describe('deactivation', () => {
  it('is reported by resolution, stops the did:web document being served, and cannot happen twice', async () => {
    const { did } = (await createDid({ name: 'retiring' })).json;
    const res = await issuer.call(`/v1/dids/${enc(did)}/deactivate`, {
      admin: true,
      body: { reason: 'key compromise' },
    });
    expect(res.status).toBe(200);
    expect(res.json.deactivated).toBe(true);
    const resolved = await issuer.call(`/v1/dids/${enc(did)}`);
    expect(resolved.status).toBe(200);
    expect(resolved.json.didDocumentMetadata.deactivated).toBe(true);
    const served = await issuer.call('/dids/retiring/did.json');
    expect(served.status).toBe(410);
    expect(served.json.error.code).toBe('DID_DEACTIVATED');
    const again = await issuer.call(`/v1/dids/${enc(did)}/deactivate`, { admin: true, body: {} });
    expect(again.status).toBe(410);
    expect(again.json.error.code).toBe('DID_DEACTIVATED');
    const service = await issuer.call(`/v1/dids/${enc(did)}/services`, {
      admin: true,
      body: { type: 'X', serviceEndpoint: 'https://x.example' },
    });
    expect(service.json.error.code).toBe('DID_DEACTIVATED');
    const audit = await issuer.call('/v1/audit?event=DID_DEACTIVATED', { admin: true });
    expect(
      audit.json.records.some(
        (r: { data?: { did?: string }; reason?: string }) => r.data?.did === did && r.reason === 'key compromise',
      ),
    ).toBe(true);
  });

  it('makes verification of a registered did:key agent refuse with DID_DEACTIVATED', async () => {
    const agent = didKeyIdentity(seedSigner(generateSeed()));
    const enrolled = await onboardSelfAgent(issuer, agent);
    expect((await createDid({ did: agent.did })).status).toBe(201);
    const vp = async () =>
      signPresentation({
        holder: agent,
        credentials: [enrolled.verifiableCredential as unknown as AgentCredential],
        challenge: crypto.randomUUID(),
        domain: 'files.example.com',
      });
    expect(
      (await issuer.call('/v1/vp/verify', { body: { presentation: await vp(), expectedTarget: 'files.example.com' } }))
        .status,
    ).toBe(200);
    expect((await issuer.call(`/v1/dids/${enc(agent.did)}/deactivate`, { admin: true, body: {} })).status).toBe(200);
    const res = await issuer.call('/v1/vp/verify', {
      body: { presentation: await vp(), expectedTarget: 'files.example.com' },
    });
    expect(res.status).toBe(403);
    expect(res.json.reason).toBe('DID_DEACTIVATED');
  });

  it('applies to hosted agent DIDs too (their audit record names the agent)', async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    expect((await issuer.call(`/v1/dids/${enc(agentDid)}/deactivate`, { admin: true, body: {} })).status).toBe(200);
    const audit = await issuer.call(`/v1/audit?event=DID_DEACTIVATED&agent=${enc(agentDid)}`, { admin: true });
    expect(audit.json.records).toHaveLength(1);
  });

  it('answers 404 for an unknown DID', async () => {
    const res = await issuer.call(
      `/v1/dids/${enc('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK')}/deactivate`,
      { admin: true, body: {} },
    );
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('DID_NOT_FOUND');
  });
});

describe('listing and persistence', () => {
  it('lists hosted DIDs by kind with cursor pagination (admin)', async () => {
    const page1 = await issuer.call('/v1/dids?kind=managed&limit=2', { admin: true });
    expect(page1.status).toBe(200);
    expect(page1.json.dids).toHaveLength(2);
    expect(page1.json.dids.every((d: { kind: string }) => d.kind === 'managed')).toBe(true);
    const page2 = await issuer.call(`/v1/dids?kind=managed&limit=2&cursor=${enc(page1.json.nextCursor)}`, {
      admin: true,
    });
    expect(page2.json.dids[0].did).not.toBe(page1.json.dids[0].did);
    expect((await issuer.call('/v1/dids')).status).toBe(401);
  });

  it('keeps DIDs, keys and deactivations across a restart on the same file', async () => {
    const own = await startTestIssuer();
    const { did } = (await own.call('/v1/dids', { admin: true, body: { name: 'kept' } })).json;
    const other = (await own.call('/v1/dids', { admin: true, body: { name: 'gone' } })).json.did;
    await own.call(`/v1/dids/${enc(other)}/deactivate`, { admin: true, body: {} });
    const restarted = await own.restart();
    try {
      // The first request may meet a pooled keep-alive socket of the previous server: retried once.
      const served = await restarted.call('/dids/kept/did.json').catch(() => restarted.call('/dids/kept/did.json'));
      expect(served.json.id).toBe(did);
      expect((await restarted.call(`/v1/dids/${enc(other)}`)).json.didDocumentMetadata.deactivated).toBe(true);
      expect((await restarted.running.ctx.stores.agents.getKey(did))?.envelope).toMatchObject({ v: 1, alg: 'A256GCM' });
    } finally {
      await restarted.dispose();
    }
  });

  it('with DID_METHOD=key creates did:key by default and refuses did:web (422 DID_METHOD_UNSUPPORTED)', async () => {
    const keyIssuer = await startTestIssuer({ DID_METHOD: 'key' });
    try {
      const created = await keyIssuer.call('/v1/dids', { admin: true, body: {} });
      expect(created.status).toBe(201);
      expect(created.json.did).toMatch(/^did:key:/);
      const web = await keyIssuer.call('/v1/dids', { admin: true, body: { method: 'web' } });
      expect(web.status).toBe(422);
      expect(web.json.error.code).toBe('DID_METHOD_UNSUPPORTED');
      expect((await keyIssuer.call('/dids/anything/did.json')).status).toBe(404);
    } finally {
      await keyIssuer.dispose();
    }
  });
});
