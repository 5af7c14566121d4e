// The audit log over HTTP against a real issuer: reading it with filters and cursors, providers
// appending signed events (and being refused when the signature, the signer, the time or the id
// is wrong), and the chain check — intact, then broken after a row is altered in the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { didKeyIdentity, type SigningIdentity } from '../../wallet/vc/identity.ts';
import { outsideQuery } from '../support/database.ts';
import { onboardServerAgent, startTestIssuer, type TestIssuer } from '../support/issuer.ts';

let issuer: TestIssuer;
let clock = Date.now();
const provider = didKeyIdentity(seedSigner(generateSeed()));

async function signedEvent(
  signer: SigningIdentity,
  fields: Record<string, unknown> = {},
  options: { created?: Date; proofPurpose?: string; challenge?: string } = {},
) {
  const unsigned = {
    type: 'AuditEvent',
    id: `urn:uuid:${crypto.randomUUID()}`,
    provider: signer.did,
    event: 'authorization',
    action: 'files:read /q3.pdf',
    result: 'allowed',
    ...fields,
  };
  return createProof(unsigned, {
    signer: signer.signer,
    verificationMethod: signer.verificationMethod,
    proofPurpose: options.proofPurpose ?? 'assertionMethod',
    created: options.created ?? new Date(Math.floor(clock / 1000) * 1000),
    ...(options.challenge ? { challenge: options.challenge } : {}),
  });
}

function post(event: unknown) {
  return issuer.call('/v1/audit/events', { body: event });
}

beforeAll(async () => {
  issuer = await startTestIssuer({}, { now: () => clock });
});
afterAll(() => issuer.dispose());

