// verifyRequest, the framework-neutral core of mandate/verifier, in Node and in Chromium (the
// service worker runs the same code): the Authorization wire format, the three challenge modes,
// per-path scopes, the status of every refusal, forwarding claims, and configuration errors.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createStatusList } from '../../wallet/status/bitstring.ts';
import { buildStatusListCredential, buildStatusListEntry } from '../../wallet/status/credential.ts';
import { encodeStatusList } from '../../wallet/status/encoded-list.ts';
import { issueAgentCredential } from '../../wallet/vc/agent-credential.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import { createReplayCache } from '../../wallet/vc/replay-cache.ts';
import type { AgentCredential, VerifiablePresentation } from '../../wallet/vc/types.ts';
import {
  CHALLENGE_HEADER,
  DEFAULT_CHALLENGE_PATH,
  createChallengeStore,
  decodePresentationHeader,
  denialResponse,
  denialStatus,
  encodePresentationHeader,
  forwardClaims,
  handleChallengeRequest,
  issueChallenge,
  matchesPathPattern,
  pathSegments,
  prepareVerifier,
  requestMethods,
  verifyRequest,
  type AgentClaims,
  type RequestVerdict,
  type VerifyRequestOptions,
} from '../../verifier-worker/request.ts';
import { newIdentity, signRaw, testResolver, type TestResolver } from '../support/agents.ts';

const TARGET = 'files.example.com';
const API = 'https://api.example.com';

let platform: SigningIdentity;
let agent: SigningIdentity;
let resolver: TestResolver;
let credential: AgentCredential;

beforeAll(async () => {
  platform = newIdentity();
  agent = newIdentity();
  resolver = testResolver();
  credential = await issueAgentCredential({
    issuer: platform,
    agentDid: agent.did,
    privilegeScopes: ['files:read', 'files:write:drafts'],
    delegationDepth: 0,
    domains: [TARGET],
  });
});

function verifier(extra: Partial<VerifyRequestOptions> = {}): VerifyRequestOptions {
  return { trustedIssuers: [platform.did], target: TARGET, resolver, ...extra };
}

function present(
  challenge: string,
  extra: { domain?: string; holder?: SigningIdentity } = {},
): Promise<VerifiablePresentation> {
  return signPresentation({
    holder: extra.holder ?? agent,
    credentials: [credential],
    challenge,
    domain: extra.domain ?? TARGET,
  });
}

function requestWith(
  authorization: string | undefined,
  init: { path?: string; method?: string; headers?: Record<string, string> } = {},
): Request {
  const headers = new Headers(init.headers);
  if (authorization !== undefined) headers.set('authorization', authorization);
  return new Request(API + (init.path ?? '/files/1'), { method: init.method ?? 'GET', headers });
}

async function presentedRequest(
  options: VerifyRequestOptions,
  init: Parameters<typeof requestWith>[1] = {},
): Promise<Request> {
  const { challenge } = await issueChallenge(options);
  return requestWith(encodePresentationHeader(await present(challenge)), init);
}

function expectDenied(
  verdict: RequestVerdict,
  status: number,
  reason: string,
): asserts verdict is Extract<RequestVerdict, { allowed: false }> {
  if (verdict.allowed) throw new Error(`expected ${status} ${reason}, but the request was allowed`);
  expect({ status: verdict.status, reason: verdict.body.reason }).toEqual({ status, reason });
  expect(verdict.body.valid).toBe(false);
  expect(verdict.body.message.length).toBeGreaterThan(0);
}

