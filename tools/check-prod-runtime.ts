/**
 * `npm run check:prod` (a CI step, after `npm run build`): the production runtime from a clean
 * copy of the package, as a container image would hold it — the manifests, the lockfile and the
 * build (dist/issuer, dist/console), nothing else. It installs with `npm ci --omit=dev`, checks
 * that no TypeScript, tsx or Vite came with it, starts the documented command (`npm run
 * start:prod`: `node dist/issuer/issuer/main.js`) in production with SERVICE_WORKERS=2, checks
 * /v1/health, /v1/ready, /console and the OpenAPI document, then SIGTERM, which must exit 0.
 * Any failure ends it with a line saying what failed and exit code 1.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freshRequest, spawnIssuer, type IssuerProcess } from '../test/support/issuer-child.ts';
import { ISSUER_MAIN } from './build-issuer.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const COPIED = ['package.json', 'package-lock.json', join('issuer', 'package.json'), 'dist/issuer', 'dist/console'];
/** Development tools that must not be installed by `npm ci --omit=dev`. */
const DEV_ONLY = ['typescript', 'tsx', 'vite', 'vitest', 'esbuild'];

const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  PORT: '0',
  API_BASE_URL: 'http://127.0.0.1:8787',
  DID_DOMAIN: 'issuer.example.com',
  SERVICE_ADMIN_API_KEY: 'prod-check-admin-key-0123456789abcdefghijklmnop',
  SERVICE_SIGNING_KEY: '9f1c4e7a2b8d05f36e91a4c7d2b58e0f13a6c9d4e7f0b2a58c1d6e93f4a7b20c',
  SERVICE_KEY_ENCRYPTION_KEY: '3a7e0c91f5d24b86a1e9c3f70d5b28e4c6a1f93d07b5e28c4f1a69d3e0b7c52f',
  SERVICE_WORKERS: '2',
  LOG_LEVEL: 'info',
};

class CheckFailed extends Error {}

function check(condition: boolean, what: string): void {
  if (!condition) throw new CheckFailed(what);
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** The clean copy, installed without development dependencies. */
async function install(work: string): Promise<void> {
  for (const path of COPIED) {
    check(await exists(join(root, path)), `${path} is missing: run npm run build first`);
    await mkdir(join(work, path, '..'), { recursive: true });
    await cp(join(root, path), join(work, path), { recursive: true });
  }
  const started = Date.now();
  await promisify(execFile)('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: work,
    // Where no prebuilt better-sqlite3 can be downloaded, node-gyp compiles it: on every core.
    env: { ...process.env, NODE_OPTIONS: '', JOBS: 'max' },
    maxBuffer: 16 << 20,
  });
  console.log(`check-prod-runtime: npm ci --omit=dev took ${((Date.now() - started) / 1000).toFixed(0)} s`);
  for (const name of DEV_ONLY)
    check(!(await exists(join(work, 'node_modules', name))), `npm ci --omit=dev installed ${name}`);
}

async function probe(issuer: IssuerProcess): Promise<void> {
  const started = await issuer.waitFor((line) => line.msg === 'issuer started', 60_000);
  const url = String(started.url);
  const health = await freshRequest(`${url}/v1/health`);
  check(
    health.status === 200 && health.body.includes('did:web:issuer.example.com'),
    `GET /v1/health: ${health.status} ${health.body}`,
  );
  const ready = await freshRequest(`${url}/v1/ready`);
  check(ready.status === 200 && ready.body.includes('"database":"ok"'), `GET /v1/ready: ${ready.status} ${ready.body}`);
  const page = await freshRequest(`${url}/console`);
  check(page.status === 200 && page.body.includes('Mandate operator console'), `GET /console: ${page.status}`);
  const openapi = await freshRequest(`${url}/v1/openapi.json`);
  check(openapi.status === 200 && openapi.body.includes('/v1/ready'), `GET /v1/openapi.json: ${openapi.status}`);
}

async function main(): Promise<void> {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  check(manifest.scripts['start:prod'] === `node ${ISSUER_MAIN}`, `start:prod is not "node ${ISSUER_MAIN}"`);
  const work = await mkdtemp(join(tmpdir(), 'mandate-prod-'));
  let issuer: IssuerProcess | undefined;
  try {
    await install(work);
    issuer = spawnIssuer(
      [ISSUER_MAIN],
      { ...PRODUCTION_ENV, SERVICE_SQLITE_PATH: join(work, 'data', 'issuer.db') },
      work,
    );
    await probe(issuer);
    issuer.child.kill('SIGTERM');
    const code = await issuer.exited;
    check(code === 0, `SIGTERM: exit code ${code}`);
    check(issuer.otherStdout.length === 0, `non-JSON lines on stdout: ${issuer.otherStdout.join(' | ')}`);
    console.log(
      'check-prod-runtime: ok (npm ci --omit=dev, node dist/issuer/issuer/main.js, 2 workers, SIGTERM exit 0)',
    );
  } catch (error) {
    console.error(`check-prod-runtime: FAILED: ${error instanceof Error ? error.message : String(error)}`);
    if (issuer) console.error(`issuer stderr: ${issuer.stderr()}\nissuer log: ${JSON.stringify(issuer.lines)}`);
    issuer?.child.kill('SIGKILL');
    process.exitCode = 1;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
