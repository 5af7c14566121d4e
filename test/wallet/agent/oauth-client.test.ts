// agent.fetch as an OAuth client of an authorization server that is not Mandate's: a small RFC
// 8414 server and an RFC 9728 resource written here, on 127.0.0.1 (real HTTP), configurable per
// test — client_secret_basic and client_secret_post, private_key_jwt with an ES256 key, and each
// check the agent makes of what the servers answer, provoked by a crafted answer.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, type CreateAgentOptions } from '../../../wallet/agent/index.ts';
import { generateSeed, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { es256SigningKey } from '../../../wallet/crypto/jws-key.ts';
import { didKeyIdentity } from '../../../wallet/vc/identity.ts';

interface Config {
  methods: string[];
  signingAlgs?: string[];
  issuerOverride?: string;
  resourceOverride?: string;
  noAuthorizationServers?: boolean;
  tokenBody?: Record<string, unknown>;
  refuseEveryToken?: boolean;
}

interface Seen {
  path: string;
  authorization?: string;
  form?: URLSearchParams;
}

let server: Server;
let url: string;
let config: Config;
const seen: Seen[] = [];
const issued = new Set<string>();

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: import('node:http').ServerResponse, status: number, value: unknown, headers = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const entry: Seen = { path, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) };
      seen.push(entry);
      if (path === '/.well-known/oauth-protected-resource/api')
        return json(res, 200, {
          resource: config.resourceOverride ?? `${url}/api`,
          ...(config.noAuthorizationServers ? {} : { authorization_servers: [`${url}/as`] }),
        });
      if (path === '/.well-known/oauth-authorization-server/as')
        return json(res, 200, {
          issuer: config.issuerOverride ?? `${url}/as`,
          token_endpoint: `${url}/as/token`,
          token_endpoint_auth_methods_supported: config.methods,
          ...(config.signingAlgs ? { token_endpoint_auth_signing_alg_values_supported: config.signingAlgs } : {}),
          grant_types_supported: ['client_credentials'],
        });
      if (path === '/as/token') {
        entry.form = new URLSearchParams(await body(req));
        const token = crypto.randomUUID();
        issued.add(token);
        return json(
          res,
          200,
          config.tokenBody ?? { access_token: token, token_type: 'Bearer', expires_in: 300, scope: 'api:read' },
        );
      }
      if (path === '/api') {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (token !== undefined && issued.has(token) && !config.refuseEveryToken) return json(res, 200, { ok: true });
        const metadata = `${url}/.well-known/oauth-protected-resource/api`;
        return json(res, 401, token === undefined ? {} : { error: 'invalid_token' }, {
          'www-authenticate': `Bearer resource_metadata="${metadata}"${token === undefined ? '' : ', error="invalid_token"'}`,
        });
      }
      res.writeHead(404).end();
    })();
  });
  url = await new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  config = { methods: ['client_secret_basic'] };
});

const CLIENT = { clientId: 'machine agent:7', clientSecret: 's3cret+/=' };

function agent(more: Partial<CreateAgentOptions> = {}) {
  return createAgent({
    identity: didKeyIdentity(seedSigner(generateSeed())),
    ...CLIENT,
    issuer: `${url}/as`,
    urlPolicy: { allowHttpLoopback: true },
    ...more,
  });
}

const tokenRequests = () => seen.filter((s) => s.path === '/as/token');

