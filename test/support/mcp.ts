// MCP test fixtures on 127.0.0.1: a small OAuth authorization server standing in for the Mandate
// issuer's (RFC 8414 metadata, an Ed25519 JWKS that can rotate, a client_credentials token
// endpoint minting RFC 9068 tokens with jose), and a real MCP server (the official SDK's McpServer
// and Streamable HTTP transports) behind mandate/verifier's mcpAuth (Hono) or mcpNodeMiddleware.
// Once the issuer's token endpoint lands on main, these tests run end to end against it instead.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { exportJWK, generateKeyPair, SignJWT, calculateJwkThumbprint, type CryptoKey, type JWK } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { mcpAuth, mcpNodeMiddleware, type McpAuthEnv, type McpAuthOptions } from '../../verifier-worker/index.ts';

export const AGENT = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
export const DELEGATOR = 'did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' } };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export interface TokenServer {
  url: string;
  /** Signs an access token; `claims` override the defaults, `header` the protected header. */
  mint(claims?: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** Publishes a new key (the old one is dropped) and signs with it from now on. */
  rotate(): Promise<void>;
  /** JWKS requests served. */
  jwksHits(): number;
  /** What the client_credentials grant gives `client_id`: its agent DID and the scopes it may have. */
  clients: Map<string, { secret: string; scopes: string[] }>;
  close(): Promise<void>;
}

/** Answers the token endpoint: client_credentials, client_secret_basic/post, scope ∩ allowed, aud = resource. */
async function tokenEndpoint(req: IncomingMessage, res: ServerResponse, issuer: TokenServer): Promise<void> {
  const form = await readForm(req);
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
  // RFC 6749 §2.3.1 form-encodes both before joining them with ':'; the SDK (1.32.2) does not, so a
  // DID client_id keeps its colons: split at the last one (the secret has none).
  const pair = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : undefined;
  const [id, secret] = pair
    ? [pair.slice(0, pair.lastIndexOf(':')), pair.slice(pair.lastIndexOf(':') + 1)].map(decodeURIComponent)
    : [form.get('client_id'), form.get('client_secret')];
  const client = issuer.clients.get(id ?? '');
  const json = (status: number, body: unknown): void =>
    void res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body));
  if (!client || client.secret !== secret) return json(401, { error: 'invalid_client' });
  if (form.get('grant_type') !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
  const resource = form.get('resource');
  if (!resource) return json(400, { error: 'invalid_target' });
  const asked = (form.get('scope') ?? client.scopes.join(' ')).split(' ').filter(Boolean);
  const scope = asked.filter((s) => client.scopes.includes(s)).join(' ');
  const token = await issuer.mint({ sub: id, client_id: id, aud: resource, scope });
  json(200, { access_token: token, token_type: 'Bearer', expires_in: 300, scope });
}

export async function startTokenServer(): Promise<TokenServer> {
  let key = await newKey('key-1');
  let hits = 0;
  let serial = 1;
  const issuer = { clients: new Map() } as TokenServer;
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/.well-known/jwks.json') {
      hits++;
      return res
        .writeHead(200, { 'content-type': 'application/jwk-set+json' })
        .end(JSON.stringify({ keys: [key.publicJwk] }));
    }
    if (path === '/.well-known/oauth-authorization-server') {
      return res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: issuer.url,
          authorization_endpoint: `${issuer.url}/oauth/authorize`,
          token_endpoint: `${issuer.url}/oauth/token`,
          jwks_uri: `${issuer.url}/.well-known/jwks.json`,
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          response_types_supported: [],
        }),
      );
    }
    if (path === '/oauth/token' && req.method === 'POST') return tokenEndpoint(req, res, issuer);
    res.writeHead(404).end();
  });
  issuer.url = await listen(server);
  issuer.mint = (claims = {}, header = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: issuer.url,
      sub: AGENT,
      client_id: AGENT,
      scope: 'calendar:read',
      jti: `jti-${serial++}`,
      iat: now,
      exp: now + 300,
      ...claims,
    })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: key.kid, ...header })
      .sign(key.privateKey);
  };
  issuer.rotate = async () => {
    key = await newKey(`key-${serial++}`);
  };
  issuer.jwksHits = () => hits;
  issuer.close = () => close(server);
  return issuer;
}

