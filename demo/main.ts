/**
 * `npm run demo`: the consent & delegation story in one command (docs/demo.md). It starts
 *
 * - the issuer (development configuration, a fresh SQLite file in a temp directory unless
 *   DEMO_DATA_DIR is set, a random admin key that stays in this process, status lists with a 1 s
 *   `ttl` so a revocation shows within the demo);
 * - one origin on 127.0.0.1 that serves the demo page and the service-worker verifier, the
 *   sample service provider (demo/provider.ts) and its API, and the operator's side of the story
 *   (`/operator/*`: mint a token, revoke, read the audit trail). The operator routes use the
 *   admin key HERE, server-side: the key never reaches the page. They exist because this is a
 *   local demo on loopback; nothing like them belongs in a deployment.
 *
 * `startDemo({port: 0})` is what the end-to-end test runs.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { loadConfig } from '../issuer/config.ts';
import { startIssuer, type RunningIssuer } from '../issuer/server.ts';
import { randomBytes } from '../wallet/crypto/bytes.ts';
import { encodeBase64url } from '../wallet/crypto/multikey.ts';
import { IssuerClient } from '../wallet/client/issuer-client.ts';
import { isIssuerApiError } from '../wallet/client/errors.ts';
import { buildVerifierBundles } from '../verifier-worker/build.ts';
import { createDemoProvider, type DemoProvider } from './provider.ts';
import { buildStrictPage } from '../console/build.ts';

/** The service name presentations to the demo API are bound to (their proof domain). */
export const DEMO_TARGET = 'files.demo.localhost';
/** What the operator allows the agent, and what the provider asks the user to approve. */
export const DEMO_SCOPES = Object.freeze(['files:read', 'files:write']);

export interface StartDemoOptions {
  /** Port of the page origin (default 5173; 0 picks a free one). The issuer always takes a free port. */
  port?: number;
  /** Keep the issuer's database here instead of a temp directory (removed on close). */
  dataDir?: string;
  /** Where the page and worker are built (default: a temp directory, removed on close). */
  buildDir?: string;
}

export interface RunningDemo {
  /** The page: open it in a browser. */
  url: string;
  issuer: RunningIssuer;
  provider: DemoProvider;
  close(): Promise<void>;
}

