// The issuer over HTTP, under concurrent load (autocannon, 32 connections):
//   ceiling        a plain Hono app (GET /health, no middleware) in the issuer's process, and
//                  GET /v1/health through the issuer's whole middleware stack — no crypto, no DB
//   vpVerify       POST /v1/vp/verify with a fresh presentation per request (VP + AgentCredential,
//                  in-process status lists, replay and verified-credential caches on)
//   onboarding     server-custody onboardings/s (POST /v1/onboard + /v1/onboard/verify, tokens
//                  minted in advance): key generation, AES-GCM, a signed credential, status
//                  allocation and two SQLite transactions each
// vpVerify and onboarding run against THREE issuers at once, one per Ed25519 backend
// (SERVICE_ED25519_BACKEND=node | webcrypto | adaptive, the default): the issue asks for the
// path that wins under concurrent load, by measurement. The machine is shared, so the backends
// are measured in alternating rounds, and each issuer's CPU time (all threads, over IPC) is
// reported beside its wall-clock rate: requests per CPU-second does not move with the
// neighbours' load, coresUsed shows whether the thread pool put a second core to work.
//
// Each issuer runs in a CHILD process (the load generator must not share its event loop); this
// file is that child when MANDATE_BENCH_HTTP_SERVE=1. Every response is checked: non-2xx counts
// are reported.
//
//   npm run bench -- http        (through bench/run.ts)
//   npx tsx bench/http.ts        (alone; prints the same JSON)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { createProof } from '../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../wallet/crypto/ed25519.ts';
import { didKeyIdentity, type SigningIdentity } from '../wallet/vc/identity.ts';
import { signPresentation } from '../wallet/vc/presentation.ts';
import type { AgentCredential } from '../wallet/vc/types.ts';
import { inProcessVp1, timeInProcess } from './in-process-vp.ts';
import { median, round } from './measure.ts';

const CONNECTIONS = 32;
/** Measured seconds per backend, split over ROUNDS alternating rounds. */
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 12);
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 4);
const WARMUP_SECONDS = 2;
/** Presentations signed in advance per vpVerify run: more than the run can consume. */
const PRESENTATIONS = Number(process.env.BENCH_HTTP_PRESENTATIONS ?? 50_000);
const ONBOARDINGS = Number(process.env.BENCH_HTTP_ONBOARDINGS ?? 2400);
/** In-process VP+1 time next to each vpVerify round (the baseline of the ratio). */
const IN_PROCESS_MS = 1000;
export const TARGET = 'files.example.com';
export const ADMIN_KEY = 'bench-admin-key-0123456789abcdefghijklmnopqrstuvwxyz';
const BACKENDS = ['node', 'webcrypto', 'adaptive'] as const;

export type Backend = (typeof BACKENDS)[number];

export interface Run {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  requests: number;
  statusCodes: Record<string, number>;
}

// ---------------------------------------------------------------------------------------------
// Child: the issuer

