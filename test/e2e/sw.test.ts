// The service-worker verifier end to end, in real Chromium (Debian's, driven by Playwright,
// never downloaded): the worker is built from source in beforeAll, served with a page and a
// fake API by a Node server on 127.0.0.1, and registered by the page helper. An issuer host
// (did:web document, status lists) runs beside it and is shut down for the offline tests.
// The fake API records every request that reaches it, so "never reached the network" is checked
// where it matters: on the server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVerifierBundles, WORKER_GZIP_BUDGET, type BuildReport } from '../../verifier-worker/build.ts';
import { registerVerifier } from '../../verifier-worker/sw/register.ts';
import { identityRequestSigner } from '../../wallet/http-signatures/sign.ts';
import { signChainedRequest, type ChainedRequestOptions } from '../../wallet/vc/chain-request.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import type { AgentCredential, VerifiablePresentation } from '../../wallet/vc/types.ts';
import {
  authorization,
  credentialFor,
  hostedList,
  newAgent,
  present,
  webIssuer,
  type HostedList,
  type WebIssuer,
} from '../fixtures/sw/scenario.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium.ts';

const TARGET = 'orders.example.com';

interface Hit {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Started {
  origin: string;
  server: Server;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Promise<Started> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The issuer's host: whatever the test publishes, at its path. A browser verifier reads it
 * cross-origin, so it answers with CORS, as any did:web host or status list host must.
 */
async function startIssuerHost(): Promise<
  Started & { put(url: string, body: unknown, contentType: string): Promise<void> }
> {
  const documents = new Map<string, { body: string; contentType: string }>();
  const started = await listen((req, res) => {
    const doc = documents.get(new URL(req.url ?? '/', 'http://x').pathname);
    const cors = { 'access-control-allow-origin': '*' };
    if (!doc) return void res.writeHead(404, { ...cors, 'content-type': 'application/json' }).end('{}');
    res.writeHead(200, { ...cors, 'content-type': doc.contentType, 'cache-control': 'no-store' }).end(doc.body);
  });
  return {
    ...started,
    put: async (url, body, contentType) =>
      void documents.set(new URL(url).pathname, { body: JSON.stringify(body), contentType }),
  };
}

interface AppFiles {
  page: string;
  worker: string;
  register: string;
  /** The configuration file: a JSON value, or undefined for 404. */
  configFile?: unknown;
}

/** The service provider's origin: the page, the built worker and helper, and the fake API. */
async function startApp(files: AppFiles): Promise<Started & { hits: Hit[] }> {
  const hits: Hit[] = [];
  const started = await listen(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const js = { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' };
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(files.page);
    if (path === '/verifier-sw.js') return void res.writeHead(200, js).end(files.worker);
    if (path === '/verifier-register.js') return void res.writeHead(200, js).end(files.register);
    if (path === '/verifier.json' && files.configFile !== undefined) {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(files.configFile));
    }
    if (path.startsWith('/api/') || path.startsWith('/public/')) {
      const body = await readBody(req);
      hits.push({ method: req.method ?? '', path, headers: req.headers, body });
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path }));
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  return { ...started, hits };
}

interface CallResult {
  status: number;
  headers: Record<string, string>;
  body: string;
}

let workDir: string;
let built: BuildReport;
let context: BrowserContext;
let issuerHost: Awaited<ReturnType<typeof startIssuerHost>>;
let app: Awaited<ReturnType<typeof startApp>>;
let files: AppFiles;
let page: Page;
let issuer: WebIssuer;
let longList: HostedList;
let shortList: HostedList;
let agent: SigningIdentity;
let reader: SigningIdentity;
let agentCredential: AgentCredential;
let readerCredential: AgentCredential;
const toClose: Array<() => Promise<void>> = [];

function configFor(issuerDid: string): Record<string, unknown> {
  return {
    target: TARGET,
    trustedIssuers: [issuerDid],
    routes: [
      { path: '/api/orders/*', method: 'GET', scopes: ['orders:read'] },
      { path: '/api/orders/*', method: 'POST', scopes: ['orders:write'] },
    ],
    // The issuer host is http://127.0.0.1: allowed for this test only (off by default).
    allowHttpLoopback: true,
  };
}

async function openPage(origin: string): Promise<Page> {
  const opened = await context.newPage();
  await opened.goto(`${origin}/`);
  await opened.waitForFunction(() => (window as unknown as { pageReady?: boolean }).pageReady === true);
  return opened;
}

function call(
  on: Page,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<CallResult> {
  return on.evaluate(
    ([p, i]) => (window as unknown as { call: (p: string, i: unknown) => Promise<CallResult> }).call(p, i),
    [path, init] as const,
  );
}

async function nonce(on: Page = page): Promise<string> {
  const response = await call(on, '/.well-known/mandate/challenge');
  expect(response.status).toBe(200);
  return (JSON.parse(response.body) as { challenge: string }).challenge;
}

/** A fresh presentation answering a fresh nonce of the worker. */
async function presentation(holder: SigningIdentity, credential: AgentCredential): Promise<VerifiablePresentation> {
  return present(holder, credential, await nonce(), TARGET);
}

/**
 * Stops the service worker as the browser does when it is idle. An idle stop comes only after
 * the worker's waitUntil promises (its storage writes) have settled; DevTools' stop does not
 * wait, so the writes are given time to land first.
 */
async function stopWorkers(): Promise<void> {
  await page.waitForTimeout(250);
  const cdp = await context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  await cdp.detach();
}

interface SignedCallOptions extends ChainedRequestOptions {
  path?: string;
  method?: string;
  body?: string;
  signer?: SigningIdentity;
}

/**
 * A request signed in Node by the agent (its DID URL as keyid) and bound to its one-credential
 * chain, as the page's `call` sends it: method, headers as signed, body. Signed for the app's
 * origin, which is where the page sends it.
 */
async function signedCall(
  sent: SignedCallOptions = {},
): Promise<{ method: string; headers: Record<string, string>; body?: string }> {
  const { path = '/api/orders/new', method = 'GET', body, signer = agent, ...options } = sent;
  const request = new Request(`${app.origin}${path}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
  const signed = await signChainedRequest(request, identityRequestSigner(signer), [agentCredential], options);
  return { method, headers: Object.fromEntries(signed.headers), ...(body === undefined ? {} : { body }) };
}

function denial(result: CallResult): { status: number; reason: string; valid: boolean } {
  const body = JSON.parse(result.body) as { valid: boolean; reason: string; message: string };
  expect(body.message.length).toBeGreaterThan(0);
  return { status: result.status, reason: body.reason, valid: body.valid };
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'mandate-sw-e2e-'));
  built = await buildVerifierBundles({ outDir: join(workDir, 'dist') });
  const bundle = (name: string): Promise<string> =>
    readFile(built.bundles.find((b) => b.fileName === name)?.path ?? '', 'utf8');
  files = {
    page: await readFile(new URL('../fixtures/sw/index.html', import.meta.url), 'utf8'),
    worker: await bundle('verifier-sw.js'),
    register: await bundle('verifier-register.js'),
  };

  issuerHost = await startIssuerHost();
  toClose.push(issuerHost.close);
  issuer = webIssuer(issuerHost.origin, 'issuer');
  await issuerHost.put(issuer.documentUrl, issuer.document, 'application/did+json');
  longList = await hostedList(issuer, `${issuerHost.origin}/status/long`, 10 * 60_000, issuerHost.put);
  shortList = await hostedList(issuer, `${issuerHost.origin}/status/short`, 1_000, issuerHost.put);
  agent = newAgent();
  reader = newAgent();
  agentCredential = (await credentialFor(issuer, agent, longList, ['orders:read', 'orders:write'])).credential;
  readerCredential = (await credentialFor(issuer, reader, longList, ['orders:read'])).credential;

  app = await startApp(files);
  toClose.push(app.close);
  context = await chromium.launchPersistentContext(join(workDir, 'profile'), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
  page = await openPage(app.origin);
}, 120_000);

afterAll(async () => {
  await context?.close();
  for (const close of toClose.reverse()) await close().catch(() => undefined);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('the build', () => {
  it('makes the worker one self-contained classic script within the 40 KB gzip budget', () => {
    expect(built.bundles.map((b) => b.fileName)).toEqual(['verifier-sw.js', 'verifier-register.js', 'verify-only.js']);
    const worker = built.bundles[0] as BuildReport['bundles'][number];
    expect(worker.gzipBytes).toBeLessThanOrEqual(WORKER_GZIP_BUDGET);
    expect(built.withinBudget).toBe(true);
    // No import statement of any kind: a classic service worker cannot load modules.
    expect(files.worker).not.toMatch(/\bimport\s*[({"'`]|\bfrom\s*["'`]|node:/);
  });
});

