// The Node `http` adapter of mandate/verifier on real servers listening on 127.0.0.1: a
// createServer handler and a Connect/Express-style middleware, with the verifier's defaults
// (cached did:key + did:web resolver, status lists) resolving an issuer hosted as did:web on the
// fixture server. Also toWebRequest's translation and the handler's crash-proofing.
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { connect as connectSocket, type AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { encodePublicKeyMultibase } from '../../wallet/crypto/multikey.ts';
import { multikeyDocument } from '../../wallet/did/multikey-document.ts';
import { issueAgentCredential } from '../../wallet/vc/agent-credential.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import { createReplayCache } from '../../wallet/vc/replay-cache.ts';
import type { AgentCredential } from '../../wallet/vc/types.ts';
import {
  nodeHandler,
  nodeMiddleware,
  RequestTargetError,
  toWebRequest,
  verifyNodeRequest,
  type AgentRequest,
  type NodeVerifierOptions,
} from '../../verifier-worker/node-http.ts';
import { DEFAULT_CHALLENGE_PATH, encodePresentationHeader } from '../../verifier-worker/request.ts';
import { newIdentity } from '../support/agents.ts';

const TARGET = 'files.example.com';
const base = inject('fixtureBaseUrl');

let issuer: SigningIdentity;
let agent: SigningIdentity;
let credential: AgentCredential;
const servers: Array<() => Promise<void>> = [];

/** A did:web identity whose document is hosted on the fixture server (did:web §3.2, port percent-encoded). */
async function hostedWebIdentity(): Promise<SigningIdentity> {
  const signer = seedSigner(generateSeed());
  const { host } = new URL(base);
  const path = ['issuers', crypto.randomUUID()];
  const did = `did:web:${encodeURIComponent(host)}:${path.join(':')}`;
  const verificationMethod = `${did}#key-1`;
  const document = multikeyDocument(did, verificationMethod, encodePublicKeyMultibase(signer.publicKey));
  const response = await fetch(`${base}/host/${path.join('/')}/did.json`, {
    method: 'PUT',
    body: JSON.stringify(document),
    headers: { 'content-type': 'application/did+json' },
  });
  expect(response.status).toBe(204);
  return { did, verificationMethod, signer };
}

beforeAll(async () => {
  issuer = await hostedWebIdentity();
  agent = newIdentity();
  credential = await issueAgentCredential({
    issuer,
    agentDid: agent.did,
    privilegeScopes: ['files:read'],
    delegationDepth: 0,
  });
});

afterEach(async () => {
  while (servers.length > 0) await servers.pop()?.();
});

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The verifier's defaults, with plain http allowed to loopback only because the fixture server is there. */
function options(extra: Partial<NodeVerifierOptions> = {}): NodeVerifierOptions {
  return {
    trustedIssuers: [issuer.did],
    target: TARGET,
    requiredScopes: ['files:read'],
    urlPolicy: { allowHttpLoopback: true },
    ...extra,
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

/** The application behind the verifier: echoes what it was handed, body included. */
async function echo(req: AgentRequest, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ agent: req.agent, headers: req.headers, rawHeaders: req.rawHeaders, body }));
}

async function challengeFrom(url: string): Promise<string> {
  const response = await fetch(url + DEFAULT_CHALLENGE_PATH);
  expect(response.status).toBe(200);
  return ((await response.json()) as { challenge: string }).challenge;
}

async function authorization(challenge: string): Promise<string> {
  return encodePresentationHeader(
    await signPresentation({ holder: agent, credentials: [credential], challenge, domain: TARGET }),
  );
}

describe('node entry points: options', () => {
  it('know their own options (baseUrl, forwardHeaders) and refuse a misplaced one at setup, naming where it belongs', async () => {
    expect(() =>
      nodeHandler(options({ baseUrl: 'https://api.example.com', forwardHeaders: false }), echo),
    ).not.toThrow();
    const misplaced = { ...options(), allowPrivateNetwork: true } as NodeVerifierOptions;
    for (const make of [() => nodeHandler(misplaced, echo), () => nodeMiddleware(misplaced)]) {
      expect(make).toThrow(
        expect.objectContaining({
          code: 'INVALID_VERIFIER_OPTIONS',
          message: expect.stringContaining('belongs inside urlPolicy'),
        }),
      );
    }
    await expect(verifyNodeRequest({ headers: {}, url: '/' } as IncomingMessage, misplaced)).rejects.toMatchObject({
      code: 'INVALID_VERIFIER_OPTIONS',
    });
  });
});

