// The Web Bot Auth profile (draft-ietf-webbotauth-httpsig-protocol, editor's copy of late 2026),
// in Node and Chromium: the draft's Ed25519 test vectors (dictionary and legacy Signature-Agent,
// the signed directory response) rebuilt byte for byte and verified; signRequest's profile; and
// each refusal the profile adds.
import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase64 } from '../../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { seedSigner } from '../../../wallet/crypto/ed25519.ts';
import {
  HttpSignatureError,
  identityRequestSigner,
  parseComponentId,
  requestSigner,
  signRequest,
  signatureBase,
  verifyMessageSignature,
  verifyRequestSignature,
  verifyResponseSignature,
  type HttpSignatureErrorCode,
  type Params,
  type VerifySignatureOptions,
} from '../../../wallet/http-signatures/index.ts';

// RFC 9421 Appendix B.1.4 test-key-ed25519 (the draft's Ed25519 vectors use it).
const SEED = (base64ToBytes('MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF') as Uint8Array).slice(
  -32,
);
const PUBLIC_KEY = (base64ToBytes('MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=') as Uint8Array).slice(
  -32,
);
const THUMBPRINT = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';
const AGENT_URL = 'https://signature-agent.test';

/** The draft's vectors: over RFC 9421's test-request, `@authority` and one Signature-Agent member. */
const VECTORS = [
  {
    name: 'dictionary Signature-Agent (agent2, covered with ;key)',
    signatureAgent: 'agent2="https://signature-agent.test"',
    components: ['@authority', 'signature-agent;key="agent2"'],
    covered: '("@authority" "signature-agent";key="agent2")',
    expires: 4889289600,
    nonce: 'n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==',
    agentLine: '"signature-agent";key="agent2": "https://signature-agent.test"',
    signature: 'RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==',
    member: 'agent2',
  },
  {
    name: 'legacy sf-string Signature-Agent (covered whole)',
    signatureAgent: '"https://signature-agent.test"',
    components: ['@authority', 'signature-agent'],
    covered: '("@authority" "signature-agent")',
    expires: 1735693200,
    nonce: 'e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==',
    agentLine: '"signature-agent": "https://signature-agent.test"',
    signature: 'jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==',
    member: undefined,
  },
];

const CREATED = 1735689600;

describe('draft-ietf-webbotauth-httpsig-protocol: the Ed25519 test vectors', () => {
  for (const vector of VECTORS)
    it(`${vector.name}: the signature base and signature byte for byte, and verified`, async () => {
      const message = {
        method: 'POST',
        url: 'https://example.com/foo?param=Value&Pet=dog',
        headers: new Headers({ 'signature-agent': vector.signatureAgent }),
      };
      const params: Params = new Map<string, string | number>([
        ['created', CREATED],
        ['keyid', THUMBPRINT],
        ['alg', 'ed25519'],
        ['expires', vector.expires],
        ['nonce', vector.nonce],
        ['tag', 'web-bot-auth'],
      ]);
      const { base, signatureParams } = signatureBase(message, vector.components.map(parseComponentId), params);
      expect(base).toBe(
        ['"@authority": example.com', vector.agentLine, `"@signature-params": ${signatureParams}`].join('\n'),
      );
      expect(signatureParams).toBe(
        `${vector.covered};created=${CREATED};keyid="${THUMBPRINT}";alg="ed25519";expires=${vector.expires}` +
          `;nonce="${vector.nonce}";tag="web-bot-auth"`,
      );
      const signature = await seedSigner(SEED).sign(utf8ToBytes(base));
      expect(bytesToBase64(signature)).toBe(vector.signature);

      message.headers.set('signature-input', `sig2=${signatureParams}`);
      message.headers.set('signature', `sig2=:${vector.signature}:`);
      const verified = await verifyMessageSignature(message, undefined, {
        resolveKey: async (keyid, p) =>
          keyid === THUMBPRINT && p.signatureAgent?.url === AGENT_URL ? PUBLIC_KEY : undefined,
        now: CREATED * 1000,
        maxLifetimeSeconds: Infinity, // the vectors expire in 2124 or an hour later; Mandate's bound is 300 s
        requiredComponents: ['@authority'], // the draft's minimum; Mandate's default asks for more
        webBotAuth: true,
      });
      expect(verified).toMatchObject({ label: 'sig2', keyid: THUMBPRINT, tag: 'web-bot-auth' });
      expect(verified.signatureAgent).toEqual({
        url: AGENT_URL,
        type: 'directory',
        ...(vector.member ? { member: vector.member } : {}),
      });
    });

  it('the signed directory response: the signature base and signature byte for byte, and verified', async () => {
    const body =
      '{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}';
    const request = new Request('https://signature-agent.test/.well-known/http-message-signatures-directory');
    const headers = new Headers({ 'content-digest': 'sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:' });
    const params: Params = new Map<string, string | number>([
      ['created', CREATED],
      ['expires', 4889289600],
      ['keyid', THUMBPRINT],
      ['tag', 'http-message-signatures-directory'],
    ]);
    const components = ['"@authority";req', 'content-digest'].map(parseComponentId);
    const { base, signatureParams } = signatureBase({ status: 200, headers, request }, components, params);
    expect(base).toBe(
      [
        '"@authority";req: signature-agent.test',
        '"content-digest": sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:',
        `"@signature-params": ("@authority";req "content-digest");created=${CREATED};expires=4889289600;keyid="${THUMBPRINT}";tag="http-message-signatures-directory"`,
      ].join('\n'),
    );
    const signature = bytesToBase64(await seedSigner(SEED).sign(utf8ToBytes(base)));
    expect(signature).toBe('l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkBxsigzChM1Gpz7gOVBg==');
    headers.set('signature-input', `binding=${signatureParams}`);
    headers.set('signature', `binding=:${signature}:`);
    const response = new Response(body, { headers });
    const verified = await verifyResponseSignature(response, request, {
      resolveKey: async (keyid) => (keyid === THUMBPRINT ? PUBLIC_KEY : undefined),
      now: CREATED * 1000,
      maxLifetimeSeconds: Infinity,
      tag: 'http-message-signatures-directory',
    });
    expect(verified.components).toEqual(['"@authority";req', '"content-digest"']);
  });
});

