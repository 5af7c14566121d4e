// The Web Bot Auth key directory a self-custody agent serves (wallet/http-signatures/directory.ts):
// the working-group draft's signed directory vector replayed byte for byte, then Mandate's own
// signed answers verified, re-targeted and tampered with — in Node and in Chromium.
import { describe, expect, it } from 'vitest';
import { base64ToBytes, base64urlToBytes } from '../../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { generateSeed, seedSigner, verify } from '../../../wallet/crypto/ed25519.ts';
import { ed25519Thumbprint } from '../../../wallet/crypto/jwt.ts';
import {
  buildSignatureAgentCard,
  buildSignatureDirectory,
  DIRECTORY_SIGNATURE_TAG,
  SIGNATURE_DIRECTORY_MEDIA_TYPE,
  SIGNATURE_DIRECTORY_PATH,
  signatureDirectoryDocument,
} from '../../../wallet/http-signatures/directory.ts';
import {
  KeyDirectoryError,
  readSignatureAgentCard,
  readSignatureDirectory,
  type KeyDirectoryErrorCode,
} from '../../../wallet/http-signatures/directory-read.ts';
import {
  createContentDigest,
  HttpSignatureError,
  parseComponentId,
  signatureBase,
  verifyResponseSignature,
  type HttpSignatureErrorCode,
} from '../../../wallet/http-signatures/index.ts';

// RFC 9421 Appendix B.1.4 `test-key-ed25519` (the last 32 bytes of its PKCS #8 body: the seed).
const TEST_SEED = (
  base64ToBytes('MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF') as Uint8Array
).slice(-32);

// draft-ietf-webbotauth-httpsig-protocol (editor's copy), Test Vectors, "Signed Directory
// Response": the body exactly as signed (no trailing newline), its Content-Digest, the signature
// base and the Signature-Input / Signature fields, verbatim.
const VECTOR_BODY =
  '{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}';
const VECTOR_DIGEST = 'sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:';
const VECTOR_PARAMS =
  '("@authority";req "content-digest");created=1735689600;expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="http-message-signatures-directory"';
const VECTOR_BASE = [
  '"@authority";req: signature-agent.test',
  `"content-digest": ${VECTOR_DIGEST}`,
  `"@signature-params": ${VECTOR_PARAMS}`,
].join('\n');
const VECTOR_SIGNATURE = 'l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkBxsigzChM1Gpz7gOVBg==';

describe('the working-group draft vector: a signed directory response', () => {
  it('has the digest, signature base and signature the draft prints, by the one RFC 9421 implementation', async () => {
    const body = utf8ToBytes(VECTOR_BODY);
    expect(await createContentDigest(body)).toBe(VECTOR_DIGEST);
    const request = {
      method: 'GET',
      url: `https://signature-agent.test${SIGNATURE_DIRECTORY_PATH}`,
      headers: new Headers(),
    };
    const response = { status: 200, headers: new Headers({ 'content-digest': VECTOR_DIGEST }), request };
    const params = new Map<string, string | number>([
      ['created', 1735689600],
      ['expires', 4889289600],
      ['keyid', 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U'],
      ['tag', DIRECTORY_SIGNATURE_TAG],
    ]);
    const base = signatureBase(response, ['"@authority";req', 'content-digest'].map(parseComponentId), params);
    expect(base.base).toBe(VECTOR_BASE);
    expect(base.signatureParams).toBe(VECTOR_PARAMS);
    // Ed25519 is deterministic: the same key signs the same bytes.
    const signature = await seedSigner(TEST_SEED).sign(utf8ToBytes(VECTOR_BASE));
    expect(signature).toEqual(base64ToBytes(VECTOR_SIGNATURE));
    expect(await verify(signature, utf8ToBytes(VECTOR_BASE), seedSigner(TEST_SEED).publicKey)).toBe(true);
    // The vector's kid is the key's RFC 7638 thumbprint, as Mandate's directory writes it.
    expect(ed25519Thumbprint(seedSigner(TEST_SEED).publicKey)).toBe('poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U');
    const [jwk] = (await signatureDirectoryDocument([seedSigner(TEST_SEED).publicKey])).keys;
    expect(jwk).toMatchObject(JSON.parse(VECTOR_BODY).keys[0]);
  });
});

const ORIGIN = 'https://agent.example';
const fetchOf = (origin = ORIGIN) => new Request(origin + SIGNATURE_DIRECTORY_PATH);
const NOW = 1_800_000_000_000;

async function expectCode(promise: Promise<unknown>, code: HttpSignatureErrorCode): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpSignatureError);
  expect((error as HttpSignatureError).code).toBe(code);
}