describe('the service-worker verifier in Chromium', () => {
  it('registers from the page, takes control of it, and hands out single-use challenges', async () => {
    const registered = await page.evaluate(
      (config) =>
        (window as unknown as { register: (o: unknown) => Promise<unknown> }).register({
          scriptUrl: '/verifier-sw.js',
          config,
        }),
      configFor(issuer.did),
    );
    expect(registered).toEqual({ ok: true, scope: `${app.origin}/`, controlled: true });
    const [first, second] = [await nonce(), await nonce()];
    expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(second).not.toBe(first);
  });

  it('lets an allowed request through with the verified claims, and without the presentation', async () => {
    const vp = await presentation(agent, agentCredential);
    const token = authorization(vp);
    const before = app.hits.length;
    const result = await call(page, '/api/orders/42', { headers: { authorization: token } });
    expect(result.status, result.body).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ ok: true, path: '/api/orders/42' });
    const hit = app.hits[before] as Hit;
    expect(app.hits.length).toBe(before + 1);
    expect(hit.headers['x-mandate-agent-did']).toBe(agent.did);
    expect(hit.headers['x-mandate-scopes']).toBe('orders:read orders:write');
    expect(hit.headers['x-mandate-vp-id']).toBe(vp.id);
    expect(hit.headers.authorization).toBeUndefined();

    // The page learns the decision, and nothing it could replay.
    const reports = (await page.evaluate(() => (window as unknown as { reports: unknown[] }).reports)) as Array<
      Record<string, unknown>
    >;
    expect(reports.at(-1)).toMatchObject({
      type: 'mandate-verification',
      decision: 'allow',
      status: 200,
      method: 'GET',
      path: '/api/orders/42',
      agentDid: agent.did,
      vpId: vp.id,
    });
    const text = JSON.stringify(reports);
    expect(text).not.toContain(token.slice(3, 40));
    expect(text).not.toContain(String(Array.isArray(vp.proof) ? '' : vp.proof?.challenge));
  });

  it('forwards the body of an allowed POST unchanged', async () => {
    const vp = await presentation(agent, agentCredential);
    const before = app.hits.length;
    const body = JSON.stringify({ item: 'tea', quantity: 2 });
    const result = await call(page, '/api/orders/new', {
      method: 'POST',
      headers: { authorization: authorization(vp), 'content-type': 'application/json' },
      body,
    });
    expect(result.status, result.body).toBe(200);
    expect(app.hits[before]).toMatchObject({ method: 'POST', path: '/api/orders/new', body });
  });

  it('refuses a request without a presentation with 401 MALFORMED and a challenge endpoint; the API never sees it', async () => {
    const before = app.hits.length;
    const result = await call(page, '/api/orders/42');
    expect(denial(result)).toEqual({ status: 401, reason: 'MALFORMED', valid: false });
    expect(result.headers['www-authenticate']).toContain(
      `challenge-endpoint="${app.origin}/.well-known/mandate/challenge"`,
    );
    expect(app.hits.length).toBe(before);
    const reports = (await page.evaluate(() => (window as unknown as { reports: unknown[] }).reports)) as Array<
      Record<string, unknown>
    >;
    expect(reports.at(-1)).toMatchObject({
      decision: 'deny',
      status: 401,
      reason: 'MALFORMED',
      path: '/api/orders/42',
    });
  });

  it('refuses forged presentations with their reason, before the network', async () => {
    const before = app.hits.length;
    // The reader edits its credential to widen its scopes: the issuer's signature no longer holds.
    const widened = structuredClone(readerCredential);
    widened.credentialSubject.privilegeScopes = ['orders'];
    const forgedCredential = await call(page, '/api/orders/1', {
      method: 'POST',
      headers: { authorization: authorization(await presentation(reader, widened)) },
    });
    expect(denial(forgedCredential)).toEqual({ status: 403, reason: 'CREDENTIAL_SIGNATURE_INVALID', valid: false });

    // A captured credential presented by someone else, who signs in the agent's name.
    const impostor = newAgent();
    const vp = await presentation(impostor, agentCredential);
    const stolen = await call(page, '/api/orders/1', {
      headers: { authorization: authorization({ ...vp, holder: agent.did }) },
    });
    expect(denial(stolen)).toEqual({ status: 401, reason: 'KEY_NOT_AUTHORIZED', valid: false });

    // A presentation whose signature was altered.
    const genuine = await presentation(agent, agentCredential);
    const proof = genuine.proof as { proofValue: string };
    proof.proofValue = `${proof.proofValue.slice(0, -2)}${proof.proofValue.endsWith('11') ? '22' : '11'}`;
    const altered = await call(page, '/api/orders/1', { headers: { authorization: authorization(genuine) } });
    expect(denial(altered)).toEqual({ status: 401, reason: 'VP_SIGNATURE_INVALID', valid: false });

    // A presentation made for another service.
    const elsewhere = await present(agent, agentCredential, await nonce(), 'other.example.com');
    expect(denial(await call(page, '/api/orders/1', { headers: { authorization: authorization(elsewhere) } }))).toEqual(
      { status: 401, reason: 'TARGET_MISMATCH', valid: false },
    );
    expect(app.hits.length).toBe(before);
  });

  it('refuses what the credential does not cover: 403 INSUFFICIENT_SCOPE', async () => {
    const before = app.hits.length;
    const result = await call(page, '/api/orders/new', {
      method: 'POST',
      headers: { authorization: authorization(await presentation(reader, readerCredential)) },
      body: '{}',
    });
    expect(denial(result)).toEqual({ status: 403, reason: 'INSUFFICIENT_SCOPE', valid: false });
    expect(app.hits.length).toBe(before);
  });

  it('accepts a signed request bound to its chain (RFC 9421, Mandate-Chain), in full and then by digest', async () => {
    const before = app.hits.length;
    const first = await call(page, '/api/orders/42', await signedCall({ path: '/api/orders/42' }));
    expect(first.status, first.body).toBe(200);
    const hit = app.hits[before] as Hit;
    expect(hit.headers['x-mandate-agent-did']).toBe(agent.did);
    expect(hit.headers['x-mandate-scopes']).toBe('orders:read orders:write');
    expect(hit.headers['x-mandate-vp-id']).toMatch(/^signature:[\w-]{43}$/);
    const byDigest = await call(page, '/api/orders/43', await signedCall({ path: '/api/orders/43', byDigest: true }));
    expect(byDigest.status, byDigest.body).toBe(200);
    // A body, with a SHA-256 and with a SHA-512 Content-Digest (WebCrypto's, in the worker).
    for (const contentDigest of ['sha-256', 'sha-512'] as const) {
      const body = JSON.stringify({ item: 'tea', digest: contentDigest });
      const post = await call(page, '/api/orders/new', await signedCall({ method: 'POST', body, contentDigest }));
      expect(post.status, post.body).toBe(200);
      expect(app.hits.at(-1)).toMatchObject({ method: 'POST', path: '/api/orders/new', body });
    }
    const reports = (await page.evaluate(() => (window as unknown as { reports: unknown[] }).reports)) as Array<
      Record<string, unknown>
    >;
    expect(reports.at(-1)).toMatchObject({ decision: 'allow', status: 200, method: 'POST', agentDid: agent.did });
  });

  it('refuses signed requests replayed, re-targeted, with a changed body, expired, or signed by a foreign key; the API never sees them', async () => {
    const before = app.hits.length;
    const once = await signedCall({ path: '/api/orders/5' });
    expect((await call(page, '/api/orders/5', once)).status).toBe(200);
    const seen = app.hits.length;
    expect(denial(await call(page, '/api/orders/5', once))).toEqual({
      status: 401,
      reason: 'HTTP_SIGNATURE_REPLAYED',
      valid: false,
    });
    expect(denial(await call(page, '/api/orders/6', await signedCall({ path: '/api/orders/5' })))).toEqual({
      status: 401,
      reason: 'HTTP_SIGNATURE_INVALID',
      valid: false,
    });
    const signedBody = await signedCall({ method: 'POST', body: '{"amount":1}' });
    expect(denial(await call(page, '/api/orders/new', { ...signedBody, body: '{"amount":100}' }))).toEqual({
      status: 401,
      reason: 'CONTENT_DIGEST_MISMATCH',
      valid: false,
    });
    expect(denial(await call(page, '/api/orders/new', await signedCall({ now: Date.now() - 10 * 60_000 })))).toEqual({
      status: 401,
      reason: 'HTTP_SIGNATURE_EXPIRED',
      valid: false,
    });
    expect(denial(await call(page, '/api/orders/new', await signedCall({ signer: newAgent() })))).toEqual({
      status: 401,
      reason: 'KEY_NOT_AUTHORIZED',
      valid: false,
    });
    expect(app.hits.length).toBe(seen);
    expect(seen).toBe(before + 1);
  });

  it('strips X-Mandate-* headers a page sets itself, on paths it does not guard', async () => {
    const before = app.hits.length;
    const result = await call(page, '/public/info', {
      headers: { 'x-mandate-agent-did': 'did:key:z6MkSpoofed', 'x-mandate-scopes': 'orders' },
    });
    expect(result.status, result.body).toBe(200);
    expect(app.hits[before]?.headers['x-mandate-agent-did']).toBeUndefined();
    expect(app.hits[before]?.headers['x-mandate-scopes']).toBeUndefined();
  });

  it('keeps nonces and used presentations across a stop of the worker by the browser', async () => {
    const issuedBeforeStop = await nonce();
    const used = await presentation(agent, agentCredential);
    expect((await call(page, '/api/orders/7', { headers: { authorization: authorization(used) } })).status).toBe(200);
    await stopWorkers();
    // A fresh worker instance: its memory is empty, IndexedDB is not.
    const answered = await present(agent, agentCredential, issuedBeforeStop, TARGET);
    expect((await call(page, '/api/orders/7', { headers: { authorization: authorization(answered) } })).status).toBe(
      200,
    );
    const replayed = await call(page, '/api/orders/7', { headers: { authorization: authorization(used) } });
    expect(denial(replayed)).toEqual({ status: 401, reason: 'CHALLENGE_MISMATCH', valid: false });
  });

  it("refuses a revoked credential once the status list's TTL has run out", async () => {
    const revocable = newAgent();
    const { credential, index } = await credentialFor(issuer, revocable, shortList, ['orders:read']);
    expect(
      (
        await call(page, '/api/orders/9', {
          headers: { authorization: authorization(await presentation(revocable, credential)) },
        })
      ).status,
    ).toBe(200);
    await shortList.revoke(index);
    // The worker may use the list it fetched for one TTL (1 s here, the issuer's choice); after that it must fetch again.
    await new Promise((resolve) => setTimeout(resolve, shortList.ttlMs + 200));
    const before = app.hits.length;
    const result = await call(page, '/api/orders/9', {
      headers: { authorization: authorization(await presentation(revocable, credential)) },
    });
    expect(denial(result)).toEqual({ status: 403, reason: 'CREDENTIAL_REVOKED', valid: false });
    expect(app.hits.length).toBe(before);
  });

  it('verifies a did:key agent with the issuer unreachable, from the stored did:web document and status list', async () => {
    const newcomer = newAgent();
    const { credential } = await credentialFor(issuer, newcomer, longList, ['orders:read']);
    const onShortList = await credentialFor(issuer, newcomer, shortList, ['orders:read']);
    await issuerHost.close();
    await stopWorkers(); // nothing in memory: only what the worker stored survives
    const result = await call(page, '/api/orders/3', {
      headers: { authorization: authorization(await presentation(newcomer, credential)) },
    });
    expect(result.status, result.body).toBe(200);
    expect(app.hits.at(-1)?.headers['x-mandate-agent-did']).toBe(newcomer.did);
    // Once a list's TTL has passed it cannot be refreshed: credentials on it fail closed.
    await new Promise((resolve) => setTimeout(resolve, shortList.ttlMs + 200));
    const stale = await call(page, '/api/orders/3', {
      headers: { authorization: authorization(await presentation(newcomer, onShortList.credential)) },
    });
    expect(denial(stale)).toEqual({ status: 403, reason: 'STATUS_UNAVAILABLE', valid: false });
  });

  it('refuses a configuration object it does not accept, and keeps guarding with the one it has', async () => {
    const refused = await page.evaluate(
      (config) =>
        (window as unknown as { register: (o: unknown) => Promise<unknown> }).register({
          scriptUrl: '/verifier-sw.js',
          config,
        }),
      { ...configFor(issuer.did), trustedIssuer: ['did:web:typo.example'] },
    );
    expect(refused).toMatchObject({ ok: false, code: 'CONFIG_INVALID' });
    expect(denial(await call(page, '/api/orders/1')).status).toBe(401);
  });
});

