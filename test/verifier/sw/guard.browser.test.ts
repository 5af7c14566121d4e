// The service-worker verifier's decisions, without a service worker around them: its
// configuration, which requests it takes, what it forwards and refuses, what it reports, and
// what it keeps across a restart (a new guard over the same stores is what a restarted worker
// is). DID documents and status lists are served by the fixture server; a controllable fetch
// cuts the network, and an injectable clock moves through TTLs without waiting.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createGuard, type Guard, type GuardOptions, type GuardStores } from '../../../verifier-worker/sw/guard.ts';
import {
  isGuarded,
  parseWorkerConfig,
  verifierSettings,
  WORKER_CONFIG_DEFAULTS,
} from '../../../verifier-worker/sw/config.ts';
import type { VerificationReport } from '../../../verifier-worker/sw/report.ts';
import type { StoredStatusList } from '../../../verifier-worker/sw/status-cache.ts';
import { createMemoryStore } from '../../../verifier-worker/sw/store.ts';
import { generateSeed, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { encodePublicKeyMultibase } from '../../../wallet/crypto/multikey.ts';
import type { SigningIdentity } from '../../../wallet/vc/identity.ts';
import type { AgentCredential } from '../../../wallet/vc/types.ts';
import {
  authorization,
  credentialFor,
  hostedList,
  newAgent,
  present,
  webIssuer,
  type HostedList,
  type Publish,
  type WebIssuer,
} from '../../fixtures/sw/scenario.ts';

const base = inject('fixtureBaseUrl');
const ORIGIN = 'https://app.example';
const TARGET = 'orders.example.com';

const publish: Publish = async (url, body, contentType) => {
  const response = await fetch(`${base}/host${new URL(url).pathname}`, {
    method: 'PUT',
    body: JSON.stringify(body),
    headers: { 'content-type': contentType },
  });
  expect(response.status).toBe(204);
};

async function hits(url: string): Promise<number> {
  return (
    (await (await fetch(`${base}/hits?path=${encodeURIComponent(new URL(url).pathname)}`)).json()) as { hits: number }
  ).hits;
}

let issuer: WebIssuer;
let list: HostedList;
let agent: SigningIdentity;
let credential: AgentCredential;
/** A credential on a list with a TTL of one hour, for tests about DID documents alone. */
let longLived: AgentCredential;

beforeAll(async () => {
  issuer = webIssuer(base, 'sw-guard', crypto.randomUUID());
  await publish(issuer.documentUrl, issuer.document, 'application/did+json');
  list = await hostedList(issuer, `${base}/sw-guard/${crypto.randomUUID()}/status`, 60_000, publish);
  agent = newAgent();
  ({ credential } = await credentialFor(issuer, agent, list, ['orders:read', 'orders:write']));
  const hourList = await hostedList(issuer, `${base}/sw-guard/${crypto.randomUUID()}/hour`, 3600_000, publish);
  ({ credential: longLived } = await credentialFor(issuer, agent, hourList, ['orders:read']));
});

function config(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    target: TARGET,
    trustedIssuers: [issuer.did],
    routes: [
      { path: '/api/orders/*', method: 'GET', scopes: ['orders:read'] },
      { path: '/api/admin/*', scopes: ['admin'] },
    ],
    allowHttpLoopback: true,
    ...extra,
  };
}

function memoryStores(): GuardStores {
  return {
    dids: createMemoryStore(),
    statusLists: createMemoryStore(),
    replay: createMemoryStore(),
    challenges: createMemoryStore(),
  };
}

/** A network for DID documents and status lists that the test can cut. */
function switchableFetch(): { fetch: NonNullable<GuardOptions['fetch']>; online: boolean } {
  const network = {
    online: true,
    fetch: (input: string, init: RequestInit) =>
      network.online ? fetch(input, init) : Promise.reject(new TypeError('offline')),
  };
  return network;
}

interface Harness {
  guard: Guard;
  forwarded: Request[];
  reports: VerificationReport[];
}

