// Where an issuer request's time goes: starts the bench issuer (bench/http.ts's child) under
// `node --cpu-prof`, loads one endpoint with autocannon, stops it and prints the profile's top
// self-time functions (and the top files). A helper (no `run`), so bench/run.ts skips it.
//
//   npx tsx bench/profile-http.ts vp-verify|onboarding|health [seconds]   (SERVICE_ED25519_BACKEND picks the backend)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { answerChallenge, enrollAgent, mintTokens, presentations, type Child } from './http.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [what = 'vp-verify', secondsArg = '8'] = process.argv.slice(2);
const seconds = Number(secondsArg);
const dir = mkdtempSync(join(tmpdir(), 'mandate-prof-'));

function start(): Promise<Child> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      fileURLToPath(new URL('profile-child.ts', import.meta.url)),
      fileURLToPath(new URL('http.ts', import.meta.url)),
    ],
    {
      env: { ...process.env, MANDATE_BENCH_HTTP_SERVE: '1', MANDATE_PROFILE_OUT: join(dir, 'issuer.cpuprofile') },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  return new Promise((resolve) => {
    child.stdout?.once('data', (chunk: Buffer) =>
      resolve({
        ...(JSON.parse(chunk.toString().split('\n')[0] ?? '') as { url: string; bareUrl: string }),
        process: child,
      }),
    );
  });
}

const holder: { child?: Child } = {};

/** Starts or stops the profiler in the issuer child (bench/profile-child.ts). */
function profiling(what: 'start' | 'stop'): Promise<void> {
  return new Promise((resolve) => {
    holder.child?.process.once('message', () => resolve());
    holder.child?.process.send(`profile-${what}`);
  });
}

async function loadVpVerify(base: string): Promise<void> {
  const { agent, credential } = await enrollAgent(base);
  const bodies = await presentations(agent, credential, Math.ceil(seconds * 1500));
  let next = 0;
  await profiling('start');
  const result = await autocannon({
    url: base,
    connections: 32,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          method: 'POST',
          path: '/v1/vp/verify',
          headers: { 'content-type': 'application/json' },
          body: bodies[next++] ?? '',
        }),
      },
    ],
  });
  process.stderr.write(
    `vp/verify: ${result.requests.average} req/s, p50 ${result.latency.p50}, non2xx ${result.non2xx}\n`,
  );
}

async function loadHealth(base: string): Promise<void> {
  await profiling('start');
  const result = await autocannon({ url: `${base}/v1/health`, connections: 32, duration: seconds });
  process.stderr.write(`health: ${result.requests.average} req/s, p50 ${result.latency.p50}\n`);
}

async function loadOnboarding(base: string): Promise<void> {
  const count = Math.ceil(seconds * 300);
  const tokens = await mintTokens(base, count + 200);
  let next = 0;
  await profiling('start');
  const result = await autocannon({
    url: base,
    connections: 32,
    amount: count * 2,
    requests: [
      {
        method: 'POST',
        path: '/v1/onboard',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ token: tokens[next++], custody: 'server' }) }),
        onResponse: (_s, body, context) => Object.assign(context, { started: JSON.parse(body) as unknown }),
      },
      {
        method: 'POST',
        path: '/v1/onboard/verify',
        headers: { 'content-type': 'application/json' },
        setupRequest: answerChallenge,
      },
    ],
  });
  process.stderr.write(
    `onboarding: ${result.requests.total / 2 / result.duration}/s, p50 ${result.latency.p50}, non2xx ${result.non2xx}\n`,
  );
}

/** Frames whose inclusive time is reported: where the per-request work beyond the library goes. */
const INCLUSIVE = [
  'verifyPresentation',
  'record',
  'append',
  'remember',
  'sqliteTransaction',
  'transaction',
  'jsonParse',
  'parseUnambiguousJson',
  'canonicalizeJson',
  'auditRecordHash',
  'requestLogger',
  'dispatch',
  'onboard',
  'complete',
  'encryptSeed',
  'generateSeed',
  'issueAgentCredential',
  'scryptSync',
  'scrypt',
  'pbkdf2',
  'hkdf',
];

function summarise(profile: Profile): void {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const parent = new Map<number, ProfileNode>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const isIdle = (node: ProfileNode) => node.callFrame.functionName === '(idle)';
  const total = profile.nodes.filter((n) => !isIdle(n)).reduce((a, n) => a + (self.get(n.id) ?? 0), 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    if (us === 0 || isIdle(node)) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^.*node_modules\//, 'nm:').replace(/^file:\/\/.*?\/(wallet|issuer|bench)\//, '$1/');
    const key = `${functionName || '(anon)'} ${file}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const fileKey = file.startsWith('nm:') ? file.split('/').slice(0, 2).join('/') : file || '(native)';
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: ProfileNode | undefined = byId.get(node.id); at; at = parent.get(at.id)) {
      const name = at.callFrame.functionName;
      if (INCLUSIVE.includes(name) && !seen.has(name)) {
        seen.add(name);
        inclusive.set(name, (inclusive.get(name) ?? 0) + us);
      }
    }
  }
  // Native frames (a crypto job's `run`, a statement's `run`) named by the JS function calling them.
  const nativeCallers = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    if (us === 0 || node.callFrame.url !== '' || isIdle(node)) continue;
    const caller = parent.get(node.id);
    const grand = caller && parent.get(caller.id);
    const name = (n: ProfileNode | undefined) =>
      n ? `${n.callFrame.functionName || '(anon)'}@${n.callFrame.url.split('/').slice(-1)[0] ?? ''}` : '';
    const key = `${node.callFrame.functionName} <- ${name(caller)} <- ${name(grand)}`;
    nativeCallers.set(key, (nativeCallers.get(key) ?? 0) + us);
  }
  const top = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`)
      .join('\n');
  process.stdout.write(
    `busy (non-idle) time ${(total / 1e6).toFixed(1)} s; shares of it\nself\n${top(byFunction, 35)}\n\nby file\n${top(byFile, 20)}\n\ninclusive\n${top(inclusive, 25)}\n\nnative, by caller\n${top(nativeCallers, 20)}\n`,
  );
}

const child = await start();
holder.child = child;
if (what === 'onboarding') await loadOnboarding(child.url);
else if (what === 'health') await loadHealth(child.url);
else await loadVpVerify(child.url);
await profiling('stop');
await new Promise<void>((resolve) => {
  child.process.once('exit', () => resolve());
  child.process.kill('SIGTERM');
});
summarise(JSON.parse(readFileSync(join(dir, 'issuer.cpuprofile'), 'utf8')) as Profile);
