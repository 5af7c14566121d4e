// The JSON-LD rules VC DM 2.0 requires, at the VC-API where other implementations meet Mandate:
// POST /credentials/issue refuses (400 CREDENTIAL_INVALID) and both verify endpoints report
// (MALFORMED, with the rule) every document a JSON-LD processor in safe mode would refuse, over
// the bundled contexts only. Each rule is provoked by the W3C VC DM 2.0 suite's own inputs where
// it has one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProof } from '../../../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { didKeyIdentity } from '../../../wallet/vc/identity.ts';
import { startTestIssuer, type TestIssuer } from '../../support/issuer.ts';

let issuer: TestIssuer;
const signer = didKeyIdentity(seedSigner(generateSeed()));
const V2 = 'https://www.w3.org/ns/credentials/v2';
const EXAMPLES = 'https://www.w3.org/ns/credentials/examples/v2';
// Digests of https://www.w3.org/ns/credentials/v2 as served since 2025-02-24 (the bytes Mandate
// bundles, wallet/jsonld/bundled-contexts.ts), computed here, not taken from the W3C suite.
const V2_SRI = 'sha384-l/HrjlBCNWyAX91hr6LFV2Y3heB5Tcr6IeE4/Tje8YyzYBM8IhqjHWiWpr8+ZbYU';
const V2_MULTIBASE = 'uWZVc7WaX1h4D8rJVb-vlMIqxaEKEb1tYbX8fet7JJzQ';
// The W3C VC DM 2.0 suite's own (tests/fixtures.js): the version served from 2024-07-20 to
// 2025-02-24, w3c/vc-data-model 8d0ee107 (wallet/jsonld/published-versions.ts).
const SUITE_V2_SRI = 'sha384-NSOcNpmdIVUxIJGvGUoe22FjTWrXiaXlsZ8q6912LdnR3KraQO2n75Ica4wK4Qeg';
const SUITE_V2_MULTIBASE = 'uJKGMkOmFbVJhEfKTduMC2XCyvRAYLjOVmZWwIH1wQ7k';
// w3c/vc-data-model b4d990ee (2025-02-24): in the repository's history for a few hours, replaced
// the same day; no evidence W3C served it at the URL, so not a published version.
const UNPUBLISHED_V2_SRI = 'sha384-BnWBvmDWMjSj8uVnUPnAElKFuB7QRIMWnl5jKaJ5q7D9KbgcIw/n9g3iDQw7npUS';

function credential(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    '@context': [V2],
    type: ['VerifiableCredential'],
    credentialSubject: { id: 'did:example:subject' },
    ...extra,
  };
}

async function issue(vc: unknown) {
  return issuer.call('/credentials/issue', { admin: true, body: { credential: vc } });
}

/** Signed by a did:key as anyone could, so only the rule under test can fail verification. */
async function signed(vc: Record<string, unknown>) {
  return createProof(
    { issuer: signer.did, ...vc },
    { signer: signer.signer, verificationMethod: signer.verificationMethod, proofPurpose: 'assertionMethod' },
  );
}

async function presented(vp: Record<string, unknown>) {
  return createProof(vp, {
    signer: signer.signer,
    verificationMethod: signer.verificationMethod,
    proofPurpose: 'authentication',
    challenge: 'c-1',
    domain: 'verifier.example',
  });
}

async function verifyCredential(vc: unknown) {
  return issuer.call('/credentials/verify', { body: { verifiableCredential: vc } });
}

async function verifyPresentation(vp: unknown) {
  return issuer.call('/presentations/verify', {
    body: { verifiablePresentation: vp, options: { challenge: 'c-1', domain: 'verifier.example' } },
  });
}

beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.dispose());

