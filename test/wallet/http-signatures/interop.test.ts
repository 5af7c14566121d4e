// Interop, both directions, with two RFC 9421 implementations nobody here wrote (Node only: they
// sign with node:crypto or WebCrypto key objects):
// - `http-message-signatures` 1.0.6 (the RFC 9421 library, over structured-headers);
// - `web-bot-auth` 0.1.3 (Cloudflare's Web Bot Auth, over its `http-message-sig` 0.2.0).
// Requests they sign verify with verifyRequestSignature; requests Mandate signs verify in theirs.
//
// Where web-bot-auth 0.1.3 lags the draft and RFC 9421 (each shown below):
// - it computes a covered `"signature-agent";key="x"` as the WHOLE header value, ignoring `;key=`
//   (RFC 9421 §2.1.2 says: the member's value), so the dictionary form with `;key` does not
//   verify across; it covers `signature-agent` whole instead, which both sides compute alike;
// - its verifier accepts one signature per request (a second signer's makes it throw);
// - it leaves to its caller replay (nonce), content-digest, which components are covered, and
//   whether keyid is the key's thumbprint — Mandate's verifier does each itself.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { createSigner, createVerifier, httpbis } from 'http-message-signatures';
import { describe, expect, it } from 'vitest';
import { signatureHeaders, verify as webBotAuthVerify } from 'web-bot-auth';
import { Ed25519Signer, verifierFromJWK } from 'web-bot-auth/crypto';
import { base64ToBytes } from '../../../wallet/crypto/base64url.ts';
import { seedSigner } from '../../../wallet/crypto/ed25519.ts';
import {
  HttpSignatureError,
  requestSigner,
  signRequest,
  verifyRequestSignature,
  type VerifySignatureOptions,
} from '../../../wallet/http-signatures/index.ts';
import { createReplayCache } from '../../../wallet/vc/replay-cache.ts';

// RFC 9421 Appendix B.1.4 test-key-ed25519, as PKCS #8 / SPKI and as its JWK.
const PRIVATE_PKCS8 = 'MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF';
const PUBLIC_SPKI = 'MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=';
const JWK = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU',
  x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs',
};
const SEED = (base64ToBytes(PRIVATE_PKCS8) as Uint8Array).slice(-32);
const PUBLIC_KEY = (base64ToBytes(PUBLIC_SPKI) as Uint8Array).slice(-32);
const THUMBPRINT = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';
const AGENT_URL = 'https://signature-agent.test';

const mandate = requestSigner(seedSigner(SEED));
const resolveKey = async (keyid: string) => (keyid === THUMBPRINT ? PUBLIC_KEY : undefined);
/** Their signers use the wall clock, so these verifications do too. */
const verifier = (extra: Partial<VerifySignatureOptions> = {}): VerifySignatureOptions => ({ resolveKey, ...extra });

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpSignatureError);
  return (error as HttpSignatureError).code;
}

/** A Request with `headers` added. */
function withHeaders(request: Request, headers: Record<string, string>): Request {
  const all = new Headers(request.headers);
  for (const [name, value] of Object.entries(headers)) all.set(name, value);
  return new Request(request, { headers: all });
}

const seconds = (offset = 0) => new Date(Math.floor(Date.now() / 1000 + offset) * 1000);