async function serve(): Promise<void> {
  const { startIssuer } = await import('../issuer/server.ts');
  const dir = mkdtempSync(join(tmpdir(), 'mandate-bench-http-'));
  const issuer = await startIssuer({
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      // bench/audit-growth.ts hands over a database it pre-filled.
      SERVICE_SQLITE_PATH: process.env.MANDATE_BENCH_SQLITE_PATH ?? join(dir, 'issuer.db'),
      SERVICE_ADMIN_API_KEY: ADMIN_KEY,
      SERVICE_RATE_LIMIT_PER_IP: '10000000',
      SERVICE_RATE_LIMIT_PER_TOKEN: '10000000',
      SERVICE_ED25519_BACKEND: process.env.SERVICE_ED25519_BACKEND ?? 'adaptive',
      // bench/oauth.ts: autocannon sends no DPoP proofs.
      SERVICE_OAUTH_ALLOW_BEARER: 'true',
    },
    port: 0,
  });
  // The ceiling: a plain Hono app (no middleware) answering a constant JSON body, same process.
  const { Hono } = await import('hono');
  const { serve: listen } = await import('@hono/node-server');
  const bare = new Hono().get('/health', (c) => c.json({ ok: true }));
  const bareServer = await new Promise<import('@hono/node-server').ServerType>((resolve) => {
    const server = listen({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(server));
  });
  const barePort = (bareServer.address() as import('node:net').AddressInfo).port;
  process.stdout.write(
    `${JSON.stringify({ url: issuer.url, bareUrl: `http://127.0.0.1:${barePort}`, backend: issuer.ctx.config.ed25519Backend })}\n`,
  );
  const stop = () => {
    bareServer.close();
    void issuer.close().finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // The parent asks for this process's CPU time (all threads) around each measured round.
  process.on('message', (message) => {
    if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  });
}

// ---------------------------------------------------------------------------------------------
// Parent: load

export interface Child {
  url: string;
  bareUrl: string;
  process: ChildProcess;
}

export function startChild(backend: Backend, env: Record<string, string> = {}): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, MANDATE_BENCH_HTTP_SERVE: '1', SERVICE_ED25519_BACKEND: backend, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n')[0];
      if (buffered.includes('\n') && line)
        resolve({ ...(JSON.parse(line) as { url: string; bareUrl: string }), process: child });
    });
    child.once('exit', (code) => reject(new Error(`bench issuer exited with ${code}`)));
  });
}

export function stopChild(child: Child): Promise<void> {
  return new Promise((resolve) => {
    child.process.removeAllListeners('exit');
    child.process.once('exit', () => resolve());
    child.process.kill('SIGTERM');
  });
}

export async function api(
  base: string,
  path: string,
  body?: unknown,
  admin = false,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (admin) headers.authorization = `Bearer ${ADMIN_KEY}`;
  const res = await fetch(base + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

export async function mintTokens(base: string, count: number, domains: string[] = [TARGET]): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i += 64) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(64, count - i) }, () =>
        api(
          base,
          '/v1/enrollment-tokens',
          { requestedScopes: ['files:read'], maxDelegationDepth: 1, requestedDomains: domains, ttlSeconds: 3600 },
          true,
        ),
      ),
    );
    for (const res of batch) {
      if (res.status !== 201) throw new Error(`mint failed: ${res.status}`);
      tokens.push(res.json.token as string);
    }
  }
  return tokens;
}

/** A self-custody agent enrolled over HTTP (key from `seed`, targets `domains`), and its credential. */
export async function enrollAgent(
  base: string,
  seed = generateSeed(),
  domains = [TARGET],
): Promise<{ agent: SigningIdentity; credential: AgentCredential }> {
  const agent = didKeyIdentity(seedSigner(seed));
  const [token] = await mintTokens(base, 1, domains);
  const start = await api(base, '/v1/onboard', { token, custody: 'self', did: agent.did });
  const proof = await createProof(
    { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], holder: agent.did },
    {
      signer: agent.signer,
      verificationMethod: agent.verificationMethod,
      proofPurpose: 'authentication',
      challenge: start.json.challenge as string,
      domain: start.json.domain as string,
    },
  );
  const done = await api(base, '/v1/onboard/verify', { challengeId: start.json.challengeId, proof });
  if (done.status !== 201) throw new Error(`enrollment failed: ${done.status} ${JSON.stringify(done.json)}`);
  return { agent, credential: done.json.verifiableCredential as AgentCredential };
}

export async function presentations(
  agent: SigningIdentity,
  credential: AgentCredential,
  count: number,
): Promise<string[]> {
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const vp = await signPresentation({
      holder: agent,
      credentials: [credential],
      challenge: `bench-${i}`,
      domain: TARGET,
      lifetimeMs: 30 * 60_000,
    });
    bodies.push(JSON.stringify({ presentation: vp, expectedTarget: TARGET }));
  }
  return bodies;
}