async function harness(
  options: {
    config?: Record<string, unknown>;
    stores?: GuardStores;
    now?: () => number;
    fetch?: GuardOptions['fetch'];
  } = {},
): Promise<Harness> {
  const forwarded: Request[] = [];
  const reports: VerificationReport[] = [];
  const guard = await createGuard(options.config ?? config(), {
    origin: ORIGIN,
    stores: options.stores ?? memoryStores(),
    forward: async (request) => {
      forwarded.push(request);
      return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
    },
    report: (report) => reports.push(report),
    ...(options.now ? { now: options.now } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { guard, forwarded, reports };
}

async function nonce(guard: Guard): Promise<string> {
  const response = await guard.respond(new Request(`${ORIGIN}/.well-known/mandate/challenge`));
  expect(response.status).toBe(200);
  return ((await response.json()) as { challenge: string }).challenge;
}

async function presented(
  guard: Guard,
  path = '/api/orders/1',
  created?: Date,
  holder = agent,
  held = credential,
): Promise<Request> {
  const vp = await present(holder, held, await nonce(guard), TARGET, created);
  return new Request(ORIGIN + path, { headers: { authorization: authorization(vp) } });
}

async function reasonOf(response: Response): Promise<string> {
  const body = (await response.json()) as { valid: boolean; reason: string };
  expect(body.valid).toBe(false);
  return `${response.status} ${body.reason}`;
}

describe('configuration', () => {
  it('fills in the defaults: endpoint challenges, 5-minute TTLs, no stale fallback, loopback http off', () => {
    const { allowHttpLoopback: _ignored, ...rest } = config();
    const parsed = parseWorkerConfig(rest);
    expect(parsed).toMatchObject({ ...WORKER_CONFIG_DEFAULTS, target: TARGET, trustedGrantIssuers: [] });
    expect(parsed.allowHttpLoopback).toBe(false);
  });

  it.each([
    ['a configuration that is not an object', () => []],
    ['an unknown setting (a typo must not leave a path open)', () => ({ ...config(), trustedIssuer: ['did:web:x'] })],
    ['an unknown route setting', () => ({ ...config(), routes: [{ path: '/api/*', scope: ['x'] }] })],
    ['routes that are not a list', () => ({ ...config(), routes: { path: '/api/*' } })],
    ['a route that is not an object', () => ({ ...config(), routes: ['/api/*'] })],
    ['a negative TTL', () => ({ ...config(), didTtlMs: -1 })],
    ['a TTL of more than 30 days', () => ({ ...config(), statusListTtlMs: 31 * 24 * 3600_000 })],
    ['a replay cache of size 0', () => ({ ...config(), replayMax: 0 })],
    ['allowHttpLoopback that is not a boolean', () => ({ ...config(), allowHttpLoopback: 'yes' })],
    ['requireCredentialStatus that is not a boolean', () => ({ ...config(), requireCredentialStatus: 1 })],
    ['a negative presentation lifetime', () => ({ ...config(), maxPresentationLifetimeMs: -1 })],
    ['a report channel with spaces', () => ({ ...config(), reportChannel: 'my channel' })],
    ["a missing target (verifyRequest's own check)", () => ({ ...config(), target: undefined })],
    ['an issuer that is not a DID', () => ({ ...config(), trustedIssuers: ['https://issuer.example'] })],
    ['a route with an invalid scope', () => ({ ...config(), routes: [{ path: '/api/*', scopes: ['Orders'] }] })],
    ['a route path that is not absolute', () => ({ ...config(), routes: [{ path: 'api/*', scopes: [] }] })],
    ['an unknown challenge mode', () => ({ ...config(), challenge: 'sometimes' })],
  ] as Array<[string, () => unknown]>)('CONFIG_INVALID for %s', (_name, value) => {
    expect(() => parseWorkerConfig(value())).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });

  it('requireCredentialStatus and maxPresentationLifetimeMs reach the verifier', async () => {
    expect(verifierSettings(parseWorkerConfig(config({ requireCredentialStatus: true })))).toMatchObject({
      requireCredentialStatus: true,
      maxPresentationLifetimeMs: 3600_000,
    });
    const brief = await harness({ config: config({ maxPresentationLifetimeMs: 60_000 }) });
    expect(await reasonOf(await brief.guard.respond(await presented(brief.guard)))).toBe('401 VP_EXPIRED');
  });

  it('guards every spelling of a configured path, for every method, and nothing else', () => {
    const { routes } = parseWorkerConfig(config());
    const guarded = (path: string) => isGuarded(routes, new URL(path, ORIGIN));
    expect(
      ['/api/orders', '/api/orders/1', '/API/Orders/1', '/api//orders/1', '/api/%6Frders/1', '/api/admin/x'].map(
        guarded,
      ),
    ).toEqual([true, true, true, true, true, true]);
    expect(['/', '/api', '/api/ordersx', '/public/orders'].map(guarded)).toEqual([false, false, false, false]);
    expect(guarded('/api/%E0%A4%A/1')).toBe(true); // undecodable: refused by verifyRequest, never waved through
  });
});

describe('what the guard takes and decides', () => {
  it("takes its own origin's guarded paths, challenge endpoint and X-Mandate-* headers; leaves the rest to the browser", async () => {
    const { guard } = await harness();
    const takes = (url: string, headers: Record<string, string> = {}) => guard.handles(new Request(url, { headers }));
    expect(takes(`${ORIGIN}/api/orders/1`)).toBe(true);
    expect(takes(`${ORIGIN}/.well-known/mandate/challenge`)).toBe(true);
    expect(takes(`${ORIGIN}/public/x`, { 'x-mandate-agent-did': 'did:key:z6Mk' })).toBe(true);
    expect(takes(`${ORIGIN}/public/x`, { X_Mandate_Agent_Did: 'did:key:z6Mk' })).toBe(true); // X-Mandate-Agent-Did to a CGI gateway
    expect(takes(`${ORIGIN}/public/x`)).toBe(false);
    expect(takes('https://elsewhere.example/api/orders/1')).toBe(false);
  });

  it('forwards an allowed request with the verified claims and without the presentation, and reports it without tokens', async () => {
    const { guard, forwarded, reports } = await harness();
    const request = await presented(guard, '/api/orders/1?token=secret-query');
    request.headers.set('x-mandate-agent-did', 'did:key:z6MkSpoofed');
    const token = request.headers.get('authorization') as string;
    const response = await guard.respond(request);
    expect(response.status).toBe(200);
    expect(forwarded).toHaveLength(1);
    const sent = forwarded[0] as Request;
    expect(sent.headers.get('x-mandate-agent-did')).toBe(agent.did);
    expect(sent.headers.get('x-mandate-scopes')).toBe('orders:read orders:write');
    expect(sent.headers.get('authorization')).toBeNull();
    expect(reports).toEqual([
      expect.objectContaining({
        decision: 'allow',
        status: 200,
        method: 'GET',
        path: '/api/orders/1',
        agentDid: agent.did,
        effectiveScopes: ['orders:read', 'orders:write'],
      }),
    ]);
    const text = JSON.stringify(reports);
    expect(text).not.toContain(token.slice(3, 40));
    expect(text).not.toContain('secret-query');
    expect((reports[0] as VerificationReport).durationMs).toBeGreaterThanOrEqual(0);
    // Every check the verifier ran, in order, all passed.
    expect((reports[0] as VerificationReport).checks.map((c) => `${c.check} ${c.ok}`)).toEqual([
      'presentation true',
      'dids true',
      'credentials true',
      'chain true',
      'scopes true',
      'status true',
      'replay true',
    ]);
  });

  it('refuses without touching the network: no presentation (401), a method no rule lists (403), a scope not held (403)', async () => {
    const { guard, forwarded, reports } = await harness();
    expect(await reasonOf(await guard.respond(new Request(`${ORIGIN}/api/orders/1`)))).toBe('401 MALFORMED');
    expect(
      await reasonOf(
        await guard.respond(await presented(guard, '/api/orders/1').then((r) => new Request(r, { method: 'DELETE' }))),
      ),
    ).toBe('403 INSUFFICIENT_SCOPE');
    expect(await reasonOf(await guard.respond(await presented(guard, '/api/admin/users')))).toBe(
      '403 INSUFFICIENT_SCOPE',
    );
    expect(forwarded).toHaveLength(0);
    expect(reports.map((r) => `${r.decision} ${r.status} ${r.reason}`)).toEqual([
      'deny 401 MALFORMED',
      'deny 403 INSUFFICIENT_SCOPE',
      'deny 403 INSUFFICIENT_SCOPE',
    ]);
    expect(reports.every((r) => r.agentDid === undefined)).toBe(true);
    // A refusal's check list ends with the failed check, carrying the reason.
    expect(reports.map((r) => r.checks.at(-1))).toEqual([
      expect.objectContaining({ ok: false, reason: 'MALFORMED' }),
      expect.objectContaining({ ok: false, reason: 'INSUFFICIENT_SCOPE' }),
      expect.objectContaining({ ok: false, reason: 'INSUFFICIENT_SCOPE' }),
    ]);
  });

  it('strips X-Mandate-* headers from requests to paths it does not guard', async () => {
    const { guard, forwarded } = await harness();
    await guard.respond(
      new Request(`${ORIGIN}/public/x`, {
        headers: { 'x-mandate-scopes': 'admin', x_mandate_agent_did: 'did:key:z6Mk', accept: 'text/plain' },
      }),
    );
    expect(forwarded[0]?.headers.get('x-mandate-scopes')).toBeNull();
    expect(forwarded[0]?.headers.get('x_mandate_agent_did')).toBeNull();
    expect(forwarded[0]?.headers.get('accept')).toBe('text/plain');
  });

  it('answers Response.error() when the network fails after an allow (as the browser would)', async () => {
    const guard = await createGuard(config(), {
      origin: ORIGIN,
      stores: memoryStores(),
      forward: () => Promise.reject(new TypeError('down')),
      report: () => undefined,
    });
    const response = await guard.respond(await presented(guard));
    expect(response.type).toBe('error');
  });
});

describe('what survives a restart of the worker', () => {
  it('used presentations and outstanding nonces: a restarted guard over the same stores remembers both', async () => {
    const stores = memoryStores();
    const first = await harness({ config: config({ challenge: 'none' }), stores });
    const vp = await present(agent, credential, 'any', TARGET);
    const request = () => new Request(`${ORIGIN}/api/orders/1`, { headers: { authorization: authorization(vp) } });
    expect((await first.guard.respond(request())).status).toBe(200);
    const second = await harness({ config: config({ challenge: 'none' }), stores });
    expect(await reasonOf(await second.guard.respond(request()))).toBe('401 REPLAYED');

    const endpointStores = memoryStores();
    const before = await harness({ stores: endpointStores });
    const issued = await nonce(before.guard);
    const after = await harness({ stores: endpointStores });
    const answered = await present(agent, credential, issued, TARGET);
    expect(
      (
        await after.guard.respond(
          new Request(`${ORIGIN}/api/orders/1`, { headers: { authorization: authorization(answered) } }),
        )
      ).status,
    ).toBe(200);
  });

  it('a replay store that cannot write: none/request modes refuse rather than accept what a restart would forget; endpoint mode serves', async () => {
    const failingReplay = (): GuardStores => ({
      ...memoryStores(),
      replay: {
        ...createMemoryStore<number>(),
        set: () => Promise.reject(new DOMException('quota', 'QuotaExceededError')),
      },
    });
    const none = await harness({ config: config({ challenge: 'none' }), stores: failingReplay() });
    const vp = await present(agent, credential, 'any', TARGET);
    expect(
      await reasonOf(
        await none.guard.respond(
          new Request(`${ORIGIN}/api/orders/1`, { headers: { authorization: authorization(vp) } }),
        ),
      ),
    ).toBe('401 REPLAYED');
    expect(none.forwarded).toHaveLength(0);
    const endpoint = await harness({ stores: failingReplay() });
    expect((await endpoint.guard.respond(await presented(endpoint.guard))).status).toBe(200);
  });

  it('did:web documents: verification works offline from the stored document, until its TTL', async () => {
    const stores = memoryStores();
    const clock = { now: Date.now() };
    const network = switchableFetch();
    const online = await harness({ stores, now: () => clock.now, fetch: network.fetch });
    expect(
      (await online.guard.respond(await presented(online.guard, '/api/orders/1', new Date(clock.now)))).status,
    ).toBe(200);
    network.online = false;
    const offline = await harness({ stores, now: () => clock.now, fetch: network.fetch });
    expect(
      (await offline.guard.respond(await presented(offline.guard, '/api/orders/1', new Date(clock.now)))).status,
    ).toBe(200);
    // Past the DID TTL (5 min) the document must be fetched again; the host is down: fail closed.
    clock.now += 5 * 60_000 + 1000;
    const later = await harness({ stores, now: () => clock.now, fetch: network.fetch });
    expect(
      await reasonOf(await later.guard.respond(await presented(later.guard, '/api/orders/1', new Date(clock.now)))),
    ).toBe('403 DID_RESOLUTION_FAILED');
  });

  it('didStaleIfErrorMs lets a stored document stand in past its TTL while the host is down', async () => {
    const stores = memoryStores();
    const clock = { now: Date.now() };
    const network = switchableFetch();
    const settings = config({ didStaleIfErrorMs: 3600_000 });
    const online = await harness({ config: settings, stores, now: () => clock.now, fetch: network.fetch });
    expect(
      (
        await online.guard.respond(
          await presented(online.guard, '/api/orders/1', new Date(clock.now), agent, longLived),
        )
      ).status,
    ).toBe(200);
    network.online = false;
    clock.now += 5 * 60_000 + 1000;
    const later = await harness({ config: settings, stores, now: () => clock.now, fetch: network.fetch });
    expect(
      (await later.guard.respond(await presented(later.guard, '/api/orders/1', new Date(clock.now), agent, longLived)))
        .status,
    ).toBe(200);
  });

  it('status lists: a revocation takes effect one TTL after the list was FETCHED, however recently the worker restarted', async () => {
    const revocable = newAgent();
    const own = await hostedList(issuer, `${base}/sw-guard/${crypto.randomUUID()}/ttl`, 60_000, publish);
    const { credential: held, index: bit } = await credentialFor(issuer, revocable, own, ['orders:read']);
    const stores = memoryStores();
    const clock = { now: Date.now() };
    const t0 = clock.now;
    const first = await harness({ stores, now: () => clock.now });
    expect(
      (await first.guard.respond(await presented(first.guard, '/api/orders/1', new Date(clock.now), revocable, held)))
        .status,
    ).toBe(200);
    const fetches = await hits(own.url);
    await own.revoke(bit);

    // Restarted 30 s later: the stored list is still fresh and is used (not fetched again).
    clock.now = t0 + 30_000;
    const restarted = await harness({ stores, now: () => clock.now });
    expect(
      (
        await restarted.guard.respond(
          await presented(restarted.guard, '/api/orders/1', new Date(clock.now), revocable, held),
        )
      ).status,
    ).toBe(200);
    expect(await hits(own.url)).toBe(fetches);
    // 61 s after the fetch: this instance loaded the list only 31 s ago, yet fetches it again.
    clock.now = t0 + 61_000;
    expect(
      await reasonOf(
        await restarted.guard.respond(
          await presented(restarted.guard, '/api/orders/1', new Date(clock.now), revocable, held),
        ),
      ),
    ).toBe('403 CREDENTIAL_REVOKED');
  });

  it('status lists: stale-if-error keeps a stored list usable while its host is down, within the configured bound only', async () => {
    const stores = memoryStores();
    const clock = { now: Date.now() };
    const network = switchableFetch();
    const settings = config({ statusListStaleIfErrorMs: 60_000, didStaleIfErrorMs: 3600_000 });
    const online = await harness({ config: settings, stores, now: () => clock.now, fetch: network.fetch });
    expect(
      (await online.guard.respond(await presented(online.guard, '/api/orders/1', new Date(clock.now)))).status,
    ).toBe(200);
    network.online = false;
    clock.now += 90_000; // past the list's TTL (60 s), within TTL + 60 s
    const degraded = await harness({ config: settings, stores, now: () => clock.now, fetch: network.fetch });
    expect(
      (await degraded.guard.respond(await presented(degraded.guard, '/api/orders/1', new Date(clock.now)))).status,
    ).toBe(200);
    clock.now += 60_000; // past TTL + 60 s
    const beyond = await harness({ config: settings, stores, now: () => clock.now, fetch: network.fetch });
    expect(
      await reasonOf(await beyond.guard.respond(await presented(beyond.guard, '/api/orders/1', new Date(clock.now)))),
    ).toBe('403 STATUS_UNAVAILABLE');
  });

  it('clockSkewMs reaches the status lists: a worker clock 2 minutes behind the issuer takes a fresh list with a 3-minute skew', async () => {
    // The list was signed with validFrom = the issuer's clock; this worker's clock is behind it.
    const behind = () => Date.now() - 120_000;
    const tolerant = await harness({ config: config({ clockSkewMs: 180_000 }), now: behind });
    const response = await tolerant.guard.respond(await presented(tolerant.guard, '/api/orders/1', new Date(behind())));
    expect(response.status, await response.clone().text()).toBe(200);
  });

  it('a stored status list is verified again when read back: an altered copy is refused, not trusted', async () => {
    const stores = memoryStores();
    const first = await harness({ stores });
    expect((await first.guard.respond(await presented(first.guard))).status).toBe(200);
    const stored = (await stores.statusLists.get(list.url)) as StoredStatusList;
    const altered = JSON.parse(stored.body) as { validFrom: string };
    // Well-formed, still fresh, but not what the issuer signed.
    altered.validFrom = new Date(Date.parse(altered.validFrom) - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await stores.statusLists.set(list.url, { ...stored, body: JSON.stringify(altered) });
    const restarted = await harness({ stores });
    expect(await reasonOf(await restarted.guard.respond(await presented(restarted.guard)))).toBe(
      '403 STATUS_UNAVAILABLE',
    );
  });
});

describe('an issuer that rotates its key', () => {
  it('a credential signed with a key the stored document lacks: the worker asks the host again, well within the DID TTL and after a restart', async () => {
    const rotating = webIssuer(base, 'sw-rotate', crypto.randomUUID());
    await publish(rotating.documentUrl, rotating.document, 'application/did+json');
    const hourList = await hostedList(rotating, `${base}/sw-rotate/${crypto.randomUUID()}/status`, 3600_000, publish);
    const { credential: before } = await credentialFor(rotating, agent, hourList, ['orders:read']);
    const stores = memoryStores();
    const clock = { now: Date.now() };
    const settings = config({ trustedIssuers: [rotating.did] });
    const first = await harness({ config: settings, stores, now: () => clock.now });
    expect(
      (await first.guard.respond(await presented(first.guard, '/api/orders/1', new Date(clock.now), agent, before)))
        .status,
    ).toBe(200);

    // The issuer publishes key-2 beside key-1 and signs with it from now on.
    const signer = seedSigner(generateSeed());
    const key2 = `${rotating.did}#key-2`;
    const method = {
      id: key2,
      type: 'Multikey',
      controller: rotating.did,
      publicKeyMultibase: encodePublicKeyMultibase(signer.publicKey),
    };
    const document = {
      ...rotating.document,
      verificationMethod: [...(rotating.document.verificationMethod ?? []), method],
      assertionMethod: [...(rotating.document.assertionMethod ?? []), key2],
    };
    await publish(rotating.documentUrl, document, 'application/did+json');
    const { credential: after } = await credentialFor(
      { did: rotating.did, verificationMethod: key2, signer },
      agent,
      hourList,
      ['orders:read'],
    );

    // A minute later the worker restarts: its stored document (TTL 5 minutes) has no key-2.
    clock.now += 60_000;
    const fetchesBefore = await hits(rotating.documentUrl);
    const restarted = await harness({ config: settings, stores, now: () => clock.now });
    expect(
      (
        await restarted.guard.respond(
          await presented(restarted.guard, '/api/orders/1', new Date(clock.now), agent, after),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await restarted.guard.respond(
          await presented(restarted.guard, '/api/orders/1', new Date(clock.now), agent, before),
        )
      ).status,
    ).toBe(200);
    expect(await hits(rotating.documentUrl)).toBe(fetchesBefore + 1);

    // A key the host never published costs at most one fetch per 30 s, however often it is presented.
    const bogusSigner = seedSigner(generateSeed());
    const { credential: bogus } = await credentialFor(
      { did: rotating.did, verificationMethod: `${rotating.did}#key-9`, signer: bogusSigner },
      agent,
      hourList,
      ['orders:read'],
    );
    clock.now += 31_000;
    for (let i = 0; i < 3; i++) {
      expect(
        await reasonOf(
          await restarted.guard.respond(
            await presented(restarted.guard, '/api/orders/1', new Date(clock.now), agent, bogus),
          ),
        ),
      ).toBe('403 KEY_NOT_AUTHORIZED');
    }
    expect(await hits(rotating.documentUrl)).toBe(fetchesBefore + 2);
  });
});