describe('the Authorization header', () => {
  it('round-trips a presentation as VP <base64url JSON> without padding', async () => {
    const vp = await present('c');
    const header = encodePresentationHeader(vp);
    expect(header).toMatch(/^VP [A-Za-z0-9_-]+$/);
    expect(decodePresentationHeader(header)).toEqual(vp);
    // RFC 9110 §11.1: the scheme is case-insensitive.
    expect(decodePresentationHeader(header.replace(/^VP/, 'vp'))).toEqual(vp);
  });

  it('names each way a header can be unusable with its own code', () => {
    const json = (text: string) => `VP ${btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
    const cases: Array<[string | null, string]> = [
      [null, 'AUTHORIZATION_MISSING'],
      ['  ', 'AUTHORIZATION_MISSING'],
      ['Bearer abc', 'AUTHORIZATION_SCHEME'],
      ['VPX abc', 'AUTHORIZATION_SCHEME'],
      ['VP', 'AUTHORIZATION_ENCODING'],
      ['VP abc+def', 'AUTHORIZATION_ENCODING'],
      ['VP eyJhIjoxfQ==', 'AUTHORIZATION_ENCODING'], // padding is not base64url-without-padding
      ['VP eB', 'AUTHORIZATION_ENCODING'], // non-canonical: stray bits
      [json('{"a":"' + 'x'.repeat(200) + '"}'), 'PRESENTATION_TOO_LARGE'],
      [json('{"a":'), 'PRESENTATION_NOT_JSON'],
      ['VP _w', 'PRESENTATION_NOT_JSON'], // 0xFF is not UTF-8
    ];
    for (const [value, code] of cases) {
      expect(() => decodePresentationHeader(value, 128), String(value)).toThrow(expect.objectContaining({ code }));
    }
    // The length bound applies before decoding: a huge token is refused without being decoded.
    expect(() => decodePresentationHeader(`VP ${'A'.repeat(1_000_000)}`, 128)).toThrow(
      expect.objectContaining({ code: 'PRESENTATION_TOO_LARGE' }),
    );
  });
});

describe('verifyRequest — challenge endpoint mode (default)', () => {
  it('allows a presentation answering an issued nonce and returns the claims', async () => {
    const options = verifier({ requiredScopes: ['files:read'] });
    const verdict = await verifyRequest(await presentedRequest(options), options);
    if (!verdict.allowed) throw new Error(verdict.body.message);
    expect(verdict.claims).toMatchObject({
      agentDid: agent.did,
      effectiveScopes: ['files:read', 'files:write:drafts'],
      privilegeScopes: ['files:read', 'files:write:drafts'],
    });
    expect(verdict.claims.vpId).toMatch(/^urn:uuid:/);
    expect(verdict.claims.chain).toEqual([expect.objectContaining({ id: credential.id, issuer: platform.did })]);
    expect(verdict.checks.every((c) => c.ok)).toBe(true);
  });

  it('uses the options as they were at first use: later edits of the object change nothing', async () => {
    const trustedIssuers = [platform.did];
    const options = verifier({ trustedIssuers });
    prepareVerifier(options);
    trustedIssuers.length = 0;
    expect((await verifyRequest(await presentedRequest(options), options)).allowed).toBe(true);
  });

  it('401 MALFORMED with WWW-Authenticate pointing at the challenge endpoint when nothing is presented', async () => {
    const verdict = await verifyRequest(requestWith(undefined), verifier());
    expectDenied(verdict, 401, 'MALFORMED');
    expect(verdict.headers['WWW-Authenticate']).toBe(
      `VP realm="${TARGET}", challenge-endpoint="${API}${DEFAULT_CHALLENGE_PATH}", error="MALFORMED"`,
    );
    expectDenied(await verifyRequest(requestWith('Bearer abc'), verifier()), 401, 'MALFORMED');
    expectDenied(await verifyRequest(requestWith('VP $$$'), verifier()), 401, 'MALFORMED');
  });

  it('400 MALFORMED for a presentation naming one member twice (I-JSON): it would read two ways', async () => {
    const options = verifier();
    const vp = await present((await issueChallenge(options)).challenge);
    const text = `{"holder":"did:key:z6MkOther",${JSON.stringify(vp).slice(1)}`;
    const token = `VP ${btoa(text).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')}`;
    const verdict = await verifyRequest(requestWith(token), options);
    expectDenied(verdict, 400, 'MALFORMED');
    expect(verdict.body.message).toContain('JSON_DUPLICATE_NAME');
  });

  it('400 MALFORMED when the presentation is too large or not JSON', async () => {
    const options = verifier({ maxPresentationBytes: 1024 });
    const big = await verifyRequest(await presentedRequest(options), options);
    expectDenied(big, 400, 'MALFORMED');
    expect(big.headers).toEqual({});
    expectDenied(await verifyRequest(requestWith('VP e2E6'), verifier()), 400, 'MALFORMED'); // "{a:"
  });

  it('a nonce is single-use: the second presentation answering it is 401 CHALLENGE_MISMATCH', async () => {
    const options = verifier();
    const { challenge } = await issueChallenge(options);
    expect(
      (await verifyRequest(requestWith(encodePresentationHeader(await present(challenge))), options)).allowed,
    ).toBe(true);
    expectDenied(
      await verifyRequest(requestWith(encodePresentationHeader(await present(challenge))), options),
      401,
      'CHALLENGE_MISMATCH',
    );
  });

  it('401 CHALLENGE_MISMATCH for a nonce never issued, issued by another verifier, or expired', async () => {
    expectDenied(
      await verifyRequest(requestWith(encodePresentationHeader(await present('made-up'))), verifier()),
      401,
      'CHALLENGE_MISMATCH',
    );
    const other = verifier();
    const { challenge } = await issueChallenge(other);
    expectDenied(
      await verifyRequest(requestWith(encodePresentationHeader(await present(challenge))), verifier()),
      401,
      'CHALLENGE_MISMATCH',
    );

    let clock = Date.now();
    const now = () => clock;
    const options = verifier({ now, challenges: createChallengeStore({ ttlMs: 60_000, now }) });
    const late = await issueChallenge(options);
    expect(Date.parse(late.expiresAt)).toBe(clock + 60_000);
    clock += 61_000;
    expectDenied(
      await verifyRequest(requestWith(encodePresentationHeader(await present(late.challenge))), options),
      401,
      'CHALLENGE_MISMATCH',
    );
  });

  it('the challenge endpoint answers GET with a 128-bit nonce, refuses other methods, ignores other paths', async () => {
    const options = verifier();
    const response = await handleChallengeRequest(new Request(API + DEFAULT_CHALLENGE_PATH), options);
    expect(response?.status).toBe(200);
    expect(response?.headers.get('cache-control')).toBe('no-store');
    const body = (await response?.json()) as { challenge: string; expiresAt: string };
    expect(body.challenge).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Date.parse(body.expiresAt)).toBeGreaterThan(Date.now());
    expect(
      (await handleChallengeRequest(new Request(API + DEFAULT_CHALLENGE_PATH, { method: 'POST' }), options))?.status,
    ).toBe(405);
    expect(await handleChallengeRequest(new Request(API + '/files'), options)).toBeUndefined();
    const custom = verifier({ challengePath: '/auth/nonce' });
    expect((await handleChallengeRequest(new Request(API + '/auth/nonce'), custom))?.status).toBe(200);
    expect(
      await handleChallengeRequest(
        new Request(API + '/auth/nonce'),
        verifier({ challenge: 'none', replayCache: createReplayCache() }),
      ),
    ).toBeUndefined();
  });
});

describe('verifyRequest — request and none modes', () => {
  it("'request': the challenge is the X-Mandate-Challenge header, made single-use by the replay cache", async () => {
    const options = verifier({ challenge: 'request', replayCache: createReplayCache() });
    const vp = await present('client-chosen-1');
    const header = encodePresentationHeader(vp);
    expect(
      (await verifyRequest(requestWith(header, { headers: { [CHALLENGE_HEADER]: 'client-chosen-1' } }), options))
        .allowed,
    ).toBe(true);
    expectDenied(
      await verifyRequest(requestWith(header, { headers: { [CHALLENGE_HEADER]: 'client-chosen-1' } }), options),
      401,
      'REPLAYED',
    );
    const other = encodePresentationHeader(await present('client-chosen-2'));
    expectDenied(
      await verifyRequest(requestWith(other, { headers: { [CHALLENGE_HEADER]: 'something-else' } }), options),
      401,
      'CHALLENGE_MISMATCH',
    );
    const missing = await verifyRequest(requestWith(other), options);
    expectDenied(missing, 401, 'CHALLENGE_MISMATCH');
    expect(missing.headers['WWW-Authenticate']).toBe(
      `VP realm="${TARGET}", challenge-header="${CHALLENGE_HEADER}", error="CHALLENGE_MISMATCH"`,
    );
  });

  it("'none': any challenge, each presentation once", async () => {
    const options = verifier({ challenge: 'none', replayCache: createReplayCache() });
    const header = encodePresentationHeader(await present('whatever'));
    expect((await verifyRequest(requestWith(header), options)).allowed).toBe(true);
    const replay = await verifyRequest(requestWith(header), options);
    expectDenied(replay, 401, 'REPLAYED');
    expect(replay.headers['WWW-Authenticate']).toBe(`VP realm="${TARGET}", error="REPLAYED"`);
    // Decodes as JSON but is no presentation: the verifier's own MALFORMED, 400.
    expectDenied(
      await verifyRequest(requestWith(encodePresentationHeader({ type: 'nope' })), options),
      400,
      'MALFORMED',
    );
  });
});

describe('verifyRequest — one presentation, many requests at once', () => {
  it('of 20 concurrent requests carrying the same presentation exactly one is allowed, in every challenge mode', async () => {
    const modes = {
      endpoint: async () => {
        const options = verifier();
        const { challenge } = await issueChallenge(options);
        return { options, header: encodePresentationHeader(await present(challenge)), headers: {} };
      },
      request: async () => {
        const options = verifier({ challenge: 'request', replayCache: createReplayCache() });
        return {
          options,
          header: encodePresentationHeader(await present('client-1')),
          headers: { [CHALLENGE_HEADER]: 'client-1' },
        };
      },
      none: async () => {
        const options = verifier({ challenge: 'none', replayCache: createReplayCache() });
        return { options, header: encodePresentationHeader(await present('any')), headers: {} };
      },
    };
    for (const [mode, setup] of Object.entries(modes)) {
      const { options, header, headers } = await setup();
      const verdicts = await Promise.all(
        Array.from({ length: 20 }, () => verifyRequest(requestWith(header, { headers }), options)),
      );
      expect(
        verdicts.filter((v) => v.allowed),
        mode,
      ).toHaveLength(1);
      for (const denied of verdicts.filter((v) => !v.allowed)) {
        expect(denied.allowed ? '' : `${denied.status} ${denied.body.reason}`, mode).toBe(
          mode === 'endpoint' ? '401 CHALLENGE_MISMATCH' : '401 REPLAYED',
        );
      }
    }
  });
});

describe('verifyRequest — status of refusals', () => {
  it('401 when the presentation itself fails, 403 when its authority does', async () => {
    const options = () => verifier({ challenge: 'none', replayCache: createReplayCache() });
    // The proof names another service: present again, for this one.
    expectDenied(
      await verifyRequest(
        requestWith(encodePresentationHeader(await present('a', { domain: 'evil.example.com' }))),
        options(),
      ),
      401,
      'TARGET_MISMATCH',
    );
    // This service is not among the credential's domains: no presentation of it will do.
    const elsewhere = await signPresentation({
      holder: agent,
      credentials: [credential],
      challenge: 'b',
      domain: 'mail.example.com',
    });
    expectDenied(
      await verifyRequest(requestWith(encodePresentationHeader(elsewhere)), {
        ...options(),
        target: 'mail.example.com',
      }),
      403,
      'TARGET_MISMATCH',
    );
    expectDenied(
      await verifyRequest(requestWith(encodePresentationHeader(await present('c'))), {
        ...options(),
        trustedIssuers: [],
      }),
      403,
      'UNTRUSTED_ISSUER',
    );
    expect([
      denialStatus('MALFORMED', 'chain'),
      denialStatus('VP_EXPIRED', 'presentation'),
      denialStatus('REPLAYED', 'replay'),
      denialStatus('DID_RESOLUTION_FAILED', 'dids'),
    ]).toEqual([400, 401, 401, 403]);
  });

  it('denialResponse carries the JSON body, no-store and WWW-Authenticate — never the presentation', async () => {
    const vp = await present('never-issued');
    const header = encodePresentationHeader(vp);
    const verdict = await verifyRequest(requestWith(header), verifier());
    expectDenied(verdict, 401, 'CHALLENGE_MISMATCH');
    const response = denialResponse(verdict);
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('www-authenticate')).toContain('error="CHALLENGE_MISMATCH"');
    const text = await response.text();
    expect(JSON.parse(text)).toEqual(verdict.body);
    const proofValue = (vp.proof as { proofValue: string }).proofValue;
    for (const secret of [header.slice(3), proofValue, 'never-issued'])
      expect(text + JSON.stringify(verdict)).not.toContain(secret);
  });
});