export function summarize(result: autocannon.Result): Run {
  return {
    requestsPerSec: round(result.requests.average, 1),
    p50Ms: round(result.latency.p50, 2),
    p99Ms: round(result.latency.p99, 2),
    non2xx: result.non2xx,
    errors: result.errors,
    requests: result.requests.total,
    statusCodes: statusCodes(result),
  };
}

function statusCodes(result: autocannon.Result): Record<string, number> {
  return Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]),
  );
}

export function load(options: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ connections: CONNECTIONS, pipelining: 1, ...options });
}

async function benchGet(url: string): Promise<Run> {
  await load({ url, duration: WARMUP_SECONDS });
  return summarize(await load({ url, duration: SECONDS }));
}

export interface Stock {
  bodies: string[];
  next: number;
  /** Every request sends bodies[0] (a request that may repeat). */
  repeat?: boolean;
}

/** POSTs to `path` for `seconds`, each request with the next body of `stock` (each is usable once). */
export async function benchPosts(
  base: string,
  path: string,
  headers: Record<string, string>,
  stock: Stock,
  seconds: number,
  extra: Partial<autocannon.Options> = {},
): Promise<Run> {
  const request = (): autocannon.Request => ({
    method: 'POST',
    path,
    headers,
    body: (stock.repeat ? stock.bodies[0] : stock.bodies[stock.next++]) ?? '',
  });
  const result = await load({
    url: base,
    duration: seconds,
    requests: [{ setupRequest: (req) => ({ ...req, ...request() }) }],
    ...extra,
  });
  if (stock.next > stock.bodies.length)
    throw new Error(`${path} ran out of request bodies (${stock.bodies.length}); raise the bench's stock`);
  return summarize(result);
}

export function benchVpVerify(base: string, stock: Stock, seconds: number): Promise<Run> {
  return benchPosts(base, '/v1/vp/verify', { 'content-type': 'application/json' }, stock, seconds);
}

interface OnboardingRun {
  onboardingsPerSec: number;
  /** Latency of each of the two requests (p50/p99 over both). */
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  onboardings: number;
  /** First request sent to last answer. */
  seconds: number;
  /** What autocannon reports: rounded up to its 1-second tick, so not used for the rate. */
  autocannonSeconds: number;
  statusCodes: Record<string, number>;
}

/**
 * autocannon's `setupRequest` of POST /v1/onboard/verify: the body answers the challenge that the
 * previous POST /v1/onboard (its onResponse put the reply in the context as `started`) issued.
 */
export function answerChallenge(req: autocannon.Request, context: object): autocannon.Request {
  const started = (context as { started?: { challengeId: string; challenge: string } }).started;
  return { ...req, body: JSON.stringify({ challengeId: started?.challengeId, challenge: started?.challenge }) };
}

async function benchOnboarding(base: string, count: number): Promise<OnboardingRun> {
  // autocannon prepares requests ahead of sending them: spare tokens so none is sent without one.
  const tokens = await mintTokens(base, count + 4 * CONNECTIONS);
  let next = 0;
  // Timed here, first request sent to last answer: autocannon's own `duration` for an `amount`
  // run ends on its next 1-second sampling tick, so it is rounded UP to whole seconds — 375
  // onboardings done in 1.3 s read as 187.5/s, whatever the issuer's speed (the "flat 187/s").
  let firstSent: number | undefined;
  let lastAnswered = 0;
  const result = await load({
    url: base,
    amount: count * 2,
    requests: [
      {
        method: 'POST',
        path: '/v1/onboard',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => {
          firstSent ??= performance.now();
          return { ...req, body: JSON.stringify({ token: tokens[next++], custody: 'server' }) };
        },
        onResponse: (_status, body, context) => {
          Object.assign(context, { started: JSON.parse(body) as { challengeId: string; challenge: string } });
        },
      },
      {
        method: 'POST',
        path: '/v1/onboard/verify',
        headers: { 'content-type': 'application/json' },
        setupRequest: answerChallenge,
        onResponse: () => {
          lastAnswered = performance.now();
        },
      },
    ],
  });
  const seconds = (lastAnswered - (firstSent ?? lastAnswered)) / 1000;
  return {
    onboardingsPerSec: round(result['2xx'] / 2 / seconds, 1),
    p50Ms: round(result.latency.p50, 2),
    p99Ms: round(result.latency.p99, 2),
    non2xx: result.non2xx,
    onboardings: Math.floor(result['2xx'] / 2),
    seconds: round(seconds, 3),
    autocannonSeconds: result.duration,
    statusCodes: statusCodes(result),
  };
}