/** The MCP server's tools: each reports the caller it was given (extra.authInfo). */
export function buildMcpServer(): McpServer {
  const server = new McpServer({ name: 'calendar', version: '1.0.0' });
  for (const name of ['read_calendar', 'send_mail', 'unlisted_tool']) {
    server.registerTool(name, { description: `the ${name} tool` }, (extra) => ({
      content: [{ type: 'text', text: JSON.stringify({ tool: name, authInfo: extra.authInfo ?? null }) }],
    }));
  }
  return server;
}

export const TOOLS = { read_calendar: ['calendar:read'], send_mail: ['mail:send'] };

export interface McpFixture {
  url: string;
  resource: string;
  close(): Promise<void>;
}

/** A stateless MCP endpoint at /mcp behind `mcpAuth` (Hono, web-standard transport). */
export async function startHonoMcp(options: (resource: string) => McpAuthOptions, json = true): Promise<McpFixture> {
  const app = new Hono<McpAuthEnv>();
  // The resource names the port, known once listening: the middleware is made then.
  const slot: { guard?: ReturnType<typeof mcpAuth> } = {};
  app.use('*', async (c, next) => slot.guard!(c, next));
  app.all('/mcp', async (c) => {
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: json });
    const server = buildMcpServer();
    await server.connect(transport);
    return transport.handleRequest(c.req.raw, { authInfo: c.var.mcpAuth });
  });
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s as Server));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const resource = `${url}/mcp`;
  slot.guard = mcpAuth(options(resource));
  return { url, resource, close: () => close(server) };
}

/** The same endpoint on plain node:http with the SDK's Node transport behind `mcpNodeMiddleware`. */
export async function startNodeMcp(options: (resource: string) => McpAuthOptions): Promise<McpFixture> {
  const slot: { guard?: ReturnType<typeof mcpNodeMiddleware> } = {};
  const server = createServer((req, res) => {
    void slot.guard!(req, res, async (error?: unknown) => {
      if (error) return void res.writeHead(500).end();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const mcp = buildMcpServer();
      await mcp.connect(transport);
      await transport.handleRequest(req, res, (req as { body?: unknown }).body);
    });
  });
  const url = await listen(server);
  const resource = `${url}/mcp`;
  slot.guard = mcpNodeMiddleware(options(resource));
  return { url, resource, close: () => close(server) };
}

/** A DPoP proof (RFC 9449 §4.2) for `method url`, bound to `token` (ath). */
export async function dpopProof(
  key: { privateKey: CryptoKey; publicJwk: JWK },
  method: string,
  url: string,
  token: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const ath = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))).toString('base64url');
  return new SignJWT({
    htm: method,
    htu: url,
    iat: Math.floor(Date.now() / 1000),
    jti: crypto.randomUUID(),
    ath,
    ...overrides,
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk: key.publicJwk })
    .sign(key.privateKey);
}

export async function dpopKey(): Promise<{ privateKey: CryptoKey; publicJwk: JWK; jkt: string }> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk) };
}

/** A refusal by the MCP endpoint: HTTP status, body `reason`, WWW-Authenticate `error` and `scope`. */
export interface McpRefusal {
  status: number;
  reason: unknown;
  error?: string;
  scope?: string;
}

/** What an SDK client's requests got, seen through the `fetch` it is given (the transport's option). */
export interface McpRecording {
  fetch: FetchLike;
  /** The MCP endpoint's refusals, in order. */
  refusals: McpRefusal[];
  /** The `scope` of each client_credentials token request (null: none asked). */
  tokenScopes: (string | null)[];
  /** Forgets what was recorded (e.g. the connection's own 401 → token flow). */
  clear(): void;
}

/**
 * A recording fetch for an SDK client of the MCP endpoint at `resource`: the SDK turns a refusal
 * into an error whose text alone does not say which status, reason and scope it answers to.
 */
export function recordingFetch(resource: string): McpRecording {
  const recording: McpRecording = {
    refusals: [],
    tokenScopes: [],
    clear: () => void (recording.refusals.length = recording.tokenScopes.length = 0),
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      if (init?.body instanceof URLSearchParams && init.body.get('grant_type') === 'client_credentials')
        recording.tokenScopes.push(init.body.get('scope'));
      else if (String(url) === resource && !response.ok) {
        const { error, scope } = extractWWWAuthenticateParams(response);
        const { reason } = (await response.clone().json()) as { reason: unknown };
        recording.refusals.push({ status: response.status, reason, error, scope });
      }
      return response;
    },
  };
  return recording;
}
