// The three W3C suites the issue names — vc-data-model-2.0 (tag vc2.0), vc-bitstring-status-list
// (tag BitstringStatusList) and vc-di-eddsa (eddsa-rdfc-2022) — replayed against a real issuer
// over HTTP with the requests they send and the pass conditions they apply (read from their
// sources: tests/*.js, TestEndpoints.js, helpers.js, fixtures):
// - an issue the suite expects to succeed must answer 2xx with the credential; one it expects to
//   fail must answer non-2xx (no code is checked);
// - a verification the suite expects to fail must answer non-2xx or a non-empty `errors`;
// - presentations are signed by the suite itself with eddsa-rdfc-2022 (Digital Bazaar's suite,
//   here test/support/digitalbazaar.ts), embedded credentials re-signed by the same did:key;
// - status lists are fetched with `Accept: application/ld+json, application/json` and parsed only
//   when the answer's type says json.
// Each `it` is one suite test, named by its section and number. The suites run again from
// outside; this keeps each of their requirements a test of ours.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { decodeBase58btc } from '../../wallet/crypto/multikey.ts';
import { didKeyIdentity, type SigningIdentity } from '../../wallet/vc/identity.ts';
import { dbIssue, dbKeyPairFromSeed, dbSignPresentation, type DbKeyPair } from '../support/digitalbazaar.ts';
import { startTestIssuer, type TestIssuer } from '../support/issuer.ts';

type Json = Record<string, unknown>;

const V2 = 'https://www.w3.org/ns/credentials/v2';
const EXAMPLES = 'https://www.w3.org/ns/credentials/examples/v2';
const DOMAIN = 'github.com/w3c/vc-data-model-2.0-test-suite';
const RDFC = 'eddsa-rdfc-2022' as const;

let issuer: TestIssuer;
let issuerId: string;
let suiteKey: DbKeyPair;
let suiteIdentity: SigningIdentity;
let suiteDid: string;
const challenge = `u${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url')}`;

beforeAll(async () => {
  // As the suites are run: did:key (the suites resolve did:key and https only).
  issuer = await startTestIssuer({ DID_METHOD: 'key' });
  issuerId = issuer.running.ctx.issuer.did;
  const seed = generateSeed();
  suiteKey = await dbKeyPairFromSeed(seed);
  suiteIdentity = didKeyIdentity(seedSigner(seed));
  suiteDid = suiteIdentity.did;
}, 60_000);
afterAll(() => issuer.dispose());

// ---------------------------------------------------------------------------------------------
// The suites' transport (mock.data.js createRequestBody, TestEndpoints.js)

/** The suite fills in the configured issuer id when the fixture has none (null is sent as null). */
function withIssuer(credential: Json): Json {
  const copy = structuredClone(credential);
  if (copy.issuer !== null && typeof copy.issuer === 'object') {
    if ((copy.issuer as Json).id === undefined) (copy.issuer as Json).id = issuerId;
  } else if (!('issuer' in copy && copy.issuer === null)) copy.issuer = copy.issuer ?? issuerId;
  return copy;
}

async function issue(credential: Json, options?: Json): Promise<{ ok: boolean; vc: Json }> {
  const res = await issuer.call('/credentials/issue', {
    admin: true,
    body: { credential: withIssuer(credential), ...(options ? { options } : {}) },
  });
  return { ok: res.status >= 200 && res.status < 300, vc: res.json?.verifiableCredential as Json };
}

async function expectIssued(credential: Json, options?: Json): Promise<Json> {
  const { ok, vc } = await issue(credential, options);
  expect(ok, JSON.stringify(credential).slice(0, 200)).toBe(true);
  return vc;
}

async function expectRejected(credential: Json): Promise<void> {
  expect((await issue(credential)).ok, JSON.stringify(credential).slice(0, 200)).toBe(false);
}

/** The suites' verdict: rejected when the status is not 2xx or `errors` is not empty. */
function rejected(res: { status: number; json: { errors?: unknown[] } | undefined }): boolean {
  return res.status < 200 || res.status >= 300 || (res.json?.errors?.length ?? 0) > 0;
}

async function verifyVc(vc: unknown, options: Json = { checks: ['proof'] }) {
  return issuer.call('/credentials/verify', { body: { verifiableCredential: vc, options } });
}

async function verifyVp(vp: unknown) {
  return issuer.call('/presentations/verify', {
    body: { verifiablePresentation: vp, options: { domain: DOMAIN, challenge } },
  });
}