describe('POST /v1/audit/events', () => {
  it('records a provider-signed event with the signed object kept as evidence', async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    const vpId = 'urn:uuid:6a4bd2f6-1f47-4d4b-8a63-2a8de8c4c1b5';
    const event = await signedEvent(provider, { agentDid, vpId });
    const res = await post(event);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ recorded: true, eventId: event.id });
    const list = await issuer.call(`/v1/audit?agent=${encodeURIComponent(agentDid)}&event=PROVIDER_AUTHORIZATION`, {
      admin: true,
    });
    expect(list.json.records).toHaveLength(1);
    const record = list.json.records[0];
    expect(record).toMatchObject({
      seq: res.json.seq,
      hash: res.json.hash,
      actor: `provider:${provider.did}`,
      agentDid,
      reason: 'allowed',
      vpId,
    });
    expect(record.data.signedEvent).toEqual(event);
  });

  it('accepts an authentication proof too, and the action and result kinds', async () => {
    expect(
      (await post(await signedEvent(provider, { event: 'action' }, { proofPurpose: 'authentication', challenge: 'c' })))
        .status,
    ).toBe(201);
    expect((await post(await signedEvent(provider, { event: 'result', result: 'success' }))).status).toBe(201);
  });

  it('EVENT_DUPLICATE: the same signed event is recorded once', async () => {
    const event = await signedEvent(provider);
    expect((await post(event)).status).toBe(201);
    const again = await post(event);
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('EVENT_DUPLICATE');
    const list = await issuer.call('/v1/audit?event=PROVIDER_AUTHORIZATION&limit=500', { admin: true });
    expect(list.json.records.filter((r: { data?: { eventId?: string } }) => r.data?.eventId === event.id)).toHaveLength(
      1,
    );
  });

  it('EVENT_SIGNATURE_INVALID: an event altered after signing', async () => {
    const event = await signedEvent(provider);
    const res = await post({ ...event, result: 'denied' });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('EVENT_SIGNATURE_INVALID');
  });

  it("KEY_NOT_AUTHORIZED: an event naming one provider but signed with another's key", async () => {
    const other = didKeyIdentity(seedSigner(generateSeed()));
    const event = await signedEvent(other, { provider: provider.did });
    const res = await post(event);
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('KEY_NOT_AUTHORIZED');
  });

  it('EVENT_STALE: an event signed more than five minutes ago (or ahead)', async () => {
    const old = await post(await signedEvent(provider, {}, { created: new Date(clock - 6 * 60_000) }));
    expect(old.status).toBe(422);
    expect(old.json.error.code).toBe('EVENT_STALE');
    const ahead = await post(await signedEvent(provider, {}, { created: new Date(clock + 6 * 60_000) }));
    expect(ahead.json.error.code).toBe('EVENT_STALE');
  });

  it('DID_RESOLUTION_FAILED: a provider DID that does not resolve (422)', async () => {
    const ghost = `${issuer.running.ctx.issuer.did}:providers:ghost`;
    const signer: SigningIdentity = { did: ghost, verificationMethod: `${ghost}#key-1`, signer: provider.signer };
    const res = await post(await signedEvent(signer));
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('DID_RESOLUTION_FAILED');
  });

  it('DID_DEACTIVATED: a deactivated provider DID (410)', async () => {
    const retired = (await issuer.call('/v1/dids', { admin: true, body: { method: 'key' } })).json.did as string;
    const registered = didKeyIdentity(seedSigner(generateSeed()));
    await issuer.call('/v1/dids', { admin: true, body: { did: registered.did } });
    await issuer.call(`/v1/dids/${encodeURIComponent(registered.did)}/deactivate`, { admin: true, body: {} });
    expect(retired).toMatch(/^did:key:/);
    const res = await post(await signedEvent(registered));
    expect(res.status).toBe(410);
    expect(res.json.error.code).toBe('DID_DEACTIVATED');
  });

  it('validates the event shape (400): unknown kind, id not a urn:uuid, no proof, bad purpose', async () => {
    expect((await post(await signedEvent(provider, { event: 'login' }))).status).toBe(400);
    expect((await post(await signedEvent(provider, { id: 'event-1' }))).status).toBe(400);
    const { proof: _proof, ...unsigned } = await signedEvent(provider);
    expect((await post(unsigned)).status).toBe(400);
    const capability = await post(await signedEvent(provider, {}, { proofPurpose: 'capabilityInvocation' }));
    expect(capability.status).toBe(400);
    expect(capability.json.error.code).toBe('VALIDATION_FAILED');
    // Text that reaches operators' terminals and screens: no control or bidi formatting characters.
    for (const fields of [
      { result: 'allowed\u001b[2J' },
      { action: 'files:read /q3\u202efdp.exe' },
      { vpId: 'urn:uuid:x\n' },
    ]) {
      const refused = await post(await signedEvent(provider, fields));
      expect(refused.status, JSON.stringify(fields)).toBe(400);
      expect(refused.json.error.details[0].message).toBe(
        'must not contain control or bidirectional formatting characters',
      );
    }
    expect((await post(await signedEvent(provider, { action: 'files:read /Überblick Q3.pdf' }))).status).toBe(201);
  });
});

