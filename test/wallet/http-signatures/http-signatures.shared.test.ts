// HTTP Message Signatures (RFC 9421) with Ed25519, in Node and Chromium: the RFC's own Ed25519
// example reproduced byte for byte, requests signed and verified, and every reason code of the
// verifier provoked by a crafted request (replayed, re-targeted, changed body, expired, …).
import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase64 } from '../../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { cryptoKeySigner, generateNonExtractableKey, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { ed25519Thumbprint } from '../../../wallet/crypto/jwt.ts';
import {
  HTTP_SIGNATURE_REASONS,
  HttpSignatureError,
  createContentDigest,
  identityRequestSigner,
  parseComponentId,
  requestSigner,
  signRequest,
  signResponse,
  signatureBase,
  verifyContentDigest,
  verifyMessageSignature,
  verifyRequestSignature,
  verifyResponseSignature,
  type HttpSignatureErrorCode,
  type RequestSigner,
  type VerifySignatureOptions,
} from '../../../wallet/http-signatures/index.ts';
import { createReplayCache } from '../../../wallet/vc/replay-cache.ts';

// RFC 9421 Appendix B.1.4 `test-key-ed25519`: the JWK form's `d` (the seed) and `x`, which are
// the last 32 bytes of the PKCS #8 bodies printed there
// (MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF,
// MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=).
const PRIVATE_PKCS8 = 'MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF';
const PUBLIC_SPKI = 'MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=';
const TEST_SEED = (base64ToBytes(PRIVATE_PKCS8) as Uint8Array).slice(-32);
const TEST_PUBLIC_KEY = (base64ToBytes(PUBLIC_SPKI) as Uint8Array).slice(-32);

// RFC 9421 Appendix B.2 test-request (`POST /foo?param=Value&Pet=dog`) and B.2.6.
const TEST_REQUEST_HEADERS: [string, string][] = [
  ['Host', 'example.com'],
  ['Date', 'Tue, 20 Apr 2021 02:07:55 GMT'],
  ['Content-Type', 'application/json'],
  [
    'Content-Digest',
    'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
  ],
  ['Content-Length', '18'],
];
const TEST_REQUEST_BODY = '{"hello": "world"}';
const B26_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
].join('\n');
const B26_SIGNATURE_INPUT =
  'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"';
const B26_SIGNATURE =
  'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:';

// A standalone Headers keeps `Date` and `Content-Length`, which a browser's Request drops.
const testRequest = () => ({
  method: 'POST',
  url: 'https://example.com/foo?param=Value&Pet=dog',
  headers: new Headers(TEST_REQUEST_HEADERS),
});

describe('RFC 9421 Appendix B.2.6: signing a request using ed25519', () => {
  it('rebuilds the signature base and the signature byte for byte', async () => {
    const components = ['date', '@method', '@path', '@authority', 'content-type', 'content-length'].map(
      parseComponentId,
    );
    const params = new Map<string, string | number>([
      ['created', 1618884473],
      ['keyid', 'test-key-ed25519'],
    ]);
    const { base, signatureParams } = signatureBase(testRequest(), components, params);
    expect(base).toBe(B26_BASE);
    expect(`sig-b26=${signatureParams}`).toBe(B26_SIGNATURE_INPUT);
    const signature = await seedSigner(TEST_SEED).sign(utf8ToBytes(base));
    expect(`sig-b26=:${bytesToBase64(signature)}:`).toBe(B26_SIGNATURE);
    expect(seedSigner(TEST_SEED).publicKey).toEqual(TEST_PUBLIC_KEY);
  });

  it("verifies the RFC's Signature-Input and Signature as printed", async () => {
    const message = testRequest();
    message.headers.set('Signature-Input', B26_SIGNATURE_INPUT);
    message.headers.set('Signature', B26_SIGNATURE);
    const verified = await verifyMessageSignature(message, utf8ToBytes(TEST_REQUEST_BODY), {
      resolveKey: async (keyid) => (keyid === 'test-key-ed25519' ? TEST_PUBLIC_KEY : undefined),
      now: 1618884473_000,
      // The example covers neither the body nor @query: this verifier requires both by default.
      requiredComponents: [],
      requireContentDigest: false,
    });
    expect(verified).toMatchObject({ label: 'sig-b26', keyid: 'test-key-ed25519', created: 1618884473 });
    expect(verified.fields['content-length']).toBe('18');
  });

  it("checks the test-request's sha-512 Content-Digest (RFC 9421 Appendix B.2)", async () => {
    const field = TEST_REQUEST_HEADERS[3]?.[1] as string;
    expect(await verifyContentDigest(utf8ToBytes(TEST_REQUEST_BODY), field)).toEqual(['sha-512']);
  });

  it('names the test key by its RFC 7638 thumbprint (the Web Bot Auth draft keyid)', () => {
    expect(ed25519Thumbprint(TEST_PUBLIC_KEY)).toBe('poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U');
  });
});