describe('verifyRequest — required scopes', () => {
  const table = [
    { method: 'GET', path: '/files/:id', scopes: ['files:read'] },
    { method: ['PUT', 'DELETE'], path: '/files/:id', scopes: ['files:write'] },
    { path: '/drafts/*', scopes: ['files:write:drafts'] },
    { path: '/health', scopes: [] },
  ];

  async function judge(
    path: string,
    method = 'GET',
    extra: Partial<VerifyRequestOptions> = {},
    headers: Record<string, string> = {},
  ): Promise<RequestVerdict> {
    const options = verifier({ challenge: 'none', replayCache: createReplayCache(), requiredScopes: table, ...extra });
    return verifyRequest(
      requestWith(encodePresentationHeader(await present(crypto.randomUUID())), { path, method, headers }),
      options,
    );
  }

  it('a method override counts: the rules of every method the application may run apply', async () => {
    // Express's method-override, ASP.NET and Laravel run a GET/POST as the method these name.
    for (const [path, headers] of [
      ['/files/1', { 'X-HTTP-Method-Override': 'DELETE' }],
      ['/files/1', { 'X-HTTP-Method': 'put' }],
      ['/files/1', { 'X-Method-Override': 'GET, DELETE' }],
      ['/files/1?_method=DELETE', {}],
    ] as const) {
      const denied = await judge(path, 'GET', {}, headers);
      expectDenied(denied, 403, 'INSUFFICIENT_SCOPE'); // DELETE and PUT need files:write, which the agent lacks
      expect(denied.body.message, path).toMatch(/files:write|no scope rule allows GET and (DELETE|PUT)/);
    }
    expect((await judge('/files/1', 'GET', {}, { 'X-HTTP-Method-Override': 'GET' })).allowed).toBe(true);
    expect((await judge('/health', 'GET', {}, { 'X-HTTP-Method-Override': 'DELETE' })).allowed).toBe(true); // any method of /health
    const garbled = await judge('/files/1', 'GET', {}, { 'X-HTTP-Method-Override': 'DEL ETE' });
    expectDenied(garbled, 403, 'INSUFFICIENT_SCOPE');
    expect(garbled.body.message).toContain('method override');
    expect(
      requestMethods(
        new Request(`${API}/x?_method=patch`, { method: 'POST', headers: { 'x-http-method-override': 'delete' } }),
      ),
    ).toEqual(['POST', 'PATCH', 'DELETE']);
    // The spellings lenient gateways read as the same override: `_` in header names (CGI),
    // and query keys as PHP reads them (`.`, ' ' and `[` become `_`; arrays; any case).
    const methodsOf = (query: string, headers: Record<string, string> = {}) =>
      requestMethods(new Request(`${API}/x${query}`, { method: 'POST', headers }));
    expect(methodsOf('', { X_HTTP_Method_Override: 'DELETE' })).toEqual(['POST', 'DELETE']);
    expect(methodsOf('', { 'x_method-override': 'put' })).toEqual(['POST', 'PUT']);
    for (const query of ['?.method=DELETE', '?_method[]=DELETE', '?_Method=DELETE', '?[method=DELETE']) {
      expect(methodsOf(query), query).toEqual(['POST', 'DELETE']);
    }
    expect(methodsOf('?_methodology=x&method=DELETE')).toEqual(['POST']); // other parameters are not overrides
    expectDenied(await judge('/files/1', 'GET', {}, { X_HTTP_Method_Override: 'DELETE' }), 403, 'INSUFFICIENT_SCOPE');
    expectDenied(await judge('/files/1?.method=DELETE'), 403, 'INSUFFICIENT_SCOPE');
  });

  it('a presentation refused for its path has spent its nonce: it is dead on every other path too', async () => {
    const options = verifier({ requiredScopes: table });
    const { challenge } = await issueChallenge(options);
    const header = encodePresentationHeader(await present(challenge));
    expectDenied(await verifyRequest(requestWith(header, { path: '/admin' }), options), 403, 'INSUFFICIENT_SCOPE');
    expectDenied(await verifyRequest(requestWith(header, { path: '/files/1' }), options), 401, 'CHALLENGE_MISMATCH');
  });

  it('the first rule matching method and path applies', async () => {
    expect((await judge('/files/42')).allowed).toBe(true);
    expect((await judge('/files/42', 'HEAD')).allowed).toBe(true); // a GET rule covers HEAD
    expectDenied(await judge('/files/42', 'DELETE'), 403, 'INSUFFICIENT_SCOPE');
    expect((await judge('/drafts')).allowed).toBe(true);
    expect((await judge('/drafts/a/b', 'POST')).allowed).toBe(true);
    expect((await judge('/health')).allowed).toBe(true);
  });

  it('a path no rule matches is refused, however it is spelled', async () => {
    const unmatched = await judge('/admin');
    expectDenied(unmatched, 403, 'INSUFFICIENT_SCOPE');
    expect(unmatched.body.message).toContain('GET /admin');
    // Case, doubled slashes, trailing slash and percent-encoding do not dodge the DELETE rule.
    for (const path of ['/FILES/42', '//files//42/', '/%66iles/42']) {
      expect((await judge(path)).allowed, path).toBe(true);
      const denied = await judge(path, 'DELETE');
      expectDenied(denied, 403, 'INSUFFICIENT_SCOPE');
      expect(denied.body.message).toContain('files:write'); // the DELETE rule's scope, not "no rule"
    }
    expectDenied(await judge('/files/%E0%A4%A'), 403, 'INSUFFICIENT_SCOPE');
  });

  it('refuses paths that routers read differently: encoded slashes, ";" parameters, encoded dot segments', async () => {
    const guarded = [
      { path: '/api/admin/*', scopes: ['admin:write'] },
      { path: '/*', scopes: [] },
    ];
    const judgeGuarded = (path: string) => judge(path, 'GET', { requiredScopes: guarded });
    expect((await judgeGuarded('/api/public/x')).allowed).toBe(true);
    expectDenied(await judgeGuarded('/api/admin/x'), 403, 'INSUFFICIENT_SCOPE');
    // Each of these is /api/admin/x to some backend (a decoding router, a servlet container, a
    // router that resolves dot segments); none may fall through to the open `/*` rule.
    for (const path of [
      '/api%2Fadmin/x',
      '/api%5Cadmin/x',
      '/api/admin;jsessionid=1/x',
      '/api/admin%3B/x',
      '/api/x/%2e%2e/admin/y',
      '/api/%2E/admin/x',
    ]) {
      expectDenied(await judgeGuarded(path), 403, 'INSUFFICIENT_SCOPE');
    }
    expect(() => prepareVerifier(verifier({ requiredScopes: [{ path: '/api/a;b', scopes: [] }] }))).toThrow(
      expect.objectContaining({ code: 'INVALID_VERIFIER_OPTIONS' }),
    );
  });

  it('no spelling of a guarded path falls through to an open rule, whichever way a router reads it (property)', async () => {
    const guarded = [
      { path: '/api/admin/*', scopes: ['admin:write'] },
      { path: '/*', scopes: [] },
    ];
    const options = verifier({ challenge: 'none', replayCache: createReplayCache(), requiredScopes: guarded });
    const vp = await present(crypto.randomUUID());
    const token = encodePresentationHeader(vp);
    // How the routers behind a guard may read a path: decoded once or twice, "\\" as "/",
    // ";" parameters dropped, dot segments resolved, case folded, a NUL ending the string.
    const readings = (path: string): string[][] => {
      const decoded: string[] = [];
      let current = path;
      for (let i = 0; i < 2; i++) {
        try {
          current = decodeURIComponent(current);
        } catch {
          break;
        }
        decoded.push(current);
      }
      return decoded.map((text) => {
        const out: string[] = [];
        for (const raw of text.split('\u0000')[0]!.split(/[/\\]/)) {
          const segment = raw.split(';')[0]!.toLowerCase();
          if (segment === '' || segment === '.') continue;
          if (segment === '..') out.pop();
          else out.push(segment);
        }
        return out;
      });
    };
    const piece = fc.constantFrom(
      'api',
      'API',
      'admin',
      'Admin',
      '%61dmin',
      'x',
      '.',
      '..',
      '%2e',
      '%2E%2E',
      ';p=1',
      'admin;x',
      '%3B',
      '%2F',
      '%2f',
      '%5C',
      '%252F',
      '%252e%252e',
      'admin%00',
      '%00',
      '%20',
      'admin%2500',
    );
    const pathOf = fc
      .array(
        fc.array(piece, { minLength: 1, maxLength: 2 }).map((parts) => parts.join('')),
        { minLength: 1, maxLength: 5 },
      )
      .map((segments) => `/${segments.join('/')}`);
    await fc.assert(
      fc.asyncProperty(pathOf, async (path) => {
        const url = new URL(API + path); // the path as the guard receives it (dot segments already resolved by the URL parser)
        const reachesAdmin = readings(url.pathname).some(
          (segments) => segments[0] === 'api' && segments[1] === 'admin',
        );
        fc.pre(reachesAdmin);
        const verdict = await verifyRequest(new Request(url, { headers: { authorization: token } }), {
          ...options,
          replayCache: createReplayCache(),
        });
        expect(verdict.allowed, `${path} → ${url.pathname}`).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it("pathSegments and matchesPathPattern expose the table's reading of paths to other code", () => {
    expect(pathSegments('/API//Files/%66oo/')).toEqual(['api', 'files', 'foo']);
    expect(pathSegments('/a/%E0%A4%A')).toBeUndefined();
    for (const ambiguous of [
      '/api%2Fadmin',
      '/a%5Cb',
      '/admin;x=1',
      '/a/%2e%2e/b',
      '/a/%2E',
      '/admin%00.json',
      '/a%09b',
      '/admin%2500',
      '/api%252Fadmin',
    ]) {
      expect(pathSegments(ambiguous), ambiguous).toBeUndefined();
    }
    expect(pathSegments('/reports/100%25')).toEqual(['reports', '100%']); // a literal % is plain
    expect(pathSegments('/a.b/.../c')).toEqual(['a.b', '...', 'c']);
    const at = (path: string) => pathSegments(path) ?? [];
    expect(matchesPathPattern('/files/:id', at('/FILES/42'))).toBe(true);
    expect(matchesPathPattern('/files/*', at('/files'))).toBe(true);
    expect(matchesPathPattern('/files/*', at('/filesystem/x'))).toBe(false);
    expect(matchesPathPattern('files', at('/files'))).toBe(false); // an invalid pattern matches nothing
  });

  it('a function of the request decides the scopes', async () => {
    const requiredScopes = (request: Request) => (request.method === 'GET' ? ['files:read'] : ['files:write']);
    expect((await judge('/x', 'GET', { requiredScopes })).allowed).toBe(true);
    expectDenied(await judge('/x', 'POST', { requiredScopes }), 403, 'INSUFFICIENT_SCOPE');
    await expect(judge('/x', 'GET', { requiredScopes: () => ['Files'] })).rejects.toMatchObject({
      code: 'INVALID_VERIFIER_OPTIONS',
    });
  });
});

describe('forwardClaims', () => {
  const claims: AgentClaims = {
    agentDid: 'did:key:z6MkAgent',
    effectiveScopes: ['files:read', 'files:write'],
    privilegeScopes: ['files'],
    vpId: 'urn:uuid:1',
    chain: [],
  };

  it('drops the presentation and every client-sent X-Mandate-* header, then sets the claims', async () => {
    const incoming = new Request(API + '/files', {
      method: 'POST',
      body: 'payload',
      // X_Mandate_…: a CGI-style gateway (PHP, Django, Rack) would read it as X-Mandate-….
      headers: {
        authorization: 'VP abc',
        'x-mandate-agent-did': 'did:key:z6MkForged',
        'X-Mandate-Admin': 'yes',
        X_Mandate_Scopes: 'admin',
        'x-MANDATE_vp-id': 'u',
        'content-type': 'text/plain',
      },
    });
    const forwarded = forwardClaims(incoming, claims);
    expect(Object.fromEntries(forwarded.headers)).toEqual({
      'content-type': 'text/plain',
      'x-mandate-agent-did': 'did:key:z6MkAgent',
      'x-mandate-scopes': 'files:read files:write',
      'x-mandate-vp-id': 'urn:uuid:1',
    });
    expect(forwarded.method).toBe('POST');
    expect(forwarded.url).toBe(API + '/files');
    expect(await forwarded.text()).toBe('payload');
  });
});

describe('verifyRequest — verifyPresentation options passed through', () => {
  it('requireCredentialStatus and maxPresentationLifetimeMs apply to requests (the credential has no status entry; presentations live 5 minutes)', async () => {
    const plain = verifier();
    expect((await verifyRequest(await presentedRequest(plain), plain)).allowed).toBe(true);
    const strict = verifier({ requireCredentialStatus: true });
    expectDenied(await verifyRequest(await presentedRequest(strict), strict), 403, 'STATUS_UNAVAILABLE');
    const brief = verifier({ maxPresentationLifetimeMs: 60_000 });
    expectDenied(await verifyRequest(await presentedRequest(brief), brief), 401, 'VP_EXPIRED');
    expect(() => prepareVerifier(verifier({ maxPresentationLifetimeMs: -1 }))).toThrow(
      expect.objectContaining({ code: 'INVALID_VERIFIER_OPTIONS' }),
    );
  });

  it('clockSkewMs reaches the default status client: a list signed by a clock 2 minutes ahead passes a 3-minute skew only', async () => {
    const url = 'https://status.example.com/lists/ahead';
    const list = await signRaw(
      buildStatusListCredential({
        id: url,
        issuer: platform.did,
        validFrom: new Date(Date.now() + 120_000),
        statusPurpose: 'revocation',
        encodedList: await encodeStatusList(createStatusList()),
      }),
      platform,
    );
    const onList = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      delegationDepth: 0,
      domains: [TARGET],
      credentialStatus: [
        buildStatusListEntry({ statusListCredential: url, statusListIndex: 7, statusPurpose: 'revocation' }),
      ] as never,
    });
    const fetch = async () => new Response(JSON.stringify(list), { headers: { 'content-type': 'application/vc' } });
    const request = async (options: VerifyRequestOptions) => {
      const { challenge } = await issueChallenge(options);
      return requestWith(
        encodePresentationHeader(
          await signPresentation({ holder: agent, credentials: [onList], challenge, domain: TARGET }),
        ),
      );
    };
    const tolerant = verifier({ fetch, clockSkewMs: 180_000 });
    expect((await verifyRequest(await request(tolerant), tolerant)).allowed).toBe(true);
    const strict = verifier({ fetch });
    expectDenied(await verifyRequest(await request(strict), strict), 403, 'STATUS_UNAVAILABLE');
  });
});

describe('configuration errors (INVALID_VERIFIER_OPTIONS)', () => {
  it('refuses what cannot be safe or cannot work, at setup', async () => {
    const bad: Array<Partial<VerifyRequestOptions> | Record<string, unknown>> = [
      { challenge: 'request' }, // no replay cache: nothing would make the challenge single-use
      { challenge: 'none' },
      { challenge: 'sometimes' },
      { target: '' },
      { target: 'files"example' },
      { trustedIssuers: ['https://issuer.example.com'] },
      { trustedGrantIssuers: 'did:key:z6Mk' },
      { requiredScopes: ['Files:Read'] },
      { requiredScopes: [{ path: 'files', scopes: [] }] },
      { requiredScopes: [{ path: '/a/*/b', scopes: [] }] },
      { requiredScopes: [{ path: '/a/%zz', scopes: [] }] },
      { requiredScopes: [{ method: 'GET POST', path: '/a', scopes: [] }] },
      { requiredScopes: [{ path: '/a', scopes: ['a b'] }] },
      { requiredScopes: 'files:read' },
      { maxPresentationBytes: 0 },
      { challengePath: 'nonce' },
      { challengePath: '/nonce"x' },
      // What verifyPresentation would reject on every request is rejected at setup instead.
      { clockSkewMs: -1 },
      { maxChainLength: 0 },
      { resolver: {} },
      { statusLists: {} },
      { replayCache: new Set() },
      { credentialCache: {} },
    ];
    for (const extra of bad) {
      expect(() => prepareVerifier({ ...verifier(), ...extra }), JSON.stringify(extra)).toThrow(
        expect.objectContaining({ code: 'INVALID_VERIFIER_OPTIONS' }),
      );
    }
    await expect(verifyRequest(requestWith(undefined), { ...verifier(), target: '' })).rejects.toMatchObject({
      code: 'INVALID_VERIFIER_OPTIONS',
    });
    await expect(
      issueChallenge(verifier({ challenge: 'none', replayCache: createReplayCache() })),
    ).rejects.toMatchObject({ code: 'INVALID_VERIFIER_OPTIONS' });
    expect(() => createChallengeStore({ ttlMs: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_VERIFIER_OPTIONS' }),
    );
    expect(() => createChallengeStore({ max: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_VERIFIER_OPTIONS' }),
    );
  });

  it('refuses an option it does not know, naming the key and where it belongs, instead of ignoring it', () => {
    const refusal = (extra: Record<string, unknown>) => {
      try {
        prepareVerifier({ ...verifier(), ...extra });
      } catch (error) {
        return error as { code: string; message: string };
      }
      throw new Error(`accepted ${JSON.stringify(extra)}`);
    };
    // The black-box finding: at the top level it was ignored, and every did:web on loopback then failed.
    expect(refusal({ allowHttpLoopback: true })).toMatchObject({
      code: 'INVALID_VERIFIER_OPTIONS',
      message:
        'allowHttpLoopback is not a verifier option: it belongs inside urlPolicy ({ urlPolicy: { allowHttpLoopback: true } })',
    });
    expect(refusal({ allowPrivateNetwork: true }).message).toContain('belongs inside urlPolicy');
    expect(refusal({ expectedDomain: 'files.example.com' }).message).toBe(
      'expectedDomain is not a verifier option: use target',
    );
    expect(refusal({ trustedIssuer: 'did:key:z6Mk' }).message).toMatch(
      /^unknown verifier option "trustedIssuer" \(known: trustedIssuers, /,
    );
    expect(refusal({ urlPolicy: { allowHttpLoopBack: true } }).message).toBe(
      'unknown urlPolicy option "allowHttpLoopBack" (known: allowHttpLoopback, allowPrivateNetwork)',
    );
    expect(refusal({ urlPolicy: { target: 'x' } }).message).toBe(
      'unknown urlPolicy option "target": target belongs at the top level of the options, beside urlPolicy',
    );
    expect(refusal({ urlPolicy: { allowHttpLoopback: 'yes' } }).message).toBe(
      'urlPolicy.allowHttpLoopback must be a boolean',
    );
    expect(refusal({ urlPolicy: true }).message).toMatch(/^urlPolicy must be an object/);
    // Known options, and the entry points' own, pass.
    expect(() => prepareVerifier({ ...verifier(), urlPolicy: { allowHttpLoopback: true } })).not.toThrow();
    expect(() =>
      prepareVerifier({ ...verifier(), forwardHeaders: false } as VerifyRequestOptions, ['forwardHeaders']),
    ).not.toThrow();
    expect(refusal({ forwardHeaders: false }).message).toMatch(/^unknown verifier option "forwardHeaders"/);
  });
});