describe('client_credentials against any RFC 8414 server', () => {
  it('authenticates with client_secret_basic (each part form-encoded, RFC 6749 §2.3.1), then reuses the token', async () => {
    const client = await agent();
    expect((await client.fetch(`${url}/api`)).status).toBe(200);
    expect((await client.fetch(`${url}/api`)).status).toBe(200);
    const [request, ...more] = tokenRequests();
    expect(more).toEqual([]);
    const basic = Buffer.from(request!.authorization!.slice('Basic '.length), 'base64').toString();
    expect(basic).toBe('machine+agent%3A7:s3cret%2B%2F%3D');
    expect(request!.form?.get('grant_type')).toBe('client_credentials');
    expect(request!.form?.get('resource')).toBe(`${url}/api`);
    expect(request!.form?.has('client_secret')).toBe(false);
  });

  it('authenticates with client_secret_post when that is what the server supports', async () => {
    config.methods = ['client_secret_post'];
    const client = await agent();
    expect((await client.fetch(`${url}/api`)).status).toBe(200);
    const form = tokenRequests()[0]?.form;
    expect([form?.get('client_id'), form?.get('client_secret')]).toEqual([CLIENT.clientId, CLIENT.clientSecret]);
    expect(tokenRequests()[0]?.authorization).toBeUndefined();
  });

  it('authenticates with private_key_jwt signed by an ES256 key (RFC 7523 §2.2)', async () => {
    config.methods = ['private_key_jwt'];
    config.signingAlgs = ['ES256'];
    const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const client = await agent({
      clientSecret: undefined,
      clientKey: { key: await es256SigningKey(pair), kid: 'k-1' },
    });
    expect((await client.fetch(`${url}/api`)).status).toBe(200);
    const form = tokenRequests()[0]?.form;
    expect(form?.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    const { payload, protectedHeader } = await jwtVerify(form!.get('client_assertion')!, pair.publicKey, {
      issuer: CLIENT.clientId,
      subject: CLIENT.clientId,
      audience: `${url}/as`,
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: 'k-1' });
    expect(payload.jti).toEqual(expect.any(String));
  });

  it('never sends its secret to a server its owner did not name: AGENT_CLIENT_AUTH_UNSUPPORTED', async () => {
    const client = await agent({ issuer: 'https://issuer.example' });
    await expect(client.fetch(`${url}/api`)).rejects.toMatchObject({ code: 'AGENT_CLIENT_AUTH_UNSUPPORTED' });
    expect(tokenRequests()).toEqual([]);
  });
});

describe('what the agent checks in the answers', () => {
  it('refuses metadata whose resource does not cover the URL called (RFC 9728 §3.3): AGENT_RESOURCE_MISMATCH', async () => {
    config.resourceOverride = `${url}/other`;
    await expect((await agent()).fetch(`${url}/api`)).rejects.toMatchObject({ code: 'AGENT_RESOURCE_MISMATCH' });
  });

  it('refuses resource metadata without authorization servers: AGENT_METADATA_INVALID', async () => {
    config.noAuthorizationServers = true;
    await expect((await agent()).fetch(`${url}/api`)).rejects.toMatchObject({ code: 'AGENT_METADATA_INVALID' });
  });

  it('refuses server metadata naming another issuer (RFC 8414 §3.3): AGENT_ISSUER_MISMATCH', async () => {
    config.issuerOverride = 'https://elsewhere.example';
    await expect((await agent()).fetch(`${url}/api`)).rejects.toMatchObject({ code: 'AGENT_ISSUER_MISMATCH' });
    expect(tokenRequests()).toEqual([]);
  });

  it('refuses a token response without access_token: AGENT_TOKEN_RESPONSE_INVALID', async () => {
    config.tokenBody = { token_type: 'Bearer', expires_in: 300 };
    await expect((await agent()).fetch(`${url}/api`)).rejects.toMatchObject({ code: 'AGENT_TOKEN_RESPONSE_INVALID' });
  });

  it('refuses a token response naming another issuer (RFC 9207 §2.4): AGENT_ISSUER_MISMATCH', async () => {
    config.tokenBody = { access_token: 'x', token_type: 'Bearer', expires_in: 300, iss: 'https://elsewhere.example' };
    await expect((await agent()).fetch(`${url}/api`)).rejects.toMatchObject({ code: 'AGENT_ISSUER_MISMATCH' });
  });

  it('stops when the resource refuses a token it just got: AGENT_SERVICE_REFUSED, one token, two requests', async () => {
    config.refuseEveryToken = true;
    const error = await (await agent()).fetch(`${url}/api`).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AGENT_SERVICE_REFUSED', status: 401, oauthError: 'invalid_token' });
    expect(seen.filter((s) => s.path === '/api')).toHaveLength(2);
    expect(tokenRequests()).toHaveLength(1);
  });
});