const NOW = 1_800_000_000_000;
const agent = requestSigner(seedSigner(SEED));
const verifier = (extra: Partial<VerifySignatureOptions> = {}): VerifySignatureOptions => ({
  resolveKey: async (keyid) => (keyid === THUMBPRINT ? PUBLIC_KEY : undefined),
  now: NOW,
  webBotAuth: true,
  ...extra,
});

async function refusal(promise: Promise<unknown>): Promise<HttpSignatureErrorCode> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpSignatureError);
  return (error as HttpSignatureError).code;
}

const get = (headers: Record<string, string> = {}) => new Request('https://shop.example/products/42', { headers });

describe('signRequest with webBotAuth', () => {
  it('signs the dictionary form: tag, thumbprint keyid, "signature-agent";key="sig1"', async () => {
    const signed = await signRequest(get(), agent, { now: NOW, webBotAuth: { signatureAgent: AGENT_URL } });
    expect(agent.keyid).toBe(THUMBPRINT);
    expect(signed.headers.get('signature-agent')).toBe('sig1="https://signature-agent.test"');
    expect(signed.headers.get('signature-input')).toMatch(
      /^sig1=\("@method" "@authority" "@path" "signature-agent";key="sig1"\);created=\d+;expires=\d+;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";nonce="[\w-]+";tag="web-bot-auth"$/,
    );
    const verified = await verifyRequestSignature(signed, verifier());
    expect(verified.signatureAgent).toEqual({ url: AGENT_URL, type: 'directory', member: 'sig1' });
    expect(verified.values['"signature-agent";key="sig1"']).toBe('"https://signature-agent.test"');
  });

  it('writes a type, adds a member beside another signer, and signs the legacy form when asked', async () => {
    const card = 'https://issuer.example/agents/a1/signature-agent-card';
    const first = await signRequest(get(), agent, { now: NOW, webBotAuth: { signatureAgent: card, type: 'cimd' } });
    expect(first.headers.get('signature-agent')).toBe(`sig1="${card}";type=cimd`);
    expect((await verifyRequestSignature(first, verifier())).signatureAgent).toEqual({
      url: card,
      type: 'cimd',
      member: 'sig1',
    });
    const other = requestSigner(seedSigner(new Uint8Array(32).fill(9)));
    const second = await signRequest(first, other, {
      now: NOW,
      label: 'sig2',
      webBotAuth: { signatureAgent: 'https://browser.example' },
    });
    expect(second.headers.get('signature-agent')).toBe(`sig1="${card}";type=cimd, sig2="https://browser.example"`);
    const both = verifier({ resolveKey: async (keyid) => (keyid === other.keyid ? other.publicKey : undefined) });
    expect((await verifyRequestSignature(second, { ...both, label: 'sig2' })).signatureAgent?.member).toBe('sig2');

    const legacy = await signRequest(get(), agent, {
      now: NOW,
      webBotAuth: { signatureAgent: AGENT_URL, legacy: true },
    });
    expect(legacy.headers.get('signature-agent')).toBe('"https://signature-agent.test"');
    expect(legacy.headers.get('signature-input')).toContain('"signature-agent")');
    expect((await verifyRequestSignature(legacy, verifier())).signatureAgent).toEqual({
      url: AGENT_URL,
      type: 'directory',
    });
    expect(await refusal(verifyRequestSignature(legacy, verifier({ webBotAuth: { acceptLegacy: false } })))).toBe(
      'HTTP_SIGNATURE_AGENT_INVALID',
    );
  });

  it('refuses what the profile forbids: another tag, a keyid that is not the thumbprint, an http or non-origin directory', async () => {
    const sign = (options: object, signer = agent) => refusal(signRequest(get(), signer, { now: NOW, ...options }));
    expect(await sign({ tag: 'mine', webBotAuth: {} })).toBe('HTTP_SIGNATURE_OPTIONS_INVALID');
    const identity = { verificationMethod: 'did:example:a#k', signer: seedSigner(SEED) };
    expect(await sign({ webBotAuth: {} }, identityRequestSigner(identity))).toBe('HTTP_SIGNATURE_OPTIONS_INVALID');
    expect(await sign({ webBotAuth: { signatureAgent: 'http://signature-agent.test' } })).toBe(
      'HTTP_SIGNATURE_OPTIONS_INVALID',
    );
    expect(await sign({ webBotAuth: { signatureAgent: 'https://signature-agent.test/keys' } })).toBe(
      'HTTP_SIGNATURE_OPTIONS_INVALID',
    );
  });
});

