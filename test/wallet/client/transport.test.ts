// How IssuerClient talks HTTP, against a local server that misbehaves on purpose: retries only
// for idempotent calls (with backoff, honouring Retry-After), deadlines, size caps, refused
// redirects, the API's error codes mapped, and no secret in any error or event.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IssuerApiError } from '../../../wallet/client/errors.ts';
import { IssuerClient } from '../../../wallet/client/issuer-client.ts';
import { parseRetryAfter, type TransportEvent } from '../../../wallet/client/transport.ts';

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Send headers, then wait this long before the body. */
  stallMs?: number;
}

const code = (c: string) => expect.objectContaining({ code: c });
const json = (status: number, value: unknown, headers: Record<string, string> = {}): Scripted => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});
const apiError = (status: number, errorCode: string, message = 'refused', details?: unknown) =>
  json(status, { error: { code: errorCode, message, ...(details === undefined ? {} : { details }) } });
const HEALTH = json(200, { ok: true, issuer: 'did:web:issuer.test' });
const ADMIN_KEY = 'admin-key-that-must-never-leak-0123456789';

let server: Server;
let base: string;
/** Per "METHOD path": the answers still to give, in order (the last one repeats). */
const script = new Map<string, Scripted[]>();
const hits = new Map<string, number>();
const seen: { key: string; authorization?: string; body: string }[] = [];

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => resolve(text));
  });
}