/** [what, credential members, rule code (a JSON-LD rule) or message pattern (a VC DM rule)]. */
const BROKEN: Array<[string, Record<string, unknown>, string | RegExp]> = [
  [
    "a property no context defines (the BSL suite's statusEntry)",
    { statusEntry: { type: 'BitstringStatusListEntry', statusListIndex: true } },
    'JSONLD_UNDEFINED_TERM',
  ],
  [
    'a subject claim no context defines',
    { credentialSubject: { id: 'did:example:subject', favouriteColour: 'blue' } },
    'JSONLD_UNDEFINED_TERM',
  ],
  [
    'a type no context defines, under @vocab: null',
    { '@context': [V2, { '@vocab': null }], type: ['VerifiableCredential', 'ExampleTestCredential'] },
    'JSONLD_UNDEFINED_TERM',
  ],
  [
    'a protected term redefined (VerifiableCredential)',
    { '@context': [V2, { VerifiableCredential: 'https://example.org/#BadVerifiableCredential' }] },
    'JSONLD_PROTECTED_TERM_REDEFINED',
  ],
  [
    'a term an earlier context protected, redefined',
    {
      '@context': [
        V2,
        { '@protected': true, ExampleVerifiableCredential: 'https://example.org/#ExampleVerifiableCredential' },
        { ExampleVerifiableCredential: 'https://example.org/#ExampleBadVerifiableCredential' },
      ],
      type: ['VerifiableCredential', 'ExampleVerifiableCredential'],
    },
    'JSONLD_PROTECTED_TERM_REDEFINED',
  ],
  [
    'a type mapped to something that is not an absolute IRI',
    {
      '@context': [V2, { ExampleTestCredential: 'https ://not-a-url#ExampleTestCredential' }],
      type: ['VerifiableCredential', 'ExampleTestCredential'],
    },
    'JSONLD_RELATIVE_IRI',
  ],
  ['a context that is not bundled', { '@context': [V2, 'https://example.com'] }, 'JSONLD_CONTEXT_UNKNOWN'],
  [
    'a language value object with another member (name)',
    { name: { '@value': 'Example Credential', '@language': 'en', url: 'did:example:credential' } },
    /name is a language value object with a member other than @value/,
  ],
  [
    'a language value object with another member (description)',
    {
      description: [
        { '@value': 'A', '@language': 'en' },
        { '@value': 'B', '@language': 'fr', url: 'x' },
      ],
    },
    /description is a language value object/,
  ],
  [
    'a language value object with another member (issuer.name)',
    {
      issuer: {
        id: 'did:example:issuer',
        name: { '@value': 'ExampleIssuer', '@language': 'en', url: 'did:example:issuer' },
      },
    },
    /issuer\.name is a language value object/,
  ],
  [
    'a language value object with another member (issuer.description)',
    {
      issuer: {
        id: 'did:example:issuer',
        description: { '@value': 'An Example Issuer', '@language': 'en', url: 'did:example:issuer' },
      },
    },
    /issuer\.description is a language value object/,
  ],
  [
    'relatedResource as an array of strings',
    { relatedResource: [V2] },
    /relatedResource must be an object or an array of objects/,
  ],
  [
    'a relatedResource without id',
    { relatedResource: [{ digestMultibase: V2_MULTIBASE }] },
    /relatedResource\.id must be a URL/,
  ],
  [
    'two relatedResources with one id',
    {
      relatedResource: [
        { id: V2, digestSRI: V2_SRI },
        { id: V2, digestMultibase: V2_MULTIBASE },
      ],
    },
    /appears twice/,
  ],
  ['a relatedResource without a digest', { relatedResource: [{ id: V2 }] }, /needs a digestSRI or a digestMultibase/],
  [
    "a relatedResource digestMultibase that does not match (the suite's)",
    { relatedResource: [{ id: V2, digestMultibase: 'uM4RgWQc3RUDtjJCSgTJtTfvpZ7SPEg_LNO0ESlovQC0' }] },
    'RELATED_RESOURCE_DIGEST_MISMATCH',
  ],
  [
    'a relatedResource digestSRI of a version never published at the URL',
    { relatedResource: [{ id: V2, digestSRI: UNPUBLISHED_V2_SRI }] },
    'RELATED_RESOURCE_DIGEST_MISMATCH',
  ],
  [
    'a relatedResource whose two digests name two different versions',
    { relatedResource: [{ id: V2, digestSRI: V2_SRI, digestMultibase: SUITE_V2_MULTIBASE }] },
    'RELATED_RESOURCE_DIGEST_MISMATCH',
  ],
  [
    "a relatedResource digestSRI in base64url (the suite's)",
    {
      relatedResource: [
        { id: V2, digestSRI: 'sha384-_rCVIV7fSXXTNIvpiq26jRDyj8JG8TDjij-tD0ewLk4JpnXEz6a5AeeY_1qQ0d0P' },
      ],
    },
    /digestSRI must be an SRI hash expression/,
  ],
  ['"id": null', { id: null }, /^id is null: a member that is present must have a value/],
  ['"validFrom": null', { validFrom: null }, /^validFrom is null/],
  ['"credentialStatus": null', { credentialStatus: null }, /^credentialStatus is null/],
];

