// Revocation and suspension through real status lists served over HTTP by the fixture server,
// checked by verifyPresentation in Node and in Chromium.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { createKeyResolver } from '../../../wallet/did/verification-method.ts';
import { allocateIndex } from '../../../wallet/status/allocate.ts';
import { createStatusList, setStatus, type StatusBitstring } from '../../../wallet/status/bitstring.ts';
import { createStatusListClient, type StatusListClientOptions } from '../../../wallet/status/client.ts';
import { buildStatusListCredential, buildStatusListEntry } from '../../../wallet/status/credential.ts';
import { encodeStatusList } from '../../../wallet/status/encoded-list.ts';
import { statusProcessingError, type StatusListError } from '../../../wallet/status/errors.ts';
import { issueAgentCredential } from '../../../wallet/vc/agent-credential.ts';
import { createVerifiedCredentialCache } from '../../../wallet/vc/credential-cache.ts';
import { delegate } from '../../../wallet/vc/delegation.ts';
import { createConsent, issueGrant } from '../../../wallet/vc/grant.ts';
import type { SigningIdentity } from '../../../wallet/vc/identity.ts';
import { signPresentation } from '../../../wallet/vc/presentation.ts';
import type { AgentCredential } from '../../../wallet/vc/types.ts';
import { verifyPresentation, type VerificationResult } from '../../../wallet/vc/verify.ts';
import { newIdentity, signRaw, testResolver, type TestResolver } from '../../support/agents.ts';

const TARGET = 'files.example.com';
const base = inject('fixtureBaseUrl');

let platform: SigningIdentity;
let agent: SigningIdentity;
let resolver: TestResolver;

interface PublishedList {
  url: string;
  list: StatusBitstring;
  purpose: string;
  publish(signer?: SigningIdentity): Promise<void>;
}