const here = fileURLToPath(new URL('.', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/** The page's Content-Security-Policy: its own scripts and styles only, connections to itself and the issuer's public documents. */
function contentSecurityPolicy(issuerUrl: string): string {
  return `default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self' ${issuerUrl}; worker-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/** Builds the page (demo/index.html, demo/src) and the verifier worker into `outDir`. */
export async function buildDemoPage(outDir: string): Promise<void> {
  await buildStrictPage({ root: here, base: '/', outDir });
  await buildVerifierBundles({ outDir });
}

function listen(app: Hono, port: number): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(server));
    server.once('error', reject);
  });
}

/** Serves files of `root` only: no directory listing, no path outside it. */
async function staticFile(root: string, path: string, csp: string): Promise<Response | undefined> {
  const relative = normalize(decodeURIComponent(path === '/' ? '/index.html' : path)).replace(/^([/\\])+/, '');
  const file = join(root, relative);
  if (!file.startsWith(root + sep) || relative.includes('\0')) return undefined;
  const type = CONTENT_TYPES[extname(file)];
  if (type === undefined) return undefined;
  try {
    const body = await readFile(file);
    const headers: Record<string, string> = {
      'content-type': type,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    };
    if (type.startsWith('text/html')) headers['content-security-policy'] = csp;
    return new Response(body, { status: 200, headers });
  } catch {
    return undefined;
  }
}

/** The issuer's onboarding endpoints, relayed so the page talks to one origin (the issuer's API sends no CORS headers). */
const RELAYED = new Set(['POST /v1/onboard', 'POST /v1/onboard/verify', 'GET /v1/health']);

function errorJson(code: string, message: string, status: 400 | 404 | 502): Response {
  return Response.json({ error: { code, message } }, { status });
}

export async function startDemo(options: StartDemoOptions = {}): Promise<RunningDemo> {
  // Each step registers how to undo itself, so a failed start leaves nothing behind (the data
  // directory holds the issuer's secrets), and close() undoes them all, in reverse.
  const undo: Array<() => Promise<unknown>> = [];
  const release = async () => {
    for (const step of [...undo].reverse()) await step();
  };
  try {
    const tempDir = async (prefix: string) => {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      undo.push(() => rm(dir, { recursive: true, force: true }));
      return dir;
    };
    const dataDir = options.dataDir ?? (await tempDir('mandate-demo-'));
    if (options.dataDir !== undefined) await mkdir(dataDir, { recursive: true });
    const buildDir = options.buildDir ?? (await tempDir('mandate-demo-build-'));

    // The port first, so that a busy one fails at once rather than after the build; the page
    // origin must also be known before the provider is built (its status list URL names it).
    const app = new Hono();
    let handler: (request: Request) => Response | Promise<Response> = () =>
      errorJson('STARTING', 'the demo is starting', 502);
    app.all('*', (c) => handler(c.req.raw));
    const server = await listen(app, options.port ?? 5173);
    undo.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
    );

    await buildDemoPage(buildDir);
    const adminKey = encodeBase64url(randomBytes(32));
    const issuer = await startIssuer({
      port: 0,
      config: loadConfig({
        NODE_ENV: 'development',
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        SERVICE_SQLITE_PATH: join(dataDir, 'issuer.db'),
        SERVICE_ADMIN_API_KEY: adminKey,
        SERVICE_STATUS_LIST_TTL_SECONDS: '1',
      }),
    });
    undo.push(() => issuer.close());
    const operator = new IssuerClient({ baseUrl: issuer.url, adminKey, allowInsecureHttp: true });
    const issuerDid = issuer.ctx.issuer.did;

    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const provider = await createDemoProvider({
      origin,
      target: DEMO_TARGET,
      issuerDid,
      issuerUrl: issuer.url,
      offeredScopes: DEMO_SCOPES,
    });
    const csp = contentSecurityPolicy(issuer.url);

    const routes = new Hono();
    // The same bound as the provider's: no request of this demo needs more.
    routes.use(
      '*',
      bodyLimit({
        maxSize: 32 * 1024,
        onError: (c) =>
          c.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'request bodies are limited to 32 KiB' } }, 413),
      }),
    );
    routes.get('/demo/config.json', (c) =>
      c.json(
        {
          issuerDid,
          issuerUrl: issuer.url,
          issuerRelay: `${origin}/issuer`,
          providerDid: provider.did,
          target: DEMO_TARGET,
          scopes: DEMO_SCOPES,
        },
        200,
        { 'cache-control': 'no-store' },
      ),
    );
    routes.post('/operator/enrollment-token', async (c) => {
      const request = {
        requestedScopes: [...DEMO_SCOPES],
        maxDelegationDepth: 2,
        requestedDomains: [DEMO_TARGET],
        ttlSeconds: 900,
      };
      const token = await operator.mintEnrollmentToken(request);
      return c.json({ request, response: token }, 201, { 'cache-control': 'no-store' });
    });
    routes.post('/operator/revoke', async (c) => {
      const body: unknown = await c.req.json().catch(() => undefined);
      const vcId = typeof body === 'object' && body !== null ? (body as { vcId?: unknown }).vcId : undefined;
      if (typeof vcId !== 'string' || vcId.length > 256) return errorJson('MALFORMED', 'expected {vcId}', 400);
      const revoked = await operator.revoke(vcId, { reason: 'demo: the operator revokes the agent' });
      const { verifiableCredential: _omitted, ...view } = revoked;
      return c.json(view);
    });
    routes.get('/operator/audit', async (c) => {
      const [page, chain] = await Promise.all([operator.audit({ limit: 200 }), operator.verifyAuditChain()]);
      return c.json({ chain, records: [...page.records].sort((a, b) => a.seq - b.seq) }, 200, {
        'cache-control': 'no-store',
      });
    });
    routes.all('/issuer/*', async (c) => {
      const path = c.req.path.slice('/issuer'.length);
      if (!RELAYED.has(`${c.req.method} ${path}`))
        return errorJson('NOT_RELAYED', 'the demo relays only the onboarding endpoints', 404);
      const init: RequestInit = { method: c.req.method, headers: { 'content-type': 'application/json' } };
      if (c.req.method === 'POST') init.body = await c.req.text();
      try {
        const answer = await fetch(issuer.url + path, init);
        // Relayed whole, with a Content-Length: Chromium labels a no-store answer that arrives in
        // pieces and is read as a stream (the wallet client's bounded read) "canceled" in
        // DevTools, though the page received all of it (microsoft/playwright#42742).
        return new Response(await answer.arrayBuffer(), {
          status: answer.status,
          headers: {
            'content-type': answer.headers.get('content-type') ?? 'application/json',
            'cache-control': 'no-store',
          },
        });
      } catch {
        return errorJson('ISSUER_UNREACHABLE', 'the issuer did not answer', 502);
      }
    });
    routes.route('/', provider.app);
    routes.get(
      '*',
      async (c) => (await staticFile(buildDir, c.req.path, csp)) ?? errorJson('NOT_FOUND', 'no such page', 404),
    );
    // The issuer's refusal (say, 404 for an unknown credential) passes through as it came.
    routes.onError((error) =>
      isIssuerApiError(error)
        ? Response.json({ error: { code: error.code, message: error.message } }, { status: error.status })
        : Response.json({ error: { code: 'DEMO_ERROR', message: error.message } }, { status: 500 }),
    );
    handler = (request) => routes.fetch(request);

    let closing: Promise<void> | undefined;
    return {
      url: `${origin}/`,
      issuer,
      provider,
      close: () => (closing ??= release()),
    };
  } catch (error) {
    await release();
    throw error;
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const port = process.env.DEMO_PORT === undefined ? undefined : Number(process.env.DEMO_PORT);
  const demo = await startDemo({
    ...(port === undefined ? {} : { port }),
    ...(process.env.DEMO_DATA_DIR ? { dataDir: process.env.DEMO_DATA_DIR } : {}),
  }).catch((error: unknown) => {
    const inUse = (error as { code?: unknown }).code === 'EADDRINUSE';
    process.stderr.write(
      inUse
        ? `mandate demo: port ${port ?? 5173} is in use (is the demo already running?); set DEMO_PORT to use another port\n`
        : `mandate demo: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
  process.stderr.write(
    `Mandate demo: open ${demo.url}\n  issuer ${demo.issuer.url} (${demo.issuer.ctx.issuer.did})\n  provider ${demo.provider.did}\nCtrl-C to stop.\n`,
  );
  const stop = () =>
    void demo.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