describe('POST /credentials/issue refuses what a JSON-LD processor in safe mode refuses', () => {
  it.each(BROKEN)('%s: 400 CREDENTIAL_INVALID naming the rule, nothing issued', async (_what, members, rule) => {
    const before = (await issuer.running.ctx.audit.list({ event: 'VC_API_ISSUED', limit: 500 })).records.length;
    const res = await issue(credential(members));
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('CREDENTIAL_INVALID');
    if (typeof rule === 'string') expect(res.json.error.details).toEqual({ rule });
    else expect(res.json.error.message).toMatch(rule);
    expect((await issuer.running.ctx.audit.list({ event: 'VC_API_ISSUED', limit: 500 })).records.length).toBe(before);
  });

  it.each([
    ['"issuer": null', { issuer: null }],
    ['"issuer": {"id": null}', { issuer: { id: null } }],
  ])('refuses %s: present means present (400 CREDENTIAL_INVALID)', async (_what, members) => {
    const res = await issue(credential(members));
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('CREDENTIAL_INVALID');
  });

  it.each([
    [
      'terms of the examples context (its @vocab)',
      {
        '@context': [V2, EXAMPLES],
        type: ['VerifiableCredential', 'RelationshipCredential'],
        credentialSubject: { description: 'A single id test for VC 2.0' },
      },
    ],
    [
      'a type mapped inline to an absolute IRI',
      {
        '@context': [V2, { ExampleTestCredential: 'https://example.org/#ExampleTestCredential' }],
        type: ['VerifiableCredential', 'ExampleTestCredential'],
      },
    ],
    [
      'a type that is an absolute URL',
      {
        type: [
          'https://example.org/#ExampleCredential2',
          'VerifiableCredential',
          'https://example.org/#ExampleCredential1',
        ],
      },
    ],
    [
      'name as a language value object with @direction',
      { name: { '@value': 'Example Credential', '@language': 'en', '@direction': 'ltr' } },
    ],
    [
      'description in three languages',
      {
        description: [
          { '@value': 'Dog', '@language': 'en' },
          { '@value': 'Chien', '@language': 'fr' },
          { '@value': 'Cane', '@language': 'it' },
        ],
      },
    ],
    [
      'issuer name and description as value objects',
      {
        issuer: {
          id: 'did:example:issuer',
          name: { '@value': 'ExampleIssuer', '@language': 'en' },
          description: 'An Example Issuer',
        },
      },
    ],
    ["relatedResource with the v2 context's digestSRI", { relatedResource: { id: V2, digestSRI: V2_SRI } }],
    [
      "relatedResource with the v2 context's digestMultibase",
      { relatedResource: { id: V2, digestMultibase: V2_MULTIBASE } },
    ],
    [
      'relatedResource with a mediaType',
      { relatedResource: [{ id: V2, mediaType: 'application/ld+json', digestSRI: V2_SRI }] },
    ],
    [
      "relatedResource with the W3C suite's digests (the v2 context as served in December 2024)",
      { relatedResource: { id: V2, digestSRI: SUITE_V2_SRI, digestMultibase: SUITE_V2_MULTIBASE } },
    ],
    [
      'relatedResource the issuer cannot check (never fetched)',
      { relatedResource: [{ id: 'https://example.org/terms.pdf', digestMultibase: V2_MULTIBASE }] },
    ],
    [
      'a status entry of another kind, inline-mapped',
      {
        '@context': [V2, { CredentialStatusList2017: 'https://example.org/examples#CredentialStatusList2017' }],
        credentialStatus: { id: 'did:example:status', type: 'CredentialStatusList2017' },
      },
    ],
    ['a validity period in the past', { validFrom: '2023-02-26T01:19:19Z', validUntil: '2023-02-26T01:19:20Z' }],
  ])('issues %s', async (_what, members) => {
    const res = await issue(credential(members));
    expect(res.status, JSON.stringify(res.json)).toBe(201);
  });
});

