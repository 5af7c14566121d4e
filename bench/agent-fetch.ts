// agent.fetch against a protected route (issue 42 §Speed), everything in this process (no
// sockets: the cost measured is the client's and the resource server's, not the loopback's):
// an RFC 8414 authorization server (metadata, JWKS, a client_credentials token endpoint minting
// DPoP-bound RFC 9068 tokens with jose) and an MCP resource behind mcpAuth (a `ping`), both Hono
// apps reached through the agent's `fetch` option.
//
//   cached     agent.fetch(url, init) with a cached token: the agent finds the route, takes the
//              token from its cache and makes a DPoP proof (ath) — against —
//   plain      fetch(url, init) with the same headers set by hand: `Authorization: DPoP <token>`
//              and a proof from the same key (agent.dpopProof), so both sides sign once per request
//   firstCall  a new agent's first call: 401, RFC 9728 and RFC 8414 metadata, token request
//              (private_key_jwt assertion, DPoP proof), the request again
// cached and plain run in interleaved slices (as bench/mcp.ts), the ratio per slice pair, its
// median per round; three rounds, reported as their median with min and max. Target: cached ≥
// 0.9 × plain. The library is the compiled package (bench/library.ts).
//
//   npm run bench -- agent-fetch
import { loadavg } from 'node:os';
import { Hono } from 'hono';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { shippedVerifier, shippedWallet } from './library.ts';
import { cpuMsSince, measured, median, round, type Measure } from './measure.ts';

const { createAgent, createMemoryKeyStore } = await shippedWallet();
const { mcpAuth } = await shippedVerifier();

const AS = 'https://as.example';
const RESOURCE = 'https://tools.example/mcp';
const SLICES = 20;
const ROUND_MS = 3000;
const WARMUP_MS = 300;
const FIRST_CALLS = 40;
const ROUNDS = 3;
const TARGET_RATIO = 0.9;

async function authorizationServer(): Promise<Hono> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' };
  const app = new Hono();
  app.get('/.well-known/oauth-authorization-server', (c) =>
    c.json({
      issuer: AS,
      token_endpoint: `${AS}/oauth/token`,
      jwks_uri: `${AS}/jwks`,
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      dpop_signing_alg_values_supported: ['EdDSA', 'ES256'],
    }),
  );
  app.get('/jwks', (c) => c.json({ keys: [jwk] }));
  // A bench stand-in: it reads the DPoP key from the proof header and does not check anything.
  app.post('/oauth/token', async (c) => {
    const form = new URLSearchParams(await c.req.text());
    const header = JSON.parse(Buffer.from(c.req.header('dpop')!.split('.')[0]!, 'base64url').toString()) as {
      jwk: JWK;
    };
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({
      sub: form.get('client_id') ?? undefined,
      client_id: form.get('client_id') ?? undefined,
      aud: form.get('resource') ?? undefined,
      scope: 'tools:ping',
      jti: crypto.randomUUID(),
      iat: now,
      exp: now + 300,
      cnf: { jkt: await calculateJwkThumbprint(header.jwk) },
    })
      .setIssuer(AS)
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'k1' })
      .sign(privateKey);
    return c.json({ access_token: token, token_type: 'DPoP', expires_in: 300, scope: 'tools:ping' });
  });
  return app;
}

function resourceServer(route: (request: Request) => Promise<Response>): Hono {
  const app = new Hono();
  app.use(
    '*',
    mcpAuth({
      resource: RESOURCE,
      authorizationServer: AS,
      jwksUri: `${AS}/jwks`,
      tools: {},
      fetch: (url, init) => route(new Request(url, init)),
    }),
  );
  app.post('/mcp', (c) => c.json({ jsonrpc: '2.0', id: 1, result: {} }));
  return app;
}

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const INIT = {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: PING,
};

interface Round {
  cached: Measure;
  plain: Measure;
  medianRatio: number;
}

