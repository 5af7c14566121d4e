// agentAuth, the Hono middleware of mandate/verifier: what a protected Hono app answers for an
// allowed request and for every family of refusal (malformed, presentation, DIDs, trust and
// chain, scopes, revocation through status lists served by the fixture server), the claims a
// handler sees, and the challenge endpoint.
import { Hono } from 'hono';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { allocateIndex } from '../../wallet/status/allocate.ts';
import { createStatusList, setStatus, type StatusBitstring } from '../../wallet/status/bitstring.ts';
import { buildStatusListCredential, buildStatusListEntry } from '../../wallet/status/credential.ts';
import { encodeStatusList } from '../../wallet/status/encoded-list.ts';
import { issueAgentCredential } from '../../wallet/vc/agent-credential.ts';
import { MANDATE_CONTEXTS } from '../../wallet/vc/context.ts';
import { credentialDigest, delegate } from '../../wallet/vc/delegation.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import { createReplayCache } from '../../wallet/vc/replay-cache.ts';
import type { AgentCredential, MandateCredential, VerifiablePresentation } from '../../wallet/vc/types.ts';
import { agentAuth, challengeHandler, type AgentAuthEnv, type AgentAuthOptions } from '../../verifier-worker/hono.ts';
import { DEFAULT_CHALLENGE_PATH, encodePresentationHeader, type AgentClaims } from '../../verifier-worker/request.ts';
import { newIdentity, signRaw, testIdentity, testResolver, type TestResolver } from '../support/agents.ts';

const TARGET = 'files.example.com';
const base = inject('fixtureBaseUrl');

let platform: SigningIdentity;
let agent: SigningIdentity;
let subAgent: SigningIdentity;
let resolver: TestResolver;
let root: AgentCredential;

beforeAll(async () => {
  platform = newIdentity();
  agent = newIdentity();
  subAgent = newIdentity();
  resolver = testResolver();
  root = await issueAgentCredential({
    issuer: platform,
    agentDid: agent.did,
    privilegeScopes: ['files:read'],
    delegationDepth: 1,
    domains: [TARGET],
  });
});

interface Seen {
  agent: AgentClaims;
  headers: Record<string, string>;
}

/** A Hono app protecting /files/* with agentAuth, whose handlers echo what they were given. */
function protectedApp(extra: Partial<AgentAuthOptions> = {}) {
  const options: AgentAuthOptions = {
    trustedIssuers: [platform.did],
    target: TARGET,
    resolver,
    urlPolicy: { allowHttpLoopback: true },
    requiredScopes: [
      { method: 'GET', path: '/files/*', scopes: ['files:read'] },
      { method: 'DELETE', path: '/files/*', scopes: ['files:write'] },
    ],
    ...extra,
  };
  const app = new Hono<AgentAuthEnv>();
  app.use('*', agentAuth(options));
  const echo = (c: { var: { agent: AgentClaims }; req: { raw: Request }; json: (v: Seen) => Response }) =>
    c.json({ agent: c.var.agent, headers: Object.fromEntries(c.req.raw.headers) });
  app.get('/files/:id', echo);
  app.delete('/files/:id', echo);
  return app;
}

type App = ReturnType<typeof protectedApp>;

async function challengeOf(app: App): Promise<string> {
  const response = await app.request(DEFAULT_CHALLENGE_PATH);
  expect(response.status).toBe(200);
  return ((await response.json()) as { challenge: string }).challenge;
}

/** Signs a presentation of `credentials` by `holder` for a fresh challenge of `app`. */
async function presentTo(
  app: App,
  holder: SigningIdentity,
  credentials: MandateCredential[],
  extra: { created?: Date; challenge?: string } = {},
): Promise<VerifiablePresentation> {
  const challenge = extra.challenge ?? (await challengeOf(app));
  return signPresentation({ holder, credentials, challenge, domain: TARGET, created: extra.created });
}

