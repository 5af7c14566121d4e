// Bitstring Status List 1.0 through the VC-API, against a real issuer: every credential
// POST /credentials/issue signs gets a revocation entry on the issuer's own list (unless its
// options ask otherwise), POST /credentials/status sets and clears it (admin, audited, seen by the
// next fetch of the list), lists of statusSize > 1 carry messages end to end, and lists are
// served by content negotiation (application/vc by default, JSON types on request).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSeed, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { createCachedResolver } from '../../../wallet/did/cache.ts';
import { resolveDidKey } from '../../../wallet/did/key.ts';
import { createResolver } from '../../../wallet/did/registry.ts';
import { createKeyResolver } from '../../../wallet/did/verification-method.ts';
import { createWebResolver } from '../../../wallet/did/web.ts';
import { getStatus } from '../../../wallet/status/bitstring.ts';
import { createStatusListClient } from '../../../wallet/status/client.ts';
import { decodeStatusList } from '../../../wallet/status/encoded-list.ts';
import { didKeyIdentity } from '../../../wallet/vc/identity.ts';
import { startTestIssuer, type TestIssuer } from '../../support/issuer.ts';

let issuer: TestIssuer;
const subject = didKeyIdentity(seedSigner(generateSeed()));
const V2 = 'https://www.w3.org/ns/credentials/v2';

/** What the W3C Bitstring Status List suite sends: no validFrom, no status option. */
function suiteCredential(extra: Record<string, unknown> = {}) {
  return {
    '@context': [V2],
    type: ['VerifiableCredential'],
    credentialSubject: { id: subject.did },
    id: `urn:uuid:${crypto.randomUUID()}`,
    ...extra,
  };
}

async function issue(credential: unknown, options?: unknown) {
  return issuer.call('/credentials/issue', {
    admin: true,
    body: { credential, ...(options === undefined ? {} : { options }) },
  });
}

async function setStatus(body: unknown, admin = true) {
  return issuer.call('/credentials/status', { admin, body });
}

/** A third party's view: fresh status-list client, the list fetched over HTTP. */
async function externalStatus(entry: unknown) {
  const resolver = createCachedResolver(
    createResolver({ methods: { key: resolveDidKey, web: createWebResolver({ allowHttpLoopback: true }) } }),
  );
  const client = createStatusListClient({ resolveKey: createKeyResolver(resolver), allowHttpLoopback: true });
  return client.check(entry, issuer.running.ctx.issuer.did);
}

async function verify(vc: unknown) {
  return issuer.call('/credentials/verify', {
    body: { verifiableCredential: vc, options: { checks: ['proof', 'credentialStatus'] } },
  });
}

beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.dispose());

describe('POST /credentials/issue: status entries', () => {
  it("gives a credential one revocation entry on the issuer's list by default, in the form the W3C suite checks", async () => {
    const res = await issue(suiteCredential());
    expect(res.status).toBe(201);
    const vc = res.json.verifiableCredential;
    expect(Array.isArray(vc['@context'])).toBe(true);
    const entry = vc.credentialStatus;
    expect(entry).toEqual({
      id: `${entry.statusListCredential}#${entry.statusListIndex}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: entry.statusListIndex,
      statusListCredential: `${issuer.url}/v1/status-list/revocation-1`,
    });
    // §2.1: an arbitrary-size integer in base 10, written canonically (no statusSize for 1-bit entries).
    expect(String(Number.parseInt(entry.statusListIndex, 10))).toBe(entry.statusListIndex);
    expect((await verify(vc)).json).toMatchObject({ verified: true, checks: ['proof', 'validity', 'status'] });
    expect(await externalStatus(entry)).toMatchObject({ status: 0, purpose: 'revocation' });
  });

  it('gives the entries options.credentialStatus asks for, none for [], and refuses a purpose it has no list for', async () => {
    const both = await issue(suiteCredential(), {
      credentialStatus: [
        { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
        { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' },
      ],
    });
    expect(
      both.json.verifiableCredential.credentialStatus.map((e: { statusPurpose: string }) => e.statusPurpose),
    ).toEqual(['revocation', 'suspension']);
    const none = await issue(suiteCredential(), { credentialStatus: [] });
    expect(none.status).toBe(201);
    expect(none.json.verifiableCredential.credentialStatus).toBeUndefined();
    const fresh = await startTestIssuer();
    try {
      const refused = await fresh.call('/credentials/issue', {
        admin: true,
        body: {
          credential: suiteCredential(),
          options: { credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'message' } },
        },
      });
      expect(refused.status).toBe(422);
      expect(refused.json.error.code).toBe('STATUS_LIST_UNAVAILABLE');
    } finally {
      await fresh.dispose();
    }
    for (const options of [
      {
        credentialStatus: [
          { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
          { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
        ],
      },
      { credentialStatus: { type: 'StatusList2021Entry', statusPurpose: 'revocation' } },
      { mandatoryPointers: ['/issuer'] },
    ]) {
      const res = await issue(suiteCredential(), options);
      expect(res.status, JSON.stringify(options)).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('keeps entries the caller gave, but allocates every entry on its own lists itself', async () => {
    const theirs = {
      id: 'https://status.example.com/lists/1#7',
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '7',
      statusListCredential: 'https://status.example.com/lists/1',
    };
    const kept = await issue(suiteCredential({ credentialStatus: theirs }));
    expect(kept.json.verifiableCredential.credentialStatus).toEqual([
      theirs,
      expect.objectContaining({ statusListCredential: `${issuer.url}/v1/status-list/revocation-1` }),
    ]);
    const ours = {
      ...theirs,
      id: `${issuer.url}/v1/status-list/revocation-1#5`,
      statusListIndex: '5',
      statusListCredential: `${issuer.url}/v1/status-list/revocation-1`,
    };
    const refused = await issue(suiteCredential({ credentialStatus: ours }));
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/allocated by the issuer/);
  });

  it('refuses a second credential with the same id (409), consuming no index', async () => {
    const credential = suiteCredential();
    expect((await issue(credential)).status).toBe(201);
    const issuedBefore = (await issuer.running.ctx.stores.statusLists.get('revocation-1'))?.issued;
    const again = await issue(credential);
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('CREDENTIAL_EXISTS');
    expect((await issuer.running.ctx.stores.statusLists.get('revocation-1'))?.issued).toBe(issuedBefore);
  });

  it('hands out distinct indexes to concurrent issuances', async () => {
    const issued = await Promise.all(Array.from({ length: 30 }, () => issue(suiteCredential())));
    const indexes = issued.map((res) => res.json.verifiableCredential.credentialStatus.statusListIndex as string);
    expect(new Set(indexes).size).toBe(30);
  });
});