describe('web-bot-auth 0.1.3 → Mandate', () => {
  const wbaSigned = async (
    signatureAgent: string,
    components?: Parameters<typeof signatureHeaders>[2]['components'],
  ) => {
    const request = new Request('https://shop.example/products/42', { headers: { 'signature-agent': signatureAgent } });
    const signer = await Ed25519Signer.fromJWK(JWK);
    expect(signer.keyid).toBe(THUMBPRINT); // its keyid is the same RFC 7638 thumbprint
    const headers = await signatureHeaders(request, signer, { created: seconds(), expires: seconds(60), components });
    return withHeaders(request, { signature: headers.Signature, 'signature-input': headers['Signature-Input'] });
  };

  it('verifies its dictionary-form Signature-Agent, which it covers whole', async () => {
    const request = await wbaSigned(`sig1="${AGENT_URL}"`);
    expect(request.headers.get('signature-input')).toMatch(/^sig1=\("@authority" "signature-agent"\);/);
    const verified = await verifyRequestSignature(
      request,
      verifier({ webBotAuth: true, requiredComponents: ['@authority'], replay: createReplayCache() }),
    );
    expect(verified).toMatchObject({ keyid: THUMBPRINT, tag: 'web-bot-auth' });
    expect(verified.signatureAgent).toEqual({ url: AGENT_URL, type: 'directory', member: 'sig1' });
  });

  it('verifies its legacy sf-string Signature-Agent', async () => {
    const request = await wbaSigned(`"${AGENT_URL}"`);
    const verified = await verifyRequestSignature(
      request,
      verifier({ webBotAuth: true, requiredComponents: ['@authority'] }),
    );
    expect(verified.signatureAgent).toEqual({ url: AGENT_URL, type: 'directory' });
  });

  it('does the checks web-bot-auth leaves to its caller: covered components, replay, the thumbprint', async () => {
    const request = await wbaSigned(`sig1="${AGENT_URL}"`);
    // Mandate's default asks for @method and @path too: an @authority-only signature is reusable
    // against any path of that authority until it expires (the draft says so itself).
    expect(await code(verifyRequestSignature(request.clone(), verifier({ webBotAuth: true })))).toBe(
      'HTTP_SIGNATURE_COMPONENT_NOT_COVERED',
    );
    const replay = createReplayCache();
    const options = verifier({ webBotAuth: true, requiredComponents: ['@authority'], replay });
    await verifyRequestSignature(request.clone(), options);
    expect(await code(verifyRequestSignature(request.clone(), options))).toBe('HTTP_SIGNATURE_REPLAYED');
    const otherKey = seedSigner(new Uint8Array(32).fill(3)).publicKey;
    const lying = verifier({ webBotAuth: true, requiredComponents: ['@authority'], resolveKey: async () => otherKey });
    expect(await code(verifyRequestSignature(request, lying))).toBe('HTTP_SIGNATURE_KEYID_MISMATCH');
  });

  it('lags RFC 9421 §2.1.2: told to cover "signature-agent";key="sig1", it signs the whole header, which Mandate refuses', async () => {
    const keyed = { name: 'signature-agent', parameters: new Map([['key', 'sig1']]) };
    const request = await wbaSigned(`sig1="${AGENT_URL}"`, ['@authority', keyed]);
    expect(request.headers.get('signature-input')).toContain('"signature-agent";key="sig1"');
    expect(
      await code(verifyRequestSignature(request, verifier({ webBotAuth: true, requiredComponents: ['@authority'] }))),
    ).toBe('HTTP_SIGNATURE_INVALID');
  });
});