describe('nodeHandler on a real http server', () => {
  it('verifies with the default resolver (did:web issuer), forwards claims, strips spoofs, leaves the body to the app', async () => {
    const url = await serve(nodeHandler(options(), echo));
    const response = await fetch(url + '/files/1', {
      method: 'POST',
      body: 'file contents',
      headers: {
        authorization: await authorization(await challengeFrom(url)),
        'x-mandate-agent-did': 'did:key:z6MkForged',
        'X-Mandate-Admin': 'yes',
        X_Mandate_Scopes: 'admin',
      },
    });
    expect(response.status).toBe(200);
    const seen = (await response.json()) as {
      agent: AgentRequest['agent'];
      headers: Record<string, string>;
      rawHeaders: string[];
      body: string;
    };
    expect(seen.agent).toMatchObject({ agentDid: agent.did, effectiveScopes: ['files:read'] });
    expect(seen.agent.chain[0]?.issuer).toBe(issuer.did);
    expect(seen.headers).toMatchObject({
      'x-mandate-agent-did': agent.did,
      'x-mandate-scopes': 'files:read',
      'x-mandate-vp-id': seen.agent.vpId,
    });
    expect(seen.headers).not.toHaveProperty('authorization');
    expect(seen.headers).not.toHaveProperty('x-mandate-admin');
    expect(seen.headers).not.toHaveProperty('x_mandate_scopes');
    const rawNames = seen.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(rawNames).not.toContain('authorization');
    expect(rawNames.filter((n) => n === 'x-mandate-agent-did')).toHaveLength(1);
    expect(seen.body).toBe('file contents');
  });

  it('answers refusals itself: 401 with WWW-Authenticate, a reused nonce, an untrusted issuer', async () => {
    const url = await serve(nodeHandler(options(), echo));
    const missing = await fetch(url + '/files/1');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(
      `VP realm="${TARGET}", challenge-endpoint="${url}${DEFAULT_CHALLENGE_PATH}", error="MALFORMED"`,
    );
    expect(await missing.json()).toMatchObject({ valid: false, reason: 'MALFORMED' });

    const challenge = await challengeFrom(url);
    expect((await fetch(url + '/files/1', { headers: { authorization: await authorization(challenge) } })).status).toBe(
      200,
    );
    const reused = await fetch(url + '/files/1', { headers: { authorization: await authorization(challenge) } });
    expect([reused.status, ((await reused.json()) as { reason: string }).reason]).toEqual([401, 'CHALLENGE_MISMATCH']);

    const strict = await serve(nodeHandler(options({ trustedIssuers: [newIdentity().did] }), echo));
    const untrusted = await fetch(strict + '/files/1', {
      headers: { authorization: await authorization(await challengeFrom(strict)) },
    });
    expect([untrusted.status, ((await untrusted.json()) as { reason: string }).reason]).toEqual([
      403,
      'UNTRUSTED_ISSUER',
    ]);
  });

  it('an exception becomes a 500 without details, and the server keeps serving', async () => {
    let explode = true;
    const requiredScopes = () => {
      if (explode) throw new Error('secret detail from the scope lookup');
      return ['files:read'];
    };
    const url = await serve(nodeHandler(options({ requiredScopes }), echo));
    const authorizationHeader = await authorization(await challengeFrom(url));
    const failed = await fetch(url + '/files/1', { headers: { authorization: authorizationHeader } });
    expect(failed.status).toBe(500);
    expect(await failed.text()).not.toContain('secret');
    explode = false;
    expect(
      (await fetch(url + '/files/1', { headers: { authorization: await authorization(await challengeFrom(url)) } }))
        .status,
    ).toBe(200);
  });
});

