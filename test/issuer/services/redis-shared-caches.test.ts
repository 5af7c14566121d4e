// SERVICE_CACHE_ADAPTER=redis: two issuer instances share did:web resolutions and other issuers'
// status lists through one Redis, so a remote DID or list fetched by one is not fetched again by
// the other; a shared list is still verified (a tampered one planted in Redis is refused, then
// fetched again from its issuer); and with Redis gone both fetch over the network (fail open).
import { rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProof } from '../../../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { multikeyDocument } from '../../../wallet/did/multikey-document.ts';
import { createStatusList, setStatus } from '../../../wallet/status/bitstring.ts';
import { buildStatusListCredential, buildStatusListEntry } from '../../../wallet/status/credential.ts';
import { encodeStatusList } from '../../../wallet/status/encoded-list.ts';
import { didKeyIdentity } from '../../../wallet/vc/identity.ts';
import { createLogger } from '../../../issuer/log.ts';
import { startFixtureServers } from '../../support/fixture-servers.ts';
import { startTestIssuer, tempDir, type TestIssuer } from '../../support/issuer.ts';
import { startRedis, type RedisServer } from '../../support/redis.ts';
import { redisUrl } from '../../support/servers.ts';

let fixtures: { baseUrl: string; close: () => Promise<void> };
let redis: Redis;
/** The clock every issuer here runs on: tests move it past ttls and refusal periods. */
let clock = Date.now();
const dirs: string[] = [];
const issuers: TestIssuer[] = [];
const warnings: string[] = [];

beforeAll(async () => {
  fixtures = await startFixtureServers();
  redis = new Redis(redisUrl());
});
afterAll(async () => {
  for (const issuer of issuers) await issuer.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  redis.disconnect();
  await fixtures.close();
});

async function instance(url = redisUrl()): Promise<TestIssuer> {
  const dir = tempDir();
  dirs.push(dir);
  const log = createLogger({ level: 'warn', write: (line) => warnings.push(line) });
  const issuer = await startTestIssuer(
    { SERVICE_CACHE_ADAPTER: 'redis', SERVICE_REDIS_URL: url, SERVICE_FETCH_PRIVATE_NETWORK: 'true' },
    { dir, now: () => clock, log },
  );
  issuers.push(issuer);
  return issuer;
}