interface BackendSummary {
  /** Total 2xx-or-not requests over total measured time, all rounds. */
  requestsPerSec: number;
  /** Median over rounds. */
  p50Ms: number;
  p99Ms: number;
  /** Requests per CPU-second of the issuer process (all its threads): efficiency, robust to a busy machine. */
  requestsPerCpuSec: number;
  /** CPU-seconds per wall-second of the issuer process: how many cores it kept busy. */
  coresUsed: number;
  perRound: number[];
  non2xx: number;
  errors: number;
}

export function childCpuSeconds(child: Child): Promise<number> {
  return new Promise((resolve) => {
    child.process.once('message', (message) => {
      const { user, system } = (message as { cpu: NodeJS.CpuUsage }).cpu;
      resolve((user + system) / 1e6);
    });
    child.process.send?.('cpu');
  });
}

/**
 * Runs `measure` on each backend in ROUNDS alternating rounds (node, webcrypto, adaptive, then
 * back): the machine this runs on is shared, and interleaving spreads load changes over all.
 */
async function interleaved<
  T extends { requestsPerSec: number; p50Ms: number; p99Ms: number; non2xx: number; requests: number; errors?: number },
>(
  children: Record<Backend, Child>,
  measure: (backend: Backend, round: number) => Promise<T & { seconds: number }>,
): Promise<Record<Backend, BackendSummary>> {
  type Round = T & { seconds: number; cpu: number };
  const rounds = Object.fromEntries(BACKENDS.map((b): [Backend, Round[]] => [b, []])) as Record<Backend, Round[]>;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? BACKENDS : [...BACKENDS].reverse();
    for (const backend of order) {
      const cpuBefore = await childCpuSeconds(children[backend]);
      const result = await measure(backend, round);
      rounds[backend].push({ ...result, cpu: (await childCpuSeconds(children[backend])) - cpuBefore });
    }
  }
  const summary = {} as Record<Backend, BackendSummary>;
  for (const backend of BACKENDS) {
    const runs = rounds[backend];
    const requests = runs.reduce((n, r) => n + r.requests, 0);
    const seconds = runs.reduce((n, r) => n + r.seconds, 0);
    const cpu = runs.reduce((n, r) => n + r.cpu, 0);
    summary[backend] = {
      requestsPerSec: round(requests / seconds, 1),
      p50Ms: median(runs.map((r) => r.p50Ms)),
      p99Ms: median(runs.map((r) => r.p99Ms)),
      requestsPerCpuSec: round(requests / cpu, 1),
      coresUsed: round(cpu / seconds, 2),
      perRound: runs.map((r) => r.requestsPerSec),
      non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
      errors: runs.reduce((n, r) => n + (r.errors ?? 0), 0),
    };
  }
  return summary;
}

