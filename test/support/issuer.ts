// A real issuer for Node tests: a temp SQLite file under os.tmpdir(), an ephemeral port, silent
// logs, generous rate limits (tests that exercise limits set their own), and small helpers to
// call it. `restart()` reopens the same file on the same port (same did:web).
//
// `issuer.call()` and `issuer.fetch` hand each request to the issuer's Hono app in this process
// (`app.fetch`, what `app.request()` does): the same middleware, routes and answers, without a
// socket per request. The issuer still listens on its port, for what a test sends over TCP on
// purpose (the transport itself: keep-alive, shutdown, sockets) and for the clients and
// resolvers that find it by URL (its did:web, status lists, JWKS).
//
// In the `node-postgres` project (MANDATE_TEST_STORAGE=postgres, vite.config.ts) the same tests
// run on a fresh PostgreSQL database per issuer instead, on the run's PostgreSQL server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Env } from '../../issuer/config/index.ts';
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { createCachedResolver } from '../../wallet/did/cache.ts';
import { resolveDidKey } from '../../wallet/did/key.ts';
import { createResolver } from '../../wallet/did/registry.ts';
import { createKeyResolver } from '../../wallet/did/verification-method.ts';
import { createWebResolver } from '../../wallet/did/web.ts';
import { createStatusListClient } from '../../wallet/status/client.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import { verifyPresentation, type VerificationResult } from '../../wallet/vc/verify.ts';
import type { Logger } from '../../issuer/log.ts';
import { startIssuer, type RunningIssuer } from '../../issuer/server.ts';
import { clientSocketsClosed } from './client-sockets.ts';
import { freshDatabase } from './servers.ts';

export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdefghijklmnopqrstuvwxyz';

export interface TestIssuer {
  running: RunningIssuer;
  url: string;
  dir: string;
  env: Env;
  /** url + path answered in process, with a JSON body and the admin key when `admin` is true. */
  call(path: string, options?: CallOptions): Promise<CallResult>;
  /** A `fetch` answered by the issuer's app in process, for clients that take one (`IssuerClient`'s `fetch`). */
  fetch: typeof fetch;
  restart(extraEnv?: Env): Promise<TestIssuer>;
  stop(): Promise<void>;
  /** stop() and delete the temp directory. */
  dispose(): Promise<void>;
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  admin?: boolean;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  json: any;
}

export function tempDir(prefix = 'mandate-issuer-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function testEnv(dir: string, extra: Env = {}): Env {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    SERVICE_SQLITE_PATH: join(dir, 'issuer.db'),
    SERVICE_ADMIN_API_KEY: TEST_ADMIN_KEY,
    SERVICE_RATE_LIMIT_PER_IP: '1000000',
    SERVICE_RATE_LIMIT_PER_TOKEN: '1000000',
    ...extra,
  };
}

/** The request `call` sends: JSON body unless a string is given, the admin key when asked. */
function callInit(options: CallOptions): RequestInit {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  if (options.admin) headers.authorization = `Bearer ${TEST_ADMIN_KEY}`;
  return {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  };
}

/** `path` on the server at `base`, over TCP (servers in other processes, transport tests). */
export async function call(base: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  return callResult(await fetch(base + path, callInit(options)));
}

/**
 * A fetch answered by `app` in this process; the URL reaches it as sent. A body gets the framing
 * header a client's fetch would put on the wire (RFC 9112 §6.2, §6.3): the issuer decides from
 * Content-Length or Transfer-Encoding whether a request has a body, and how to limit it.
 */
export function inProcessFetch(app: { fetch(request: Request): Response | Promise<Response> }): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.body === null || request.headers.has('content-length')) return app.fetch(request);
    const headers = new Headers(request.headers);
    if (init?.body instanceof ReadableStream || (input instanceof Request && init?.body === undefined)) {
      headers.set('transfer-encoding', 'chunked');
      return app.fetch(new Request(request, { headers, duplex: 'half' } as RequestInit));
    }
    const bytes = new Uint8Array(await request.arrayBuffer());
    headers.set('content-length', String(bytes.byteLength));
    return app.fetch(new Request(request.url, { method: request.method, headers, body: bytes }));
  };
}

