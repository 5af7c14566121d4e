/**
 * `npm run demo`: the consent & delegation story in one command (docs/demo.md). It starts the
 * issuer (development configuration, fresh SQLite file, 1 s status-list `ttl`) and one origin on
 * 127.0.0.1 serving the page, the service-worker verifier, the sample provider (demo/provider.ts),
 * the provider's MCP server behind `mcpAuth` (`/mcp`) and the operator's routes (`/operator/*`:
 * mint a token, revoke, read the audit trail). Those use the admin key server-side, never in the
 * page, and exist only because this is a loopback demo (docs/demo.md §Not for deployment).
 *
 * The pieces of that origin live in demo/server/ (page-server, page-routes, operator,
 * issuer-relay, mcp-server, static-files); this file starts them in order. `startDemo({port: 0})`
 * is what the end-to-end test runs.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../issuer/config/index.ts';
import { startIssuer, type RunningIssuer } from '../issuer/server.ts';
import { randomBytes } from '../wallet/crypto/bytes.ts';
import { encodeBase64url } from '../wallet/crypto/multikey.ts';
import { IssuerClient } from '../wallet/client/issuer-client.ts';
import { buildVerifierBundles } from '../verifier-worker/build.ts';
import { createDemoProvider, type DemoProvider } from './provider.ts';
import { buildStrictPage } from '../console/build.ts';
import { startPageServer } from './server/page-server.ts';
import { pageRoutes } from './server/page-routes.ts';
import { DEMO_SCOPES, DEMO_TARGET, MCP_PATH, MCP_TOOLS } from './server/story.ts';
import { createUndoStack, type UndoStack } from './server/undo.ts';

export { DEMO_SCOPES, DEMO_TARGET, MCP_PATH, MCP_TOOLS };

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

/** Builds the page (demo/index.html, demo/src) and the verifier worker into `outDir`. */
export async function buildDemoPage(outDir: string): Promise<void> {
  await buildStrictPage({ root: here, base: '/', outDir });
  await buildVerifierBundles({ outDir });
}

async function demoDirectories(options: StartDemoOptions, undo: UndoStack) {
  const dataDir = options.dataDir ?? (await undo.tempDir('mandate-demo-'));
  if (options.dataDir !== undefined) await mkdir(dataDir, { recursive: true });
  const buildDir = options.buildDir ?? (await undo.tempDir('mandate-demo-build-'));
  return { dataDir, buildDir };
}

/** The issuer in its development configuration, with a random admin key that stays in this process. */
async function startDemoIssuer(dataDir: string, undo: UndoStack) {
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
  return { issuer, operator };
}

export async function startDemo(options: StartDemoOptions = {}): Promise<RunningDemo> {
  const undo = createUndoStack();
  try {
    const { dataDir, buildDir } = await demoDirectories(options, undo);
    // The port first, so that a busy one fails at once rather than after the build; the page
    // origin must also be known before the provider is built (its status list URL names it).
    const page = await startPageServer(options.port ?? 5173, undo);
    await buildDemoPage(buildDir);
    const { issuer, operator } = await startDemoIssuer(dataDir, undo);
    const issuerDid = issuer.ctx.issuer.did;
    const provider = await createDemoProvider({
      origin: page.origin,
      target: DEMO_TARGET,
      issuerDid,
      issuerUrl: issuer.url,
      offeredScopes: DEMO_SCOPES,
    });
    page.serve(pageRoutes({ origin: page.origin, buildDir, issuerDid, issuerUrl: issuer.url, operator, provider }));
    let closing: Promise<void> | undefined;
    return { url: `${page.origin}/`, issuer, provider, close: () => (closing ??= undo.release()) };
  } catch (error) {
    await undo.release();
    throw error;
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const port = process.env.DEMO_PORT === undefined ? undefined : Number(process.env.DEMO_PORT);
  const demo = await startDemo({
    ...(port === undefined ? {} : { port }),
    ...(process.env.DEMO_DATA_DIR ? { dataDir: process.env.DEMO_DATA_DIR } : {}),
  }).catch((error: unknown) => {
    const inUse = typeof error === 'object' && error !== null && 'code' in error && error.code === 'EADDRINUSE';
    process.stderr.write(
      inUse
        ? `mandate demo: port ${port ?? 5173} is in use (is the demo already running?); set DEMO_PORT to use another port\n`
        : `mandate demo: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
  process.stderr.write(
    `Mandate demo: open ${demo.url}\n  issuer ${demo.issuer.url} (${demo.issuer.ctx.issuer.did})\n  provider ${demo.provider.did}\n  MCP server ${new URL(MCP_PATH, demo.url).href}\nCtrl-C to stop.\n`,
  );
  const stop = () =>
    void demo.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