describe('POST /credentials/status', () => {
  it('sets and clears an entry (admin, audited); the next fetch of the list and the next verification show it', async () => {
    const vc = (await issue(suiteCredential())).json.verifiableCredential;
    const entry = vc.credentialStatus;
    const revoked = await setStatus({
      credentialId: vc.id,
      credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
      status: true,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toEqual({ credentialId: vc.id, credentialStatus: entry, status: 1, changed: true });
    const list = await issuer.call(new URL(entry.statusListCredential).pathname);
    const bits = await decodeStatusList(list.json.credentialSubject.encodedList);
    expect(getStatus(bits, Number(entry.statusListIndex))).toBe(1);
    expect(await externalStatus(entry)).toMatchObject({ status: 1 });
    const refused = await verify(vc);
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toEqual([expect.objectContaining({ check: 'status', code: 'CREDENTIAL_REVOKED' })]);
    const audit = (await issuer.running.ctx.audit.list({ event: 'VC_API_STATUS_CHANGED', limit: 500 })).records.at(-1);
    expect(audit).toMatchObject({
      actor: 'admin',
      data: { id: vc.id, purpose: 'revocation', index: Number(entry.statusListIndex), status: 1, changed: true },
    });
    // Cleared again (the CCG example's type name is accepted too); asking twice changes nothing.
    const cleared = await setStatus({
      credentialId: vc.id,
      credentialStatus: {
        type: 'BitstringStatusList',
        statusPurpose: 'revocation',
        statusListIndex: entry.statusListIndex,
      },
      status: false,
    });
    expect(cleared.json).toMatchObject({ status: 0, changed: true });
    expect(
      (
        await setStatus({
          credentialId: vc.id,
          credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
          status: false,
        })
      ).json.changed,
    ).toBe(false);
    expect((await verify(vc)).json.verified).toBe(true);
  });

  it('finds a credential by options.credentialId, and says what it cannot find or change', async () => {
    const vc = (await issue(suiteCredential(), { credentialId: 'order-4711' })).json.verifiableCredential;
    const byKey = await setStatus({
      credentialId: 'order-4711',
      credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
      status: true,
    });
    expect(byKey.status).toBe(200);
    expect((await verify(vc)).json.errors[0].code).toBe('CREDENTIAL_REVOKED');
    const revocation = { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' };
    for (const [body, status, code] of [
      [
        { credentialId: 'urn:uuid:never-issued', credentialStatus: revocation, status: true },
        404,
        'CREDENTIAL_NOT_FOUND',
      ],
      [
        { credentialId: 'order-4711', credentialStatus: { ...revocation, statusPurpose: 'suspension' }, status: true },
        404,
        'STATUS_ENTRY_NOT_FOUND',
      ],
      [
        { credentialId: 'order-4711', credentialStatus: { ...revocation, statusListIndex: '1' }, status: true },
        404,
        'STATUS_ENTRY_NOT_FOUND',
      ],
      [{ credentialId: 'order-4711', credentialStatus: revocation, status: 2 }, 400, 'VALIDATION_FAILED'],
      [{ credentialId: 'order-4711', credentialStatus: revocation }, 400, 'VALIDATION_FAILED'],
      [
        { credentialId: 'order-4711', credentialStatus: { statusPurpose: 'revocation' }, status: true },
        400,
        'VALIDATION_FAILED',
      ],
    ] as const) {
      const res = await setStatus(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.json.error.code, JSON.stringify(body)).toBe(code);
    }
    // Authority credentials are revoked through /v1/vcs, which follows their chains.
    const authority = await issuer.call('/v1/vcs', {
      admin: true,
      body: { subjectDid: subject.did, privilegeScopes: ['files'], delegationDepth: 0 },
    });
    const notHere = await setStatus({ credentialId: authority.json.vcId, credentialStatus: revocation, status: true });
    expect(notHere.status).toBe(404);
    expect(notHere.json.error.message).toMatch(/\/v1\/vcs\/\{vcId\}\/revoke/);
    expect((await setStatus({ credentialId: vc.id, credentialStatus: revocation, status: true }, false)).status).toBe(
      401,
    );
  });
});

describe('lists of statusSize > 1 (Bitstring Status List §2.1–§2.2)', () => {
  it('round trip: a message list, an entry on it, any value set, and the message reported by the verifier', async () => {
    const statusMessages = [
      { status: '0x0', message: 'pending review' },
      { status: '0x1', message: 'accepted' },
      { status: '0x2', message: 'rejected' },
      { status: '0x3', message: 'withdrawn' },
    ];
    const list = await issuer.call('/v1/status-list', {
      admin: true,
      body: { purpose: 'message', statusSize: 2, statusMessages },
    });
    expect(list.status).toBe(201);
    const vc = (
      await issue(suiteCredential(), {
        credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'message' },
      })
    ).json.verifiableCredential;
    const entry = vc.credentialStatus;
    expect(entry).toMatchObject({
      statusPurpose: 'message',
      statusSize: 2,
      statusMessage: statusMessages,
      statusListCredential: list.json.url,
    });
    for (const [status, message] of [
      [2, 'rejected'],
      [3, 'withdrawn'],
      [0, 'pending review'],
    ] as const) {
      expect(
        (
          await setStatus({
            credentialId: vc.id,
            credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'message' },
            status,
          })
        ).status,
      ).toBe(200);
      expect(await externalStatus(entry)).toMatchObject({ status, purpose: 'message', message });
      const verdict = (await verify(vc)).json;
      // A message is information, not a refusal.
      expect(verdict.verified).toBe(true);
      if (status !== 0)
        expect(verdict.warnings).toEqual([
          expect.objectContaining({ check: 'status', code: 'STATUS_SET', message: expect.stringContaining(message) }),
        ]);
    }
    const tooBig = await setStatus({
      credentialId: vc.id,
      credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'message' },
      status: 4,
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.json.error.message).toMatch(/from 0 to 3/);
    // The list credential names no statusSize of its own: the v2 context defines none there.
    const published = await issuer.call(new URL(entry.statusListCredential).pathname);
    expect(Object.keys(published.json.credentialSubject).sort()).toEqual([
      'encodedList',
      'id',
      'statusPurpose',
      'ttl',
      'type',
    ]);
    expect((await decodeStatusList(published.json.credentialSubject.encodedList, { statusSize: 2 })).length).toBe(
      131_072,
    );
  });
});

describe('GET /v1/status-list/{id}: content negotiation', () => {
  it('answers application/vc by default and a JSON type when Accept prefers one: same bytes, same ETag, Vary: Accept', async () => {
    const path = '/v1/status-list/revocation-1';
    const get = (accept?: string, headers: Record<string, string> = {}) =>
      fetch(`${issuer.url}${path}`, { headers: { ...(accept === undefined ? {} : { accept }), ...headers } });
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'application/vc'],
      ['*/*', 'application/vc'],
      ['application/vc', 'application/vc'],
      // What generic JSON-LD document loaders send (the W3C suites' among them).
      ['application/ld+json, application/json', 'application/ld+json'],
      ['application/json', 'application/json'],
      ['application/json;q=0.9, application/vc;q=0.5', 'application/json'],
      ['application/vc;q=0.1, application/ld+json', 'application/ld+json'],
      ['text/html', 'application/vc'],
    ];
    const bodies = new Set<string>();
    const etags = new Set<string | null>();
    for (const [accept, type] of cases) {
      const res = await get(accept);
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('content-type'), accept).toBe(type);
      expect(res.headers.get('vary'), accept).toMatch(/Accept/i);
      bodies.add(await res.text());
      etags.add(res.headers.get('etag'));
    }
    expect(bodies.size).toBe(1);
    expect(etags.size).toBe(1);
    const notModified = await get('application/ld+json', { 'if-none-match': [...etags][0] as string });
    expect(notModified.status).toBe(304);
  });
});