const NOW = 1_800_000_000_000;
const agentSigner = requestSigner(seedSigner(TEST_SEED));
const otherSigner = requestSigner(seedSigner(new Uint8Array(32).fill(7)));

function verifier(extra: Partial<VerifySignatureOptions> = {}): VerifySignatureOptions {
  return {
    resolveKey: async (keyid) => (keyid === agentSigner.keyid ? TEST_PUBLIC_KEY : undefined),
    now: NOW,
    ...extra,
  };
}

async function refusal(promise: Promise<unknown>): Promise<HttpSignatureErrorCode> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpSignatureError);
  return (error as HttpSignatureError).code;
}

const post = (url = 'https://api.example/v1/orders?limit=2', body = '{"item":"book"}') =>
  new Request(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

const sign = (request: Request, options = {}, signer: RequestSigner = agentSigner) =>
  signRequest(request, signer, { now: NOW, ...options });

/** The same request sent to `url`. */
async function retarget(request: Request, url: string): Promise<Request> {
  return new Request(url, { method: request.method, headers: request.headers, body: await request.text() });
}

/** The same request with `name` set to `value` (null: removed). */
function withHeader(request: Request, name: string, value: string | null): Request {
  const headers = new Headers(request.headers);
  if (value === null) headers.delete(name);
  else headers.set(name, value);
  return new Request(request, { headers });
}

describe('signRequest and verifyRequestSignature', () => {
  it('covers method, authority, path, query and the body by default, with the safe parameters', async () => {
    const signed = await sign(post());
    const input = signed.headers.get('signature-input') as string;
    expect(input).toMatch(
      /^sig1=\("@method" "@authority" "@path" "@query" "content-digest"\);created=1800000000;expires=1800000060;keyid="[\w-]{43}";alg="ed25519";nonce="[\w-]{43}"$/,
    );
    expect(signed.headers.get('content-digest')).toBe(await createContentDigest(utf8ToBytes('{"item":"book"}')));
    const verified = await verifyRequestSignature(signed, verifier());
    expect(verified).toMatchObject({
      label: 'sig1',
      keyid: agentSigner.keyid,
      created: 1800000000,
      expires: 1800000060,
    });
    expect(verified.components).toEqual(['"@method"', '"@authority"', '"@path"', '"@query"', '"content-digest"']);
    expect(verified.values['"@query"']).toBe('?limit=2');
    expect(verified.fields['content-digest']).toBe(signed.headers.get('content-digest'));
    expect(await signed.text()).toBe('{"item":"book"}'); // the body is still there to read
  });

  it('signs a GET without a body or a query, with a tag and more components', async () => {
    const request = new Request('https://api.example/', { headers: { accept: 'application/json' } });
    const signed = await sign(request, { tag: 'mandate', components: ['accept', '@target-uri'], nonce: 'n-1' });
    expect(signed.headers.get('signature-input')).toContain('("@method" "@authority" "@path" "accept" "@target-uri")');
    const verified = await verifyRequestSignature(signed, verifier({ tag: 'mandate' }));
    expect(verified).toMatchObject({ tag: 'mandate', nonce: 'n-1' });
    expect(verified.values['"@target-uri"']).toBe('https://api.example/');
  });

  it('signs with a non-extractable WebCrypto key and with a SigningIdentity', async () => {
    const { privateKey, publicKey } = await generateNonExtractableKey();
    const signer = requestSigner(cryptoKeySigner(privateKey, publicKey));
    expect(signer.keyid).toBe(ed25519Thumbprint(publicKey));
    const signed = await sign(post(), {}, signer);
    await expect(
      verifyRequestSignature(signed, verifier({ resolveKey: async () => publicKey })),
    ).resolves.toMatchObject({ keyid: signer.keyid });
    const identity = { did: 'did:example:a', verificationMethod: 'did:example:a#k', signer: seedSigner(TEST_SEED) };
    expect(identityRequestSigner(identity).keyid).toBe('did:example:a#k');
  });

  it('keeps signatures already there and adds its own under another label', async () => {
    const first = await sign(post());
    const second = await sign(first, { label: 'sig2', tag: 'second' }, otherSigner);
    expect(await verifyRequestSignature(second, verifier({ label: 'sig1' }))).toMatchObject({ label: 'sig1' });
    const other = await verifyRequestSignature(
      second,
      verifier({ tag: 'second', resolveKey: async () => otherSigner.publicKey }),
    );
    expect(other.label).toBe('sig2');
    expect(await refusal(sign(first))).toBe('HTTP_SIGNATURE_OPTIONS_INVALID'); // sig1 is taken
  });

  it('refuses options it cannot honour: a lifetime over 300 s, a component the request lacks', async () => {
    expect(await refusal(sign(post(), { expiresIn: 301 }))).toBe('HTTP_SIGNATURE_OPTIONS_INVALID');
    expect(await refusal(sign(post(), { components: ['x-missing'] }))).toBe('HTTP_SIGNATURE_OPTIONS_INVALID');
    expect(await refusal(sign(post(), { components: ['@query-param;name="a"'] }))).toBe(
      'HTTP_SIGNATURE_OPTIONS_INVALID',
    );
    expect(await refusal(sign(post(), { label: 'Sig' }))).toBe('HTTP_SIGNATURE_OPTIONS_INVALID');
  });
});

describe('every refusal, with its reason code', () => {
  const cases: [HttpSignatureErrorCode, () => Promise<unknown>][] = [
    ['HTTP_SIGNATURE_MISSING', async () => verifyRequestSignature(post(), verifier())],
    [
      'HTTP_SIGNATURE_MISSING',
      async () => verifyRequestSignature(withHeader(await sign(post()), 'signature', null), verifier()),
    ],
    [
      'HTTP_SIGNATURE_MALFORMED',
      async () =>
        verifyRequestSignature(withHeader(await sign(post()), 'signature-input', 'sig1=("@method"'), verifier()),
    ],
    [
      'HTTP_SIGNATURE_MALFORMED',
      async () => verifyRequestSignature(withHeader(await sign(post()), 'signature', 'sig1="not bytes"'), verifier()),
    ],
    [
      'HTTP_SIGNATURE_MALFORMED',
      async () => verifyRequestSignature(withHeader(await sign(post()), 'signature', 'sig2=:AAAA:'), verifier()),
    ],
    [
      'HTTP_SIGNATURE_MALFORMED', // a Signature-Input over 32 KiB
      async () => {
        const signed = await sign(post());
        const input = `${signed.headers.get('signature-input') as string};x="${'x'.repeat(32_768)}"`;
        return verifyRequestSignature(withHeader(signed, 'signature-input', input), verifier());
      },
    ],
    ['HTTP_SIGNATURE_NOT_FOUND', async () => verifyRequestSignature(await sign(post()), verifier({ label: 'sig9' }))],
    [
      'HTTP_SIGNATURE_NOT_FOUND',
      async () => verifyRequestSignature(await sign(post()), verifier({ tag: 'web-bot-auth' })),
    ],
    [
      'HTTP_SIGNATURE_ALG_UNSUPPORTED',
      async () => {
        const signed = await sign(post());
        const input = (signed.headers.get('signature-input') as string).replace('"ed25519"', '"rsa-pss-sha512"');
        return verifyRequestSignature(withHeader(signed, 'signature-input', input), verifier());
      },
    ],
    [
      'HTTP_SIGNATURE_PARAMS_INVALID',
      async () => {
        const signed = await sign(post());
        const input = (signed.headers.get('signature-input') as string).replace(/;created=\d+/, '');
        return verifyRequestSignature(withHeader(signed, 'signature-input', input), verifier());
      },
    ],
    [
      'HTTP_SIGNATURE_PARAMS_INVALID',
      async () =>
        verifyRequestSignature(await sign(post(), { nonce: false }), verifier({ replay: createReplayCache() })),
    ],
    [
      'HTTP_SIGNATURE_NOT_YET_VALID',
      async () => verifyRequestSignature(await sign(post(), { now: NOW + 61_000 }), verifier()),
    ],
    [
      'HTTP_SIGNATURE_LIFETIME_EXCEEDED',
      async () => {
        const signed = await sign(post());
        const input = (signed.headers.get('signature-input') as string).replace(/expires=\d+/, 'expires=1800000301');
        return verifyRequestSignature(withHeader(signed, 'signature-input', input), verifier());
      },
    ],
    [
      'HTTP_SIGNATURE_EXPIRED',
      async () => verifyRequestSignature(await sign(post()), verifier({ now: NOW + 121_000 })),
    ],
    [
      'HTTP_SIGNATURE_EXPIRED',
      async () =>
        verifyRequestSignature(
          await sign(post(), { expiresIn: 300 }),
          verifier({ now: NOW + 121_000, maxAgeSeconds: 60 }),
        ),
    ],
    [
      'HTTP_SIGNATURE_COMPONENT_NOT_COVERED',
      async () => verifyRequestSignature(await sign(post()), verifier({ requiredComponents: ['content-type'] })),
    ],
    [
      'CONTENT_DIGEST_MISSING',
      async () => verifyRequestSignature(await sign(post(), { contentDigest: false }), verifier()),
    ],
    [
      'HTTP_SIGNATURE_COMPONENT_ABSENT',
      async () => verifyRequestSignature(withHeader(await sign(post()), 'content-digest', null), verifier()),
    ],
    [
      'HTTP_SIGNATURE_AGENT_INVALID', // Web Bot Auth: no Signature-Agent covered (web-bot-auth.shared.test.ts has more)
      async () => verifyRequestSignature(await sign(post(), { webBotAuth: {} }), verifier({ webBotAuth: true })),
    ],
    [
      'HTTP_SIGNATURE_KEYID_MISMATCH', // Web Bot Auth: a keyid that is not the key's thumbprint
      async () => {
        const named = identityRequestSigner({ verificationMethod: 'did:example:a#k', signer: seedSigner(TEST_SEED) });
        const signed = await sign(post(), { tag: 'web-bot-auth' }, named);
        const options = verifier({
          resolveKey: async () => TEST_PUBLIC_KEY,
          webBotAuth: { requireSignatureAgent: false },
        });
        return verifyRequestSignature(signed, options);
      },
    ],
    ['HTTP_SIGNATURE_KEY_UNKNOWN', async () => verifyRequestSignature(await sign(post(), {}, otherSigner), verifier())],
    [
      'HTTP_SIGNATURE_INVALID', // signed by a key other than the one its keyid names
      async () =>
        verifyRequestSignature(await sign(post(), {}, { ...otherSigner, keyid: agentSigner.keyid }), verifier()),
    ],
    [
      'HTTP_SIGNATURE_INVALID', // re-targeted: another authority
      async () => {
        const signed = await sign(post());
        return verifyRequestSignature(await retarget(signed, 'https://evil.example/v1/orders?limit=2'), verifier());
      },
    ],
    [
      'HTTP_SIGNATURE_INVALID', // re-targeted: another path
      async () => {
        const signed = await sign(post());
        return verifyRequestSignature(await retarget(signed, 'https://api.example/v1/refunds?limit=2'), verifier());
      },
    ],
    [
      'HTTP_SIGNATURE_INVALID', // another method
      async () => {
        const signed = await sign(post());
        return verifyRequestSignature(new Request(signed, { method: 'PUT' }), verifier());
      },
    ],
    [
      'CONTENT_DIGEST_MISMATCH', // the body changed, the signed Content-Digest kept
      async () => verifyRequestSignature(new Request(await sign(post()), { body: '{"item":"car"}' }), verifier()),
    ],
    [
      'CONTENT_DIGEST_UNSUPPORTED',
      async () => {
        const request = withHeader(post(), 'content-digest', 'md5=:AAAAAAAAAAAAAAAAAAAAAA==:');
        return verifyRequestSignature(
          await sign(request, { contentDigest: false, components: ['content-digest'] }),
          verifier(),
        );
      },
    ],
    [
      'HTTP_SIGNATURE_REPLAYED',
      async () => {
        const replay = createReplayCache({ now: () => NOW });
        const signed = await sign(post());
        await verifyRequestSignature(signed.clone(), verifier({ replay }));
        return verifyRequestSignature(signed, verifier({ replay }));
      },
    ],
    [
      'HTTP_SIGNATURE_REPLAYED', // a store that cannot record fails closed
      async () =>
        verifyRequestSignature(
          await sign(post()),
          verifier({ replay: { remember: () => Promise.reject(new Error('store down')) } }),
        ),
    ],
    ['HTTP_SIGNATURE_OPTIONS_INVALID', async () => sign(post(), { expiresIn: 0 })],
  ];

  for (const [code, run] of cases)
    it(`${code}: ${run.toString().match(/\/\/ (.*)/)?.[1] ?? 'crafted request'}`, async () => {
      expect(await refusal(run())).toBe(code);
    });

  it('provokes every registered code', () => {
    expect(new Set(cases.map(([code]) => code))).toEqual(new Set(HTTP_SIGNATURE_REASONS));
  });

  it('accepts a nonce once, then the next signed request', async () => {
    const replay = createReplayCache({ now: () => NOW });
    await verifyRequestSignature(await sign(post()), verifier({ replay }));
    await expect(verifyRequestSignature(await sign(post()), verifier({ replay }))).resolves.toMatchObject({
      label: 'sig1',
    });
  });
});

describe('signResponse and verifyResponseSignature (RFC 9421 §2.4)', () => {
  it('binds a response to the authority of its request, as a key directory does', async () => {
    const request = new Request('https://issuer.example/.well-known/http-message-signatures-directory');
    const response = new Response('{"keys":[]}', {
      headers: { 'content-type': 'application/http-message-signatures-directory+json' },
    });
    const signed = await signResponse(response, request, agentSigner, {
      components: ['"@authority";req'],
      tag: 'http-message-signatures-directory',
      now: NOW,
    });
    expect(signed.headers.get('signature-input')).toContain('("content-digest" "@authority";req)');
    const verified = await verifyResponseSignature(
      signed,
      request,
      verifier({ tag: 'http-message-signatures-directory' }),
    );
    expect(verified.values['"@authority";req']).toBe('issuer.example');
    const elsewhere = new Request('https://evil.example/.well-known/http-message-signatures-directory');
    expect(await refusal(verifyResponseSignature(signed, elsewhere, verifier()))).toBe('HTTP_SIGNATURE_INVALID');
  });
});

describe('Content-Digest (RFC 9530)', () => {
  const body = utf8ToBytes('{"hello": "world"}');
  it('creates sha-256 (and sha-512) and checks every supported algorithm listed', async () => {
    const sha256 = await createContentDigest(body);
    expect(sha256).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
    const both = `${sha256}, ${await createContentDigest(body, 'sha-512')}, md5=:AAAA:`;
    expect(await verifyContentDigest(body, both)).toEqual(['sha-256', 'sha-512']);
    await expect(verifyContentDigest(body, `${sha256}, sha-512=:AAAA:`)).rejects.toThrow(HttpSignatureError);
    await expect(verifyContentDigest(body, 'sha-256=(1 2)')).rejects.toThrow(/byte sequence/);
    await expect(verifyContentDigest(body, 'sha-256=:')).rejects.toThrow(/dictionary/);
    await expect(createContentDigest(body, 'md5' as 'sha-256')).rejects.toThrow(/unsupported digest/);
  });
});
