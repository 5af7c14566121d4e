// The MCP resource server's per-request cost (issue 25 §5): an RFC 9068 access token checked at
// the resource server (one Ed25519 signature, JWKS cached after the first request) against raw
// Ed25519 verifications in the same run, and a whole protected `tools/call` (Hono app, the MCP
// SDK's web-standard transport, in process) against the same call unprotected.
//
// Cases, each interleaved with raw verification in slices (as bench/verify.ts does, so both see
// the same load on a shared machine):
//   raw            node:crypto verify of the token's signing input, one reused KeyObject — the ceiling
//   tokenCheck     verifyAccessToken: parse, typ/alg, cached key, signature, iss/aud/exp/iat, claims
//   authorize      authorizeMcpRequest on a tools/call Request: the token check plus reading the
//                  JSON-RPC body and the tool table (what the middleware does per request)
//   toolsCall      app.request(tools/call) through mcpAuth and the SDK transport, and without mcpAuth
// Goal: tokenCheck ≥ 0.8 × raw. The library is the compiled package (bench/library.ts).
//   npm run bench -- mcp
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Hono } from 'hono';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type * as Verifier from '../verifier-worker/index.ts';
import { shippedWallet } from './library.ts';
import { cpuMsSince, measured, median, round, type Measure } from './measure.ts';

await shippedWallet(); // compiles dist/bench-lib/, verifier entry included
const verifier = (await import(
  pathToFileURL(join(fileURLToPath(new URL('../dist/bench-lib/', import.meta.url)), 'verifier-worker', 'index.js')).href
)) as typeof Verifier;

const DURATION_MS = 2000;
const WARMUP_MS = 300;
const SLICES = 20;
const ISSUER = 'https://issuer.example';
const RESOURCE = 'https://tools.example/mcp';

interface Paired {
  m: Measure;
  raw: Measure;
  medianRatio: number;
}

/** Runs `rawOp` and `op` in alternating slices; rates for both and the median slice ratio. */
async function paired(op: () => Promise<unknown>, rawOp: () => void, durationMs = DURATION_MS): Promise<Paired> {
  for (let until = performance.now() + WARMUP_MS; performance.now() < until;) await op();
  const totals = { case: { ops: 0, wallMs: 0, cpuMs: 0 }, raw: { ops: 0, wallMs: 0, cpuMs: 0 } };
  const ratios: number[] = [];
  const sliceMs = durationMs / SLICES;
  for (let slice = 0; slice < SLICES; slice++) {
    let cpu = process.cpuUsage();
    let start = performance.now();
    let now = start;
    let ops = 0;
    for (const end = start + sliceMs / 3; now < end; now = performance.now(), ops++) rawOp();
    const rawRate = ops / (now - start);
    Object.assign(totals.raw, {
      ops: totals.raw.ops + ops,
      wallMs: totals.raw.wallMs + now - start,
      cpuMs: totals.raw.cpuMs + cpuMsSince(cpu),
    });
    cpu = process.cpuUsage();
    start = performance.now();
    now = start;
    ops = 0;
    for (const end = start + sliceMs; now < end; now = performance.now(), ops++) await op();
    ratios.push(ops / (now - start) / rawRate);
    Object.assign(totals.case, {
      ops: totals.case.ops + ops,
      wallMs: totals.case.wallMs + now - start,
      cpuMs: totals.case.cpuMs + cpuMsSince(cpu),
    });
  }
  return {
    m: measured(totals.case.ops, totals.case.wallMs, totals.case.cpuMs),
    raw: measured(totals.raw.ops, totals.raw.wallMs, totals.raw.cpuMs),
    medianRatio: round(median(ratios)),
  };
}