/** `op` and `base` in alternating slices of equal length; rates for both and the median slice ratio. */
async function interleaved(op: () => Promise<unknown>, base: () => Promise<unknown>): Promise<Round> {
  for (let until = performance.now() + WARMUP_MS; performance.now() < until;) await Promise.all([op(), base()]);
  const totals = { op: { ops: 0, wallMs: 0, cpuMs: 0 }, base: { ops: 0, wallMs: 0, cpuMs: 0 } };
  const ratios: number[] = [];
  const sliceMs = ROUND_MS / SLICES / 2;
  const slice = async (fn: () => Promise<unknown>, into: { ops: number; wallMs: number; cpuMs: number }) => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    let now = start;
    let ops = 0;
    for (const end = start + sliceMs; now < end; now = performance.now(), ops++) await fn();
    Object.assign(into, {
      ops: into.ops + ops,
      wallMs: into.wallMs + now - start,
      cpuMs: into.cpuMs + cpuMsSince(cpu),
    });
    return ops / (now - start);
  };
  for (let i = 0; i < SLICES; i++) {
    // Alternate which goes first, so neither always meets the machine's state after the other.
    let baseRate: number;
    let opRate: number;
    if (i % 2 === 0) {
      baseRate = await slice(base, totals.base);
      opRate = await slice(op, totals.op);
    } else {
      opRate = await slice(op, totals.op);
      baseRate = await slice(base, totals.base);
    }
    ratios.push(opRate / baseRate);
  }
  return {
    cached: measured(totals.op.ops, totals.op.wallMs, totals.op.cpuMs),
    plain: measured(totals.base.ops, totals.base.wallMs, totals.base.cpuMs),
    medianRatio: round(median(ratios)),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const as = await authorizationServer();
  const route = async (request: Request): Promise<Response> =>
    new URL(request.url).origin === AS ? as.fetch(request) : rs.fetch(request);
  const rs = resourceServer(route);
  const fetch = (input: Request | string, init?: RequestInit) => route(new Request(input, init));
  const newAgent = async () => {
    const keyStore = createMemoryKeyStore();
    await keyStore.generate('agent');
    return createAgent({ keyStore, issuer: AS, fetch });
  };

  // First calls: each a new agent (discovery and a token every time).
  const firstMs: number[] = [];
  for (let i = 0; i < FIRST_CALLS; i++) {
    const agent = await newAgent();
    const start = performance.now();
    const answer = await agent.fetch(RESOURCE, INIT);
    firstMs.push(performance.now() - start);
    if (answer.status !== 200) throw new Error(`first call answered ${answer.status}`);
  }

  const agent = await newAgent();
  if ((await agent.fetch(RESOURCE, INIT)).status !== 200) throw new Error('the agent was refused');
  const { accessToken } = await agent.token(RESOURCE);
  const cached = async () => {
    const answer = await agent.fetch(RESOURCE, INIT);
    if (answer.status !== 200) throw new Error(`agent.fetch answered ${answer.status}`);
  };
  const plain = async () => {
    const headers = {
      ...INIT.headers,
      authorization: `DPoP ${accessToken}`,
      dpop: await agent.dpopProof('POST', RESOURCE, accessToken),
    };
    const answer = await fetch(RESOURCE, { ...INIT, headers });
    if (answer.status !== 200) throw new Error(`plain fetch answered ${answer.status}`);
  };
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await interleaved(cached, plain));
  const ratios = rounds.map((r) => r.medianRatio);
  const ratio = median(ratios);
  return {
    loadAverage: round(loadavg()[0] ?? 0, 2),
    cached: { perRound: rounds.map((r) => ({ cached: r.cached, plain: r.plain, medianRatio: r.medianRatio })) },
    ratio: {
      median: ratio,
      min: Math.min(...ratios),
      max: Math.max(...ratios),
      target: TARGET_RATIO,
      met: ratio >= TARGET_RATIO,
    },
    firstCall: {
      calls: FIRST_CALLS,
      medianMs: round(median(firstMs), 3),
      minMs: round(Math.min(...firstMs), 3),
      maxMs: round(Math.max(...firstMs), 3),
      cachedMedianMs: round(median(rounds.map((r) => r.cached.msPerOp)), 4),
    },
  };
}
