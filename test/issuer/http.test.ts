// The HTTP envelope every endpoint shares: one error shape, body limit (413), JSON-only
// bodies (415), malformed JSON (400), admin auth (401), rate limits (429 + Retry-After),
// refusals in the audit log, no stack traces, JSON request logs without secrets, and
// `npm start` serving and shutting down gracefully.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../issuer/log.ts';
import { addressKey } from '../../issuer/http/rate-limit.ts';
import { outsideQuery, storageOf } from '../support/database.ts';
import {
  mintToken,
  onboardServerAgent,
  startTestIssuer,
  tempDir,
  TEST_ADMIN_KEY,
  type TestIssuer,
} from '../support/issuer.ts';

const logLines: string[] = [];
let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer({}, { log: createLogger({ level: 'debug', write: (line) => logLines.push(line) }) });
});
afterAll(() => issuer.dispose());

const mintBody = { requestedScopes: ['files:read'], maxDelegationDepth: 0, requestedDomains: ['files.example.com'] };

describe('request bodies', () => {
  it('refuses bodies over 64 KiB with 413 PAYLOAD_TOO_LARGE (declared length and chunked)', async () => {
    const big = JSON.stringify({ ...mintBody, padding: 'x'.repeat(70 * 1024) });
    const declared = await issuer.call('/v1/enrollment-tokens', { admin: true, body: big });
    expect(declared.status).toBe(413);
    expect(declared.json).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'request bodies are limited to 65536 bytes' },
    });
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.slice(i, i + 8192));
        controller.close();
      },
    });
    const chunked = await fetch(`${issuer.url}/v1/onboard`, {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(((await chunked.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses non-JSON bodies with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await issuer.call('/v1/onboard', {
        body: 'token=abc&custody=server',
        headers: { 'content-type': type },
      });
      expect(res.status, type).toBe(415);
      expect(res.json.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const none = await fetch(`${issuer.url}/v1/onboard`, { method: 'POST', body: new Blob(['{}']) });
    expect(none.status).toBe(415);
    // A non-JSON content type is refused even without a body.
    const empty = await fetch(`${issuer.url}/v1/onboard`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
    });
    expect(empty.status).toBe(415);
    expect(((await empty.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses malformed JSON with 400 MALFORMED_JSON', async () => {
    const res = await issuer.call('/v1/onboard', {
      body: '{"token": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual({ code: 'MALFORMED_JSON', message: 'the request body is not valid JSON' });
  });

  it('refuses a body naming a member twice (400 MALFORMED_JSON), which JSON.parse would read as its last copy, and changes nothing', async () => {
    const tokens = async () =>
      ((await issuer.call('/v1/enrollment-tokens', { admin: true })).json as { tokens: unknown[] }).tokens.length;
    const before = await tokens();
    // A reader keeping the first copy would see a token for files:read; JSON.parse, the last.
    const twice = `{"requestedScopes":["files:read"],"maxDelegationDepth":0,"requestedDomains":["files.example.com"],"requestedScopes":["files"]}`;
    const minted = await issuer.call('/v1/enrollment-tokens', { admin: true, body: twice });
    expect(minted.status).toBe(400);
    expect(minted.json.error).toEqual({
      code: 'MALFORMED_JSON',
      message: 'the request body names a member twice in one object (I-JSON, RFC 7493 §2.3)',
    });
    expect(await tokens()).toBe(before);
    // However deep, and however the name is spelled.
    const nested = await issuer.call('/v1/vp/verify', {
      body: '{"presentation":{"holder":"did:key:z6MkA","\\u0068older":"did:key:z6MkB"},"expectedTarget":"files.example.com"}',
    });
    expect(nested.status).toBe(400);
    expect(nested.json.error.code).toBe('MALFORMED_JSON');
    // Authentication still comes first: an admin route without the key is 401 whatever the body.
    expect((await issuer.call('/v1/enrollment-tokens', { body: twice })).status).toBe(401);
    // The same member name in different objects is fine.
    expect(
      (
        await issuer.call('/v1/enrollment-tokens', {
          admin: true,
          body: { ...mintBody, requestedScopes: ['files:read'] },
        })
      ).status,
    ).toBe(201);
  });
});

describe('request bodies: what JSON cannot carry, and the connection after a refusal', () => {
  it('refuses a lone UTF-16 surrogate in any string with 400 MALFORMED_JSON (I-JSON, RFC 7493 §2.1), never 500', async () => {
    const { agentDid } = await onboardServerAgent(issuer);
    // The black-box finding: a challenge the server-custody key would have signed.
    const res = await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}/vp`, {
      admin: true,
      body: '{"targetService":"files.example.com","challenge":"\\ud800"}',
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual({
      code: 'MALFORMED_JSON',
      message: 'the request body holds a lone UTF-16 surrogate, which is not Unicode text (I-JSON, RFC 7493 §2.1)',
    });
    // A valid surrogate pair is one character, and welcome.
    const pair = await issuer.call(`/v1/agents/${encodeURIComponent(agentDid)}/vp`, {
      admin: true,
      body: '{"targetService":"files.example.com","challenge":"\\ud83d\\ude00"}',
    });
    expect(pair.status).toBe(200);
    expect(pair.json.proof.challenge).toBe('\u{1F600}');
  });

  /** One keep-alive socket for every request, as a pooled client has. */
  function keepAliveClient(base: string) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const send = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const request = http.request(
          `${base}${path}`,
          {
            method,
            agent,
            headers:
              body === undefined
                ? headers
                : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
          },
          (response) => {
            response.resume();
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
            );
          },
        );
        request.on('socket', (socket) => sockets.add(socket));
        request.on('error', reject);
        request.end(body);
      });
    return { send, sockets, close: () => agent.destroy() };
  }

  it("says Connection: close when it answers before reading the body, so a pooled client's next request on that socket does not fail", async () => {
    const client = keepAliveClient(issuer.url);
    try {
      const big = JSON.stringify({ verifiableCredential: { padding: 'x'.repeat(300 * 1024) } });
      for (const [path, body, headers, status] of [
        ['/credentials/verify', big, {}, 413], // over the body limit
        ['/v1/enrollment-tokens', JSON.stringify(mintBody), {}, 401], // refused before the body is read
        ['/v1/onboard', 'token=abc', { 'content-type': 'text/plain' }, 415],
      ] as const) {
        const refused = await client.send('POST', path, body, headers);
        expect(refused, path).toEqual({ status, connection: 'close' });
        // At once, on the same pool: a fresh socket, and the unrelated request succeeds.
        expect((await client.send('GET', '/v1/health')).status, path).toBe(200);
      }
      // A body read to its end keeps the connection: the next request reuses the socket.
      const before = client.sockets.size;
      const read = await client.send(
        'POST',
        '/credentials/verify',
        JSON.stringify({ verifiableCredential: { type: 'x' } }),
      );
      expect(read.status).toBe(400);
      expect(read.connection).toBe('keep-alive');
      expect((await client.send('GET', '/v1/health')).status).toBe(200);
      expect(client.sockets.size).toBe(before);
    } finally {
      client.close();
    }
  });
});

describe('admin authentication', () => {
  it('answers 401 with WWW-Authenticate: Bearer for a missing, wrong or non-Bearer key', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong-key',
      `Basic ${btoa(`admin:${TEST_ADMIN_KEY}`)}`,
      `Bearer ${TEST_ADMIN_KEY}x`,
      `Bearer  `,
    ]) {
      const res = await issuer.call('/v1/agents', { ...(authorization ? { headers: { authorization } } : {}) });
      expect(res.status, authorization).toBe(401);
      expect(res.json.error.code).toBe('UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).toMatch(
        /^Bearer realm="mandate-issuer", error="invalid_(request|token)"$/,
      );
    }
    expect((await issuer.call('/v1/agents', { headers: { authorization: `bearer ${TEST_ADMIN_KEY}` } })).status).toBe(
      200,
    );
  });

  it('every operation that needs a key answers an unauthenticated caller 401 first, whatever else is wrong with the request', async () => {
    type Operations = Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
    const paths = (await issuer.call('/v1/openapi.json')).json.paths as Operations;
    const guarded = Object.entries(paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.security?.some((s) => 'adminBearer' in s) === true)
        .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'did%3Akey%3Az6Mkx') })),
    );
    expect(guarded.length).toBeGreaterThan(20);
    expect(guarded).toContainEqual({ method: 'POST', path: '/v1/sessions/introspect' });
    // Each would otherwise be 415, 400 (malformed JSON, invalid query) or 413.
    const wrongs: { headers: Record<string, string>; body?: string; query?: string }[] = [
      { headers: { 'content-type': 'application/json' }, body: '{"token":"x"}' },
      { headers: { 'content-type': 'text/plain' }, body: 'not json' },
      { headers: { 'content-type': 'application/json' }, body: '{"a":' },
      { headers: { 'content-type': 'application/json' }, body: `"${'x'.repeat(70_000)}"` },
      { headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-key' }, body: '[]' },
      { headers: { authorization: TEST_ADMIN_KEY }, query: '?limit=-1&cursor=%ZZ' },
    ];
    const answers: string[] = [];
    for (const { method, path } of guarded)
      for (const wrong of wrongs) {
        const body = method === 'GET' ? undefined : wrong.body;
        const res = await fetch(`${issuer.url}${path}${wrong.query ?? ''}`, {
          method,
          headers: body === undefined ? { authorization: wrong.headers.authorization ?? '' } : wrong.headers,
          ...(body === undefined ? {} : { body }),
        });
        const www = res.headers.get('www-authenticate') ?? '';
        await res.arrayBuffer();
        if (res.status !== 401 || !www.startsWith('Bearer realm="mandate-issuer"'))
          answers.push(`${method} ${path} ${JSON.stringify(wrong.headers)}: ${res.status}`);
      }
    expect(answers).toEqual([]);
  });

  it('says the Bearer scheme is missing when the key is sent without it (not that the key is wrong)', async () => {
    for (const authorization of [TEST_ADMIN_KEY, `Basic ${btoa(`admin:${TEST_ADMIN_KEY}`)}`]) {
      const res = await issuer.call('/v1/agents', { headers: { authorization } });
      expect(res.status).toBe(401);
      expect(res.json.error.message).toMatch(/lacks the Bearer scheme/);
      expect(res.json.error.message).not.toContain(TEST_ADMIN_KEY);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="mandate-issuer", error="invalid_request"');
    }
    const wrong = await issuer.call('/v1/agents', { headers: { authorization: 'Bearer wrong-key' } });
    expect(wrong.json.error.message).toBe('the admin API key is not valid');
  });
});

describe('rate limits', () => {
  it('per IP: 429 RATE_LIMITED with Retry-After, audited once per window', async () => {
    const limited = await startTestIssuer({ SERVICE_RATE_LIMIT_PER_IP: '5', SERVICE_RATE_LIMIT_WINDOW_SECONDS: '60' });
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 8; i++) {
        last = await limited.call('/v1/health');
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      expect(last?.json.error.code).toBe('RATE_LIMITED');
      const retryAfter = Number(last?.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(
        (await limited.running.ctx.audit.list({ event: 'REQUEST_REFUSED' })).records.filter(
          (r) => r.reason === 'RATE_LIMITED',
        ),
      ).toHaveLength(1);
    } finally {
      await limited.dispose();
    }
  });

  it('per address counts an IPv6 client by its /64 and an IPv4-mapped one by its IPv4 address', () => {
    const sameSubscriber = ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:fffe', '2001:0db8:0001:0002:0:0:0:9'];
    expect(new Set(sameSubscriber.map(addressKey))).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80::1%eth0'); // a zone id: kept as it is
  });

  it('per credential: an Authorization header and an enrollment token each have their own budget', async () => {
    const limited = await startTestIssuer({ SERVICE_RATE_LIMIT_PER_TOKEN: '3' });
    try {
      const withKey = [];
      for (let i = 0; i < 4; i++) withKey.push((await limited.call('/v1/agents', { admin: true })).status);
      expect(withKey).toEqual([200, 200, 200, 429]);
      // Spelled otherwise (scheme case, spaces), it is the same credential with the same budget.
      for (const scheme of ['bearer ', 'BEARER ', 'Bearer   ']) {
        expect(
          (await limited.call('/v1/agents', { headers: { authorization: `${scheme}${TEST_ADMIN_KEY}` } })).status,
        ).toBe(429);
      }
      // Anonymous requests from the same address are not affected by that key's budget.
      expect((await limited.call('/v1/health')).status).toBe(200);
      const token = await mintToken(limited).catch(() => undefined); // the admin key is exhausted now
      expect(token).toBeUndefined();
    } finally {
      await limited.dispose();
    }
    const onboarding = await startTestIssuer({ SERVICE_RATE_LIMIT_PER_TOKEN: '3' });
    try {
      const token = await mintToken(onboarding);
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await onboarding.call('/v1/onboard', { body: { token, custody: 'server' } })).status);
      expect(statuses).toEqual([201, 201, 201, 429]);
    } finally {
      await onboarding.dispose();
    }
  });
});

describe('errors and audit', () => {
  it('records every refusal (not unknown routes) with its code, method, path and request id', async () => {
    const requestId = 'test-request-id-123';
    await issuer.call('/v1/agents', { headers: { 'x-request-id': requestId } });
    const refused = (await issuer.running.ctx.audit.list({ event: 'REQUEST_REFUSED', limit: 500 })).records.find(
      (r) => r.data?.requestId === requestId,
    );
    expect(refused).toMatchObject({
      actor: 'anonymous',
      reason: 'UNAUTHORIZED',
      data: { method: 'GET', path: '/v1/agents', status: 401 },
    });
    const before = (await issuer.running.ctx.audit.list({ limit: 500 })).records.length;
    await issuer.call('/no/such/route');
    expect((await issuer.running.ctx.audit.list({ limit: 500 })).records.length).toBe(before);
  });

  it('answers an internal failure with 500 INTERNAL_ERROR and no stack trace; the log names the error', async () => {
    // A failure no route expects: the table of server-held keys is gone from under the issuer.
    const a = await onboardServerAgent(issuer);
    await outsideQuery(issuer, 'ALTER TABLE agent_keys RENAME TO agent_keys_away');
    try {
      const res = await issuer.call(`/v1/agents/${encodeURIComponent(a.agentDid)}/vp`, {
        admin: true,
        body: { targetService: 'files.example.com' },
      });
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'internal error' } });
    } finally {
      await outsideQuery(issuer, 'ALTER TABLE agent_keys_away RENAME TO agent_keys');
    }
    const logged = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    // The driver's own error: SQLite's "no such table" with its code; pg's DatabaseError is named 'error'.
    const driver = storageOf(issuer) === 'sqlite' ? { error: 'SqliteError', code: 'SQLITE_ERROR' } : { error: 'error' };
    expect(logged).toMatchObject({ level: 'error', ...driver, method: 'POST' });
  });

  it('logs one JSON line per request with method, path, status, ms and request id, never secrets', async () => {
    const token = await mintToken(issuer);
    await issuer.call('/v1/onboard', { body: { token, custody: 'server' }, headers: { 'x-request-id': 'trace-me' } });
    const lines = logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const line = lines.find((l) => l.requestId === 'trace-me');
    expect(line).toMatchObject({ level: 'info', msg: 'request', method: 'POST', path: '/v1/onboard', status: 201 });
    expect(typeof line?.ms).toBe('number');
    const all = logLines.join('\n');
    expect(all).not.toContain(TEST_ADMIN_KEY);
    expect(all).not.toContain(token);
    expect(all.toLowerCase()).not.toContain('authorization');
  });
});

describe('start-up', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After until the issuer is ready', async () => {
    const { startIssuer } = await import('../../issuer/server.ts');
    const { loadConfig } = await import('../../issuer/config/index.ts');
    const { testEnv } = await import('../support/issuer.ts');
    const dir = tempDir();
    let early: Response | undefined;
    const running = await startIssuer({
      config: loadConfig(testEnv(dir)),
      port: 0,
      onListening: async (url) => {
        early = await fetch(`${url}/v1/health`);
      },
    });
    try {
      expect(early?.status).toBe(503);
      expect(early?.headers.get('retry-after')).toBe('1');
      expect(((await early?.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
      expect((await fetch(`${running.url}/v1/health`)).status).toBe(200);
    } finally {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm start', () => {
  it('serves on the configured port and shuts down cleanly on SIGTERM', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', 'issuer/main.ts'], {
      cwd: process.cwd(),
      env: {
        ...process.env,
        PORT: '0',
        SERVICE_SQLITE_PATH: join(dir, 'issuer.db'),
        LOG_LEVEL: 'warn',
        NODE_ENV: 'development',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /listening on (http:\/\/\S+)\n(?:.*\n)* {2}issuer DID: \S+\n/.exec(stderr);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    expect(stderr).toContain(`development secrets (admin API key, keys): ${join(dir, 'issuer-secrets.json')}`);
    // Where a newcomer goes next: the banner names the console, and the root leads there.
    expect(stderr).toContain(`  operator console: ${url}/console\n`);
    const root = await fetch(url, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console');
    const health = await fetch(`${url}/v1/health`);
    expect(health.status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });
});