function mcpApp(protect: boolean, options: Verifier.McpAuthOptions): Hono<Verifier.McpAuthEnv> {
  const app = new Hono<Verifier.McpAuthEnv>();
  if (protect) app.use('*', verifier.mcpAuth(options));
  app.all('/mcp', async (c) => {
    const server = new McpServer({ name: 'bench', version: '1.0.0' });
    server.registerTool('read_calendar', { description: 'bench tool' }, () => ({
      content: [{ type: 'text', text: 'ok' }],
    }));
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw, protect ? { authInfo: c.var.mcpAuth } : {});
  });
  return app;
}

export async function run(): Promise<Record<string, unknown>> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1' };
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({
    iss: ISSUER,
    sub: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
    aud: RESOURCE,
    client_id: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
    scope: 'calendar:read mail:send',
    jti: 'bench-1',
    act: { sub: 'did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG' },
    iat: now,
    exp: now + 3000,
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'k1' })
    .sign(privateKey);

  // Raw: the very bytes the token signs, with one reused KeyObject.
  const [h, p, s] = token.split('.') as [string, string, string];
  const signingInput = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(s, 'base64url');
  const rawKey = createPublicKey({ key: { ...jwk }, format: 'jwk' });
  const rawOp = (): void => {
    if (!nodeVerify(null, signingInput, rawKey, signature)) throw new Error('raw signature did not verify');
  };

  let fetches = 0;
  const fetch = async (): Promise<Response> => {
    fetches++;
    return new Response(JSON.stringify({ keys: [jwk] }), { headers: { 'content-type': 'application/json' } });
  };
  const jwks = verifier.createJwksCache({ jwksUri: `${ISSUER}/.well-known/jwks.json`, fetch, now: Date.now });
  const checks = {
    issuer: ISSUER,
    resource: RESOURCE,
    jwks,
    clockSkewSec: 60,
    maxLifetimeSec: 3600,
    maxTokenLength: 16384,
    now: Date.now,
  };
  const tokenCheck = await paired(() => verifier.verifyAccessToken(token, checks), rawOp);

  const options: Verifier.McpAuthOptions = {
    resource: RESOURCE,
    authorizationServer: ISSUER,
    tools: { read_calendar: ['calendar:read'] },
    fetch,
  };
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'read_calendar', arguments: {} },
  });
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const request = (): Request => new Request(RESOURCE, { method: 'POST', headers, body });
  const check = async (): Promise<void> => {
    const outcome = await verifier.authorizeMcpRequest(request(), options);
    if (!outcome.allowed) throw new Error(`refused: ${outcome.reason}`);
  };
  const authorize = await paired(check, rawOp);

  const call = (app: Hono<Verifier.McpAuthEnv>) => async (): Promise<void> => {
    const response = await app.request(request());
    if (response.status !== 200) throw new Error(`tools/call answered ${response.status}`);
    await response.text();
  };
  const protectedCall = await paired(call(mcpApp(true, options)), rawOp);
  const openCall = await paired(call(mcpApp(false, options)), rawOp);

  return {
    durationMsPerCase: DURATION_MS,
    tokenBytes: token.length,
    jwksFetches: fetches,
    opsPerSec: {
      raw: tokenCheck.raw.opsPerSec,
      tokenCheck: tokenCheck.m.opsPerSec,
      authorize: authorize.m.opsPerSec,
      toolsCallProtected: protectedCall.m.opsPerSec,
      toolsCallUnprotected: openCall.m.opsPerSec,
    },
    ratios: {
      tokenCheckOverRaw: round(tokenCheck.m.opsPerSec / tokenCheck.raw.opsPerSec),
      tokenCheckOverRawSliceMedian: tokenCheck.medianRatio,
      authorizeOverRaw: round(authorize.m.opsPerSec / authorize.raw.opsPerSec),
      toolsCallProtectedOverUnprotected: round(protectedCall.m.opsPerSec / openCall.m.opsPerSec),
    },
    goal: { tokenCheckOverRaw: 0.8, met: tokenCheck.medianRatio >= 0.8 },
  };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
}
