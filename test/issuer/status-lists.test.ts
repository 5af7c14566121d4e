// Published status lists: signed BitstringStatusListCredentials with cache headers that match
// their ttl, conditional GETs, new lists, and the wallet's own client accepting them over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCachedResolver } from '../../wallet/did/cache.ts';
import { createResolver } from '../../wallet/did/registry.ts';
import { createKeyResolver } from '../../wallet/did/verification-method.ts';
import { createWebResolver } from '../../wallet/did/web.ts';
import { createStatusListClient } from '../../wallet/status/client.ts';
import { newIdentity } from '../support/agents.ts';
import { IssuerClient } from '../../wallet/client/issuer-client.ts';
import { onboardServerAgent, startTestIssuer, TEST_ADMIN_KEY, type TestIssuer } from '../support/issuer.ts';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer({ SERVICE_STATUS_LIST_TTL_SECONDS: '120' });
});
afterAll(() => issuer.dispose());

describe('GET /v1/status-list/:listId', () => {
  it('serves a signed list with ETag, Cache-Control matching its ttl, and 304 on If-None-Match', async () => {
    const res = await issuer.fetch(`${issuer.url}/v1/status-list/revocation-1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vc');
    expect(res.headers.get('cache-control')).toBe('public, max-age=120');
    const etag = res.headers.get('etag') as string;
    expect(etag).toMatch(/^"revocation-1-\d+-[0-9a-f]{16}"$/);
    const list = (await res.json()) as Record<string, unknown>;
    expect(list.id).toBe(`${issuer.url}/v1/status-list/revocation-1`);
    expect(list.issuer).toBe(issuer.running.ctx.issuer.did);
    expect(list.credentialSubject).toMatchObject({
      type: 'BitstringStatusList',
      statusPurpose: 'revocation',
      ttl: 120_000,
    });
    expect(list.proof).toMatchObject({ cryptosuite: 'eddsa-jcs-2022', proofPurpose: 'assertionMethod' });
    const again = await issuer.fetch(`${issuer.url}/v1/status-list/revocation-1`, {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('public, max-age=120');
  });

  it('is accepted by the wallet status-list client over HTTP (proof, issuer, id)', async () => {
    const { verifiableCredential } = await onboardServerAgent(issuer);
    const resolver = createCachedResolver(
      createResolver({ methods: { web: createWebResolver({ allowHttpLoopback: true }) } }),
    );
    const client = createStatusListClient({ resolveKey: createKeyResolver(resolver), allowHttpLoopback: true });
    for (const entry of verifiableCredential.credentialStatus as unknown[]) {
      const result = await client.check(entry, issuer.running.ctx.issuer.did);
      expect(result.status).toBe(0);
    }
  });

  it('is readable from any origin (CORS, CORP cross-origin); admin endpoints are not', async () => {
    const origin = { origin: 'https://verifier.example' };
    const list = await issuer.fetch(`${issuer.url}/v1/status-list/suspension-1`, { headers: origin });
    expect(list.headers.get('access-control-allow-origin')).toBe('*');
    expect(list.headers.get('access-control-expose-headers')).toMatch(/etag/i);
    expect(list.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const did = await issuer.fetch(`${issuer.url}/.well-known/did.json`, { headers: origin });
    expect(did.headers.get('access-control-allow-origin')).toBe('*');
    expect(did.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const preflight = await issuer.fetch(`${issuer.url}/v1/status-list/suspension-1`, {
      method: 'OPTIONS',
      headers: { ...origin, 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    const admin = await issuer.fetch(`${issuer.url}/v1/agents`, { headers: origin });
    expect(admin.headers.get('access-control-allow-origin')).toBeNull();
    expect(admin.headers.get('cross-origin-resource-policy')).toBe('same-origin');
  });

  it('404s an unknown list and 400s an invalid list id', async () => {
    const unknown = await issuer.call('/v1/status-list/revocation-99');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('STATUS_LIST_NOT_FOUND');
    expect((await issuer.call('/v1/status-list/..%2Fetc')).status).toBe(400);
  });
});

describe('POST /v1/status-list', () => {
  it('creates a list (admin) that new credentials get their entries on', async () => {
    const res = await issuer.call('/v1/status-list', { admin: true, body: { purpose: 'revocation' } });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      listId: 'revocation-2',
      purpose: 'revocation',
      url: `${issuer.url}/v1/status-list/revocation-2`,
      length: 131_072,
      statusSize: 1,
    });
    const published = await issuer.call('/v1/status-list/revocation-2');
    expect(published.status).toBe(200);
    const issued = await issuer.call('/v1/vcs', {
      admin: true,
      body: { subjectDid: newIdentity().did, privilegeScopes: ['files'], delegationDepth: 0 },
    });
    const lists = issued.json.verifiableCredential.credentialStatus.map(
      (e: { statusListCredential: string }) => e.statusListCredential,
    );
    expect(lists).toEqual([`${issuer.url}/v1/status-list/revocation-2`, `${issuer.url}/v1/status-list/suspension-1`]);
    // A list that is not made the default is published but not used for issuance.
    const side = await issuer.call('/v1/status-list', {
      admin: true,
      body: { purpose: 'suspension', id: 'suspension-archive', makeDefault: false },
    });
    expect(side.status).toBe(201);
    const next = await issuer.call('/v1/vcs', {
      admin: true,
      body: { subjectDid: newIdentity().did, privilegeScopes: ['files'], delegationDepth: 0 },
    });
    expect(next.json.verifiableCredential.credentialStatus[1].statusListCredential).toBe(
      `${issuer.url}/v1/status-list/suspension-1`,
    );
  });

  it('refuses a duplicate id (409), a bad purpose (400) and a missing key (401)', async () => {
    const dup = await issuer.call('/v1/status-list', {
      admin: true,
      body: { purpose: 'revocation', id: 'revocation-1' },
    });
    expect(dup.status).toBe(409);
    expect(dup.json.error.code).toBe('STATUS_LIST_EXISTS');
    expect((await issuer.call('/v1/status-list', { admin: true, body: { purpose: 'Revocation!' } })).status).toBe(400);
    expect((await issuer.call('/v1/status-list', { body: { purpose: 'revocation' } })).status).toBe(401);
  });

  it('takes the purposes of Bitstring Status List §2.1 only, and statusSize above 1 only with a message for each value', async () => {
    for (const purpose of ['statusMessage', 'revocation ', 'Revocation']) {
      const refused = await issuer.call('/v1/status-list', { admin: true, body: { purpose } });
      expect(refused.status, purpose).toBe(400);
      expect(refused.json.error.code, purpose).toBe('VALIDATION_FAILED');
    }
    const messages = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ status: `0x${i.toString(16)}`, message: `m${i}` }));
    for (const [body, rule] of [
      [{ purpose: 'message', statusSize: 2 }, /statusMessage is required when statusSize is greater than 1/],
      [
        { purpose: 'message', statusSize: 2, statusMessages: messages(3) },
        /statusMessage must be an array of 4 elements/,
      ],
      [
        { purpose: 'message', statusSize: 2, statusMessages: [...messages(3), { status: '0x1', message: 'again' }] },
        /each status from 0x0 to 0x3 once/,
      ],
      [{ purpose: 'message', statusSize: 9, statusMessages: messages(4) }, /statusSize/],
    ] as const) {
      const refused = await issuer.call('/v1/status-list', { admin: true, body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(refused.json.error), JSON.stringify(body)).toMatch(rule);
    }
    const sized = await issuer.call('/v1/status-list', {
      admin: true,
      body: { purpose: 'message', id: 'message-sized', statusSize: 2, statusMessages: messages(4) },
    });
    expect(sized.status).toBe(201);
    expect(sized.json).toMatchObject({
      listId: 'message-sized',
      purpose: 'message',
      statusSize: 2,
      statusMessages: messages(4),
    });
    // 131,072 two-bit entries: the list stays at the herd-privacy minimum of entries.
    expect(sized.json.length).toBe(131_072);
  });

  it("the issuer's own status client rejects (never throws) on an entry whose list URL is malformed", async () => {
    const entry = {
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '7',
      statusListCredential: `${issuer.url}/v1/status-list/%E0%A4%A`,
    };
    const pending = issuer.running.ctx.statusLists.check(entry, issuer.running.ctx.issuer.did);
    await expect(pending).rejects.toThrow();
  });
});

describe('GET /v1/status-lists', () => {
  it('lists every list this issuer keeps (admin), as POST /v1/status-list described each; the typed client calls it by name', async () => {
    const created = await issuer.call('/v1/status-list', {
      admin: true,
      body: { purpose: 'message', id: 'listed-messages', statusSize: 1 },
    });
    expect(created.status).toBe(201);
    const res = await issuer.call('/v1/status-lists', { admin: true });
    expect(res.status).toBe(200);
    const lists = res.json.statusLists as { listId: string }[];
    expect(lists.slice(0, 2).map((l) => l.listId)).toEqual(['revocation-1', 'suspension-1']);
    expect(lists.find((l) => l.listId === 'listed-messages')).toEqual(created.json);
    const client = new IssuerClient({ baseUrl: issuer.url, adminKey: TEST_ADMIN_KEY });
    expect(await client.call('listStatusLists', {})).toEqual(res.json);
    const anonymous = await issuer.call('/v1/status-lists');
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error.code).toBe('UNAUTHORIZED');
  });
});