describe('buildSignatureDirectory: what a self-custody agent serves at its origin', () => {
  const signers = [seedSigner(generateSeed()), seedSigner(generateSeed())];
  const verifyLabel = (response: Response, request: Request, label: string, keys: Map<string, Uint8Array>) =>
    verifyResponseSignature(response, request, {
      label,
      tag: DIRECTORY_SIGNATURE_TAG,
      requiredComponents: ['"@authority";req'],
      resolveKey: (keyid) => Promise.resolve(keys.get(keyid)),
      now: NOW + 30_000,
    });
  const keysOf = (body: string) =>
    new Map(
      (JSON.parse(body) as { keys: { kid: string; x: string }[] }).keys.map((k) => [
        k.kid,
        base64urlToBytes(k.x) as Uint8Array,
      ]),
    );

  it('lists each key by its thumbprint and signs the answer once per key, bound to the authority asked', async () => {
    const { body, headers } = await buildSignatureDirectory(signers, fetchOf(), { now: NOW });
    expect(headers['content-type']).toBe(SIGNATURE_DIRECTORY_MEDIA_TYPE);
    expect(headers['content-digest']).toBe(await createContentDigest(utf8ToBytes(body)));
    const keys = keysOf(body);
    expect([...keys.keys()]).toEqual(signers.map((s) => ed25519Thumbprint(s.publicKey)));
    const response = new Response(body, { headers });
    for (const [index, signer] of signers.entries()) {
      const verified = await verifyLabel(response, fetchOf(), `binding${index}`, keys);
      expect(verified).toMatchObject({
        keyid: ed25519Thumbprint(signer.publicKey),
        tag: DIRECTORY_SIGNATURE_TAG,
        created: NOW / 1000,
        expires: NOW / 1000 + 300,
        components: ['"content-digest"', '"@authority";req'],
        values: { '"@authority";req': 'agent.example' },
      });
    }
  });

  it('does not verify when served under another authority, or with another key set', async () => {
    const { body, headers } = await buildSignatureDirectory(signers, fetchOf(), { now: NOW });
    const keys = keysOf(body);
    await expectCode(
      verifyLabel(new Response(body, { headers }), fetchOf('https://mirror.example'), 'binding0', keys),
      'HTTP_SIGNATURE_INVALID',
    );
    // One key dropped from the set: the digest the signatures cover no longer matches the body.
    const fewer = JSON.stringify({ keys: (JSON.parse(body) as { keys: unknown[] }).keys.slice(1) });
    await expectCode(
      verifyLabel(new Response(fewer, { headers }), fetchOf(), 'binding1', keys),
      'CONTENT_DIGEST_MISMATCH',
    );
  });

  it('serves an empty set unsigned when it has no key, and accepts a URL for the request', async () => {
    const { body, headers } = await buildSignatureDirectory([], ORIGIN + SIGNATURE_DIRECTORY_PATH);
    expect(JSON.parse(body)).toEqual({ keys: [] });
    expect(headers['signature']).toBeUndefined();
  });
});

async function refusedWith(run: () => unknown, code: KeyDirectoryErrorCode): Promise<void> {
  const error = await Promise.resolve()
    .then(run)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(KeyDirectoryError);
  expect((error as KeyDirectoryError).code).toBe(code);
}