describe('nodeMiddleware (Connect/Express style)', () => {
  /** A minimal Connect: runs `(req, res, next)` middleware in order, errors to a final 500 handler. */
  function connect(
    ...stack: Array<(req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => unknown>
  ): RequestListener {
    return (req, res) => {
      const run = (i: number, error?: unknown): void => {
        if (error !== undefined) return void res.writeHead(500).end(`error handler: ${(error as Error).message}`);
        const layer = stack[i];
        if (layer) void layer(req, res, (e?: unknown) => run(i + 1, e));
      };
      run(0);
    };
  }

  it('refuses, continues with req.agent, or passes errors to next(error)', async () => {
    let calls = 0;
    const app = (req: IncomingMessage, res: ServerResponse) => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify((req as AgentRequest).agent));
    };
    const url = await serve(connect(nodeMiddleware(options()), app));
    const refused = await fetch(url + '/files/1', { headers: { authorization: 'Bearer nope' } });
    expect(refused.status).toBe(401);
    expect(calls).toBe(0);
    const allowed = await fetch(url + '/files/1', {
      headers: { authorization: await authorization(await challengeFrom(url)) },
    });
    expect(((await allowed.json()) as { agentDid: string }).agentDid).toBe(agent.did);
    expect(calls).toBe(1);

    const failing = await serve(
      connect(nodeMiddleware(options({ requiredScopes: () => Promise.reject(new Error('lookup failed')) })), app),
    );
    const error = await fetch(failing + '/files/1', {
      headers: { authorization: await authorization(await challengeFrom(failing)) },
    });
    expect([error.status, await error.text()]).toEqual([500, 'error handler: lookup failed']);
  });

  it("under a mount (app.use('/api', …)) the rules judge the full path, as written, and the nonce is served there", async () => {
    /** What Connect and Express do for a layer mounted at `prefix`: req.url loses it, req.originalUrl keeps it. */
    const mounted =
      (prefix: string, layer: ReturnType<typeof nodeMiddleware>) =>
      (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
        const withOriginal = req as IncomingMessage & { originalUrl?: string };
        if (!(req.url ?? '').startsWith(`${prefix}/`)) return next();
        withOriginal.originalUrl = req.url;
        req.url = (req.url ?? '').slice(prefix.length);
        return layer(req, res, next);
      };
    const table = [
      { path: '/api/admin/*', scopes: ['admin'] },
      { path: '/*', scopes: [] },
    ];
    const settings = options({ requiredScopes: table, challengePath: `/api${DEFAULT_CHALLENGE_PATH}` });
    const url = await serve(
      connect(mounted('/api', nodeMiddleware(settings)), (req, res) => void res.end(`app ${req.url}`)),
    );
    const challenge = await challengeFrom(`${url}/api`);
    const admin = await fetch(`${url}/api/admin/users`, { headers: { authorization: await authorization(challenge) } });
    expect([admin.status, ((await admin.json()) as { reason: string }).reason]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const files = await fetch(`${url}/api/files/1`, {
      headers: { authorization: await authorization(await challengeFrom(`${url}/api`)) },
    });
    expect([files.status, await files.text()]).toEqual([200, 'app /files/1']);
    const anonymous = await fetch(`${url}/api/files/1`);
    expect(anonymous.headers.get('www-authenticate')).toContain(
      `challenge-endpoint="${url}/api${DEFAULT_CHALLENGE_PATH}"`,
    );
  });

  it('forwardHeaders: false sets req.agent and leaves the headers as sent', async () => {
    const url = await serve(
      connect(nodeMiddleware(options({ forwardHeaders: false })), (req, res) => void echo(req as AgentRequest, res)),
    );
    const response = await fetch(url + '/files/1', {
      headers: { authorization: await authorization(await challengeFrom(url)) },
    });
    const seen = (await response.json()) as { agent: { agentDid: string }; headers: Record<string, string> };
    expect(seen.agent.agentDid).toBe(agent.did);
    expect(seen.headers.authorization).toMatch(/^VP /);
    expect(seen.headers).not.toHaveProperty('x-mandate-agent-did');
  });
});