async function callResult(response: Response): Promise<CallResult> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, headers: response.headers, json };
}

export interface TestIssuerOptions {
  dir?: string;
  port?: number;
  /** Injected clock (epoch ms). */
  now?: () => number;
  log?: Logger;
}

/** On the `node-postgres` project, a database of its own for an issuer whose test chose no storage. */
async function storageEnv(extraEnv: Env): Promise<{ env: Env; drop: () => Promise<void> }> {
  if (process.env.MANDATE_TEST_STORAGE !== 'postgres' || extraEnv.SERVICE_STORAGE_ADAPTER !== undefined)
    return { env: {}, drop: () => Promise.resolve() };
  const db = await freshDatabase();
  return { env: { SERVICE_STORAGE_ADAPTER: 'postgres', SERVICE_DATABASE_URL: db.url }, drop: () => db.drop() };
}

export async function startTestIssuer(extraEnv: Env = {}, options: TestIssuerOptions = {}): Promise<TestIssuer> {
  const storage = await storageEnv(extraEnv);
  const issuer = await startTestIssuerOn({ ...storage.env, ...extraEnv }, options);
  return {
    ...issuer,
    async dispose() {
      await issuer.dispose();
      await storage.drop();
    },
  };
}

async function startTestIssuerOn(extraEnv: Env, options: TestIssuerOptions): Promise<TestIssuer> {
  const dir = options.dir ?? tempDir();
  const env = testEnv(dir, extraEnv);
  const running = await startIssuer({
    config: loadConfig(env),
    port: options.port ?? 0,
    ...(options.now ? { now: options.now } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const port = Number(new URL(running.url).port);
  const inProcess = inProcessFetch(running.app);
  const self: TestIssuer = {
    running,
    url: running.url,
    dir,
    env,
    call: async (path, callOptions = {}) => callResult(await inProcess(running.url + path, callInit(callOptions))),
    fetch: inProcess,
    async restart(more = {}) {
      await running.close();
      // The server closed its side of every keep-alive connection; this process's fetch pool may
      // not have read the FIN yet and would send the next request on a dead socket.
      await clientSocketsClosed(port);
      return startTestIssuerOn({ ...extraEnv, ...more }, { ...options, dir, port });
    },
    async stop() {
      await running.close();
    },
    async dispose() {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}

/** Mints a token with the admin key and returns it. */
/** `/v1/agents/{did}…` with the DID encoded as the API expects. */
export const agentPath = (did: string, rest = ''): string => `/v1/agents/${encodeURIComponent(did)}${rest}`;

export async function mintToken(issuer: TestIssuer, body: Record<string, unknown> = {}): Promise<string> {
  const res = await issuer.call('/v1/enrollment-tokens', {
    admin: true,
    body: {
      requestedScopes: ['files:read', 'files:write'],
      maxDelegationDepth: 2,
      requestedDomains: ['files.example.com'],
      ...body,
    },
  });
  if (res.status !== 201) throw new Error(`mint failed: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.token as string;
}

/** Server-custody onboarding end to end; returns {agentDid, vcId, verifiableCredential}. */
export async function onboardServerAgent(
  issuer: TestIssuer,
  token?: string,
): Promise<{ agentDid: string; vcId: string; verifiableCredential: Record<string, unknown> }> {
  const start = await issuer.call('/v1/onboard', {
    body: { token: token ?? (await mintToken(issuer)), custody: 'server' },
  });
  if (start.status !== 201) throw new Error(`onboard failed: ${start.status} ${JSON.stringify(start.json)}`);
  const done = await issuer.call('/v1/onboard/verify', {
    body: { challengeId: start.json.challengeId, challenge: start.json.challenge },
  });
  if (done.status !== 201) throw new Error(`verify failed: ${done.status} ${JSON.stringify(done.json)}`);
  return done.json;
}

/**
 * The self-custody step-2 proof: a DID-Auth presentation by `holder`, proofPurpose
 * authentication, bound to the issuer's challenge and (as domain) the issuer's DID.
 */
export async function didAuthProof(
  holder: SigningIdentity,
  challenge: string,
  domain: string,
  overrides: { holderDid?: string; proofPurpose?: string; created?: Date } = {},
): Promise<Record<string, unknown>> {
  const unsigned = {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiablePresentation'],
    holder: overrides.holderDid ?? holder.did,
  };
  return await createProof(unsigned, {
    signer: holder.signer,
    verificationMethod: holder.verificationMethod,
    proofPurpose: overrides.proofPurpose ?? 'authentication',
    challenge,
    domain,
    ...(overrides.created ? { created: overrides.created } : {}),
  });
}

/** Self-custody onboarding end to end for `holder`. */
export async function onboardSelfAgent(
  issuer: TestIssuer,
  holder: SigningIdentity,
  token?: string,
): Promise<{ agentDid: string; vcId: string; verifiableCredential: Record<string, unknown> }> {
  const start = await issuer.call('/v1/onboard', {
    body: { token: token ?? (await mintToken(issuer)), custody: 'self', did: holder.did },
  });
  if (start.status !== 201) throw new Error(`onboard failed: ${start.status} ${JSON.stringify(start.json)}`);
  const proof = await didAuthProof(holder, start.json.challenge, start.json.domain);
  const done = await issuer.call('/v1/onboard/verify', { body: { challengeId: start.json.challengeId, proof } });
  if (done.status !== 201) throw new Error(`verify failed: ${done.status} ${JSON.stringify(done.json)}`);
  return done.json;
}

/**
 * An independent verifier, as a third-party service would run it: did:web and status lists
 * fetched over real HTTP from the issuer (fresh caches per call, so a revocation published
 * since is seen), the issuer's DID as the only trusted issuer.
 */
/**
 * A third-party verifier with caches of its own (DID documents for 5 minutes, status lists for
 * their ttl), kept from one call to the next: what a service sees across an issuer's restarts.
 * `cacheClock` moves its DID cache's time (default Date.now).
 */
export function externalVerifier(
  cacheClock?: () => number,
): (
  vp: unknown,
  options: { trustedIssuer: string; domain: string; challenge?: string },
) => Promise<VerificationResult> {
  const resolver = createCachedResolver(
    createResolver({ methods: { key: resolveDidKey, web: createWebResolver({ allowHttpLoopback: true }) } }),
    cacheClock ? { now: cacheClock } : {},
  );
  const statusLists = createStatusListClient({ resolveKey: createKeyResolver(resolver), allowHttpLoopback: true });
  return (vp, options) =>
    verifyPresentation(vp, {
      trustedIssuers: [options.trustedIssuer],
      expectedDomain: options.domain,
      ...(options.challenge === undefined ? {} : { expectedChallenge: options.challenge }),
      resolver,
      statusLists,
    });
}

/** `externalVerifier`'s verdict from a fresh verifier (nothing cached). */
export function verifyExternally(
  vp: unknown,
  options: { trustedIssuer: string; domain: string; challenge?: string },
): Promise<VerificationResult> {
  return externalVerifier()(vp, options);
}

/** POST /v1/vp/verify as a service provider would call it. */
export async function verifyAtIssuer(
  issuer: TestIssuer,
  presentation: unknown,
  expectedTarget: string,
  challenge?: string,
): Promise<CallResult> {
  return issuer.call('/v1/vp/verify', {
    body: { presentation, expectedTarget, ...(challenge === undefined ? {} : { challenge }) },
  });
}