function answer(res: ServerResponse, scripted: Scripted): void {
  res.writeHead(scripted.status, scripted.headers ?? {});
  if (scripted.stallMs === undefined) return void res.end(scripted.body ?? '');
  res.flushHeaders();
  const timer = setTimeout(() => res.end(scripted.body ?? ''), scripted.stallMs);
  res.on('close', () => clearTimeout(timer));
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const key = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`;
    const body = await readBody(req);
    hits.set(key, (hits.get(key) ?? 0) + 1);
    seen.push({ key, body, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    const queue = script.get(key);
    const next = queue && queue.length > 1 ? queue.shift() : queue?.[0];
    answer(res, next ?? json(404, { error: { code: 'NOT_FOUND', message: `no script for ${key}` } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  script.clear();
  hits.clear();
  seen.length = 0;
});

function client(
  options: Partial<ConstructorParameters<typeof IssuerClient>[0]> = {},
  events?: TransportEvent[],
): IssuerClient {
  return new IssuerClient({
    baseUrl: base,
    adminKey: ADMIN_KEY,
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 },
    timeoutMs: 2000,
    ...(events ? { onEvent: (e) => events.push(e) } : {}),
    ...options,
  });
}

const mint = { requestedScopes: ['files:read'], maxDelegationDepth: 0, requestedDomains: ['files.example.com'] };
const VC = 'urn:uuid:00000000-0000-4000-8000-000000000001';
/** A credential as the issuer answers it (wallet/contract/credentials.ts `Credential`). */
const credentialView = (state: 'revoked' | 'suspended') => ({
  vcId: VC,
  type: 'AgentCredential',
  subjectDid: 'did:web:agent.test',
  issuerDid: 'did:web:issuer.test',
  state,
  issuedAt: '2026-01-01T00:00:00.000Z',
  validFrom: '2026-01-01T00:00:00.000Z',
  statusLists: [],
  verifiableCredential: { id: VC },
});

describe('retries: only idempotent calls', () => {
  it('a GET is retried after a 503 and succeeds, with a retry event', async () => {
    script.set('GET /v1/health', [json(503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'starting' } }), HEALTH]);
    const events: TransportEvent[] = [];
    await expect(client({}, events).health()).resolves.toEqual({ ok: true, issuer: 'did:web:issuer.test' });
    expect(hits.get('GET /v1/health')).toBe(2);
    expect(events.map((e) => e.type)).toEqual(['response', 'retry', 'response']);
    expect(events[0]).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', attempt: 1 });
  });

  it('a POST that is not idempotent (mint, verify, onboard) is sent once: the 503 is the answer', async () => {
    script.set('POST /v1/enrollment-tokens', [
      apiError(503, 'SERVICE_UNAVAILABLE'),
      json(201, { tokenId: 't', token: 'x', expiresAt: 'y' }),
    ]);
    const error = await client()
      .mintEnrollmentToken(mint)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IssuerApiError);
    expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(hits.get('POST /v1/enrollment-tokens')).toBe(1);
    script.set('POST /v1/vp/verify', [apiError(502, 'BAD_GATEWAY')]);
    await expect(client().verify({}, { target: 'files.example.com' })).rejects.toEqual(code('BAD_GATEWAY'));
    expect(hits.get('POST /v1/vp/verify')).toBe(1);
    script.set('POST /v1/onboard', [apiError(500, 'INTERNAL_ERROR')]);
    await expect(client().onboard('enrollment-token-value', { custody: 'server' })).rejects.toEqual(
      code('INTERNAL_ERROR'),
    );
    expect(hits.get('POST /v1/onboard')).toBe(1);
  });

  it('gives up after the configured retries, returning the last error', async () => {
    script.set('GET /v1/audit', [apiError(503, 'SERVICE_UNAVAILABLE')]);
    await expect(client().audit()).rejects.toEqual(expect.objectContaining({ status: 503 }));
    expect(hits.get('GET /v1/audit')).toBe(3);
    await expect(client({ retry: false }).audit()).rejects.toEqual(expect.objectContaining({ status: 503 }));
    expect(hits.get('GET /v1/audit')).toBe(4);
  });

  it('honours Retry-After on a 429, and does not wait for one longer than maxRetryAfterMs', async () => {
    script.set('GET /v1/audit/verify', [
      apiError(429, 'RATE_LIMITED'),
      json(200, { intact: true, count: 3, headHash: 'h' }),
    ]);
    script.get('GET /v1/audit/verify')![0]!.headers!['retry-after'] = '1';
    const events: TransportEvent[] = [];
    await expect(client({}, events).verifyAuditChain()).resolves.toEqual({ intact: true, count: 3, headHash: 'h' });
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ delayMs: 1000, reason: 'RATE_LIMITED' });

    script.set('GET /v1/health', [
      json(429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': '3600' }),
    ]);
    await expect(client().health()).rejects.toEqual(
      expect.objectContaining({ code: 'RATE_LIMITED', status: 429, retryAfterSeconds: 3600 }),
    );
    expect(hits.get('GET /v1/health')).toBe(1);
  });

  it('retries a network failure of a GET; a POST that never got an answer is NETWORK_ERROR after one attempt', async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls++;
      if (calls === 1) throw new TypeError('fetch failed');
      return fetch(input, init);
    };
    script.set('GET /v1/health', [HEALTH]);
    await expect(client({ fetch: flaky }).health()).resolves.toMatchObject({ ok: true });
    expect(calls).toBe(2);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    let attempts = 0;
    const counting: typeof fetch = (input, init) => {
      attempts++;
      return fetch(input, init);
    };
    await expect(client({ baseUrl: deadUrl, fetch: counting }).mintEnrollmentToken(mint)).rejects.toEqual(
      code('NETWORK_ERROR'),
    );
    expect(attempts).toBe(1);
    await expect(client({ baseUrl: deadUrl, fetch: counting }).health()).rejects.toEqual(code('NETWORK_ERROR'));
    expect(attempts).toBe(4);
  });

  it('revoke is idempotent: retried after a 502, and a retry that meets CREDENTIAL_ALREADY_REVOKED resolves with the revoked credential', async () => {
    script.set(`POST /v1/vcs/${encodeURIComponent(VC)}/revoke`, [
      apiError(502, 'BAD_GATEWAY'),
      apiError(409, 'CREDENTIAL_ALREADY_REVOKED'),
    ]);
    script.set(`GET /v1/vcs/${encodeURIComponent(VC)}`, [json(200, credentialView('revoked'))]);
    await expect(client().revoke(VC)).resolves.toMatchObject({ vcId: VC, state: 'revoked', alreadyRevoked: true });
    expect(hits.get(`POST /v1/vcs/${encodeURIComponent(VC)}/revoke`)).toBe(2);
  });
});

describe('deadlines and cancellation', () => {
  it('TIMEOUT when the answer does not come in time (a GET is tried again, a POST is not)', async () => {
    // Attempts are counted where they are made: on a busy machine a request cut off after
    // 150 ms may not have reached the server yet.
    const attemptsOf = (events: TransportEvent[]) =>
      events.filter((e) => e.type === 'failure').map((e) => (e.type === 'failure' ? `${e.attempt} ${e.code}` : ''));
    script.set('GET /v1/health', [{ ...HEALTH, stallMs: 3000 }]);
    const getEvents: TransportEvent[] = [];
    await expect(client({ timeoutMs: 150 }, getEvents).health()).rejects.toEqual(code('TIMEOUT'));
    expect(attemptsOf(getEvents)).toEqual(['1 TIMEOUT', '2 TIMEOUT', '3 TIMEOUT']);
    script.set('POST /v1/status-list', [{ ...json(201, {}), stallMs: 3000 }]);
    const postEvents: TransportEvent[] = [];
    await expect(client({ timeoutMs: 150 }, postEvents).createStatusList({ purpose: 'revocation' })).rejects.toEqual(
      code('TIMEOUT'),
    );
    expect(attemptsOf(postEvents)).toEqual(['1 TIMEOUT']);
  });

  it('TIMEOUT and ABORTED even from a fetch that ignores the abort signal', async () => {
    const unanswered: typeof fetch = () => new Promise<Response>(() => undefined);
    const stalledBody: typeof fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start: (controller) => controller.enqueue(new TextEncoder().encode('{"ok":')),
        }),
        {
          headers: { 'content-type': 'application/json' },
        },
      );
    for (const fetch of [unanswered, stalledBody]) {
      await expect(client({ fetch, timeoutMs: 100, retry: false }).health()).rejects.toEqual(code('TIMEOUT'));
      const controller = new AbortController();
      const pending = client({ fetch }).health({ signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(pending).rejects.toEqual(code('ABORTED'));
    }
  });

  it('ABORTED when the caller aborts, without retrying', async () => {
    script.set('GET /v1/health', [{ ...HEALTH, stallMs: 3000 }]);
    const controller = new AbortController();
    const pending = client().health({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toEqual(code('ABORTED'));
    expect(hits.get('GET /v1/health')).toBe(1);
  });
});

describe('answers the client refuses', () => {
  it('RESPONSE_INVALID: a 200 that is not JSON, unsafe JSON, the wrong shape, or a redirect (never followed)', async () => {
    script.set('GET /v1/health', [{ status: 200, headers: { 'content-type': 'text/html' }, body: '<html>' }]);
    await expect(client().health()).rejects.toEqual(code('RESPONSE_INVALID'));
    script.set('GET /v1/health', [
      {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"__proto__": {"ok": true}, "issuer": "did:x:y"}',
      },
    ]);
    await expect(client().health()).rejects.toEqual(code('RESPONSE_INVALID'));
    script.set('GET /v1/health', [json(200, { ok: true })]);
    await expect(client().health()).rejects.toEqual(code('RESPONSE_INVALID'));
    script.set('GET /v1/health', [{ status: 302, headers: { location: 'http://127.0.0.1:9/steal' } }]);
    await expect(client().health()).rejects.toEqual(code('RESPONSE_INVALID'));
    expect(hits.get('GET /v1/health')).toBe(4);
    // A status change's `changed` is a list of ids.
    const path = `POST /v1/vcs/${encodeURIComponent(VC)}/suspend`;
    script.set(path, [json(200, { ...credentialView('suspended'), changed: VC })]);
    await expect(client().suspend(VC)).rejects.toEqual(code('RESPONSE_INVALID'));
    script.set(path, [json(200, { ...credentialView('suspended'), changed: [VC, 42] })]);
    await expect(client().suspend(VC)).rejects.toEqual(code('RESPONSE_INVALID'));
    script.set(path, [json(200, { ...credentialView('suspended'), changed: [VC] })]);
    await expect(client().suspend(VC)).resolves.toMatchObject({ state: 'suspended', changed: [VC] });
  });

  it('RESPONSE_TOO_LARGE beyond maxResponseBytes, declared or streamed', async () => {
    script.set('GET /v1/audit', [json(200, { records: [], pad: 'x'.repeat(5000) })]);
    await expect(client({ maxResponseBytes: 1024 }).audit()).rejects.toEqual(code('RESPONSE_TOO_LARGE'));
    script.set('GET /v1/audit', [
      {
        status: 200,
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        body: JSON.stringify({ records: [], pad: 'y'.repeat(5000) }),
      },
    ]);
    await expect(client({ maxResponseBytes: 1024 }).audit()).rejects.toEqual(code('RESPONSE_TOO_LARGE'));
  });
});

describe("errors carry the API's codes and no secret", () => {
  it('maps {error: {code, message, details}} with status and request id; a body without that shape is HTTP_ERROR', async () => {
    script.set(`GET /v1/vcs/${encodeURIComponent(VC)}`, [
      {
        ...apiError(404, 'CREDENTIAL_NOT_FOUND', 'no such credential', { vcId: VC }),
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-42' },
      },
    ]);
    const error = (await client()
      .getCredential(VC)
      .catch((e: unknown) => e)) as IssuerApiError;
    expect(error).toBeInstanceOf(IssuerApiError);
    expect(error).toMatchObject({
      status: 404,
      code: 'CREDENTIAL_NOT_FOUND',
      message: 'no such credential',
      details: { vcId: VC },
      requestId: 'req-42',
    });
    script.set('POST /v1/status-list', [
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>Bad gateway</h1>' },
    ]);
    await expect(client().createStatusList({ purpose: 'revocation' })).rejects.toEqual(
      expect.objectContaining({ code: 'HTTP_ERROR', status: 502, message: 'HTTP 502 from the issuer' }),
    );
  });

  it('sends the admin key only as a Bearer header and redacts it, the token and the challenge from errors and events', async () => {
    const token = 'enrollment-token-secret-abcdefghijklmnop';
    script.set('POST /v1/onboard', [
      json(201, {
        challengeId: '2b0c2c1e-6d7e-4e7e-8f5a-1a2b3c4d5e6f',
        challenge: 'challenge-secret-0123456789',
        domain: 'did:web:issuer.test',
        expiresAt: 'x',
      }),
    ]);
    script.set('POST /v1/onboard/verify', [
      apiError(403, 'CHALLENGE_MISMATCH', `echo ${token} challenge-secret-0123456789 ${ADMIN_KEY}`, {
        token,
        key: ADMIN_KEY,
      }),
    ]);
    const events: TransportEvent[] = [];
    const error = (await client({}, events)
      .onboard(token, { custody: 'server' })
      .catch((e: unknown) => e)) as IssuerApiError;
    expect(error).toMatchObject({ code: 'CHALLENGE_MISMATCH', status: 403 });
    const visible = JSON.stringify({ message: error.message, details: error.details, stack: error.stack, events });
    for (const secret of [token, 'challenge-secret-0123456789', ADMIN_KEY]) expect(visible).not.toContain(secret);
    expect(error.message).toContain('[redacted]');

    script.set(`POST /v1/vcs/${encodeURIComponent(VC)}/suspend`, [
      json(200, { ...credentialView('suspended'), changed: [VC] }),
    ]);
    await client().suspend(VC);
    expect(seen.at(-1)?.authorization).toBe(`Bearer ${ADMIN_KEY}`);
    script.set('GET /v1/health', [HEALTH]);
    await client().health();
    expect(seen.at(-1)?.authorization).toBeUndefined();
  });

  it('ADMIN_KEY_REQUIRED before any request for an operator call on a client without the key', async () => {
    const anonymous = client({ adminKey: undefined });
    await expect(anonymous.revoke(VC)).rejects.toEqual(code('ADMIN_KEY_REQUIRED'));
    await expect(anonymous.requestVp('did:key:z6Mk', { target: 'x' })).rejects.toEqual(code('ADMIN_KEY_REQUIRED'));
    expect(seen).toHaveLength(0);
  });

  it('CONFIG_INVALID: plain http beyond loopback, another scheme, credentials in the URL, bad numbers, a bad token', async () => {
    expect(() => new IssuerClient({ baseUrl: 'http://issuer.example.com' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(new IssuerClient({ baseUrl: 'http://issuer.internal:8787/', allowInsecureHttp: true }).baseUrl).toBe(
      'http://issuer.internal:8787',
    );
    expect(new IssuerClient({ baseUrl: 'https://issuer.example.com/api/' }).baseUrl).toBe(
      'https://issuer.example.com/api',
    );
    for (const baseUrl of [
      'ftp://issuer.example.com',
      'https://user:pw@issuer.example.com',
      'https://issuer.example.com/?x=1',
      'not a url',
    ]) {
      expect(() => new IssuerClient({ baseUrl })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    }
    expect(() => new IssuerClient({ baseUrl: base, timeoutMs: 0 })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => new IssuerClient({ baseUrl: base, adminKey: 'a\nb' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    await expect(client().onboard('', { custody: 'server' })).rejects.toEqual(code('CONFIG_INVALID'));
    await expect(client().verify({ n: 1n }, { target: 'files.example.com' })).rejects.toEqual(code('CONFIG_INVALID'));
    expect(seen).toHaveLength(0);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThanOrEqual(4);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