describe('the verify endpoints report the same rules as MALFORMED, naming them', () => {
  it.each(BROKEN)('POST /credentials/verify: %s', async (_what, members, rule) => {
    const res = await verifyCredential(await signed(credential(members)));
    expect(res.status).toBe(400);
    expect(res.json.verified).toBe(false);
    expect(res.json.errors).toEqual([
      expect.objectContaining({
        check: 'shape',
        code: 'MALFORMED',
        ...(typeof rule === 'string' ? { rule } : { message: expect.stringMatching(rule) }),
      }),
    ]);
  });

  it.each(BROKEN)('POST /presentations/verify, in a credential: %s', async (_what, members) => {
    const vp = await presented({
      '@context': [V2],
      type: ['VerifiablePresentation'],
      holder: signer.did,
      verifiableCredential: [await signed(credential(members))],
    });
    const res = await verifyPresentation(vp);
    expect(res.status).toBe(400);
    expect(res.json.presentationResult).toEqual({ verified: true });
    expect(res.json.credentialResults[0].errors[0]).toMatchObject({ check: 'shape', code: 'MALFORMED' });
  });

  it('POST /presentations/verify, in the presentation itself: an undefined term, a protected term, an unknown context', async () => {
    for (const [extra, rule] of [
      [{ purpose: 'testing' }, 'JSONLD_UNDEFINED_TERM'],
      [{ '@context': [V2, { VerifiablePresentation: 'https://example.org/#Bad' }] }, 'JSONLD_PROTECTED_TERM_REDEFINED'],
      [{ '@context': [V2, 'https://example.com'] }, 'JSONLD_CONTEXT_UNKNOWN'],
    ] as const) {
      const res = await verifyPresentation(
        await presented({ '@context': [V2], type: ['VerifiablePresentation'], ...extra }),
      );
      expect(res.status, rule).toBe(400);
      expect(res.json.errors, rule).toEqual([expect.objectContaining({ check: 'shape', code: 'MALFORMED', rule })]);
    }
  });

  it('verifies what conforms, and warns of a related resource it could not check', async () => {
    const ok = await verifyCredential(
      await signed(
        credential({
          '@context': [V2, EXAMPLES],
          credentialSubject: { name: 'Alice' },
          relatedResource: [
            { id: V2, digestSRI: V2_SRI },
            { id: 'https://example.org/terms.pdf', digestSRI: V2_SRI },
          ],
        }),
      ),
    );
    expect(ok.status).toBe(200);
    expect(ok.json.warnings).toEqual([
      expect.objectContaining({
        check: 'relatedResource',
        code: 'NOT_CHECKED',
        message: expect.stringContaining('https://example.org/terms.pdf'),
      }),
    ]);
    const vp = await presented({
      '@context': [V2, { ExampleVerifiablePresentation: 'https://example.org/#ExampleVerifiablePresentation' }],
      type: ['VerifiablePresentation', 'ExampleVerifiablePresentation'],
      holder: { id: signer.did },
      verifiableCredential: [],
    });
    expect((await verifyPresentation(vp)).json).toMatchObject({ verified: true });
  });
});