function send(app: App, vp: unknown, init: { method?: string; path?: string; headers?: Record<string, string> } = {}) {
  return app.request(init.path ?? '/files/1', {
    method: init.method ?? 'GET',
    headers: { authorization: encodePresentationHeader(vp), ...init.headers },
  });
}

async function expectRefusal(response: Response, status: number, reason: string): Promise<void> {
  const body = (await response.json()) as { valid: boolean; reason: string; message: string };
  expect({ status: response.status, reason: body.reason, valid: body.valid }).toEqual({ status, reason, valid: false });
  expect(response.headers.has('www-authenticate')).toBe(status === 401);
}

describe('agentAuth — allowed', () => {
  it('sets c.var.agent and hands the handler claim headers instead of the presentation', async () => {
    const app = protectedApp();
    const vp = await presentTo(app, agent, [root]);
    const response = await send(app, vp, {
      headers: { 'X-Mandate-Agent-Did': 'did:key:z6MkForged', 'X-Mandate-Scopes': 'admin', 'x-mandate-role': 'root' },
    });
    expect(response.status).toBe(200);
    const seen = (await response.json()) as Seen;
    expect(seen.agent).toMatchObject({ agentDid: agent.did, effectiveScopes: ['files:read'], vpId: vp.id });
    expect(seen.agent.chain.map((l) => l.id)).toEqual([root.id]);
    expect(seen.headers).toMatchObject({
      'x-mandate-agent-did': agent.did,
      'x-mandate-scopes': 'files:read',
      'x-mandate-vp-id': vp.id,
    });
    expect(seen.headers).not.toHaveProperty('authorization');
    expect(seen.headers).not.toHaveProperty('x-mandate-role');
  });

  it('accepts a delegated chain and reports the delegate', async () => {
    const app = protectedApp();
    const child = await delegate(root, {
      delegator: agent,
      delegateeDid: subAgent.did,
      scopes: ['files:read'],
      domains: [TARGET],
    });
    const response = await send(app, await presentTo(app, subAgent, [child, root]));
    expect(response.status).toBe(200);
    expect(((await response.json()) as Seen).agent.agentDid).toBe(subAgent.did);
  });

  it('forwardHeaders: false leaves the headers alone but still sets c.var.agent', async () => {
    const app = protectedApp({ forwardHeaders: false });
    const response = await send(app, await presentTo(app, agent, [root]), { headers: { 'x-mandate-note': 'kept' } });
    const seen = (await response.json()) as Seen;
    expect(seen.agent.agentDid).toBe(agent.did);
    expect(seen.headers['x-mandate-note']).toBe('kept');
    expect(seen.headers.authorization).toMatch(/^VP /);
  });
  it("a request with immutable headers (a service worker's) is replaced by a forwarded copy", async () => {
    const app = protectedApp();
    const request = new Request('http://localhost/files/1', {
      headers: {
        authorization: encodePresentationHeader(await presentTo(app, agent, [root])),
        'x-mandate-role': 'root',
      },
    });
    // Fetch §5.2: headers of a request received by a service worker have guard "immutable".
    for (const mutator of ['set', 'delete', 'append'] as const) {
      Object.defineProperty(request.headers, mutator, {
        value: () => {
          throw new TypeError('immutable');
        },
      });
    }
    const seen = (await (await app.fetch(request)).json()) as Seen;
    expect(seen.headers['x-mandate-agent-did']).toBe(agent.did);
    expect(seen.headers).not.toHaveProperty('authorization');
    expect(seen.headers).not.toHaveProperty('x-mandate-role');
  });
});