/** One HTTP/1.1 request written as is (fetch would resolve dot segments first); status line and body. */
function rawRequest(
  url: string,
  target: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; body: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectSocket(Number(port), '127.0.0.1', () => {
      const lines = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines}Connection: close\r\n\r\n`);
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () =>
      resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }),
    );
    socket.on('error', reject);
  });
}

describe('a request-target the application could read as another path', () => {
  // The verifier's URL resolves dot segments; req.url keeps them, and Express-style mounts match
  // it as sent: /api/admin/../../public would be judged as /public but served by the admin area.
  const table = [
    { path: '/api/admin/*', scopes: ['admin:write'] },
    { path: '/*', scopes: [] },
  ];
  const targets = [
    '/api/admin/../../public',
    '/api/admin/%2e%2e/%2E%2e/public',
    '/api/admin/x/.%2e/.%2e/.%2e/public',
    '/api/admin/./../public',
    '/api/admin\\..\\..\\public',
  ];

  it('nodeHandler and nodeMiddleware answer 400 MALFORMED, and the application never sees it', async () => {
    let reached = 0;
    const app = (_req: IncomingMessage, res: ServerResponse) => {
      reached++;
      res.end('app');
    };
    const handler = await serve(
      nodeHandler(options({ requiredScopes: table, challenge: 'none', replayCache: createReplayCache() }), app),
    );
    const middleware = await serve(
      (req, res) =>
        void nodeMiddleware(options({ requiredScopes: table, challenge: 'none', replayCache: createReplayCache() }))(
          req,
          res,
          () => app(req, res),
        ),
    );
    for (const url of [handler, middleware]) {
      for (const target of targets) {
        const vp = await signPresentation({
          holder: agent,
          credentials: [credential],
          challenge: crypto.randomUUID(),
          domain: TARGET,
        });
        const { status, body } = await rawRequest(url, target, { authorization: encodePresentationHeader(vp) });
        expect({ target, status, reason: (JSON.parse(body) as { reason: string }).reason }).toEqual({
          target,
          status: 400,
          reason: 'MALFORMED',
        });
      }
      // A plain path still goes through.
      const vp = await signPresentation({
        holder: agent,
        credentials: [credential],
        challenge: crypto.randomUUID(),
        domain: TARGET,
      });
      expect((await rawRequest(url, '/public/a..b/...', { authorization: encodePresentationHeader(vp) })).status).toBe(
        200,
      );
    }
    expect(reached).toBe(2);
  });

  it('toWebRequest throws RequestTargetError (AMBIGUOUS_REQUEST_TARGET) for it, and only for it', () => {
    const at = (url: string) => () =>
      toWebRequest({
        url,
        method: 'GET',
        headers: { host: 'api.example.com' },
        rawHeaders: [],
      } as unknown as IncomingMessage);
    for (const target of [...targets, '/a/.', '/..', 'http://api.example.com/a/../b', '/a/%2e?x=1']) {
      expect(at(target), target).toThrow(RequestTargetError);
      expect(at(target), target).toThrow(expect.objectContaining({ code: 'AMBIGUOUS_REQUEST_TARGET' }));
    }
    for (const target of ['/a.b/c', '/a/.../b', '/a/..b', '/a/b?path=../x', '/a/b#..', '/%2e%2e%2fadmin'])
      expect(at(target), target).not.toThrow();
  });

  it('verifyNodeRequest: the same refusal as a verdict (400 MALFORMED), and the verdict of verifyRequest otherwise', async () => {
    const settings = options({ requiredScopes: table, challenge: 'none', replayCache: createReplayCache() });
    const incoming = async (url: string) => {
      const vp = await signPresentation({
        holder: agent,
        credentials: [credential],
        challenge: crypto.randomUUID(),
        domain: TARGET,
      });
      return {
        url,
        method: 'GET',
        headers: { host: 'api.example.com', authorization: encodePresentationHeader(vp) },
        rawHeaders: [],
      } as unknown as IncomingMessage;
    };
    const refused = await verifyNodeRequest(await incoming('/api/admin/../../public'), settings);
    expect(refused.allowed ? 'allowed' : [refused.status, refused.body.reason, refused.failedCheck]).toEqual([
      400,
      'MALFORMED',
      'presentation',
    ]);
    expect((await verifyNodeRequest(await incoming('/public'), settings)).allowed).toBe(true);
  });
});

describe('request lines and headers the adapter must not trip over', () => {
  it('TRACE (a method a Web Request cannot carry) is 400 MALFORMED from nodeHandler and nodeMiddleware, a verdict from verifyNodeRequest', async () => {
    const app = (_req: IncomingMessage, res: ServerResponse) => void res.end('app');
    const handler = await serve(nodeHandler(options(), app));
    let passedOn: unknown = 'nothing';
    const layer = nodeMiddleware(options());
    const middleware = await serve(
      (req, res) => void layer(req, res, (error?: unknown) => ((passedOn = error), app(req, res))),
    );
    for (const url of [handler, middleware]) {
      const { status, body } = await rawRequest(url, '/files/1', {}, 'TRACE');
      expect([status, (JSON.parse(body) as { reason: string }).reason]).toEqual([400, 'MALFORMED']);
    }
    expect(passedOn).toBe('nothing');
    const verdict = await verifyNodeRequest(
      {
        url: '/files/1',
        method: 'TRACE',
        headers: { host: 'api.example.com' },
        rawHeaders: [],
      } as unknown as IncomingMessage,
      options(),
    );
    expect(verdict.allowed ? 'allowed' : [verdict.status, verdict.body.reason]).toEqual([400, 'MALFORMED']);
    expect(() =>
      toWebRequest({ url: '/', method: 'CONNECT', headers: {}, rawHeaders: [] } as unknown as IncomingMessage),
    ).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_METHOD' }));
  });

  it('headersDistinct, read before or after the middleware, shows the claims and none of what the client sent', async () => {
    const seen: unknown[] = [];
    const middleware = nodeMiddleware(options());
    const url = await serve(async (req, res) => {
      const early = req.url === '/early' ? req.headersDistinct : undefined; // a logger that reads it first
      await middleware(req, res, () => {
        const late = req.headersDistinct;
        seen.push({
          early:
            early === undefined
              ? undefined
              : Object.keys(early).filter((n) => n.startsWith('x-mandate') || n === 'authorization'),
          late: Object.keys(late)
            .filter((n) => n.startsWith('x-mandate') || n === 'authorization')
            .sort(),
          scopes: late['x-mandate-scopes'],
        });
        res.end();
      });
    });
    const forged = {
      'X-Mandate-Scopes': 'files:admin',
      'X-Mandate-Agent-Did': 'did:web:ceo.example.com',
      X_Mandate_Vp_Id: 'x',
      'x-mandate-extra': '1',
      'X-MANDATE-MORE': '2',
    };
    for (const path of ['/late', '/early']) {
      const response = await fetch(url + path, {
        headers: { ...forged, authorization: await authorization(await challengeFrom(url)) },
      });
      expect(response.status).toBe(200);
    }
    const claims = ['x-mandate-agent-did', 'x-mandate-scopes', 'x-mandate-vp-id'];
    expect(seen).toEqual([
      { early: undefined, late: claims, scopes: ['files:read'] },
      { early: claims, late: claims, scopes: ['files:read'] },
    ]);
  });

  it('a Host header with quotes cannot add parameters to WWW-Authenticate', async () => {
    const verdict = await verifyNodeRequest(
      {
        url: '/files/1',
        method: 'GET',
        headers: { host: 'x",realm="attacker.example",error="OK' },
        rawHeaders: [],
      } as unknown as IncomingMessage,
      options(),
    );
    const header = verdict.allowed ? '' : (verdict.headers['WWW-Authenticate'] ?? '');
    expect(header).toMatch(/^VP realm="files\.example\.com", challenge-endpoint="[^"\\]*", error="MALFORMED"$/);
  });
});

describe('toWebRequest', () => {
  function incoming(init: { url?: string; method?: string; headers: IncomingMessage['headers'] }): IncomingMessage {
    return {
      url: init.url ?? '/a?b=1',
      method: init.method ?? 'GET',
      headers: init.headers,
      rawHeaders: [],
    } as unknown as IncomingMessage;
  }

  it('carries method, path and headers; joins repeated headers; skips HTTP/2 pseudo-headers', () => {
    const request = toWebRequest(
      incoming({
        method: 'DELETE',
        headers: { host: 'api.example.com:8443', accept: 'a/b', 'x-list': ['1', '2'], ':authority': 'api.example.com' },
      }),
    );
    expect(request.method).toBe('DELETE');
    expect(request.url).toBe('http://api.example.com:8443/a?b=1');
    expect(request.headers.get('x-list')).toBe('1, 2');
    expect(request.body).toBeNull();
  });

  it('carries the body bytes a parser before it kept (req.rawBody, else req.body as a Buffer), never for GET', async () => {
    const kept = (extra: object, method = 'POST') =>
      toWebRequest(Object.assign(incoming({ method, headers: { host: 'api.example.com' } }), extra));
    expect(await kept({ rawBody: Buffer.from('{"a":1}'), body: { a: 1 } }).text()).toBe('{"a":1}');
    expect(await kept({ body: Buffer.from('raw') }).text()).toBe('raw');
    // A parsed body is no bytes: the request has none, and a signed Content-Digest cannot match.
    expect(kept({ body: { a: 1 } }).body).toBeNull();
    expect(kept({ rawBody: Buffer.from('x') }, 'GET').body).toBeNull();
  });

  it('resolves against baseUrl when given, and falls back to localhost for an unusable Host', () => {
    expect(
      toWebRequest(incoming({ headers: { host: 'evil.example' } }), { baseUrl: 'https://api.example.com' }).url,
    ).toBe('https://api.example.com/a?b=1');
    expect(toWebRequest(incoming({ headers: { host: 'bad host/"' } })).url).toBe('http://localhost/a?b=1');
    expect(toWebRequest(incoming({ headers: {} })).url).toBe('http://localhost/a?b=1');
  });

  it('keeps a request-target that starts with // as a path, never as a host name', () => {
    const request = toWebRequest(incoming({ url: '//api/admin/x', headers: { host: 'files.example.com' } }));
    expect(new URL(request.url).host).toBe('files.example.com');
    expect(new URL(request.url).pathname).toBe('//api/admin/x');
    expect(
      toWebRequest(incoming({ url: '//evil.example/a', headers: {} }), { baseUrl: 'https://api.example.com/base/' })
        .url,
    ).toBe('https://api.example.com//evil.example/a');
  });
});