export async function run(): Promise<Record<string, unknown>> {
  const children = {} as Record<Backend, Child>;
  try {
    for (const backend of BACKENDS) {
      children[backend] = await startChild(backend);
      process.stderr.write(`  http: backend ${backend} at ${children[backend].url}\n`);
    }
    const first = children[BACKENDS[0]];
    const ceiling = {
      bareHono: await benchGet(`${first.bareUrl}/health`),
      health: await benchGet(`${first.url}/v1/health`),
    };

    // One agent and a stock of fresh presentations per issuer (each is accepted once: replay cache).
    const stock = {} as Record<Backend, { bodies: string[]; next: number }>;
    for (const backend of BACKENDS) {
      const { agent, credential } = await enrollAgent(children[backend].url);
      stock[backend] = { bodies: await presentations(agent, credential, PRESENTATIONS), next: 0 };
      await benchVpVerify(children[backend].url, stock[backend], WARMUP_SECONDS);
    }
    // The baseline, in this process while the issuers idle, timed just before each HTTP round.
    const vp1 = await inProcessVp1();
    await timeInProcess(vp1, 1000);
    const baseline = { ops: 0, ms: 0, cpuMs: 0 };
    const vpVerify = await interleaved(children, async (backend) => {
      const inProcess = await timeInProcess(vp1, IN_PROCESS_MS);
      baseline.ops += (inProcess.opsPerSec * IN_PROCESS_MS) / 1000;
      baseline.ms += IN_PROCESS_MS;
      baseline.cpuMs += (((inProcess.opsPerSec * IN_PROCESS_MS) / 1000) * 1000) / inProcess.opsPerCpuSec;
      return {
        ...(await benchVpVerify(children[backend].url, stock[backend], SECONDS / ROUNDS)),
        seconds: SECONDS / ROUNDS,
      };
    });
    const inProcessVp1PerSec = round((baseline.ops * 1000) / baseline.ms, 1);
    const inProcessVp1PerCpuSec = round((baseline.ops * 1000) / baseline.cpuMs, 1);
    const onboarding = await interleaved(children, async (backend) => {
      const result = await benchOnboarding(children[backend].url, Math.ceil(ONBOARDINGS / ROUNDS));
      return {
        ...result,
        requestsPerSec: result.onboardingsPerSec,
        requests: result.onboardings,
        seconds: result.seconds,
      };
    });
    const winner = BACKENDS.reduce((best, b) =>
      vpVerify[b].requestsPerSec > vpVerify[best].requestsPerSec ? b : best,
    );
    return {
      connections: CONNECTIONS,
      rounds: ROUNDS,
      secondsPerBackend: SECONDS,
      loadavg1: round(loadavg()[0] ?? 0, 2),
      ceiling: {
        bareHono: {
          endpoint: 'GET /health on a plain Hono app (no middleware), in the issuer process',
          ...ceiling.bareHono,
        },
        health: {
          endpoint:
            'GET /v1/health through the issuer middleware (request id, log, secure headers, rate limit, body limit, etag)',
          ...ceiling.health,
        },
      },
      vpVerify: { endpoint: 'POST /v1/vp/verify (VP + AgentCredential, replay and credential caches on)', ...vpVerify },
      inProcessVp1: {
        what: 'verifyPresentation of VP + 1 AgentCredential in the bench process (compiled library, as bench/verify.ts mandateVp1), timed before each vpVerify round',
        opsPerSec: inProcessVp1PerSec,
        opsPerCpuSec: inProcessVp1PerCpuSec,
      },
      ratios: Object.fromEntries(
        BACKENDS.map((b) => [
          b,
          {
            vpVerifyOverInProcessVp1: round(vpVerify[b].requestsPerSec / inProcessVp1PerSec),
            // Per CPU-second of each process: what the ratio would be with a core to itself.
            vpVerifyOverInProcessVp1ByCpu: round(vpVerify[b].requestsPerCpuSec / inProcessVp1PerCpuSec),
            vpVerifyP99OverP50: round(vpVerify[b].p99Ms / vpVerify[b].p50Ms),
          },
        ]),
      ),
      onboarding: { flow: 'server custody: POST /v1/onboard + POST /v1/onboard/verify (onboardings/s)', ...onboarding },
      fastestVpVerifyBackend: winner,
    };
  } finally {
    for (const child of Object.values(children)) await stopChild(child);
  }
}

if (process.env.MANDATE_BENCH_HTTP_SERVE === '1') {
  await serve();
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
}