/** data-generator.js createLocalVp: credentials without a proof re-issued by the suite's did:key, then the VP signed (rdfc). */
async function localVp(presentation: Json): Promise<Json> {
  const vp = structuredClone(presentation);
  const listed = (vp.verifiableCredential ?? []) as Json[];
  vp.verifiableCredential = await Promise.all(
    listed.map(async (vc) =>
      'proof' in vc ? vc : dbIssue({ ...vc, issuer: suiteDid }, suiteKey, { cryptosuite: RDFC }),
    ),
  );
  if (!Array.isArray(presentation.verifiableCredential)) delete vp.verifiableCredential;
  return dbSignPresentation(vp, suiteKey, { challenge, domain: DOMAIN, cryptosuite: RDFC });
}

const credentialOk = (extra: Json = {}): Json => ({
  '@context': [V2],
  type: ['VerifiableCredential'],
  credentialSubject: { id: 'did:example:subject' },
  ...extra,
});
const presentationOk = (extra: Json = {}): Json => ({
  '@context': [V2],
  type: ['VerifiablePresentation'],
  verifiableCredential: [],
  ...extra,
});
const embedded = (extra: Json = {}): Json => ({
  '@context': [V2],
  type: ['VerifiableCredential'],
  credentialSubject: { id: 'did:example:subject' },
  ...extra,
});

// ---------------------------------------------------------------------------------------------
// vc-data-model-2.0-test-suite

