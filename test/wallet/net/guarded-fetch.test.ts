// Node's transport for documents someone else chose the URL of (wallet/net/node-fetch.ts): the
// network policy judges the addresses a host NAME resolves to, where the socket connects, so an
// internal alias or a rebinding DNS answer cannot reach the verifier's own network.
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, createWebResolver } from '../../../wallet/did/index.ts';
import { fetchJson } from '../../../wallet/net/http.ts';
import { checkUrlPolicy } from '../../../wallet/net/url-policy.ts';
import {
  AddressRefusedError,
  guardedLookup,
  guardedNodeFetch,
  type Lookup,
  refusedAddress,
} from '../../../wallet/net/node-fetch.ts';

let server: Server;
let port = 0;
let hits = 0;
beforeAll(async () => {
  server = createServer((request, response) => {
    hits++;
    if (request.url === '/redirect') {
      response.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
    } else if (request.url === '/big') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`"${'x'.repeat(100_000)}"`);
    } else if (request.url === '/silent') {
      // Never answers: the caller's deadline must end the exchange.
    } else if (request.url === '/stall') {
      // Headers and half a body, then nothing: the same deadline covers the body.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"half":');
    } else if (request.url === '/.well-known/did.json') {
      const did = `did:web:localhost%3A${port}`;
      response.writeHead(200, { 'content-type': 'application/did+json', 'x-two': ['a', 'b'] });
      response.end(JSON.stringify({ '@context': ['https://www.w3.org/ns/did/v1'], id: did }));
    } else {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const limits = { timeoutMs: 2000, maxBytes: 16 * 1024 };
const json = { accept: 'application/json', mediaTypes: new Set(['application/json']) };

describe('refusedAddress: the URL policy applied to a resolved address', () => {
  it('lets public addresses through, and private or loopback ones only as the policy allows', () => {
    const refused = (hostname: string, address: string, policy = {}) =>
      refusedAddress(hostname, address, policy) !== undefined;
    for (const address of ['93.184.216.34', '2606:4700::1111'])
      expect(refused('did.example', address), address).toBe(false);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
    ]) {
      expect(refused('did.example', address), address).toBe(true);
      expect(refused('did.example', address, { allowPrivateNetwork: true }), address).toBe(false);
    }
    // A loopback name may reach loopback addresses with allowHttpLoopback; a public name may not.
    expect(refused('localhost', '127.0.0.1', { allowHttpLoopback: true })).toBe(false);
    expect(refused('localhost', '::1', { allowHttpLoopback: true })).toBe(false);
    expect(refused('localhost', '127.0.0.1')).toBe(true);
    expect(refused('did.example', '127.0.0.1', { allowHttpLoopback: true })).toBe(true);
    expect(refused('localhost', '10.0.0.1', { allowHttpLoopback: true })).toBe(true);
    expect(refusedAddress('did.example', '10.1.2.3', {})).toBe(
      'did.example resolves to a private address (needs allowPrivateNetwork)',
    );
  });

  it('judges every address as checkUrlPolicy judges the same address written in a URL (property)', () => {
    const octet = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0, 10, 100, 127, 169, 172, 192, 224, 254, 255),
    );
    const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
    const group = fc.oneof(
      fc.integer({ min: 0, max: 0xffff }),
      fc.constantFrom(0, 1, 0x64, 0xff9b, 0xfc00, 0xfd12, 0xfe80, 0xff02, 0xffff),
    );
    const ipv6 = fc.oneof(
      fc.array(group, { minLength: 8, maxLength: 8 }).map((g) => g.map((x) => x.toString(16)).join(':')),
      ipv4.map((v4) => `::ffff:${v4}`),
      ipv4.map((v4) => `64:ff9b::${v4}`),
      fc.constantFrom('::', '::1', '::7f00:1'),
    );
    fc.assert(
      fc.property(fc.oneof(ipv4, ipv6), fc.boolean(), (address, allowPrivateNetwork) => {
        const policy = { allowPrivateNetwork };
        const literal = address.includes(':') ? `[${address}]` : address;
        let urlRefused = false;
        try {
          checkUrlPolicy(`https://${literal}/`, policy, (message) => new Error(message));
        } catch {
          urlRefused = true;
        }
        expect(refusedAddress('did.example', address, policy) !== undefined, address).toBe(urlRefused);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('guardedLookup', () => {
  const answering =
    (addresses: Array<{ address: string; family: number }>): Lookup =>
    (_hostname, _options, callback) =>
      callback(null, addresses);
  const lookUp = (lookup: Lookup, all: boolean) =>
    new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) =>
      lookup('did.example', { all }, (error, address, family) => resolve({ error, address, family })),
    );

  it('refuses the host when any address is refused, however many public ones come with it', async () => {
    const mixed = guardedLookup(
      {},
      answering([
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ]),
    );
    for (const all of [true, false]) {
      const { error } = await lookUp(mixed, all);
      expect(error).toBeInstanceOf(AddressRefusedError);
      expect(error).toMatchObject({
        code: 'ADDRESS_REFUSED',
        message: expect.stringContaining('resolves to a private address'),
      });
    }
  });

  it('answers in the form asked for: every address with `all`, else the first', async () => {
    const addresses = [
      { address: '2606:4700::1111', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ];
    const lookup = guardedLookup({}, answering(addresses));
    expect(await lookUp(lookup, true)).toEqual({ error: null, address: addresses, family: undefined });
    expect(await lookUp(lookup, false)).toEqual({ error: null, address: '2606:4700::1111', family: 6 });
    const failing: Lookup = (_hostname, _options, callback) =>
      callback(Object.assign(new Error('no such host'), { code: 'ENOTFOUND' }), []);
    expect((await lookUp(guardedLookup({}, failing), false)).error).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('guardedNodeFetch: the connection goes only where the policy allows', () => {
  // node:dns answering like a resolver the attacker controls: a public-looking name, a loopback address.
  const rebinding = (id: string): unknown =>
    id === 'node:dns'
      ? {
          lookup: ((hostname, options, callback) =>
            callback(null, options.all ? [{ address: '127.0.0.1', family: 4 }] : '127.0.0.1', 4)) satisfies Lookup,
        }
      : process.getBuiltinModule(id);

  it('refuses a public name that resolves to loopback before any byte is sent, and connects when the policy allows it', async () => {
    const before = hits;
    const refused = guardedNodeFetch(rebinding, { allowHttpLoopback: true })(`http://did.example:${port}/doc`, {
      method: 'GET',
    });
    await expect(refused).rejects.toBeInstanceOf(AddressRefusedError);
    expect(hits).toBe(before);
    // The same name and answer under allowPrivateNetwork: the request arrives.
    const allowed = await guardedNodeFetch(rebinding, { allowPrivateNetwork: true })(`http://did.example:${port}/doc`, {
      method: 'GET',
    });
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ ok: true });
    expect(hits).toBe(before + 1);
  });
});

describe('fetchJson through the guarded transport (real DNS, real sockets)', () => {
  it('refuses localhost under a policy without allowHttpLoopback, with the reason in the message', async () => {
    const before = hits;
    const result = await fetchJson(`http://localhost:${port}/doc`, { limits, urlPolicy: {}, ...json });
    expect(result).toMatchObject({
      ok: false,
      failure: 'network',
      message: expect.stringMatching(
        /^address refused: localhost resolves to a loopback address \(needs allowHttpLoopback\)$/,
      ),
    });
    expect(hits).toBe(before);
  });

  it('keeps every bound of the read: redirects refused, size capped while streaming, one deadline', async () => {
    const policy = { urlPolicy: { allowHttpLoopback: true } };
    expect(await fetchJson(`http://localhost:${port}/doc`, { limits, ...policy, ...json })).toMatchObject({
      ok: true,
      json: { ok: true },
    });
    expect(await fetchJson(`http://localhost:${port}/redirect`, { limits, ...policy, ...json })).toMatchObject({
      ok: false,
      failure: 'redirect',
      status: 302,
    });
    expect(await fetchJson(`http://localhost:${port}/big`, { limits, ...policy, ...json })).toMatchObject({
      ok: false,
      failure: 'too-large',
    });
    for (const path of ['/silent', '/stall']) {
      expect(
        await fetchJson(`http://localhost:${port}${path}`, {
          limits: { ...limits, timeoutMs: 300 },
          ...policy,
          ...json,
        }),
        path,
      ).toMatchObject({ ok: false, failure: 'timeout' });
    }
  });

  it('settles when the host switches protocols (HTTP 101): node:http reports neither a response nor an error for it', async () => {
    const raw = createNetServer((socket) => {
      socket.once('data', () =>
        socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'),
      );
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const upgradePort = (raw.address() as AddressInfo).port;
      const result = await fetchJson(`http://localhost:${upgradePort}/doc`, {
        limits,
        urlPolicy: { allowHttpLoopback: true },
        ...json,
      });
      expect(result).toMatchObject({ ok: false, failure: 'network' });
      // Through a did:web resolver: a failed resolution, not one that never ends.
      const resolved = await createResolver({
        methods: { web: createWebResolver({ allowHttpLoopback: true }) },
      }).resolve(`did:web:localhost%3A${upgradePort}`);
      expect(resolved.didResolutionMetadata.error).toBe('internalError');
    } finally {
      raw.close();
    }
  });

  it('serves a did:web resolver in Node: a localhost DID resolves with allowHttpLoopback, headers and all', async () => {
    const did = `did:web:localhost%3A${port}`;
    const resolved = await createResolver({ methods: { web: createWebResolver({ allowHttpLoopback: true }) } }).resolve(
      did,
    );
    expect(resolved).toMatchObject({
      didDocument: { id: did },
      didResolutionMetadata: { contentType: 'application/did+json' },
    });
    // A header sent twice reads as the Fetch standard combines it.
    const response = await guardedNodeFetch(process.getBuiltinModule, { allowHttpLoopback: true })(
      `http://localhost:${port}/.well-known/did.json`,
      { method: 'GET' },
    );
    expect(response.headers.get('x-two')).toBe('a, b');
    await response.body?.cancel();
  });
});