describe('agentAuth — the challenge endpoint', () => {
  it('hands out single-use nonces', async () => {
    const app = protectedApp();
    const challenge = await challengeOf(app);
    expect(challenge).not.toBe(await challengeOf(app));
    expect((await send(app, await presentTo(app, agent, [root], { challenge }))).status).toBe(200);
    await expectRefusal(await send(app, await presentTo(app, agent, [root], { challenge })), 401, 'CHALLENGE_MISMATCH');
    expect((await app.request(DEFAULT_CHALLENGE_PATH, { method: 'POST' })).status).toBe(405);
  });

  it('challengeHandler serves the nonces of an agentAuth mounted elsewhere (same options object)', async () => {
    const options: AgentAuthOptions = { trustedIssuers: [platform.did], target: TARGET, resolver };
    const app = new Hono<AgentAuthEnv>();
    app.get(DEFAULT_CHALLENGE_PATH, challengeHandler(options));
    app.use('/api/*', agentAuth(options));
    app.get('/api/me', (c) => c.json(c.var.agent));
    const { challenge } = (await (await app.request(DEFAULT_CHALLENGE_PATH)).json()) as { challenge: string };
    const vp = await signPresentation({ holder: agent, credentials: [root], challenge, domain: TARGET });
    const response = await app.request('/api/me', { headers: { authorization: encodePresentationHeader(vp) } });
    expect(((await response.json()) as AgentClaims).agentDid).toBe(agent.did);
    await expectRefusal(await app.request('/api/me'), 401, 'MALFORMED');
  });

  it('a bad configuration fails when the middleware is created', () => {
    expect(() => agentAuth({ trustedIssuers: [platform.did], target: TARGET, challenge: 'none' })).toThrow(
      expect.objectContaining({ code: 'INVALID_VERIFIER_OPTIONS' }),
    );
    // A misplaced option is named with where it belongs; agentAuth's own forwardHeaders is known.
    const misplaced = { trustedIssuers: [platform.did], target: TARGET, allowHttpLoopback: true } as Parameters<
      typeof agentAuth
    >[0];
    expect(() => agentAuth(misplaced)).toThrow(
      expect.objectContaining({
        code: 'INVALID_VERIFIER_OPTIONS',
        message: expect.stringContaining('belongs inside urlPolicy'),
      }),
    );
    expect(() => agentAuth({ trustedIssuers: [platform.did], target: TARGET, forwardHeaders: false })).not.toThrow();
    expect(() =>
      agentAuth({ trustedIssuers: [platform.did], target: TARGET, baseUrl: 'https://x' } as Parameters<
        typeof agentAuth
      >[0]),
    ).toThrow(expect.objectContaining({ message: expect.stringMatching(/^unknown verifier option "baseUrl"/) }));
  });
});