async function publishedList(
  purpose: string,
  ttl = 60_000,
  shape: { length?: number; validFrom?: () => Date } = {},
): Promise<PublishedList> {
  const url = `${base}/lists/${crypto.randomUUID()}`;
  const list = createStatusList(shape.length === undefined ? {} : { length: shape.length });
  const published: PublishedList = {
    url,
    list,
    purpose,
    async publish(signer = platform) {
      const unsigned = buildStatusListCredential({
        id: url,
        issuer: signer.did,
        validFrom: shape.validFrom?.() ?? new Date(),
        statusPurpose: purpose,
        encodedList: await encodeStatusList(list),
        ttl,
      });
      const signed = await signRaw(unsigned, signer, 'assertionMethod', { maxBytes: 256 * 1024 });
      const response = await fetch(`${base}/host${new URL(url).pathname}`, {
        method: 'PUT',
        body: JSON.stringify(signed),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(204);
    },
  };
  await published.publish();
  return published;
}

/** The platform's credential for `agent`, with an entry on each list; `delegationDepth` as given. */
async function credentialWithDepthOn(
  delegationDepth: number,
  ...lists: PublishedList[]
): Promise<{ credential: AgentCredential; indexes: number[] }> {
  const indexes = lists.map((l) => allocateIndex(l.list.length, new Set<number>()));
  const credential = await issueAgentCredential({
    issuer: platform,
    agentDid: agent.did,
    privilegeScopes: ['files'],
    delegationDepth,
    credentialStatus: lists.map((l, i) =>
      buildStatusListEntry({
        statusListCredential: l.url,
        statusListIndex: indexes[i] as number,
        statusPurpose: l.purpose,
      }),
    ),
  });
  return { credential, indexes };
}

function credentialOn(...lists: PublishedList[]): Promise<{ credential: AgentCredential; indexes: number[] }> {
  return credentialWithDepthOn(0, ...lists);
}

function client(extra: Partial<StatusListClientOptions> = {}) {
  return createStatusListClient({ resolveKey: createKeyResolver(resolver), allowHttpLoopback: true, ...extra });
}

async function verify(
  credential: AgentCredential,
  statusLists = client(),
  now = new Date(),
): Promise<VerificationResult> {
  const vp = await signPresentation({
    holder: agent,
    credentials: [credential],
    challenge: 'n',
    domain: TARGET,
    created: now,
  });
  return verifyPresentation(vp, { trustedIssuers: [platform.did], expectedDomain: TARGET, resolver, statusLists, now });
}

function expectReason(result: VerificationResult, reason: string): void {
  expect(result.valid ? 'accepted' : result.reason).toBe(reason);
  if (!result.valid) expect(result.failedCheck).toBe('status');
}

beforeAll(() => {
  platform = newIdentity();
  agent = newIdentity();
  resolver = testResolver();
});

describe('status lists in verifyPresentation', () => {
  it('accepts a credential whose bits are clear and reports the list age', async () => {
    const revocation = await publishedList('revocation');
    const suspension = await publishedList('suspension');
    const { credential } = await credentialOn(revocation, suspension);
    const result = await verify(credential);
    expect(result.valid).toBe(true);
    if (result.valid) expect(result.sources.statusLists.map((s) => s.id)).toEqual([revocation.url, suspension.url]);
  });

  it('CREDENTIAL_REVOKED once the issuer sets the revocation bit', async () => {
    const revocation = await publishedList('revocation');
    const { credential, indexes } = await credentialOn(revocation);
    setStatus(revocation.list, indexes[0] as number, 1);
    await revocation.publish();
    expectReason(await verify(credential), 'CREDENTIAL_REVOKED');
  });

  it('CREDENTIAL_SUSPENDED when the suspension bit is set', async () => {
    const revocation = await publishedList('revocation');
    const suspension = await publishedList('suspension');
    const { credential, indexes } = await credentialOn(revocation, suspension);
    setStatus(suspension.list, indexes[1] as number, 1);
    await suspension.publish();
    expectReason(await verify(credential), 'CREDENTIAL_SUSPENDED');
  });

  it('CREDENTIAL_REVOKED for a delegated chain whose root is revoked, and for a revoked grant', async () => {
    const revocation = await publishedList('revocation');
    const { credential: root, indexes } = await credentialWithDepthOn(1, revocation);
    const index = indexes[0] as number;
    const helper = newIdentity();
    const child = await delegate(root, { delegator: agent, delegateeDid: helper.did, scopes: ['files:read'] });
    const chainVp = () =>
      signPresentation({ holder: helper, credentials: [child, root], challenge: 'n', domain: TARGET });
    const options = { trustedIssuers: [platform.did], expectedDomain: TARGET, resolver };
    expect((await verifyPresentation(await chainVp(), { ...options, statusLists: client() })).valid).toBe(true);
    setStatus(revocation.list, index, 1);
    await revocation.publish();
    expectReason(
      await verifyPresentation(await chainVp(), { ...options, statusLists: client() }),
      'CREDENTIAL_REVOKED',
    );

    // A grant on its provider's own list.
    const provider = newIdentity();
    const user = newIdentity();
    const grants = await publishedList('revocation');
    await grants.publish(provider);
    const { credential: agentRoot } = await credentialOn(await publishedList('revocation'));
    const grantIndex = allocateIndex(grants.list.length, new Set<number>());
    const consent = await createConsent({
      user,
      agentDid: agent.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'g',
    });
    const grant = await issueGrant({
      provider,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      consent,
      ceiling: ['files'],
      credentialStatus: [
        buildStatusListEntry({
          statusListCredential: grants.url,
          statusListIndex: grantIndex,
          statusPurpose: 'revocation',
        }),
      ],
    });
    const grantVp = () =>
      signPresentation({ holder: agent, credentials: [agentRoot, grant], challenge: 'n', domain: TARGET });
    const trusting = { ...options, trustedGrantIssuers: [provider.did] };
    expect((await verifyPresentation(await grantVp(), { ...trusting, statusLists: client() })).valid).toBe(true);
    setStatus(grants.list, grantIndex, 1);
    await grants.publish(provider);
    expectReason(
      await verifyPresentation(await grantVp(), { ...trusting, statusLists: client() }),
      'CREDENTIAL_REVOKED',
    );
  });

  it('checks revocation every time, even for a credential the verified-credential cache holds', async () => {
    const revocation = await publishedList('revocation');
    const { credential, indexes } = await credentialOn(revocation);
    const credentialCache = createVerifiedCredentialCache();
    const options = { trustedIssuers: [platform.did], expectedDomain: TARGET, resolver, credentialCache };
    const present = () =>
      signPresentation({ holder: agent, credentials: [credential], challenge: 'n', domain: TARGET });
    expect((await verifyPresentation(await present(), { ...options, statusLists: client() })).valid).toBe(true);
    const cached = await verifyPresentation(await present(), { ...options, statusLists: client() });
    expect(cached.valid && cached.chain[0]?.cached).toBe(true);
    setStatus(revocation.list, indexes[0] as number, 1);
    await revocation.publish();
    expectReason(
      await verifyPresentation(await present(), { ...options, statusLists: client() }),
      'CREDENTIAL_REVOKED',
    );
  });

  it('a revocation takes effect within one ttl of a cached list', async () => {
    const revocation = await publishedList('revocation', 60_000);
    const { credential, indexes } = await credentialOn(revocation);
    const statusLists = client();
    const t0 = new Date();
    expect((await verify(credential, statusLists, t0)).valid).toBe(true);
    setStatus(revocation.list, indexes[0] as number, 1);
    await revocation.publish();
    // Still inside the ttl: the cached list is used, as the issuer's ttl allows.
    expect((await verify(credential, statusLists, new Date(t0.getTime() + 30_000))).valid).toBe(true);
    expectReason(await verify(credential, statusLists, new Date(t0.getTime() + 61_000)), 'CREDENTIAL_REVOKED');
  });

  it('STATUS_UNAVAILABLE: no list at the URL, no client, a foreign signer, a tampered list, a list without its id', async () => {
    const missing = await publishedList('revocation');
    const { credential } = await credentialOn(missing);
    await fetch(`${base}/host${new URL(missing.url).pathname}`, { method: 'DELETE' });
    expectReason(await verify(credential), 'STATUS_UNAVAILABLE');

    const fine = await publishedList('revocation');
    const { credential: onFine } = await credentialOn(fine);
    const vp = await signPresentation({ holder: agent, credentials: [onFine], challenge: 'n', domain: TARGET });
    expectReason(
      await verifyPresentation(vp, { trustedIssuers: [platform.did], expectedDomain: TARGET, resolver }),
      'STATUS_UNAVAILABLE',
    );

    const foreign = await publishedList('revocation');
    const { credential: onForeign } = await credentialOn(foreign);
    await foreign.publish(newIdentity());
    expectReason(await verify(onForeign), 'STATUS_UNAVAILABLE');

    const tampered = await publishedList('revocation');
    const { credential: onTampered, indexes } = await credentialOn(tampered);
    const signedText = await (await fetch(tampered.url)).text();
    setStatus(tampered.list, indexes[0] as number, 1);
    const forged = {
      ...JSON.parse(signedText),
      credentialSubject: {
        ...JSON.parse(signedText).credentialSubject,
        encodedList: await encodeStatusList(tampered.list),
      },
    };
    await fetch(`${base}/host${new URL(tampered.url).pathname}`, {
      method: 'PUT',
      body: JSON.stringify(forged),
      headers: { 'content-type': 'application/json' },
    });
    expectReason(await verify(onTampered), 'STATUS_UNAVAILABLE');

    const anonymous = await publishedList('revocation');
    const { credential: onAnonymous } = await credentialOn(anonymous);
    const {
      id: _id,
      proof: _proof,
      ...unnamed
    } = JSON.parse(await (await fetch(anonymous.url)).text()) as Record<string, unknown>;
    const signedUnnamed = await signRaw(unnamed as never, platform);
    await fetch(`${base}/host${new URL(anonymous.url).pathname}`, {
      method: 'PUT',
      body: JSON.stringify(signedUnnamed),
      headers: { 'content-type': 'application/json' },
    });
    expectReason(await verify(onAnonymous), 'STATUS_UNAVAILABLE');
  });

  it('the client tells a list it cannot fetch (retrieval error) from one that does not verify (verification error), as §3.5 does', async () => {
    const codeOf = async (credential: AgentCredential, statusLists = client()) => {
      const entry = (credential.credentialStatus as unknown[])[0];
      const error = (await statusLists.check(entry, platform.did).then(
        () => undefined,
        (e: unknown) => e,
      )) as StatusListError | undefined;
      return error && `${error.code} ${statusProcessingError(error.code) ?? '-'}`;
    };
    const missing = await publishedList('revocation');
    const { credential: onMissing } = await credentialOn(missing);
    await fetch(`${base}/host${new URL(missing.url).pathname}`, { method: 'DELETE' });
    expect(await codeOf(onMissing)).toBe('STATUS_LIST_UNAVAILABLE STATUS_RETRIEVAL_ERROR');

    const tampered = await publishedList('revocation');
    const { credential: onTampered } = await credentialOn(tampered);
    const signed = JSON.parse(await (await fetch(tampered.url)).text()) as {
      credentialSubject: Record<string, unknown>;
    };
    setStatus(tampered.list, 5, 1);
    signed.credentialSubject.encodedList = await encodeStatusList(tampered.list);
    await fetch(`${base}/host${new URL(tampered.url).pathname}`, {
      method: 'PUT',
      body: JSON.stringify(signed),
      headers: { 'content-type': 'application/json' },
    });
    expect(await codeOf(onTampered)).toBe('STATUS_LIST_UNVERIFIED STATUS_VERIFICATION_ERROR');

    const foreign = await publishedList('revocation');
    const { credential: onForeign } = await credentialOn(foreign);
    await foreign.publish(newIdentity());
    expect(await codeOf(onForeign)).toBe('STATUS_LIST_UNVERIFIED STATUS_VERIFICATION_ERROR');

    const early = await publishedList('revocation', 60_000, { validFrom: () => new Date(Date.now() + 120_000) });
    const { credential: onEarly } = await credentialOn(early);
    expect(await codeOf(onEarly)).toBe('STATUS_LIST_UNVERIFIED STATUS_VERIFICATION_ERROR');
    // A verifier that allows more clock skew says so to its status client too.
    expect(await codeOf(onEarly, client({ clockSkewMs: 180_000 }))).toBeUndefined();
    expect(() => client({ clockSkewMs: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_STATUS_ARGUMENT' }));

    // The rest of §3.5; a local size limit has no spec name.
    expect(
      [
        'STATUS_LIST_TOO_SHORT',
        'STATUS_INDEX_OUT_OF_RANGE',
        'STATUS_PURPOSE_MISMATCH',
        'STATUS_ENTRY_MALFORMED',
        'STATUS_LIST_TOO_LARGE',
      ].map((c) => statusProcessingError(c as never)),
    ).toEqual([
      'STATUS_LIST_LENGTH_ERROR',
      'RANGE_ERROR',
      'STATUS_VERIFICATION_ERROR',
      'MALFORMED_VALUE_ERROR',
      undefined,
    ]);
  });

  it('STATUS_UNAVAILABLE in check 6 for entries that break Bitstring Status List §2.1 (docs/protocol.md §Status entry rules)', async () => {
    const list = await publishedList('revocation');
    const good = buildStatusListEntry({
      statusListCredential: list.url,
      statusListIndex: 3,
      statusPurpose: 'revocation',
    });
    const broken: Array<Record<string, unknown>> = [
      { ...good, id: 'not a url' },
      { ...good, id: list.url },
      { ...good, statusListCredential: 'lists/1' },
      { ...good, statusSize: 2 },
      { ...good, statusSize: 9 },
      { ...good, statusMessage: [{ status: '0x0', message: 'valid' }] },
      { ...good, statusReference: 'see the docs' },
    ];
    for (const entry of broken) {
      const credential = await issueAgentCredential({
        issuer: platform,
        agentDid: agent.did,
        privilegeScopes: ['files'],
        delegationDepth: 0,
        credentialStatus: [entry] as never,
      });
      expectReason(await verify(credential), 'STATUS_UNAVAILABLE');
    }
    const fine = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
      credentialStatus: [good] as never,
    });
    expect((await verify(fine)).valid).toBe(true);
  });

  it('STATUS_UNAVAILABLE: plain http to a non-loopback host is refused before any fetch', async () => {
    const revocation = await publishedList('revocation');
    const { credential } = await credentialOn(revocation);
    expectReason(await verify(credential, client({ allowHttpLoopback: false })), 'STATUS_UNAVAILABLE');
  });

  it('accepts a list credential larger than 64 KiB, up to maxBytes (a 1,048,576-entry list of random bits)', async () => {
    const large = await publishedList('revocation', 60_000, { length: 1_048_576 });
    for (let offset = 0; offset < large.list.bytes.length; offset += 65_536)
      crypto.getRandomValues(large.list.bytes.subarray(offset, offset + 65_536));
    const { credential, indexes } = await credentialOn(large);
    setStatus(large.list, indexes[0] as number, 0);
    await large.publish();
    expect((await (await fetch(large.url)).text()).length).toBeGreaterThan(128 * 1024);
    expect((await verify(credential)).valid).toBe(true);
    setStatus(large.list, indexes[0] as number, 1);
    await large.publish();
    expectReason(await verify(credential), 'CREDENTIAL_REVOKED');
  });

  it('STATUS_UNAVAILABLE: a list whose validFrom is ahead of the clock by more than the skew (60 s)', async () => {
    const early = await publishedList('revocation', 60_000, { validFrom: () => new Date(Date.now() + 86_400_000) });
    const { credential: onEarly } = await credentialOn(early);
    expectReason(await verify(onEarly), 'STATUS_UNAVAILABLE');
    expect((await verify(onEarly, client(), new Date(Date.now() + 86_400_000))).valid).toBe(true);
    const justSigned = await publishedList('revocation', 60_000, { validFrom: () => new Date(Date.now() + 30_000) });
    const { credential: onJustSigned } = await credentialOn(justSigned);
    expect((await verify(onJustSigned)).valid).toBe(true);
  });

  it('a signed list that does not decode is refused for its ttl, and decompressed once, not at every check', async () => {
    const list = await publishedList('revocation', 10_000);
    const { credential } = await credentialOn(list);
    const publishEncoded = async (encodedList: string) => {
      const unsigned = buildStatusListCredential({
        id: list.url,
        issuer: platform.did,
        validFrom: new Date(),
        statusPurpose: 'revocation',
        encodedList,
        ttl: 10_000,
      });
      await fetch(`${base}/host${new URL(list.url).pathname}`, {
        method: 'PUT',
        body: JSON.stringify(await signRaw(unsigned, platform)),
        headers: { 'content-type': 'application/json' },
      });
    };
    // A GZIP header, then a deflate block of the reserved type 11 (RFC 1951 §3.2.3).
    await publishEncoded(
      `u${bytesToBase64url(Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x07, 0, 0, 0, 0, 0, 0, 0, 2, 0))}`,
    );
    let clock = Date.now();
    let fetches = 0;
    const statusLists = client({ now: () => clock, fetch: (input, init) => (fetches++, fetch(input, init)) });
    // One refusal object per decompression: the same one at every check means one decompression.
    const entry = (credential.credentialStatus as unknown as object[])[0];
    const refusals = new Set<unknown>();
    for (let i = 0; i < 3; i++)
      refusals.add(
        await statusLists.check(entry, platform.did).then(
          () => 'accepted',
          (error: unknown) => error,
        ),
      );
    expect([refusals.size, fetches]).toEqual([1, 1]);
    expect([...refusals][0]).toMatchObject({ code: 'STATUS_LIST_MALFORMED' });
    expectReason(await verify(credential, statusLists, new Date(clock)), 'STATUS_UNAVAILABLE');
    // The issuer publishes one that decodes: taken when the broken one's ttl is over.
    await publishEncoded(await encodeStatusList(list.list));
    clock += 10_000;
    expect((await verify(credential, statusLists, new Date(clock))).valid).toBe(true);
    expect(fetches).toBe(2);
  });

  it("counts a list's ttl from its issuer's answer when a cache in front of it gives the list's Age (RFC 9111 §5.1)", async () => {
    const list = await publishedList('revocation', 60_000);
    const { credential } = await credentialOn(list);
    const entry = (credential.credentialStatus as unknown as object[])[0];
    let clock = Date.now();
    let fetches = 0;
    // A cache that has held the list for 40 s (malformed Age values count as 0).
    const aged =
      (age: string) =>
      async (input: string, init: RequestInit): Promise<Response> => {
        fetches++;
        const response = await fetch(input, init);
        const headers = new Headers(response.headers);
        headers.set('age', age);
        return new Response(response.body, { status: response.status, headers });
      };
    const statusLists = client({ now: () => clock, fetch: aged('40') });
    expect(await statusLists.check(entry, platform.did)).toMatchObject({ status: 0, ageMs: 40_000 });
    clock += 19_000;
    await statusLists.check(entry, platform.did);
    expect(fetches).toBe(1);
    clock += 1_000; // 60 s after the issuer's answer: fetched again
    await statusLists.check(entry, platform.did);
    expect(fetches).toBe(2);
    const odd = client({ now: () => clock, fetch: aged('-5') });
    expect(await odd.check(entry, platform.did)).toMatchObject({ ageMs: 0 });
  });

  it('keeps decompressed lists within maxCachedBytes: the least recently used one is fetched again', async () => {
    const lists = await Promise.all([1, 2, 3].map(() => publishedList('revocation')));
    const credentials = await Promise.all(lists.map(async (l) => (await credentialOn(l)).credential));
    const run = async (maxCachedBytes?: number) => {
      let fetches = 0;
      const statusLists = client({
        ...(maxCachedBytes === undefined ? {} : { maxCachedBytes }),
        fetch: (input, init) => (fetches++, fetch(input, init)),
      });
      for (const credential of [...credentials, credentials[0] as AgentCredential])
        expect((await verify(credential, statusLists)).valid).toBe(true);
      return fetches;
    };
    expect(await run()).toBe(3);
    expect(await run(40_000)).toBe(4); // room for two 16 KiB lists
  });

  it('STATUS_UNAVAILABLE when a status list client throws instead of rejecting', async () => {
    const revocation = await publishedList('revocation');
    const { credential } = await credentialOn(revocation);
    const throwing = {
      check: () => {
        throw new Error('boom');
      },
    };
    expectReason(await verify(credential, throwing), 'STATUS_UNAVAILABLE');
  });

  it('STATUS_UNAVAILABLE: a credential without credentialStatus, when the verifier requires one', async () => {
    const irrevocable = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    const vp = await signPresentation({ holder: agent, credentials: [irrevocable], challenge: 'n', domain: TARGET });
    const trusting = { trustedIssuers: [platform.did], expectedDomain: TARGET, resolver, statusLists: client() };
    expect((await verifyPresentation(vp, trusting)).valid).toBe(true);
    expectReason(await verifyPresentation(vp, { ...trusting, requireCredentialStatus: true }), 'STATUS_UNAVAILABLE');
    const revocation = await publishedList('revocation');
    const { credential } = await credentialOn(revocation);
    const withStatus = await signPresentation({
      holder: agent,
      credentials: [credential],
      challenge: 'n',
      domain: TARGET,
    });
    expect((await verifyPresentation(withStatus, { ...trusting, requireCredentialStatus: true })).valid).toBe(true);
    // An entry of a purpose that refuses nothing does not count: the credential still cannot be revoked.
    const { credential: refreshOnly } = await credentialOn(await publishedList('refresh'));
    const withRefresh = () =>
      signPresentation({ holder: agent, credentials: [refreshOnly], challenge: 'n', domain: TARGET });
    expect((await verifyPresentation(await withRefresh(), trusting)).valid).toBe(true);
    expectReason(
      await verifyPresentation(await withRefresh(), { ...trusting, requireCredentialStatus: true }),
      'STATUS_UNAVAILABLE',
    );
  });

  it('requireCredentialStatus looks at every credential before any list is read: a revoked root beside an irrevocable grant is STATUS_UNAVAILABLE', async () => {
    const revocation = await publishedList('revocation');
    const { credential, indexes } = await credentialOn(revocation);
    setStatus(revocation.list, indexes[0] as number, 1);
    await revocation.publish();
    const provider = newIdentity();
    const consent = await createConsent({
      user: newIdentity(),
      agentDid: agent.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'g-o',
    });
    const grant = await issueGrant({
      provider,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      consent,
      ceiling: ['files'],
    });
    const vp = await signPresentation({
      holder: agent,
      credentials: [credential, grant],
      challenge: 'n',
      domain: TARGET,
    });
    const trusting = {
      trustedIssuers: [platform.did],
      trustedGrantIssuers: [provider.did],
      expectedDomain: TARGET,
      resolver,
    };
    let fetches = 0;
    const statusLists = client({ fetch: (input, init) => (fetches++, fetch(input, init)) });
    expectReason(await verifyPresentation(vp, { ...trusting, statusLists }), 'CREDENTIAL_REVOKED');
    fetches = 0;
    const required = await verifyPresentation(vp, {
      ...trusting,
      statusLists: client({ fetch: (input, init) => (fetches++, fetch(input, init)) }),
      requireCredentialStatus: true,
    });
    expectReason(required, 'STATUS_UNAVAILABLE');
    expect(fetches).toBe(0);
  });

  it('concurrent verifications share one fetch of a list', async () => {
    const revocation = await publishedList('revocation');
    const { credential } = await credentialOn(revocation);
    let fetches = 0;
    const statusLists = client({ fetch: (input, init) => (fetches++, fetch(input, init)) });
    const results = await Promise.all(Array.from({ length: 20 }, () => verify(credential, statusLists)));
    expect(results.every((r) => r.valid)).toBe(true);
    expect(fetches).toBe(1);
  });

  it('a failed fetch is remembered for negativeTtlMs from when it failed: one fetch per period while the list is down', async () => {
    const revocation = await publishedList('revocation');
    const { credential } = await credentialOn(revocation);
    await fetch(`${base}/host${new URL(revocation.url).pathname}`, { method: 'DELETE' });
    let clock = Date.now();
    let fetches = 0;
    // Each fetch takes 2 s of the client's clock: the period starts when the failure is known.
    const slow = async (input: string, init: RequestInit) => {
      fetches++;
      const response = await fetch(input, init);
      clock += 2_000;
      return response;
    };
    const statusLists = client({ fetch: slow, negativeTtlMs: 10_000, now: () => clock });
    expectReason(await verify(credential, statusLists), 'STATUS_UNAVAILABLE');
    clock += 9_000; // 11 s after the fetch began, 9 s after it failed; a caller's own `now` does not move it
    expectReason(await verify(credential, statusLists, new Date(Date.now() + 30_000)), 'STATUS_UNAVAILABLE');
    expect(fetches).toBe(1);
    // Back up, but still inside the period: refused without asking.
    await revocation.publish();
    clock += 500;
    expectReason(await verify(credential, statusLists), 'STATUS_UNAVAILABLE');
    expect(fetches).toBe(1);
    clock += 500;
    expect((await verify(credential, statusLists, new Date(clock))).valid).toBe(true);
    expect(fetches).toBe(2);
    // With negativeTtlMs 0, every check of a failing list asks again; a bad period is refused.
    await fetch(`${base}/host${new URL(revocation.url).pathname}`, { method: 'DELETE' });
    let eager = 0;
    const retrying = client({ fetch: (input, init) => (eager++, fetch(input, init)), negativeTtlMs: 0 });
    expectReason(await verify(credential, retrying), 'STATUS_UNAVAILABLE');
    expectReason(await verify(credential, retrying), 'STATUS_UNAVAILABLE');
    expect(eager).toBe(2);
    for (const negativeTtlMs of [-1, Number.NaN, 1.5])
      expect(() => client({ negativeTtlMs })).toThrow(expect.objectContaining({ code: 'INVALID_STATUS_ARGUMENT' }));
  });

  it('a grace period keeps a cached list usable when a refresh fails, and reports its age', async () => {
    const revocation = await publishedList('revocation', 1_000);
    const { credential } = await credentialOn(revocation);
    const strict = client();
    const lenient = client({ graceMs: 60_000 });
    const t0 = new Date();
    expect((await verify(credential, strict, t0)).valid).toBe(true);
    expect((await verify(credential, lenient, t0)).valid).toBe(true);
    await fetch(`${base}/host${new URL(revocation.url).pathname}`, { method: 'DELETE' });
    const later = new Date(t0.getTime() + 10_000);
    expectReason(await verify(credential, strict, later), 'STATUS_UNAVAILABLE');
    const result = await verify(credential, lenient, later);
    expect(result.valid).toBe(true);
    if (result.valid) expect(result.sources.statusLists[0]?.ageMs).toBe(10_000);
  });
});