describe('Mandate → web-bot-auth 0.1.3', () => {
  const wbaVerify = async (request: Request) => webBotAuthVerify(request, await verifierFromJWK(JWK));

  it("verifies Mandate's request with the legacy Signature-Agent (both compute the whole value)", async () => {
    const signed = await signRequest(new Request('https://shop.example/products/42'), mandate, {
      webBotAuth: { signatureAgent: AGENT_URL, legacy: true },
    });
    await expect(wbaVerify(signed)).resolves.toBeUndefined();
  });

  it('verifies a Mandate request whose dictionary Signature-Agent is covered whole', async () => {
    const request = new Request('https://shop.example/products/42', {
      headers: { 'signature-agent': `sig1="${AGENT_URL}"` },
    });
    const signed = await signRequest(request, mandate, {
      tag: 'web-bot-auth',
      components: ['signature-agent'],
    });
    await expect(wbaVerify(signed)).resolves.toBeUndefined();
    // …which Mandate's Web Bot Auth verifier accepts too (the member keyed by the label).
    await expect(verifyRequestSignature(signed, verifier({ webBotAuth: true }))).resolves.toMatchObject({
      signatureAgent: { url: AGENT_URL, type: 'directory', member: 'sig1' },
    });
  });

  it('lags the draft: refuses the dictionary form covered with ;key=, which Mandate signs by default', async () => {
    const signed = await signRequest(new Request('https://shop.example/products/42'), mandate, {
      webBotAuth: { signatureAgent: AGENT_URL },
    });
    await expect(wbaVerify(signed.clone())).rejects.toThrow('invalid signature');
    await expect(verifyRequestSignature(signed, verifier({ webBotAuth: true }))).resolves.toMatchObject({
      label: 'sig1',
    });
  });

  it('lags RFC 9421: accepts one signature per request (Mandate verifies each)', async () => {
    const first = await signRequest(new Request('https://shop.example/products/42'), mandate, {
      webBotAuth: { signatureAgent: AGENT_URL, legacy: true },
    });
    const other = requestSigner(seedSigner(new Uint8Array(32).fill(5)));
    const both = await signRequest(first, other, { label: 'sig2' });
    await expect(wbaVerify(both.clone())).rejects.toThrow('Multiple signatures is not supported');
    await expect(verifyRequestSignature(both, verifier({ webBotAuth: true }))).resolves.toMatchObject({
      label: 'sig1',
    });
  });
});

describe('http-message-signatures 1.0.6, both ways', () => {
  const privateKey = createPrivateKey({ key: Buffer.from(PRIVATE_PKCS8, 'base64'), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey({ key: Buffer.from(PUBLIC_SPKI, 'base64'), format: 'der', type: 'spki' });
  const keyLookup = async () => ({ id: THUMBPRINT, algs: ['ed25519'], verify: createVerifier(publicKey, 'ed25519') });
  const body = '{"item":"book","quantity":2}';

  it('a request it signs (with a Content-Digest Mandate computes) verifies with verifyRequestSignature', async () => {
    const unsigned = {
      method: 'POST',
      url: 'https://api.example/v1/orders?limit=2',
      headers: {
        'content-type': 'application/json',
        'content-digest':
          'sha-256=:' + Buffer.from(await crypto.subtle.digest('SHA-256', Buffer.from(body))).toString('base64') + ':',
      },
    };
    const signed = await httpbis.signMessage(
      {
        key: createSigner(privateKey, 'ed25519', THUMBPRINT),
        name: 'sig1',
        fields: ['@method', '@authority', '@path', '@query', 'content-digest', 'content-type'],
        params: ['created', 'expires', 'keyid', 'alg', 'nonce'],
        paramValues: { created: seconds(), expires: seconds(120), nonce: 'their-nonce-1' },
      },
      unsigned,
    );
    const request = new Request(signed.url, {
      method: signed.method,
      headers: signed.headers as Record<string, string>,
      body,
    });
    const verified = await verifyRequestSignature(request, verifier({ replay: createReplayCache() }));
    expect(verified).toMatchObject({ label: 'sig1', keyid: THUMBPRINT, nonce: 'their-nonce-1' });
    expect(verified.values['"content-type"']).toBe('application/json');
  });

  it('a request Mandate signs verifies in theirs, and a changed path does not', async () => {
    const request = new Request('https://api.example/v1/orders?limit=2', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'signature-agent': `sig1="${AGENT_URL}"` },
    });
    const signed = await signRequest(request, mandate, { components: ['content-type', 'signature-agent;key="sig1"'] });
    const message = (url: string) => ({ method: signed.method, url, headers: Object.fromEntries(signed.headers) });
    const requiredFields = ['@method', '@authority', '@path', '@query', 'content-digest'];
    await expect(
      httpbis.verifyMessage({ keyLookup, requiredFields }, message('https://api.example/v1/orders?limit=2')),
    ).resolves.toBe(true);
    await expect(httpbis.verifyMessage({ keyLookup }, message('https://api.example/v1/refunds?limit=2'))).resolves.toBe(
      false,
    );
  });
});