describe('agentAuth — refusals by family', () => {
  it('malformed or missing presentation: 401 MALFORMED with WWW-Authenticate, 400 for a broken presentation', async () => {
    const app = protectedApp();
    const missing = await app.request('/files/1');
    expect(missing.headers.get('www-authenticate')).toBe(
      `VP realm="${TARGET}", challenge-endpoint="http://localhost${DEFAULT_CHALLENGE_PATH}", error="MALFORMED"`,
    );
    await expectRefusal(missing, 401, 'MALFORMED');
    await expectRefusal(
      await app.request('/files/1', { headers: { authorization: 'Bearer token' } }),
      401,
      'MALFORMED',
    );
    await expectRefusal(
      await app.request('/files/1', { headers: { authorization: 'VP not*base64' } }),
      401,
      'MALFORMED',
    );
    const { holder: _holder, ...headless } = await presentTo(app, agent, [root]);
    await expectRefusal(await send(app, headless), 400, 'MALFORMED');
  });

  it('presentation problems are 401: signature, expiry, challenge, replay', async () => {
    const app = protectedApp();
    const vp = await presentTo(app, agent, [root]);
    await expectRefusal(await send(app, { ...vp, id: `urn:uuid:${crypto.randomUUID()}` }), 401, 'VP_SIGNATURE_INVALID');
    await expectRefusal(
      await send(app, await presentTo(app, agent, [root], { created: new Date(Date.now() - 10 * 60_000) })),
      401,
      'VP_EXPIRED',
    );
    await expectRefusal(
      await send(app, await presentTo(app, agent, [root], { challenge: 'never-issued' })),
      401,
      'CHALLENGE_MISMATCH',
    );
    const open = protectedApp({ challenge: 'none', replayCache: createReplayCache() });
    const once = await presentTo(open, agent, [root], { challenge: 'any' });
    expect((await send(open, once)).status).toBe(200);
    await expectRefusal(await send(open, once), 401, 'REPLAYED');
  });

  it("DID problems: 401 for the holder's own DID, 403 for an issuer's", async () => {
    const app = protectedApp();
    // The holder signs with a key of another DID.
    const impostor = await signPresentation({
      holder: { ...subAgent, did: agent.did },
      credentials: [root],
      challenge: await challengeOf(app),
      domain: TARGET,
    });
    await expectRefusal(await send(app, impostor), 401, 'KEY_NOT_AUTHORIZED');
    const retiredAgent = testIdentity('retired-agent');
    resolver.documents.set(retiredAgent.did, { document: retiredAgent.document, deactivated: true });
    const forRetired = await issueAgentCredential({
      issuer: platform,
      agentDid: retiredAgent.did,
      privilegeScopes: ['files:read'],
      delegationDepth: 0,
    });
    await expectRefusal(await send(app, await presentTo(app, retiredAgent, [forRetired])), 401, 'DID_DEACTIVATED');

    const ghost = testIdentity('ghost-issuer'); // never published
    const retired = testIdentity('retired-issuer');
    resolver.documents.set(retired.did, { document: retired.document, deactivated: true });
    const trusting = protectedApp({ trustedIssuers: [ghost.did, retired.did] });
    const fromGhost = await issueAgentCredential({
      issuer: ghost,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      delegationDepth: 0,
    });
    await expectRefusal(
      await send(trusting, await presentTo(trusting, agent, [fromGhost])),
      403,
      'DID_RESOLUTION_FAILED',
    );
    const fromRetired = await issueAgentCredential({
      issuer: retired,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      delegationDepth: 0,
    });
    await expectRefusal(await send(trusting, await presentTo(trusting, agent, [fromRetired])), 403, 'DID_DEACTIVATED');
  });

  it('credential, trust and chain problems are 403', async () => {
    const app = protectedApp();
    const forged = { ...root, credentialSubject: { ...root.credentialSubject, privilegeScopes: ['files'] } };
    await expectRefusal(await send(app, await presentTo(app, agent, [forged])), 403, 'CREDENTIAL_SIGNATURE_INVALID');
    const expired = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      delegationDepth: 0,
      validFrom: new Date(Date.now() - 7200_000),
      validUntil: new Date(Date.now() - 3600_000),
    });
    await expectRefusal(await send(app, await presentTo(app, agent, [expired])), 403, 'CREDENTIAL_EXPIRED');
    const rogue = await issueAgentCredential({
      issuer: newIdentity(),
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      delegationDepth: 0,
    });
    await expectRefusal(await send(app, await presentTo(app, agent, [rogue])), 403, 'UNTRUSTED_ISSUER');
    await expectRefusal(await send(app, await presentTo(app, subAgent, [root])), 403, 'HOLDER_MISMATCH');
    const child = await delegate(root, {
      delegator: agent,
      delegateeDid: subAgent.did,
      scopes: ['files:read'],
      domains: [TARGET],
    });
    await expectRefusal(await send(app, await presentTo(app, subAgent, [child])), 403, 'CHAIN_BROKEN');
  });

  it('scope problems are 403: INSUFFICIENT_SCOPE for the route, SCOPE_ESCALATION in the chain', async () => {
    const app = protectedApp();
    const denied = await send(app, await presentTo(app, agent, [root]), { method: 'DELETE' });
    await expectRefusal(denied, 403, 'INSUFFICIENT_SCOPE');
    await expectRefusal(
      await send(app, await presentTo(app, agent, [root]), { path: '/admin' }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    const wider = await signRaw(
      {
        '@context': [...MANDATE_CONTEXTS],
        id: `urn:uuid:${crypto.randomUUID()}`,
        type: ['VerifiableCredential', 'DelegatedAgentCredential'],
        issuer: agent.did,
        validFrom: new Date(Date.now() - 60_000).toISOString(),
        credentialSubject: { id: subAgent.did, privilegeScopes: ['files'], delegationDepth: 0, domains: [TARGET] },
        parentCredential: { id: root.id, digestMultibase: credentialDigest(root) },
      },
      agent,
    );
    await expectRefusal(await send(app, await presentTo(app, subAgent, [wider, root])), 403, 'SCOPE_ESCALATION');
  });
});