describe('W3C vc-data-model-2.0-test-suite (vc2.0)', () => {
  let issuedVc: Json;
  beforeAll(async () => {
    issuedVc = await expectIssued(credentialOk());
  });

  it('1.03 #1, #3: a conforming document is secured (a proof object)', () => {
    expect(issuedVc.type).toContain('VerifiableCredential');
    expect(typeof issuedVc.proof).toBe('object');
  });
  it('1.03 #2: the issuer includes every required property', () => {
    for (const member of ['@context', 'type', 'issuer', 'credentialSubject', 'proof'])
      expect(issuedVc).toHaveProperty(member);
  });
  it('1.03 #4: a conforming verifier verifies a conforming document', async () => {
    expect(rejected(await verifyVc(issuedVc))).toBe(false);
  });
  it('1.03 #6: a conforming verifier produces errors for a non-conforming document', async () => {
    expect(rejected(await verifyVc({ type: ['NonconformingDocument'] }))).toBe(true);
    expect(rejected(await verifyVp({ type: ['NonconformingDocument'] }))).toBe(true);
  });

  it('4.03 #1, #3: credentials have a @context array, v2 first (or are refused)', async () => {
    expect(Array.isArray(issuedVc['@context']) && (issuedVc['@context'] as unknown[])[0]).toBe(V2);
    await expectRejected({ type: ['VerifiableCredential'], credentialSubject: { id: 'did:example:subject' } });
    await expectRejected(credentialOk({ '@context': [EXAMPLES] }));
  });
  it('4.03 #2: presentations must include @context', async () => {
    const vp = await localVp(presentationOk());
    expect(rejected(await verifyVp(vp))).toBe(false);
    const { '@context': _context, ...without } = vp;
    expect(rejected(await verifyVp(without))).toBe(true);
  });
  it("4.03 #4: a presentation's @context starts with v2", async () => {
    const bad = await dbSignPresentation(
      {
        '@context': [
          { CredentialManagerPresentation: 'https://example.org/examples#CredentialManagerPresentation' },
          V2,
        ],
        type: ['VerifiablePresentation', 'CredentialManagerPresentation'],
      },
      suiteKey,
      { challenge, domain: DOMAIN, cryptosuite: RDFC },
    );
    // Signed as the suite signs it, so the only thing wrong is the order of @context.
    expect(bad.proof).toMatchObject({ cryptosuite: RDFC, proofPurpose: 'authentication' });
    const refused = await verifyVp(bad);
    expect(rejected(refused)).toBe(true);
    expect(refused.json.errors).toEqual([
      expect.objectContaining({ message: expect.stringContaining(`@context must be an array starting with ${V2}`) }),
    ]);
    expect(rejected(await verifyVp({ '@context': [EXAMPLES, V2] }))).toBe(true);
    expect(rejected(await verifyVp({ '@context': [], type: ['VerifiablePresentation'] }))).toBe(true);
  });
  it('4.03 #5: later credential contexts are URLs or objects processable as JSON-LD contexts', async () => {
    await expectIssued(credentialOk({ '@context': [V2, EXAMPLES] }));
    await expectIssued(
      credentialOk({
        '@context': [V2, { ExampleVerifiableCredential: 'https://example.org/#ExampleVerifiableCredential' }],
        type: ['VerifiableCredential', 'ExampleVerifiableCredential'],
      }),
    );
    await expectRejected(credentialOk({ '@context': [V2, 'https ://not-a-url/contexts/example/v1'] }));
    await expectRejected(credentialOk({ '@context': [V2, 123192875] }));
  });
  it('4.03 #6: later presentation contexts likewise', async () => {
    expect(rejected(await verifyVp(await localVp(presentationOk({ '@context': [V2, EXAMPLES] }))))).toBe(false);
    const combo2 = presentationOk({
      '@context': [V2, { ExampleVerifiablePresentation: 'https://example.org/#ExampleVerifiablePresentation' }],
      type: ['VerifiablePresentation', 'ExampleVerifiablePresentation'],
      holder: suiteDid,
      verifiableCredential: [embedded()],
    });
    expect(rejected(await verifyVp(await localVp(combo2)))).toBe(false);
    const signed = await localVp(
      presentationOk({ verifiableCredential: [embedded({ validFrom: '2023-02-27T05:03:28Z' })] }),
    );
    for (const second of ['https://example.com', 'https ://not-a-url/contexts/example/v1', 123192875]) {
      expect(rejected(await verifyVp({ ...signed, '@context': [V2, second] })), String(second)).toBe(true);
    }
  });

  it('4.04 #1: an id, when present, is a single URL (and another issuer is this issuer)', async () => {
    await expectIssued(credentialOk({ validFrom: '2023-02-22T21:35:22Z', issuer: 'did:example:other-issuer' }));
    await expectRejected(credentialOk({ id: null }));
    await expectIssued(
      credentialOk({
        '@context': [V2, EXAMPLES],
        id: 'https://example.org/credentials/1',
        credentialSubject: { description: 'A single id test for VC 2.0' },
      }),
    );
    await expectIssued(credentialOk());
    await expectRejected(
      credentialOk({ id: ['https://example.org/credentials/1', 'https://example.net/credentials/1'] }),
    );
    await expectRejected(
      credentialOk({ credentialSubject: { id: ['did:example:subject:one', 'did:example:subject:two'] } }),
    );
    await expectRejected(
      credentialOk({
        '@context': [V2, EXAMPLES],
        id: 'https ://not-a-url/vcs/343cf54b',
        credentialSubject: { name: 'id not a url test' },
      }),
    );
  });

  it('4.05 #1, #2: credentials and presentations have a type', async () => {
    const { type: _type, ...untyped } = credentialOk();
    await expectRejected(untyped);
    expect(rejected(await verifyVp({ '@context': [V2], verifiableCredential: [] }))).toBe(true);
  });
  it('4.05 #3: type values are terms or absolute URLs', async () => {
    await expectIssued(credentialOk({ type: ['VerifiableCredential', 'https://example.org/#ExampleCredential'] }));
    await expectIssued(
      credentialOk({
        '@context': [V2, { ExampleTestCredential: 'https://example.org/#ExampleTestCredential' }],
        type: ['VerifiableCredential', 'ExampleTestCredential'],
      }),
    );
    await expectRejected(
      credentialOk({
        '@context': [V2, { ExampleTestCredential: 'https ://not-a-url#ExampleTestCredential' }],
        type: ['VerifiableCredential', 'ExampleTestCredential'],
      }),
    );
    await expectRejected(
      credentialOk({ '@context': [V2, { '@vocab': null }], type: ['VerifiableCredential', 'ExampleTestCredential'] }),
    );
  });
  it('4.05 #4: the order of types does not matter', async () => {
    await expectIssued(
      credentialOk({
        type: [
          'https://example.org/#ExampleCredential1',
          'https://example.org/#ExampleCredential2',
          'VerifiableCredential',
        ],
        validFrom: '2023-02-23T21:41:38Z',
      }),
    );
    await expectIssued(
      credentialOk({
        type: [
          'https://example.org/#ExampleCredential2',
          'VerifiableCredential',
          'https://example.org/#ExampleCredential1',
        ],
        validFrom: '2023-02-23T21:41:38Z',
      }),
    );
  });
  it('4.05 #5: a credential type includes VerifiableCredential', async () => {
    await expectIssued(
      credentialOk({ '@context': [V2, EXAMPLES], type: ['VerifiableCredential', 'RelationshipCredential'] }),
    );
    await expectRejected(credentialOk({ '@context': [V2, EXAMPLES], type: ['RelationshipCredential'] }));
  });
  it('4.05 #6: a presentation type includes VerifiablePresentation', async () => {
    const context = [
      V2,
      { CredentialManagerPresentation: 'https://example.org/examples#CredentialManagerPresentation' },
    ];
    expect(
      rejected(
        await verifyVp(
          await localVp(
            presentationOk({ '@context': context, type: ['VerifiablePresentation', 'CredentialManagerPresentation'] }),
          ),
        ),
      ),
    ).toBe(false);
    expect(
      rejected(await verifyVp(presentationOk({ '@context': context, type: ['CredentialManagerPresentation'] }))),
    ).toBe(true);
  });
  it.each([
    [
      '4.05 #7 credentialStatus',
      'credentialStatus',
      { CredentialStatusList2017: 'https://example.org/examples#CredentialStatusList2017' },
      { id: 'did:example:status', type: 'CredentialStatusList2017' },
      { id: 'did:example:status' },
    ],
    [
      '4.05 #8 termsOfUse',
      'termsOfUse',
      { OdrlPolicy2017: 'https://example.org/examples#OdrlPolicy2017' },
      { type: 'OdrlPolicy2017' },
      {},
    ],
    [
      '4.05 #9 evidence',
      'evidence',
      { DocumentVerification2018: 'https://example.org/examples#DocumentVerification2018' },
      { type: 'DocumentVerification2018' },
      {},
    ],
    [
      '4.05 #10 refreshService',
      'refreshService',
      { ExampleRefreshService: 'https://example.org/examples#ExampleRefreshService' },
      { id: 'did:example:refresh/1', type: 'ExampleRefreshService' },
      { id: 'did:example:refresh/1' },
    ],
    [
      '4.05 #11 credentialSchema',
      'credentialSchema',
      { ExampleJsonSchema: 'https://example.org/examples#ExampleJsonSchema' },
      { id: 'did:example:schemas/1', type: 'ExampleJsonSchema' },
      { id: 'did:example:schemas/1' },
    ],
  ])('%s objects have a type', async (_name, member, mapping, ok, untyped) => {
    await expectIssued(credentialOk({ '@context': [V2, mapping], [member]: ok }));
    await expectRejected(credentialOk({ '@context': [V2], [member]: untyped }));
  });

  describe.each([
    [
      '4.06 #1 name',
      (value: unknown) => ({ name: value }),
      { '@value': 'Example Credential', '@language': 'en', url: 'did:example:credential' },
    ],
    [
      '4.06 #2 description',
      (value: unknown) => ({ description: value }),
      { '@value': 'An Example Credential', '@language': 'en', url: 'did:example:credential' },
    ],
    [
      '4.06 #3 issuer name',
      (value: unknown) => ({ issuer: value === undefined ? {} : { name: value } }),
      { '@value': 'ExampleIssuer', '@language': 'en', url: 'did:example:issuer' },
    ],
    [
      '4.06 #4 issuer description',
      (value: unknown) => ({ issuer: value === undefined ? {} : { description: value } }),
      { '@value': 'An Example Issuer', '@language': 'en', url: 'did:example:issuer' },
    ],
  ])('%s', (_name, members, bad) => {
    it('is a string or a language value object (or several), nothing else', async () => {
      for (const value of [
        'Example',
        undefined,
        { '@value': 'Example', '@language': 'en' },
        { '@value': 'Example', '@language': 'en', '@direction': 'ltr' },
        [
          { '@value': 'Dog', '@language': 'en' },
          { '@value': 'Chien', '@language': 'fr' },
          { '@value': 'Cane', '@language': 'it' },
        ],
      ]) {
        await expectIssued(credentialOk(value === undefined && !_name.includes('issuer') ? {} : members(value)));
      }
      await expectRejected(credentialOk(members(bad)));
    });
  });

  it('4.07 #1: a credential has an issuer', () => {
    expect(issuedVc).toHaveProperty('issuer');
  });
  it('4.07 #2: the issuer is a URL or an object whose id is one', async () => {
    await expectIssued(credentialOk({ validFrom: '2023-02-26T00:37:06Z', issuer: { id: 'did:example:issuer' } }));
    for (const bad of ['fake-issuer', null, { id: null }, { id: 'fake-issuer' }])
      await expectRejected(credentialOk({ issuer: bad }));
  });
  it('4.08 #1, #2: credentialSubject is one or more objects, each with a claim', async () => {
    const { credentialSubject: _subject, ...without } = credentialOk();
    await expectRejected(without);
    await expectRejected(
      credentialOk({ credentialSubject: {}, validFrom: '2023-02-26T00:37:06Z', issuer: 'did:example:issuer' }),
    );
    await expectIssued(
      credentialOk({ credentialSubject: [{ id: 'did:example:subject' }, { id: 'did:example:other:subject' }] }),
    );
    await expectRejected(credentialOk({ credentialSubject: [{ id: 'did:example:subject' }, {}] }));
  });
  it('4.09 #1, #2: validFrom and validUntil are dateTimeStamps (past ones are issued too)', async () => {
    for (const validFrom of ['2023-02-26T01:02:58.447Z', '2023-02-25T19:10:39-06:00'])
      await expectIssued(credentialOk({ validFrom }));
    await expectRejected(credentialOk({ validFrom: 'Sat 25 Feb 2023 07:16:31 PM CST' }));
    await expectIssued(credentialOk({ validFrom: '2023-02-26T01:19:19Z', validUntil: '2023-02-26T01:19:20Z' }));
    for (const validUntil of ['2023-02-26T01:20:18.477Z', '2023-02-25T19:21:29-06:00'])
      await expectIssued(credentialOk({ validUntil }));
    await expectRejected(credentialOk({ validUntil: 'Sun, 26 Feb 2023 01:22:14 +0000' }));
  });
  it('4.09 #3, #4: validFrom is not after validUntil', async () => {
    const year = 365 * 86_400_000;
    const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await expectIssued(credentialOk({ validFrom: stamp(Date.now() - year), validUntil: stamp(Date.now() + year) }));
    const inverted = credentialOk({ validFrom: stamp(Date.now() + year), validUntil: stamp(Date.now() - year) });
    const { ok, vc } = await issue(inverted);
    if (ok) expect(rejected(await verifyVc(vc))).toBe(true);
  });
  it('4.10 #1–#4: status entries have a type, and a single URL id when they have one (never resolved)', async () => {
    const context = [V2, { CredentialStatusList2017: 'https://example.org/examples#CredentialStatusList2017' }];
    await expectIssued(
      credentialOk({
        '@context': context,
        credentialStatus: { id: 'did:example:status', type: 'CredentialStatusList2017' },
      }),
    );
    await expectIssued(credentialOk({ '@context': context, credentialStatus: { type: 'CredentialStatusList2017' } }));
    await expectRejected(credentialOk({ credentialStatus: { id: 'did:example:status' } }));
    await expectRejected(
      credentialOk({
        '@context': context,
        credentialStatus: { id: ['did:example:status:1', 'did:example:status:2'], type: 'CredentialStatusList2017' },
      }),
    );
    await expectRejected(
      credentialOk({
        '@context': context,
        credentialStatus: { type: 'CredentialStatusList2017', id: 'https ://not-a-url/statusList/4' },
      }),
    );
    await expectRejected(
      credentialOk({ '@context': context, credentialStatus: { id: 'did:example:status', type: 2 } }),
    );
  });
  it('4.11 #1–#3: credentialSchema entries have a type and a URL id (never fetched)', async () => {
    const schema = (n: number) => ({
      type: 'https://example.org/#ExampleTestSuiteSchema',
      id: `did:example:schemas/${n}`,
    });
    await expectIssued(credentialOk({ credentialSchema: schema(1) }));
    await expectIssued(credentialOk({ credentialSchema: [schema(1), schema(2)] }));
    await expectRejected(credentialOk({ credentialSchema: { id: 'did:example:schemas/1' } }));
    await expectRejected(credentialOk({ credentialSchema: { type: 'https://example.org/#ExampleTestSuiteSchema' } }));
    await expectRejected(
      credentialOk({
        credentialSchema: {
          type: 'https://example.org/#ExampleTestSuiteSchema',
          id: 'https ://not-a-url.org/cd28a5c0',
        },
      }),
    );
  });
  it('4.13 #1–#5: presentations, with an id, credentials or none, and a holder as a URL or an object', async () => {
    for (const vp of [
      presentationOk({ id: 'urn:uuid:9c9a36f8-518f-4976-a934-6649502d0008', verifiableCredential: undefined }),
      presentationOk(),
      presentationOk({
        verifiableCredential: [
          embedded({ validFrom: '2023-02-27T05:15:42Z' }),
          embedded({ validFrom: '2023-02-27T05:15:57Z', credentialSubject: { id: 'did:example:other-subject' } }),
        ],
      }),
      presentationOk({ holder: suiteDid, verifiableCredential: [embedded()] }),
      presentationOk({ holder: { id: suiteDid }, verifiableCredential: [embedded()] }),
    ]) {
      const res = await verifyVp(await localVp(vp));
      expect(rejected(res), JSON.stringify(res.json).slice(0, 300)).toBe(false);
    }
  });

  const relatedBase = (relatedResource: unknown): Json => ({
    '@context': [V2],
    type: ['VerifiableCredential'],
    credentialSubject: { name: 'Alice' },
    relatedResource,
  });
  const SRI = 'sha384-l/HrjlBCNWyAX91hr6LFV2Y3heB5Tcr6IeE4/Tje8YyzYBM8IhqjHWiWpr8+ZbYU';
  const MULTIBASE = 'uWZVc7WaX1h4D8rJVb-vlMIqxaEKEb1tYbX8fet7JJzQ';
  it('5 #1: a context that redefines a protected term is an error', async () => {
    await expectRejected(
      credentialOk({ '@context': [V2, { VerifiableCredential: 'https://example.org/#BadVerifiableCredential' }] }),
    );
    await expectRejected(
      credentialOk({
        '@context': [
          V2,
          { '@protected': true, ExampleVerifiableCredential: 'https://example.org/#ExampleVerifiableCredential' },
          { ExampleVerifiableCredential: 'https://example.org/#ExampleBadVerifiableCredential' },
        ],
        type: ['VerifiableCredential', 'ExampleVerifiableCredential'],
      }),
    );
  });
  it('5 #2–#6: relatedResource objects, unique ids, a digest, and a digest that matches', async () => {
    await expectIssued(relatedBase({ id: V2, digestSRI: SRI }));
    await expectIssued(relatedBase({ id: V2, digestMultibase: MULTIBASE }));
    await expectIssued(relatedBase([{ id: V2, mediaType: 'application/ld+json', digestSRI: SRI }]));
    await expectRejected(relatedBase([V2]));
    await expectRejected(relatedBase([{ digestMultibase: MULTIBASE }]));
    await expectRejected(
      relatedBase([
        { id: V2, digestSRI: SRI },
        { id: V2, digestMultibase: MULTIBASE },
      ]),
    );
    await expectRejected(relatedBase([{ id: V2 }]));
    await expectRejected(relatedBase([{ id: V2, digestMultibase: 'uM4RgWQc3RUDtjJCSgTJtTfvpZ7SPEg_LNO0ESlovQC0' }]));
    await expectRejected(
      relatedBase([{ id: V2, digestSRI: 'sha384-_rCVIV7fSXXTNIvpiq26jRDyj8JG8TDjij-tD0ewLk4JpnXEz6a5AeeY_1qQ0d0P' }]),
    );
  });
  it('5 #7–#11: refreshService, termsOfUse and evidence, one or several, each typed', async () => {
    await expectIssued(
      credentialOk({
        refreshService: { type: 'https://example.org/#ExampleTestSuiteRefreshService', id: 'did:example:refresh/1' },
      }),
    );
    await expectIssued(
      credentialOk({
        refreshService: [2, 3].map((n) => ({
          type: 'https://example.org/#ExampleTestSuiteRefreshService',
          id: `did:example:refresh/${n}`,
        })),
      }),
    );
    await expectRejected(credentialOk({ refreshService: { id: 'did:example:refresh/1' } }));
    const odrl = [V2, { OdrlPolicy2017: 'https://example.org/examples#OdrlPolicy2017' }];
    await expectIssued(
      credentialOk({ '@context': odrl, termsOfUse: [{ type: 'OdrlPolicy2017' }, { type: 'OdrlPolicy2017' }] }),
    );
    await expectRejected(credentialOk({ termsOfUse: { id: 'did:example:terms/1' } }));
    await expectIssued(
      credentialOk({ '@context': odrl, termsOfUse: { type: 'OdrlPolicy2017', id: 'did:example:terms/1' } }),
    );
    await expectIssued(
      credentialOk({
        '@context': [V2, { DocumentVerification2018: 'https://example.org/examples#DocumentVerification2018' }],
        evidence: [{ type: 'DocumentVerification2018' }, { type: 'DocumentVerification2018' }],
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// vc-bitstring-status-list-test-suite

describe('W3C vc-bitstring-status-list-test-suite (BitstringStatusList)', () => {
  let issuedVc: Json;
  let entries: Json[];
  let lists: Json[];
  beforeAll(async () => {
    issuedVc = await expectIssued({
      '@context': [V2],
      type: ['VerifiableCredential'],
      credentialSubject: { id: 'did:key:z6MkhTNL7i2etLerDK8Acz5t528giE5KA4p75T6ka1E1D74r' },
      id: `urn:uuid:${crypto.randomUUID()}`,
    });
    const status = issuedVc.credentialStatus;
    entries = (Array.isArray(status) ? status : [status]) as Json[];
    // documentLoader.js: a plain GET with http-client's Accept, parsed only when the type says json.
    lists = await Promise.all(
      entries.map(async (entry) => {
        const res = await fetch(entry.statusListCredential as string, {
          headers: { accept: 'application/ld+json, application/json' },
        });
        expect(res.headers.get('content-type')).toMatch(/json/);
        return (await res.json()) as Json;
      }),
    );
  });

  it('data model #1, #15: the credential and its status list are conforming VC 2.0 documents (@context an array)', () => {
    for (const document of [issuedVc, ...lists]) {
      expect(Array.isArray(document['@context'])).toBe(true);
      expect((document['@context'] as string[])[0]).toBe(V2);
      expect(typeof document.proof).toBe('object');
    }
  });
  it('data model #2–#7, #14: entry id, type, purpose, index, list URL and list type', () => {
    expect(entries.length).toBeGreaterThan(0);
    entries.forEach((entry, i) => {
      expect(typeof entry.id).toBe('string');
      expect(entry.id).not.toBe(entry.statusListCredential);
      expect(entry.type).toBe('BitstringStatusListEntry');
      expect(typeof entry.statusPurpose).toBe('string');
      expect(String(Number.parseInt(entry.statusListIndex as string, 10))).toBe(entry.statusListIndex);
      expect(Number.parseInt(entry.statusListIndex as string, 10)).toBeGreaterThanOrEqual(0);
      expect((lists[i] as Json).type).toEqual(expect.arrayContaining(['BitstringStatusListCredential']));
      expect(entry.statusReference).toBeUndefined();
    });
  });
  it('data model #8–#13: no statusSize of 1 (the suite reads 1 as a failure), no statusMessage on 1-bit entries', () => {
    for (const entry of entries) {
      expect(
        entry.statusSize === undefined || (Number.isInteger(entry.statusSize) && (entry.statusSize as number) > 1),
      ).toBe(true);
      expect(entry.statusMessage).toBeUndefined();
    }
  });
  it('data model #16–#20: list type, subject type, purpose, encodedList (multibase base64url of gzip, at least 16 KiB)', () => {
    for (const list of lists) {
      expect(Array.isArray(list.type) && (list.type as string[]).includes('BitstringStatusListCredential')).toBe(true);
      const subject = list.credentialSubject as Json;
      expect(subject.type).toBe('BitstringStatusList');
      expect(typeof subject.statusPurpose === 'string' || Array.isArray(subject.statusPurpose)).toBe(true);
      const encoded = subject.encodedList as string;
      expect(encoded[0]).toBe('u');
      expect(gunzipSync(Buffer.from(encoded.slice(1), 'base64url')).length).toBeGreaterThanOrEqual(16 * 1024);
    }
  });
  it('algorithms: a malformed value (an undefined statusEntry property) is refused at issuance', async () => {
    await expectRejected({
      '@context': [V2],
      type: ['VerifiableCredential'],
      credentialSubject: { id: 'did:example:subject' },
      statusEntry: {
        type: 'BitstringStatusListEntry',
        statusListIndex: true,
        statusListCredential: 'https://example.com',
      },
    });
  });
  it('algorithms: validate and expand — the issued credential verifies, with or without options', async () => {
    expect(rejected(await verifyVc(issuedVc, { checks: ['proof', 'credentialStatus'] }))).toBe(false);
    const bare = await issuer.call('/credentials/verify', { body: { verifiableCredential: issuedVc } });
    expect(rejected(bare)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// vc-di-eddsa-test-suite, eddsa-rdfc-2022

describe('W3C vc-di-eddsa-test-suite (eddsa-rdfc-2022)', () => {
  let signed: Json;
  beforeAll(async () => {
    signed = await expectIssued(
      credentialOk({
        id: `urn:uuid:${crypto.randomUUID()}`,
        '@context': [V2, EXAMPLES],
        credentialSubject: { id: 'did:example:subject', name: 'Alice' },
      }),
      { cryptosuite: RDFC },
    );
  });

  it('issuer: a DataIntegrityProof, eddsa-rdfc-2022, a 64-byte base58btc proofValue, a did:key Multikey verification method', async () => {
    const proof = signed.proof as Json;
    expect(proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: RDFC, proofPurpose: 'assertionMethod' });
    expect((proof.proofValue as string)[0]).toBe('z');
    expect(decodeBase58btc(proof.proofValue as string).length).toBe(64);
    expect(proof.verificationMethod).toBe(issuer.running.ctx.issuer.verificationMethod);
    expect((proof.verificationMethod as string).startsWith(`${issuerId}#z6Mk`)).toBe(true);
    expect(rejected(await verifyVc(signed))).toBe(false);
  });

  it('verifier: refuses every mutation the suite makes', async () => {
    const proof = signed.proof as Json;
    // The same credential signed with JCS by a key of its issuer: valid as eddsa-jcs-2022 only.
    // (Without our status entry: a list of this issuer does not vouch for another issuer's credential.)
    const { proof: _proof, credentialStatus: _status, ...unsigned } = signed;
    const jcsSigned = (await createProof(
      { ...unsigned, issuer: suiteDid },
      {
        signer: suiteIdentity.signer,
        verificationMethod: suiteIdentity.verificationMethod,
        proofPurpose: 'assertionMethod',
      },
    )) as Json;
    expect(rejected(await verifyVc(jcsSigned))).toBe(false);
    const mutations: Array<[string, Json, Json?]> = [
      ['no proof', { ...signed, proof: undefined }],
      ['proof null', { ...signed, proof: null }],
      ['no type', { ...signed, proof: { ...proof, type: undefined } }],
      ['another type', { ...signed, proof: { ...proof, type: 'Ed25519Signature2020' } }],
      ['no verificationMethod', { ...signed, proof: { ...proof, verificationMethod: undefined } }],
      ['verificationMethod not a URL', { ...signed, proof: { ...proof, verificationMethod: 'not-a-url' } }],
      ['no proofPurpose', { ...signed, proof: { ...proof, proofPurpose: undefined } }],
      ['another proofPurpose than expected', signed, { expectedProofPurpose: 'authentication', challenge: 'c' }],
      ['no proofValue', { ...signed, proof: { ...proof, proofValue: undefined } }],
      ['proofValue null', { ...signed, proof: { ...proof, proofValue: null } }],
      [
        'proofValue without its multibase header',
        { ...signed, proof: { ...proof, proofValue: (proof.proofValue as string).slice(1) } },
      ],
      [
        'a signature 32 bytes too long',
        { ...signed, proof: { ...proof, proofValue: `${proof.proofValue as string}${'1'.repeat(44)}` } },
      ],
      ['an unknown cryptosuite', { ...signed, proof: { ...proof, cryptosuite: 'eddsa-2022' } }],
      ['created not a dateTime', { ...signed, proof: { ...proof, created: 'yesterday' } }],
      ['a changed claim', { ...signed, credentialSubject: { id: 'did:example:subject', name: 'Mallory' } }],
      [
        'an undefined term',
        { ...signed, credentialSubject: { id: 'did:example:subject', name: 'Alice' }, undefinedTerm: 1 },
      ],
      ['a domain it was not made for', signed, { domain: 'other.example' }],
      ['a challenge it was not made for', signed, { challenge: 'another' }],
    ];
    mutations.push([
      'a JCS signature labelled eddsa-rdfc-2022',
      { ...jcsSigned, proof: { ...(jcsSigned.proof as Json), cryptosuite: RDFC } },
    ]);
    for (const [name, vc, options] of mutations) {
      const res = await verifyVc(JSON.parse(JSON.stringify(vc)), { checks: ['proof'], ...options });
      expect(rejected(res), name).toBe(true);
    }
  });
});