describe('GET /v1/audit', () => {
  it('filters by event and time and pages with a cursor, in order', async () => {
    const t0 = clock;
    for (let i = 0; i < 5; i++) {
      clock += 1000;
      expect((await post(await signedEvent(provider, { event: 'result', result: `r${i}` }))).status).toBe(201);
    }
    const from = new Date(t0 + 1000).toISOString();
    const to = new Date(t0 + 4000).toISOString();
    const page1 = await issuer.call(`/v1/audit?event=PROVIDER_RESULT&from=${from}&to=${to}&limit=2`, { admin: true });
    expect(page1.status).toBe(200);
    expect(page1.json.records.map((r: { reason: string }) => r.reason)).toEqual(['r0', 'r1']);
    const page2 = await issuer.call(
      `/v1/audit?event=PROVIDER_RESULT&from=${from}&to=${to}&limit=2&cursor=${page1.json.nextCursor}`,
      { admin: true },
    );
    expect(page2.json.records.map((r: { reason: string }) => r.reason)).toEqual(['r2', 'r3']);
    expect(page2.json.nextCursor).toBeUndefined();
    // Newest first: each page older than the one before, with the same filters.
    const newest = await issuer.call(`/v1/audit?event=PROVIDER_RESULT&from=${from}&to=${to}&limit=3&order=desc`, {
      admin: true,
    });
    expect(newest.json.records.map((r: { reason: string }) => r.reason)).toEqual(['r3', 'r2', 'r1']);
    const older = await issuer.call(
      `/v1/audit?event=PROVIDER_RESULT&from=${from}&to=${to}&limit=3&order=desc&cursor=${newest.json.nextCursor}`,
      { admin: true },
    );
    expect(older.json.records.map((r: { reason: string }) => r.reason)).toEqual(['r0']);
    expect(older.json.nextCursor).toBeUndefined();
    expect((await issuer.call('/v1/audit?order=sideways', { admin: true })).json.error.code).toBe('VALIDATION_FAILED');
  });

  it('requires the admin key and valid filters', async () => {
    expect((await issuer.call('/v1/audit')).status).toBe(401);
    expect((await issuer.call('/v1/audit?from=yesterday', { admin: true })).status).toBe(400);
    expect(
      (await issuer.call('/v1/audit?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', { admin: true })).json.error
        .code,
    ).toBe('VALIDATION_FAILED');
    expect((await issuer.call('/v1/audit?event=lower-case', { admin: true })).status).toBe(400);
  });

  it('records refusals too (REQUEST_REFUSED with the code)', async () => {
    await issuer.call('/v1/audit');
    const res = await issuer.call('/v1/audit?event=REQUEST_REFUSED&limit=500', { admin: true });
    expect(
      res.json.records.some(
        (r: { reason?: string; data?: { path?: string } }) =>
          r.reason === 'UNAUTHORIZED' && r.data?.path === '/v1/audit',
      ),
    ).toBe(true);
  });
});

describe('GET /v1/audit/verify', () => {
  it('reports the chain intact, then broken at the row altered in the database', async () => {
    const own = await startTestIssuer();
    try {
      await onboardServerAgent(own);
      const intact = await own.call('/v1/audit/verify', { admin: true });
      expect(intact.status).toBe(200);
      expect(intact.json).toMatchObject({ intact: true });
      expect(intact.json.count).toBeGreaterThan(2);
      // Tamper with the second record behind the issuer's back.
      await outsideQuery(own, "UPDATE audit SET actor = 'someone-else' WHERE seq = 2");
      const broken = await own.call('/v1/audit/verify', { admin: true });
      expect(broken.json).toEqual({ intact: false, brokenAt: 2, count: intact.json.count });
      expect((await own.call('/v1/audit/verify')).status).toBe(401);
    } finally {
      await own.dispose();
    }
  });
});

describe('refused requests', () => {
  it('are audited even when the request path is cut inside an emoji', async () => {
    const { audit } = issuer.running.ctx.stores;
    const before = (await audit.last())?.seq ?? 0;
    // '/v1/agents/' + 245 characters puts the emoji's halves at indexes 255 and 256 of the path.
    const res = await issuer.call(`/v1/agents/did:key:${'a'.repeat(236)}${encodeURIComponent('\u{1F600}')}`, {
      headers: { authorization: 'Bearer a-wrong-guess' },
    });
    expect(res.status).toBe(401);
    expect(await audit.list({ afterSeq: before, limit: 10 })).toHaveLength(1);
    const refusal = await issuer.call('/v1/audit?event=REQUEST_REFUSED&limit=500', { admin: true });
    const paths = (refusal.json.records as Array<{ data: { path: string } }>).map((r) => r.data.path);
    expect(paths).toContain(`/v1/agents/did:key:${'a'.repeat(236)}`);
  });
});