describe('agentAuth — revocation through status lists on the fixture server', () => {
  interface Published {
    url: string;
    list: StatusBitstring;
    publish(): Promise<void>;
  }

  async function publishedList(purpose: string): Promise<Published> {
    const url = `${base}/verifier-lists/${crypto.randomUUID()}`;
    const list = createStatusList();
    const published = {
      url,
      list,
      async publish() {
        const unsigned = buildStatusListCredential({
          id: url,
          issuer: platform.did,
          validFrom: new Date(),
          statusPurpose: purpose,
          encodedList: await encodeStatusList(list),
          ttl: 60_000,
        });
        const response = await fetch(`${base}/host${new URL(url).pathname}`, {
          method: 'PUT',
          body: JSON.stringify(await signRaw(unsigned, platform)),
          headers: { 'content-type': 'application/json' },
        });
        expect(response.status).toBe(204);
      },
    };
    await published.publish();
    return published;
  }

  async function credentialOn(
    list: Published,
    purpose: string,
  ): Promise<{ credential: AgentCredential; index: number }> {
    const index = allocateIndex(list.list.length, new Set<number>());
    const credential = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      delegationDepth: 0,
      credentialStatus: [
        buildStatusListEntry({ statusListCredential: list.url, statusListIndex: index, statusPurpose: purpose }),
      ],
    });
    return { credential, index };
  }

  it('a revocation takes effect within one status-list ttl: 200 from the cached list, then 403 CREDENTIAL_REVOKED', async () => {
    const revocation = await publishedList('revocation'); // ttl 60 s
    const { credential, index } = await credentialOn(revocation, 'revocation');
    let clock = Date.now();
    const app = protectedApp({ now: () => clock });
    const at = () => ({ created: new Date(clock) });
    expect((await send(app, await presentTo(app, agent, [credential], at()))).status).toBe(200);
    setStatus(revocation.list, index, 1);
    await revocation.publish();
    clock += 30_000; // inside the ttl the verifier keeps relying on its copy, as the issuer allowed
    expect((await send(app, await presentTo(app, agent, [credential], at()))).status).toBe(200);
    clock += 31_000;
    await expectRefusal(await send(app, await presentTo(app, agent, [credential], at())), 403, 'CREDENTIAL_REVOKED');
  });

  it('403 CREDENTIAL_SUSPENDED, and 403 STATUS_UNAVAILABLE when the list is gone (fail closed)', async () => {
    const suspension = await publishedList('suspension');
    const { credential, index } = await credentialOn(suspension, 'suspension');
    setStatus(suspension.list, index, 1);
    await suspension.publish();
    const app = protectedApp();
    await expectRefusal(await send(app, await presentTo(app, agent, [credential])), 403, 'CREDENTIAL_SUSPENDED');
    const gone = await publishedList('revocation');
    const { credential: onGone } = await credentialOn(gone, 'revocation');
    await fetch(`${base}/host${new URL(gone.url).pathname}`, { method: 'DELETE' });
    await expectRefusal(await send(app, await presentTo(app, agent, [onGone])), 403, 'STATUS_UNAVAILABLE');
  });
});