describe('verifyRequestSignature with webBotAuth: each refusal', () => {
  const signed = (options: object = {}) =>
    signRequest(get(), agent, { now: NOW, webBotAuth: { signatureAgent: AGENT_URL }, ...options });
  const withAgent = async (value: string | null) => {
    const request = await signed();
    const headers = new Headers(request.headers);
    if (value === null) headers.delete('signature-agent');
    else headers.set('signature-agent', value);
    return new Request(request, { headers });
  };

  it('HTTP_SIGNATURE_NOT_FOUND: no signature tagged web-bot-auth', async () => {
    const plain = await signRequest(get(), agent, { now: NOW });
    expect(await refusal(verifyRequestSignature(plain, verifier()))).toBe('HTTP_SIGNATURE_NOT_FOUND');
  });

  it('HTTP_SIGNATURE_PARAMS_INVALID: no expires', async () => {
    const request = await signed();
    const headers = new Headers(request.headers);
    headers.set('signature-input', (headers.get('signature-input') as string).replace(/;expires=\d+/, ''));
    expect(await refusal(verifyRequestSignature(new Request(request, { headers }), verifier()))).toBe(
      'HTTP_SIGNATURE_PARAMS_INVALID',
    );
  });

  it('HTTP_SIGNATURE_AGENT_INVALID: none covered, a member renamed, not a URL, an unknown type', async () => {
    const noAgent = await signRequest(get(), agent, { now: NOW, webBotAuth: {} });
    expect(await refusal(verifyRequestSignature(noAgent, verifier()))).toBe('HTTP_SIGNATURE_AGENT_INVALID');
    await expect(
      verifyRequestSignature(noAgent, verifier({ webBotAuth: { requireSignatureAgent: false } })),
    ).resolves.toMatchObject({ keyid: THUMBPRINT });
    expect(
      await refusal(verifyRequestSignature(await withAgent('other="https://signature-agent.test"'), verifier())),
    ).toBe(
      'HTTP_SIGNATURE_COMPONENT_ABSENT', // the covered member "sig1" is gone: the base cannot be rebuilt
    );
    for (const value of ['sig1=1', 'sig1="ftp://x.test"', 'sig1="https://signature-agent.test";type=other', 'sig1=('])
      expect(await refusal(verifyRequestSignature(await withAgent(value), verifier())), value).toMatch(
        /HTTP_SIGNATURE_(AGENT_INVALID|MALFORMED)/,
      );
  });

  it('HTTP_SIGNATURE_KEYID_MISMATCH: a keyid that is not the thumbprint of its key', async () => {
    const named = identityRequestSigner({ verificationMethod: 'did:example:a#k', signer: seedSigner(SEED) });
    const request = await signRequest(get(), named, { now: NOW, tag: 'web-bot-auth', nonce: 'n' });
    const resolveKey = async () => PUBLIC_KEY;
    const options = verifier({ resolveKey, webBotAuth: { requireSignatureAgent: false } });
    expect(await refusal(verifyRequestSignature(request, options))).toBe('HTTP_SIGNATURE_KEYID_MISMATCH');
  });
});
