import { describe, expect, inject, it } from 'vitest';
import { createResolver, createWebResolver, didWebToUrl, type FetchLike } from '../../../wallet/did/index.ts';

const base = inject('fixtureBaseUrl'); // http://127.0.0.1:<port>
const hostId = encodeURIComponent(new URL(base).host); // 127.0.0.1%3A<port>
const run = `w${Math.random().toString(36).slice(2, 10)}`; // node and browser share one fixture server

async function publish(path: string, body: string, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(`${base}/host${path}`, {
    method: 'PUT',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  expect(response.status).toBe(204);
}

/** A did:web on the fixture host for path segments, with its document published. */
async function hostedDid(name: string, doc?: (did: string) => unknown): Promise<string> {
  const did = `did:web:${hostId}:${run}:${name}`;
  const body = doc ? doc(did) : { '@context': ['https://www.w3.org/ns/did/v1'], id: did };
  await publish(`/${run}/${name}/did.json`, typeof body === 'string' ? body : JSON.stringify(body));
  return did;
}

const local = createResolver({ methods: { web: createWebResolver({ allowHttpLoopback: true }) } });

describe('didWebToUrl (did:web §3.2)', () => {
  it('maps domains, paths and percent-encoded ports to HTTPS URLs', () => {
    expect(didWebToUrl('did:web:example.com').href).toBe('https://example.com/.well-known/did.json');
    expect(didWebToUrl('did:web:example.com:agents:a1').href).toBe('https://example.com/agents/a1/did.json');
    expect(didWebToUrl('did:web:example.com%3A8443:u:alice').href).toBe('https://example.com:8443/u/alice/did.json');
    expect(didWebToUrl('did:web:Example.COM').href).toBe('https://example.com/.well-known/did.json');
    expect(didWebToUrl('did:web:8.8.8.8').href).toBe('https://8.8.8.8/.well-known/did.json');
  });

  it('uses plain http only for loopback hosts and only with allowHttpLoopback', () => {
    expect(didWebToUrl('did:web:localhost%3A8787', { allowHttpLoopback: true }).href).toBe(
      'http://localhost:8787/.well-known/did.json',
    );
    expect(didWebToUrl('did:web:127.0.0.1%3A8787:a', { allowHttpLoopback: true }).href).toBe(
      'http://127.0.0.1:8787/a/did.json',
    );
    expect(didWebToUrl('did:web:localhost', { allowPrivateNetwork: true }).href).toBe(
      'https://localhost/.well-known/did.json',
    );
    expect(didWebToUrl('did:web:example.com', { allowHttpLoopback: true }).protocol).toBe('https:');
    expect(() => didWebToUrl('did:web:localhost%3A8787')).toThrow(expect.objectContaining({ code: 'INVALID_DID' }));
  });

  it('refuses private, loopback and link-local IP literals in every spelling unless allowPrivateNetwork', () => {
    for (const host of [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '127.0.0.1',
      '0.0.0.0',
      '2130706433', // 127.0.0.1 as one number
      '0x7f.1', // 127.0.0.1 in hex shorthand
      '%5B%3A%3A1%5D', // [::1]
      '%5Bfe80%3A%3A1%5D',
      '%5Bfd00%3A%3A1%5D',
      '%5B%3A%3Affff%3A10.0.0.1%5D', // IPv4-mapped
      'app.localhost',
    ]) {
      expect(() => didWebToUrl(`did:web:${host}`), host).toThrow(expect.objectContaining({ code: 'INVALID_DID' }));
    }
    expect(didWebToUrl('did:web:10.1.2.3', { allowPrivateNetwork: true }).href).toBe(
      'https://10.1.2.3/.well-known/did.json',
    );
  });

  it('judges IP literals by their WHATWG-normalized form', () => {
    for (const host of ['%5B%3A%3A%5D', '100.64.0.1'])
      expect(() => didWebToUrl(`did:web:${host}`), host).toThrow(expect.objectContaining({ code: 'INVALID_DID' }));
    expect(didWebToUrl('did:web:%5B2001%3Adb8%3A%3A1%5D').href).toBe('https://[2001:db8::1]/.well-known/did.json');
    expect(didWebToUrl('did:web:%5B%3A%3Affff%3A8.8.8.8%5D').host).toBe('[::ffff:808:808]');
    expect(didWebToUrl('did:web:172.32.0.1').protocol).toBe('https:');
  });

  it('throws INVALID_DID for hosts and paths that would change which server or file is asked', () => {
    for (const did of [
      'did:web:example.com%2Fevil.com', // a "/" in the host
      'did:web:user%40example.com', // userinfo
      'did:web:example.com%3A99999',
      'did:web:exa_mple.com',
      'did:web:example.com:..:admin',
      'did:web:example.com:a%2Fb',
      'did:web:example.com:%E0%A4%A',
      'did:web:%ZZ',
      'did:web:example.com#frag',
      'did:key:z6Mk',
      'nonsense',
    ]) {
      expect(() => didWebToUrl(did), did).toThrow(expect.objectContaining({ code: 'INVALID_DID' }));
    }
  });
});

describe('did:web resolution against a real HTTP host', () => {
  it('fetches, validates and returns the document with its content type', async () => {
    const did = await hostedDid('agent', (d) => ({
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
      id: d,
      verificationMethod: [
        {
          id: `${d}#k1`,
          type: 'Multikey',
          controller: d,
          publicKeyMultibase: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
        },
      ],
      assertionMethod: ['#k1'],
    }));
    const result = await local.resolve(did);
    expect(result.didResolutionMetadata).toEqual({ contentType: 'application/json' });
    expect(result.didDocument?.assertionMethod).toEqual(['#k1']);
  });

  it('reads did:web:<host> from /.well-known/did.json', async () => {
    const did = `did:web:${hostId}`;
    // Both test projects publish this same document, so their runs cannot disagree.
    await fetch(`${base}/host/.well-known/did.json`, {
      method: 'PUT',
      body: JSON.stringify({ id: did }),
      headers: { 'content-type': 'application/did+json' },
    });
    const result = await local.resolve(did);
    expect(result.didDocument).toEqual({ id: did });
    expect(result.didResolutionMetadata.contentType).toBe('application/did+json');
  });

  it('refuses loopback hosts unless allowHttpLoopback is set', async () => {
    const did = await hostedDid('strict');
    const strict = createResolver({ methods: { web: createWebResolver() } });
    const result = await strict.resolve(did);
    expect(result.didResolutionMetadata.error).toBe('internalError');
    expect(result.didResolutionMetadata.message).toMatch(/private address refused/);
  });

  it('maps HTTP failures: 404 → notFound, 500 → internalError', async () => {
    expect((await local.resolve(`did:web:${hostId}:${run}:missing`)).didResolutionMetadata.error).toBe('notFound');
    await publish(`/${run}/broken/did.json`, '{}', { 'x-status': '500' });
    const broken = await local.resolve(`did:web:${hostId}:${run}:broken`);
    expect(broken.didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringContaining('500'),
    });
  });

  it('requires the document id to equal the DID', async () => {
    const did = await hostedDid('impostor', () => ({ id: 'did:web:example.com' }));
    const result = await local.resolve(did);
    expect(result).toMatchObject({ didDocument: null, didResolutionMetadata: { error: 'invalidDidDocument' } });
  });

  it('refuses a document whose method carries two key materials (DID Core §5.2.1)', async () => {
    const did = await hostedDid('two-materials', (d) => ({
      id: d,
      verificationMethod: [
        {
          id: `${d}#k`,
          type: 'Multikey',
          controller: d,
          publicKeyMultibase: 'z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
          publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: 'AA' },
        },
      ],
    }));
    const result = await local.resolve(did);
    expect(result).toMatchObject({
      didDocument: null,
      didResolutionMetadata: {
        error: 'invalidDidDocument',
        message: expect.stringMatching(/more than one verification material/),
      },
    });
  });

  it('rejects bodies that are not JSON, not a JSON media type, or carry __proto__ keys', async () => {
    const notJson = await hostedDid('not-json', () => '{"id": ');
    expect((await local.resolve(notJson)).didResolutionMetadata.error).toBe('invalidDidDocument');
    const proto = await hostedDid('proto', (d) => `{"id":"${d}","__proto__":{"polluted":true}}`);
    expect((await local.resolve(proto)).didResolutionMetadata.error).toBe('invalidDidDocument');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const html = `did:web:${hostId}:${run}:html`;
    await publish(`/${run}/html/did.json`, JSON.stringify({ id: html }), { 'content-type': 'text/html' });
    expect((await local.resolve(html)).didResolutionMetadata.error).toBe('representationNotSupported');
  });

  it('times out slow hosts (internalError, reason in the message)', async () => {
    const resolver = createResolver({
      methods: { web: createWebResolver({ allowHttpLoopback: true, timeoutMs: 150 }) },
    });
    // did:web:<host>:slow:5000 → /slow/5000/did.json, answered after 5 s
    const result = await resolver.resolve(`did:web:${hostId}:slow:5000`);
    expect(result.didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/timed out/),
    });
  });

  it('times out a caller fetch that ignores the abort signal, before headers and while streaming the body', async () => {
    const unanswered: FetchLike = () => new Promise<Response>(() => undefined);
    const stalledBody: FetchLike = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start: (controller) => controller.enqueue(new TextEncoder().encode('{"id":')),
        }),
        {
          headers: { 'content-type': 'application/did+json' },
        },
      );
    for (const fetch of [unanswered, stalledBody]) {
      const resolver = createResolver({ methods: { web: createWebResolver({ timeoutMs: 100, fetch }) } });
      const result = await resolver.resolve('did:web:example.com');
      expect(result.didResolutionMetadata).toMatchObject({
        error: 'internalError',
        message: expect.stringMatching(/timed out after 100 ms/),
      });
    }
  });

  it('stops reading past the size cap, whatever Content-Length claims', async () => {
    // /big/<n>/did.json serves ~n bytes of JSON
    const declared = await local.resolve(`did:web:${hostId}:big:100000`);
    expect(declared.didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/too large/),
    });

    let delivered = 0;
    const lying: FetchLike = async (url, init) => {
      const real = await fetch(url, init);
      const reader = (real.body as ReadableStream<Uint8Array>).getReader();
      // A body that never ends, announced as 10 bytes: only the cap can stop it.
      const endless = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value } = await reader.read();
          const chunk = value ?? new Uint8Array(16 * 1024).fill(0x20);
          delivered += chunk.length;
          controller.enqueue(chunk);
        },
      });
      return new Response(endless, {
        status: 200,
        headers: { 'content-type': 'application/json', 'content-length': '10' },
      });
    };
    const capped = createResolver({
      methods: { web: createWebResolver({ allowHttpLoopback: true, maxBytes: 32 * 1024, fetch: lying }) },
    });
    const result = await capped.resolve(`did:web:${hostId}:big:1000`);
    expect(result.didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/too large/),
    });
    expect(delivered).toBeLessThan(32 * 1024 + 2 * 16 * 1024);
  });

  it('refuses redirects instead of following them to another host', async () => {
    await publish(`/${run}/moved/did.json`, '{}', { 'x-status': '302' });
    expect((await local.resolve(`did:web:${hostId}:${run}:moved`)).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/redirect refused/),
    });
    // The fixture's /redirect answers 302 Location: <to>; route the did.json request there.
    const target = await hostedDid('target');
    const viaRedirect: FetchLike = (url, init) =>
      fetch(`${base}/redirect?to=${encodeURIComponent(url.replace(run, 'elsewhere'))}`, init);
    const resolver = createResolver({
      methods: { web: createWebResolver({ allowHttpLoopback: true, fetch: viaRedirect }) },
    });
    expect((await resolver.resolve(target)).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/redirect refused/),
    });
  });

  it('reports network failures and invalid did:webs without throwing', async () => {
    const down: FetchLike = async () => {
      throw new TypeError('fetch failed');
    };
    const resolver = createResolver({ methods: { web: createWebResolver({ fetch: down }) } });
    expect((await resolver.resolve('did:web:example.com')).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/network/),
    });
    expect((await resolver.resolve('did:web:example.com:..:x')).didResolutionMetadata.error).toBe('invalidDid');
  });

  it('throws INVALID_OPTIONS for limits that are not positive integers', () => {
    expect(() => createWebResolver({ timeoutMs: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => createWebResolver({ maxBytes: Number.POSITIVE_INFINITY })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    // A timer delay of 2^31 ms or more fires at once: every fetch would time out.
    expect(() => createWebResolver({ timeoutMs: 2 ** 31 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: 'timeoutMs must be a positive integer below 2^31' }),
    );
    expect(createWebResolver({ timeoutMs: 2 ** 31 - 1 })).toBeDefined();
  });
});