describe("readSignatureDirectory: the keys a fetched directory's signatures vouch for", () => {
  const [a, b] = [seedSigner(generateSeed()), seedSigner(generateSeed())];
  const thumb = (s: { publicKey: Uint8Array }) => ed25519Thumbprint(s.publicKey);
  const answer = async (signers = [a, b], document?: Awaited<ReturnType<typeof signatureDirectoryDocument>>) => {
    const { body, headers } = await buildSignatureDirectory(signers, fetchOf(), {
      now: NOW,
      ...(document ? { document } : {}),
    });
    return { body, headers, response: new Response(body, { headers }) };
  };

  it('keeps every key whose signature verifies for the authority asked, by thumbprint', async () => {
    const { response } = await answer();
    const read = await readSignatureDirectory(response, fetchOf(), { now: NOW });
    expect([...read.keys.keys()]).toEqual([thumb(a), thumb(b)]);
    expect(read.keys.get(thumb(a))).toEqual(a.publicKey);
    expect(read.ignored).toEqual([]);
  });

  it('ignores a listed key that signed nothing, and every key under another authority', async () => {
    const { response } = await answer([a], await signatureDirectoryDocument([a.publicKey, b.publicKey]));
    const read = await readSignatureDirectory(response, fetchOf(), { now: NOW });
    expect([...read.keys.keys()]).toEqual([thumb(a)]);
    expect(read.ignored).toEqual([{ kid: thumb(b), code: 'HTTP_SIGNATURE_NOT_FOUND' }]);
    const elsewhere = await readSignatureDirectory((await answer()).response, fetchOf('https://mirror.example'), {
      now: NOW,
    });
    expect(elsewhere.keys.size).toBe(0);
    expect(elsewhere.ignored.map((i) => i.code)).toEqual(['HTTP_SIGNATURE_INVALID', 'HTTP_SIGNATURE_INVALID']);
  });

  it('ignores a key whose kid is not its thumbprint (KEY_DIRECTORY_KID_MISMATCH), and a key that is not Ed25519', async () => {
    const document = await signatureDirectoryDocument([a.publicKey, b.publicKey]);
    document.keys[1] = { ...(document.keys[1] as (typeof document.keys)[number]), kid: 'my-key' };
    const withRsa = { keys: [...document.keys, { kty: 'RSA', n: 'AQAB', e: 'AQAB', kid: 'rsa' }] } as typeof document;
    const read = await readSignatureDirectory((await answer([a, b], withRsa)).response, fetchOf(), { now: NOW });
    expect([...read.keys.keys()]).toEqual([thumb(a)]);
    expect(read.ignored).toEqual([
      { kid: 'my-key', code: 'KEY_DIRECTORY_KID_MISMATCH' },
      { kid: 'rsa', code: 'JWT_KEY_INVALID' },
    ]);
  });

  it('refuses what is not a directory answer: KEY_DIRECTORY_INVALID', async () => {
    const { body, headers } = await answer();
    const read = (response: Response, limits = {}) =>
      readSignatureDirectory(response, fetchOf(), { now: NOW, ...limits });
    await refusedWith(() => read(new Response(body, { status: 404, headers })), 'KEY_DIRECTORY_INVALID');
    await refusedWith(
      () => read(new Response(body, { headers: { ...headers, 'content-type': 'application/json' } })),
      'KEY_DIRECTORY_INVALID',
    );
    await refusedWith(() => read(new Response('{"keys": [', { headers })), 'KEY_DIRECTORY_INVALID');
    await refusedWith(() => read(new Response('{"keys": {}}', { headers })), 'KEY_DIRECTORY_INVALID');
    await refusedWith(() => read(new Response(body, { headers }), { maxKeys: 1 }), 'KEY_DIRECTORY_INVALID');
    await refusedWith(() => read(new Response(body, { headers }), { maxBytes: 100 }), 'KEY_DIRECTORY_INVALID');
  });
});

describe("readSignatureAgentCard: a card's keys, by thumbprint, with its DID", () => {
  const signer = seedSigner(generateSeed());
  const url = 'https://issuer.example/agents/a1/signature-agent-card';

  it('reads the keys of a card fetched from its own client_id', async () => {
    const card = await buildSignatureAgentCard({
      url,
      did: 'did:web:issuer.example:agents:a1',
      publicKeys: [signer.publicKey],
    });
    const read = readSignatureAgentCard(JSON.parse(JSON.stringify(card)), url);
    expect(read.did).toBe('did:web:issuer.example:agents:a1');
    expect([...read.keys.keys()]).toEqual([ed25519Thumbprint(signer.publicKey)]);
    // A card's kid is a label: any value is read, the key returned by its thumbprint.
    const relabelled = { ...card, jwks: { keys: card.jwks.keys.map((k) => ({ ...k, kid: 'label' })) } };
    expect([...readSignatureAgentCard(relabelled, url).keys.keys()]).toEqual([ed25519Thumbprint(signer.publicKey)]);
    expect(readSignatureAgentCard({ client_id: url, jwks_uri: 'https://issuer.example/jwks' }, url)).toMatchObject({
      jwksUri: 'https://issuer.example/jwks',
    });
  });

  it('refuses a card served from another URL than its client_id, or without keys: KEY_DIRECTORY_INVALID', async () => {
    const card = await buildSignatureAgentCard({ url, did: 'did:example:a', publicKeys: [signer.publicKey] });
    await refusedWith(() => readSignatureAgentCard(card, 'https://mirror.example/card'), 'KEY_DIRECTORY_INVALID');
    await refusedWith(() => readSignatureAgentCard({ client_id: url }, url), 'KEY_DIRECTORY_INVALID');
    await refusedWith(() => readSignatureAgentCard([card], url), 'KEY_DIRECTORY_INVALID');
  });
});