async function host(path: string, body: unknown, contentType = 'application/json'): Promise<void> {
  const res = await fetch(`${fixtures.baseUrl}/host${path}`, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(204);
}

async function hits(path: string): Promise<number> {
  const res = await fetch(`${fixtures.baseUrl}/hits?path=${encodeURIComponent(path)}`);
  return ((await res.json()) as { hits: number }).hits;
}

/** A foreign did:web issuer on the fixture server under `/<name>`, with a fresh key. */
async function remoteIssuer(name: string) {
  const signer = seedSigner(generateSeed());
  const port = new URL(fixtures.baseUrl).port;
  const did = `did:web:127.0.0.1%3A${port}:${name}`;
  const verificationMethod = `${did}#key-1`;
  const document = multikeyDocument(did, verificationMethod, didKeyIdentity(signer).did.slice('did:key:'.length));
  await host(`/${name}/did.json`, document);
  return { did, signer, verificationMethod, document, documentPath: `/${name}/did.json` };
}

/** A revocation list of `issuer`, signed, hosted at `/<name>/list`, with index 3 revoked. */
async function remoteList(issuer: Awaited<ReturnType<typeof remoteIssuer>>, name: string) {
  const url = `${fixtures.baseUrl}/${name}/list`;
  const bits = createStatusList();
  setStatus(bits, 3, 1);
  const credential = buildStatusListCredential({
    id: url,
    issuer: issuer.did,
    validFrom: new Date(clock - 60_000),
    statusPurpose: 'revocation',
    encodedList: await encodeStatusList(bits),
  });
  const signed = await createProof(credential, {
    signer: issuer.signer,
    verificationMethod: issuer.verificationMethod,
    proofPurpose: 'assertionMethod',
    created: new Date(clock - 60_000),
  });
  await host(`/${name}/list`, signed, 'application/vc');
  const entry = (index: number) =>
    buildStatusListEntry({ statusListCredential: url, statusListIndex: index, statusPurpose: 'revocation' });
  return { url, path: `/${name}/list`, signed, entry };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('SERVICE_CACHE_ADAPTER=redis: DID and status-list caches shared by every instance', () => {
  let a: TestIssuer;
  let b: TestIssuer;
  beforeAll(async () => {
    a = await instance();
    b = await instance();
  });

  it('resolves a remote did:web once for both instances, stored under mandate:did:<sha256 of the DID>', async () => {
    const remote = await remoteIssuer('dids');
    const first = await a.running.ctx.resolver.resolve(remote.did);
    expect(first.didDocument).toEqual(remote.document);
    const second = await b.running.ctx.resolver.resolve(remote.did);
    expect(second.didDocument).toEqual(remote.document);
    expect(second.didResolutionMetadata.cached).toBe(true);
    expect(await hits(remote.documentPath)).toBe(1);
    expect(await redis.pttl(`mandate:did:${sha256(remote.did)}`)).toBeGreaterThan(0);
  });

  it('refresh (a key rotated in) goes past Redis and overwrites the shared entry for the other instance', async () => {
    const remote = await remoteIssuer('rotating');
    await a.running.ctx.resolver.resolve(remote.did);
    await b.running.ctx.resolver.resolve(remote.did); // b's own cache now holds the old document
    const rotated = multikeyDocument(
      remote.did,
      `${remote.did}#key-2`,
      remote.document.verificationMethod![0]!.publicKeyMultibase as string,
    );
    await host(remote.documentPath, rotated);
    clock += 31_000; // past the refresh cooldown, within the ttl
    const refreshed = await a.running.ctx.resolver.refresh?.(remote.did);
    expect(refreshed?.didDocument).toEqual(rotated);
    expect(await hits(remote.documentPath)).toBe(2);
    const c = await instance();
    expect((await c.running.ctx.resolver.resolve(remote.did)).didDocument).toEqual(rotated);
    expect(await hits(remote.documentPath)).toBe(2);
  });

  it('ignores what in Redis is not a resolution of the DID asked for (another DID, junk) and fetches instead', async () => {
    const remote = await remoteIssuer('junk');
    const other = await remoteIssuer('other');
    const key = `mandate:did:${sha256(remote.did)}`;
    const planted = { retrievedAt: clock, contentType: 'application/did+json', didDocument: other.document };
    await redis.set(key, JSON.stringify(planted), 'PX', 60_000);
    expect((await a.running.ctx.resolver.resolve(remote.did)).didDocument).toEqual(remote.document);
    await redis.set(`mandate:did:${sha256(other.did)}`, '{"retrievedAt":', 'PX', 60_000);
    expect((await a.running.ctx.resolver.resolve(other.did)).didDocument).toEqual(other.document);
    expect([await hits(remote.documentPath), await hits(other.documentPath)]).toEqual([1, 1]);
  });

  it("fetches another issuer's status list once for both instances, and each still verifies it", async () => {
    const remote = await remoteIssuer('lists');
    const list = await remoteList(remote, 'lists');
    expect(await a.running.ctx.statusLists.check(list.entry(3), remote.did)).toMatchObject({ status: 1 });
    clock += 2_000;
    const fromRedis = await b.running.ctx.statusLists.check(list.entry(3), remote.did);
    // The ttl counts from a's fetch (the Age header), not from b's read.
    expect(fromRedis).toMatchObject({ status: 1, purpose: 'revocation', listUrl: list.url, ageMs: 2_000 });
    expect(await b.running.ctx.statusLists.check(list.entry(4), remote.did)).toMatchObject({ status: 0 });
    expect(await hits(list.path)).toBe(1);
    expect(await redis.exists(`mandate:sl:${sha256(list.url)}`)).toBe(1);
    // The list's signature is checked by b too: a list issued by someone else is refused by both.
    await expect(b.running.ctx.statusLists.check(list.entry(3), 'did:web:example.com')).rejects.toMatchObject({
      code: 'STATUS_LIST_UNVERIFIED',
    });
  });

  it('refuses a tampered list planted in Redis, drops it, and fetches the signed one from its issuer again', async () => {
    const remote = await remoteIssuer('planted');
    const list = await remoteList(remote, 'planted');
    await a.running.ctx.statusLists.check(list.entry(3), remote.did);
    const key = `mandate:sl:${sha256(list.url)}`;
    const stored = JSON.parse((await redis.get(key))!) as { body: string };
    // Index 3 "unrevoked": the proof no longer matches.
    const tampered = {
      ...list.signed,
      credentialSubject: { ...list.signed.credentialSubject, encodedList: await encodeStatusList(createStatusList()) },
    };
    await redis.set(key, JSON.stringify({ ...stored, body: JSON.stringify(tampered) }), 'PX', 60_000);
    const c = await instance();
    await expect(c.running.ctx.statusLists.check(list.entry(3), remote.did)).rejects.toMatchObject({
      code: 'STATUS_LIST_UNVERIFIED',
    });
    expect(await redis.exists(key)).toBe(0);
    clock += 6_000; // past the client's refusal period
    expect(await c.running.ctx.statusLists.check(list.entry(3), remote.did)).toMatchObject({ status: 1 });
    expect(await hits(list.path)).toBe(2);
  });
});

describe('SERVICE_CACHE_ADAPTER=redis with Redis gone: the shared caches fail open', () => {
  let own: RedisServer;
  beforeAll(async () => {
    own = await startRedis();
  });
  afterAll(() => own.stop());

  it('resolves DIDs and fetches status lists over the network on every instance, logging the outage', async () => {
    const a = await instance(own.url);
    const b = await instance(own.url);
    const remote = await remoteIssuer('offline');
    const list = await remoteList(remote, 'offline');
    warnings.length = 0;
    await own.stop();
    for (const issuer of [a, b]) {
      expect((await issuer.running.ctx.resolver.resolve(remote.did)).didDocument).toEqual(remote.document);
      expect(await issuer.running.ctx.statusLists.check(list.entry(3), remote.did)).toMatchObject({ status: 1 });
    }
    expect(await hits(remote.documentPath)).toBe(2);
    expect(await hits(list.path)).toBe(2);
    const outage = warnings.filter((line) => line.includes('shared cache unavailable'));
    // At most once per 10 s per cache and instance: 2 instances × 2 caches.
    expect(outage.length).toBeGreaterThan(0);
    expect(outage.length).toBeLessThanOrEqual(4);
  });
});