describe('registration from a configuration file', () => {
  it('reads the configuration from a same-origin JSON file', async () => {
    const fileApp = await startApp({ ...files, configFile: configFor(issuer.did) });
    toClose.push(fileApp.close);
    const filePage = await openPage(fileApp.origin);
    const registered = await filePage.evaluate(() =>
      (window as unknown as { register: (o: unknown) => Promise<unknown> }).register({
        scriptUrl: '/verifier-sw.js',
        config: '/verifier.json',
      }),
    );
    expect(registered).toMatchObject({ ok: true, controlled: true });
    expect(denial(await call(filePage, '/api/orders/1')).reason).toBe('MALFORMED');
    expect((await call(filePage, '/public/x')).status).toBe(200);
    expect(fileApp.hits.map((h) => h.path)).toEqual(['/public/x']);
    await filePage.close();
  });

  it('REGISTRATION_FAILED when the configuration file is invalid (the worker does not install) or the script is missing', async () => {
    const brokenApp = await startApp({ ...files, configFile: { target: TARGET, routes: 'all' } });
    toClose.push(brokenApp.close);
    const brokenPage = await openPage(brokenApp.origin);
    const register = (options: unknown) =>
      brokenPage.evaluate(
        (o) => (window as unknown as { register: (o: unknown) => Promise<unknown> }).register(o),
        options,
      );
    expect(await register({ scriptUrl: '/verifier-sw.js', config: '/verifier.json', timeoutMs: 5000 })).toMatchObject({
      ok: false,
      code: 'REGISTRATION_FAILED',
    });
    expect(await register({ scriptUrl: '/missing-sw.js', config: configFor(issuer.did) })).toMatchObject({
      ok: false,
      code: 'REGISTRATION_FAILED',
    });
    await brokenPage.close();
  });
});

describe('browsers the verifier cannot run in', () => {
  it('SW_UNSUPPORTED without WebCrypto Ed25519 (the worker verifies with nothing else), before registering anything', async () => {
    const bare = await openPage(app.origin);
    const result = await bare.evaluate(async () => {
      const subtle = crypto.subtle as unknown as { importKey: (...args: unknown[]) => Promise<unknown> };
      const original = subtle.importKey;
      subtle.importKey = (...args: unknown[]) =>
        args[2] === 'Ed25519'
          ? Promise.reject(new DOMException('Algorithm: Unrecognized name', 'NotSupportedError'))
          : original.apply(crypto.subtle, args);
      return (window as unknown as { register: (o: unknown) => Promise<unknown> }).register({
        scriptUrl: '/other-sw.js',
        config: '/verifier.json',
      });
    });
    expect(result).toMatchObject({ ok: false, code: 'SW_UNSUPPORTED' });
    await bare.close();
  });

  it('SW_UNSUPPORTED where there are no service workers', async () => {
    await expect(registerVerifier({ scriptUrl: '/verifier-sw.js', config: '/verifier.json' })).rejects.toMatchObject({
      code: 'SW_UNSUPPORTED',
    });
  });
});
