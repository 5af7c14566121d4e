// eddsa-rdfc-2022 (Data Integrity EdDSA Cryptosuites v1.0 §3.2) in the crypto core: the W3C
// vectors reproduced byte for byte (N-Quads, hashes, signature, signed credential), every check
// verifyProof makes for eddsa-jcs-2022 made for rdfc proofs too, JSON-LD refusals as
// PROOF_MALFORMED naming the rule, and the work bound on poison graphs. Node only (JSON-LD).
// Offline: global fetch throws, and the bundled loader serves only its contexts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import keyPair from '@vectors/w3c-vc-di-eddsa/keyPair.json';
import unsigned from '@vectors/w3c-vc-di-eddsa/unsigned.json';
import proofConfigDataInt from '@vectors/w3c-vc-di-eddsa/eddsa-rdfc-2022/proofConfigDataInt.json';
import signedDataInt from '@vectors/w3c-vc-di-eddsa/eddsa-rdfc-2022/signedDataInt.json';
import signedDataIntText from '@vectors/w3c-vc-di-eddsa/eddsa-rdfc-2022/signedDataInt.json?raw';
import canonDocDataInt from '@vectors/w3c-vc-di-eddsa/eddsa-rdfc-2022/canonDocDataInt.txt?raw';
import proofCanonDataInt from '@vectors/w3c-vc-di-eddsa/eddsa-rdfc-2022/proofCanonDataInt.txt?raw';
import docHashDataInt from '@vectors/w3c-vc-di-eddsa/eddsa-rdfc-2022/docHashDataInt.txt?raw';
import proofHashDataInt from '@vectors/w3c-vc-di-eddsa/eddsa-rdfc-2022/proofHashDataInt.txt?raw';
import combinedHashDataInt from '@vectors/w3c-vc-di-eddsa/eddsa-rdfc-2022/combinedHashDataInt.txt?raw';
import sigHexDataInt from '@vectors/w3c-vc-di-eddsa/eddsa-rdfc-2022/sigHexDataInt.txt?raw';
import sigBTC58DataInt from '@vectors/w3c-vc-di-eddsa/eddsa-rdfc-2022/sigBTC58DataInt.txt?raw';
import { bytesToHex } from '../../../wallet/crypto/bytes.ts';
import { type EddsaCryptosuite } from '../../../wallet/crypto/cryptosuite.ts';
import {
  createProof,
  type DataIntegrityProof,
  type KeyResolver,
  ProofError,
  type ProofErrorCode,
  type ProofOptions,
  verifyProof,
  type VerifyProofOptions,
} from '../../../wallet/crypto/data-integrity.ts';
import { createEddsaRdfc2022, EDDSA_RDFC_2022 } from '../../../wallet/crypto/eddsa-rdfc-2022.ts';
import { generateSeed, seedSigner, sign } from '../../../wallet/crypto/ed25519.ts';
import { sha256Utf8 } from '../../../wallet/crypto/hash.ts';
import {
  decodePrivateKeyMultibase,
  decodePublicKeyMultibase,
  encodeBase58btc,
} from '../../../wallet/crypto/multikey.ts';
import { bundledDocumentLoader } from '../../../wallet/jsonld/document-loader.ts';
import { eddsaRdfc2022 } from '../../../wallet/node.ts';
import { clique } from '../../support/poison-graph.ts';

const text = (raw: string) => raw.trimEnd();
const reason = (code: ProofErrorCode) => expect.objectContaining({ name: 'ProofError', code });
const clone = <T>(value: T): T => structuredClone(value);

const V2 = 'https://www.w3.org/ns/credentials/v2';
const V1 = 'https://www.w3.org/2018/credentials/v1';
const DI_V2 = 'https://w3id.org/security/data-integrity/v2';
const vectorSeed = decodePrivateKeyMultibase(keyPair.privateKeyMultibase);
const vectorPublicKey = decodePublicKeyMultibase(keyPair.publicKeyMultibase);
const vectorMethod = signedDataInt.proof.verificationMethod;
const vectorCreated = signedDataInt.proof.created;
const NOW = new Date('2024-02-24T00:00:00Z');
const { proofValue: _vectorProofValue, ...vectorProofOptions } = signedDataInt.proof;
const proofOptions = vectorProofOptions as ProofOptions;

/** A resolver that knows one key per verification method, and counts its calls. */
function keyResolver(
  keys: Record<string, Uint8Array> = { [vectorMethod]: vectorPublicKey },
): KeyResolver & { calls: number } {
  const resolve = Object.assign(
    async (verificationMethod: string) => {
      resolve.calls++;
      const key = keys[verificationMethod];
      if (key === undefined) throw new Error(`unknown verification method ${verificationMethod}`);
      return key;
    },
    { calls: 0 },
  );
  return resolve;
}

function verifyVector(document: unknown, extra: Partial<VerifyProofOptions> = {}) {
  return verifyProof(document, {
    resolveKey: keyResolver(),
    expectedProofPurpose: 'assertionMethod',
    now: NOW,
    cryptosuites: [eddsaRdfc2022],
    ...extra,
  });
}

/** A fresh did:key-like identity (the verification method only needs to be a URL here). */
function identity(label: string) {
  const signer = seedSigner(generateSeed());
  const verificationMethod = `did:example:${label}#key-1`;
  return { signer, verificationMethod, resolveKey: keyResolver({ [verificationMethod]: signer.publicKey }) };
}

/** A VC 2.0 credential using only the v2 context: every term must be defined there. */
const v2Credential = (): Record<string, unknown> => ({
  '@context': [V2],
  id: 'urn:uuid:0b2c0a52-5f43-4f0d-9c52-000000000001',
  type: ['VerifiableCredential'],
  issuer: 'did:example:issuer',
  validFrom: '2025-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:subject', name: 'Alice' },
});

beforeAll(() => {
  vi.stubGlobal('fetch', () => Promise.reject(new Error('network is forbidden in this test')));
});
afterAll(() => {
  vi.unstubAllGlobals();
});

describe('W3C vectors (EdDSA §3.2, eddsa-rdfc-2022/*DataInt*), byte for byte', () => {
  it('§3.2.3 Transformation: the canonical N-Quads of the credential', async () => {
    const canonical = await eddsaRdfc2022.transform(unsigned, proofOptions);
    expect(canonical).toBe(canonDocDataInt);
    expect(bytesToHex(sha256Utf8(canonical))).toBe(text(docHashDataInt));
  });

  it('§3.2.5 Proof Configuration: the proof options under the document @context, canonical', async () => {
    const canonical = await eddsaRdfc2022.proofConfiguration(unsigned, proofOptions);
    expect(canonical).toBe(proofCanonDataInt);
    expect(bytesToHex(sha256Utf8(canonical))).toBe(text(proofHashDataInt));
    // proofConfigDataInt.json is that configuration with its @context already set: same N-Quads.
    expect(await eddsaRdfc2022.proofConfiguration(unsigned, proofConfigDataInt as ProofOptions)).toBe(
      proofCanonDataInt,
    );
  });

  it('§3.2.4 Hashing: proof configuration hash FIRST, then the document hash (64 bytes)', async () => {
    const data = await eddsaRdfc2022.hashData(unsigned, proofOptions);
    expect(data).toHaveLength(64);
    expect(bytesToHex(data)).toBe(text(combinedHashDataInt));
    expect(bytesToHex(data)).toBe(text(proofHashDataInt) + text(docHashDataInt));
  });

  it('§3.2.6 Proof Serialization: the Ed25519 signature, in hex and base58btc', async () => {
    const signature = await sign(await eddsaRdfc2022.hashData(unsigned, proofOptions), vectorSeed);
    expect(bytesToHex(signature)).toBe(text(sigHexDataInt));
    expect(encodeBase58btc(signature)).toBe(text(sigBTC58DataInt));
  });

  it('§3.2.1 createProof with the vector key and created gives signedDataInt.json exactly (member order too)', async () => {
    const signed = await createProof(unsigned, {
      signer: seedSigner(vectorSeed),
      verificationMethod: vectorMethod,
      proofPurpose: 'assertionMethod',
      created: vectorCreated,
      cryptosuite: eddsaRdfc2022,
    });
    expect(JSON.stringify(signed, null, 2)).toBe(text(signedDataIntText));
    // The proof carries no @context (only eddsa-jcs-2022 proofs do); the input is untouched.
    expect('@context' in (signed.proof as DataIntegrityProof)).toBe(false);
    expect('proof' in unsigned).toBe(false);
  });

  it('§3.2.2 signedDataInt.json verifies', async () => {
    const resolveKey = keyResolver();
    const { proofs } = await verifyVector(signedDataInt, { resolveKey });
    expect(proofs).toHaveLength(1);
    expect(proofs[0]?.proof.cryptosuite).toBe(EDDSA_RDFC_2022);
    expect(proofs[0]?.publicKey).toEqual(vectorPublicKey);
    expect(proofs[0]?.created).toEqual(new Date(vectorCreated));
    expect(resolveKey.calls).toBe(1);
  });

  it('eddsaRdfc2022 is the frozen suite over the bundled loader; createEddsaRdfc2022 gives the same bytes', async () => {
    expect(eddsaRdfc2022.name).toBe('eddsa-rdfc-2022');
    expect(Object.isFrozen(eddsaRdfc2022)).toBe(true);
    const own = createEddsaRdfc2022({ documentLoader: bundledDocumentLoader });
    expect(bytesToHex(await own.hashData(unsigned, proofOptions))).toBe(text(combinedHashDataInt));
  });
});

describe('a changed signed vector fails with the right code', () => {
  type Tamper = (d: typeof signedDataInt) => void;
  it.each<[string, Tamper, ProofErrorCode]>([
    [
      'a character of a claim',
      (d) => void (d.credentialSubject.alumniOf = 'The School of Examples!'),
      'PROOF_SIGNATURE_INVALID',
    ],
    ['the issuer', (d) => void (d.issuer = 'https://vc.example/issuers/5679'), 'PROOF_SIGNATURE_INVALID'],
    ['validFrom', (d) => void (d.validFrom = '2023-01-01T00:00:01Z'), 'PROOF_SIGNATURE_INVALID'],
    ['an added type', (d) => void d.type.push('ExtraCredential'), 'PROOF_SIGNATURE_INVALID'],
    ['proof.created', (d) => void (d.proof.created = '2023-02-24T23:36:39Z'), 'PROOF_SIGNATURE_INVALID'],
    [
      'proof.proofPurpose (signed, then expected)',
      (d) => void (d.proof.proofPurpose = 'authentication'),
      'PROOF_PURPOSE_MISMATCH',
    ],
    [
      'proof.cryptosuite → eddsa-jcs-2022',
      (d) => void (d.proof.cryptosuite = 'eddsa-jcs-2022'),
      'PROOF_SIGNATURE_INVALID',
    ],
    [
      'proof.cryptosuite → eddsa-rdfc-2023',
      (d) => void (d.proof.cryptosuite = 'eddsa-rdfc-2023'),
      'CRYPTOSUITE_UNSUPPORTED',
    ],
    ['proof.type', (d) => void (d.proof.type = 'Ed25519Signature2020'), 'CRYPTOSUITE_UNSUPPORTED'],
    [
      'one proofValue digit',
      (d) => void (d.proof.proofValue = `${d.proof.proofValue.slice(0, -2)}1X`),
      'PROOF_SIGNATURE_INVALID',
    ],
    [
      'proofValue without its multibase header',
      (d) => void (d.proof.proofValue = d.proof.proofValue.slice(1)),
      'PROOF_MALFORMED',
    ],
    ['created without a timezone', (d) => void (d.proof.created = '2023-02-24T23:36:38'), 'PROOF_MALFORMED'],
  ])('%s', async (_what, tamper, code) => {
    const document = clone(signedDataInt);
    tamper(document);
    await expect(verifyVector(document)).rejects.toThrow(reason(code));
  });

  it('a 32-byte longer proofValue is PROOF_MALFORMED, before any key lookup or canonicalization', async () => {
    const document = clone(signedDataInt);
    document.proof.proofValue = encodeBase58btc(new Uint8Array(96));
    const resolveKey = keyResolver();
    await expect(verifyVector(document, { resolveKey })).rejects.toThrow(reason('PROOF_MALFORMED'));
    await expect(verifyVector(document, { resolveKey })).rejects.toThrow(/proof "proofValue"/);
    expect(resolveKey.calls).toBe(0);
  });

  it('the graph is signed, not the JSON: reordered members and set items still verify', async () => {
    const { proof, credentialSubject, type, ...rest } = clone(signedDataInt);
    const reordered = {
      proof,
      credentialSubject: { alumniOf: credentialSubject.alumniOf, id: credentialSubject.id },
      type: [...type].reverse(),
      ...rest,
    };
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(signedDataInt));
    await expect(verifyVector(reordered)).resolves.toBeDefined();
  });

  it('a proof @context equal to the document’s is accepted; any other is PROOF_CONTEXT_MISMATCH', async () => {
    const same = clone(signedDataInt) as typeof signedDataInt & { proof: { '@context'?: unknown } };
    same.proof['@context'] = [...signedDataInt['@context']];
    await expect(verifyVector(same)).resolves.toBeDefined();
    for (const context of [[V2], [...signedDataInt['@context'], DI_V2], V2]) {
      const other = clone(same);
      other.proof['@context'] = context;
      const resolveKey = keyResolver();
      await expect(verifyVector(other, { resolveKey })).rejects.toThrow(reason('PROOF_CONTEXT_MISMATCH'));
      expect(resolveKey.calls).toBe(0);
    }
  });

  it('without `cryptosuites`, an rdfc proof is CRYPTOSUITE_UNSUPPORTED and no key is looked up', async () => {
    const resolveKey = keyResolver();
    const promise = verifyProof(signedDataInt, { resolveKey, expectedProofPurpose: 'assertionMethod', now: NOW });
    await expect(promise).rejects.toThrow(reason('CRYPTOSUITE_UNSUPPORTED'));
    await expect(
      verifyProof(signedDataInt, { resolveKey, expectedProofPurpose: 'assertionMethod', now: NOW }),
    ).rejects.toThrow('expected DataIntegrityProof/eddsa-jcs-2022');
    await expect(
      verifyVector({ ...signedDataInt, proof: { ...signedDataInt.proof, cryptosuite: 'ecdsa-rdfc-2019' } }),
    ).rejects.toThrow('expected DataIntegrityProof/eddsa-jcs-2022 or eddsa-rdfc-2022');
    expect(resolveKey.calls).toBe(0);
  });
});

describe('the checks of verifyProof apply to rdfc proofs', () => {
  const challenge = 'c-7e1b';
  const domain = 'verifier.example';
  const presentation = () => ({ '@context': [V2], type: ['VerifiablePresentation'], holder: 'did:example:holder' });

  it('authentication with challenge and domain: verifies; a wrong challenge, domain or purpose fails before any lookup', async () => {
    const holder = identity('holder');
    const signed = await createProof(presentation(), {
      ...holder,
      proofPurpose: 'authentication',
      challenge,
      domain,
      cryptosuite: eddsaRdfc2022,
    });
    expect(signed.proof).toMatchObject({
      cryptosuite: 'eddsa-rdfc-2022',
      proofPurpose: 'authentication',
      challenge,
      domain,
    });
    const base = {
      resolveKey: holder.resolveKey,
      expectedProofPurpose: 'authentication',
      expectedChallenge: challenge,
      expectedDomain: domain,
      cryptosuites: [eddsaRdfc2022],
    };
    await expect(verifyProof(signed, base)).resolves.toMatchObject({
      proofs: [expect.objectContaining({ publicKey: holder.signer.publicKey })],
    });
    expect(holder.resolveKey.calls).toBe(1);
    await expect(verifyProof(signed, { ...base, expectedChallenge: 'c-other' })).rejects.toThrow(
      reason('CHALLENGE_MISMATCH'),
    );
    await expect(verifyProof(signed, { ...base, expectedDomain: 'other.example' })).rejects.toThrow(
      reason('DOMAIN_MISMATCH'),
    );
    await expect(verifyProof(signed, { ...base, expectedProofPurpose: 'assertionMethod' })).rejects.toThrow(
      reason('PROOF_PURPOSE_MISMATCH'),
    );
    expect(holder.resolveKey.calls).toBe(1);
    // The challenge and domain are signed: changing them in the proof breaks the signature.
    const rechallenged = clone(signed);
    (rechallenged.proof as DataIntegrityProof).challenge = 'c-other';
    await expect(verifyProof(rechallenged, { ...base, expectedChallenge: 'c-other' })).rejects.toThrow(
      reason('PROOF_SIGNATURE_INVALID'),
    );
  });

  it('created in the future and expires in the past fail', async () => {
    const holder = identity('holder');
    const common = { ...holder, proofPurpose: 'assertionMethod', cryptosuite: eddsaRdfc2022 };
    const verify = (doc: unknown) =>
      verifyProof(doc, {
        resolveKey: holder.resolveKey,
        expectedProofPurpose: 'assertionMethod',
        cryptosuites: [eddsaRdfc2022],
        now: NOW,
      });
    const future = await createProof(v2Credential(), { ...common, created: '2024-02-24T00:05:00Z' });
    await expect(verify(future)).rejects.toThrow(reason('PROOF_NOT_YET_VALID'));
    const expired = await createProof(v2Credential(), {
      ...common,
      created: '2024-02-23T00:00:00Z',
      expires: '2024-02-23T12:00:00Z',
    });
    await expect(verify(expired)).rejects.toThrow(reason('PROOF_EXPIRED'));
    expect(holder.resolveKey.calls).toBe(0);
    const valid = await createProof(v2Credential(), {
      ...common,
      created: '2024-02-23T00:00:00Z',
      expires: '2024-02-25T00:00:00Z',
    });
    await expect(verify(valid)).resolves.toMatchObject({
      proofs: [expect.objectContaining({ expires: new Date('2024-02-25T00:00:00Z') })],
    });
  });

  it('a VC 1.1 credential (credentials/v1 + data-integrity/v2, issuanceDate) signs and verifies', async () => {
    const issuer = identity('issuer');
    const credential = {
      '@context': [V1, DI_V2],
      id: 'urn:uuid:0b2c0a52-5f43-4f0d-9c52-000000000011',
      type: ['VerifiableCredential'],
      issuer: 'did:example:issuer',
      issuanceDate: '2025-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:subject' },
    };
    const signed = await createProof(credential, {
      ...issuer,
      proofPurpose: 'assertionMethod',
      cryptosuite: eddsaRdfc2022,
    });
    const options = {
      resolveKey: issuer.resolveKey,
      expectedProofPurpose: 'assertionMethod',
      cryptosuites: [eddsaRdfc2022],
    };
    await expect(verifyProof(signed, options)).resolves.toBeDefined();
    await expect(verifyProof({ ...signed, issuanceDate: '2025-01-01T00:00:01Z' }, options)).rejects.toThrow(
      reason('PROOF_SIGNATURE_INVALID'),
    );
  });

  it('proof sets mixing eddsa-jcs-2022 and eddsa-rdfc-2022 verify in either order, each proof checked', async () => {
    const a = identity('a');
    const b = identity('b');
    const resolveKey = keyResolver({
      [a.verificationMethod]: a.signer.publicKey,
      [b.verificationMethod]: b.signer.publicKey,
    });
    const options = { resolveKey, expectedProofPurpose: 'assertionMethod', cryptosuites: [eddsaRdfc2022] };
    const jcsFirst = await createProof(await createProof(v2Credential(), { ...a, proofPurpose: 'assertionMethod' }), {
      ...b,
      proofPurpose: 'assertionMethod',
      cryptosuite: eddsaRdfc2022,
    });
    const rdfcFirst = await createProof(
      await createProof(v2Credential(), { ...a, proofPurpose: 'assertionMethod', cryptosuite: eddsaRdfc2022 }),
      { ...b, proofPurpose: 'assertionMethod' },
    );
    for (const signed of [jcsFirst, rdfcFirst]) {
      const { proofs } = await verifyProof(signed, options);
      expect(proofs.map((p) => p.proof.cryptosuite).sort()).toEqual(['eddsa-jcs-2022', 'eddsa-rdfc-2022']);
      await expect(verifyProof(signed, { resolveKey, expectedProofPurpose: 'assertionMethod' })).rejects.toThrow(
        reason('CRYPTOSUITE_UNSUPPORTED'),
      );
      const tampered = { ...clone(signed), validFrom: '2025-01-01T00:00:01Z' };
      await expect(verifyProof(tampered, options)).rejects.toThrow(reason('PROOF_SIGNATURE_INVALID'));
      // A single proof taken out of the set still verifies: each signs the document without proofs.
      for (const proof of signed.proof as DataIntegrityProof[])
        await expect(verifyProof({ ...signed, proof }, options)).resolves.toBeDefined();
    }
  });

  it('the caller’s JSON limits apply to the document before JSON-LD sees it (JsonError)', async () => {
    const issuer = identity('issuer');
    const big = { ...v2Credential(), description: 'x'.repeat(2000) };
    await expect(
      createProof(big, {
        ...issuer,
        proofPurpose: 'assertionMethod',
        cryptosuite: eddsaRdfc2022,
        limits: { maxBytes: 1000 },
      }),
    ).rejects.toMatchObject({
      name: 'JsonError',
      code: 'JSON_TOO_LARGE',
    });
    const signed = await createProof(big, { ...issuer, proofPurpose: 'assertionMethod', cryptosuite: eddsaRdfc2022 });
    const options = {
      resolveKey: issuer.resolveKey,
      expectedProofPurpose: 'assertionMethod',
      cryptosuites: [eddsaRdfc2022],
    };
    await expect(verifyProof(signed, { ...options, limits: { maxBytes: 1000 } })).rejects.toMatchObject({
      name: 'JsonError',
      code: 'JSON_TOO_LARGE',
    });
    await expect(verifyProof({ ...signed, when: new Date() }, options)).rejects.toMatchObject({
      name: 'JsonError',
      code: 'JSON_UNSUPPORTED_VALUE',
    });
    expect(issuer.resolveKey.calls).toBe(0);
  });

  it('what is signed and returned is the document as passed in, whatever the caller does while JSON-LD runs', async () => {
    const issuer = identity('issuer');
    const document = v2Credential();
    const pending = createProof(document, { ...issuer, proofPurpose: 'assertionMethod', cryptosuite: eddsaRdfc2022 });
    (document.credentialSubject as { name: string }).name = 'Mallory';
    const signed = await pending;
    expect((signed.credentialSubject as { name: string }).name).toBe('Alice');
    const options = {
      resolveKey: issuer.resolveKey,
      expectedProofPurpose: 'assertionMethod',
      cryptosuites: [eddsaRdfc2022],
    };
    await expect(verifyProof(signed, options)).resolves.toBeDefined();
    // Verification likewise judges the document as it was when verifyProof was called.
    const verifying = verifyProof(signed, options);
    (signed.credentialSubject as { name: string }).name = 'Mallory';
    await expect(verifying).resolves.toBeDefined();
    await expect(verifyProof(signed, options)).rejects.toThrow(reason('PROOF_SIGNATURE_INVALID'));
  });
});

describe('what JSON-LD refuses is PROOF_MALFORMED, naming the rule', () => {
  const issuer = identity('issuer');
  const sign = (document: Record<string, unknown>) =>
    createProof(document, { ...issuer, proofPurpose: 'assertionMethod', cryptosuite: eddsaRdfc2022 });
  const verify = (document: unknown) =>
    verifyProof(document, {
      resolveKey: issuer.resolveKey,
      expectedProofPurpose: 'assertionMethod',
      cryptosuites: [eddsaRdfc2022],
    });
  let signed: Awaited<ReturnType<typeof sign>>;
  beforeAll(async () => {
    signed = await sign(v2Credential());
  });

  const cases: Array<[string, (d: Record<string, unknown>) => void, RegExp]> = [
    [
      'an undefined term',
      (d) => void ((d.credentialSubject as Record<string, unknown>).undefinedTerm = 'IfDroppedWillVerify'),
      /safe mode: a property is not defined by the @context, so JSON-LD would drop it \("undefinedTerm"\)/,
    ],
    [
      'an undefined (relative) type IRI',
      (d) => void (d.type as string[]).push('UndefinedType'),
      /safe mode: a type is not defined by the @context \(a relative IRI\) \("UndefinedType"\)/,
    ],
    [
      'an unknown context URL',
      (d) => void (d['@context'] as string[]).push('https://evil.example/context'),
      /the @context "https:\/\/evil\.example\/context" is not one the document loader serves \(JSONLD_CONTEXT_UNKNOWN\)/,
    ],
    ['a relative id', (d) => void (d.id = 'credentials/1'), /safe mode: an id is a relative IRI \("credentials\/1"\)/],
    ['a relative IRI value', (d) => void (d.issuer = 'issuer-1'), /safe mode: an IRI value is relative \("issuer-1"\)/],
    [
      'a redefined protected term',
      (d) => void (d['@context'] as unknown[]).push({ name: 'https://evil.example/name' }),
      /JSON-LD: "protected term redefinition" "name"/,
    ],
  ];

  it.each(cases)('createProof refuses %s', async (_what, change, message) => {
    const document = v2Credential();
    change(document);
    const error = await sign(document).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProofError);
    expect(error).toMatchObject({ code: 'PROOF_MALFORMED' });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it.each(cases)(
    'verifyProof refuses a signed credential given %s afterwards, before any key lookup',
    async (_what, change, message) => {
      const document = clone(signed) as unknown as Record<string, unknown>;
      change(document);
      const calls = issuer.resolveKey.calls;
      await expect(verify(document)).rejects.toThrow(reason('PROOF_MALFORMED'));
      await expect(verify(document)).rejects.toThrow(message);
      expect(issuer.resolveKey.calls).toBe(calls);
    },
  );

  it('messages quote at most 64 characters of the input', async () => {
    const long = `https://evil.example/${'a'.repeat(5000)}`;
    const document = v2Credential();
    (document['@context'] as string[]).push(long);
    (document.credentialSubject as Record<string, unknown>)[`term${'b'.repeat(5000)}`] = 1;
    const error = (await sign(document).catch((e: unknown) => e)) as ProofError;
    expect(error.code).toBe('PROOF_MALFORMED');
    expect(error.message.length).toBeLessThan(250);
    expect(error.message).toContain('…');
  });

  it('a document without @context is refused (nothing it says would be signed)', async () => {
    const { '@context': _context, ...bare } = v2Credential();
    await expect(sign(bare)).rejects.toThrow(reason('PROOF_MALFORMED'));
  });
});

describe('the work is bounded (RDFC-1.0 poison graphs, EdDSA §3.2)', () => {
  const issuer = identity('issuer');

  // The refusal names the bound that stopped the work; how fast it comes is measured in
  // bench/vc-api.ts (`rdfcPoisonRefusal`), not asserted here. Unbounded, an 8-node clique alone
  // takes about 15 s, so without the bound this test would not finish.
  it('a 40-node clique is refused at the work bound rather than hanging, when signing and when verifying', async () => {
    const error = (await createProof(clique(40), {
      ...issuer,
      proofPurpose: 'assertionMethod',
      cryptosuite: eddsaRdfc2022,
    }).catch((e: unknown) => e)) as ProofError;
    expect(error).toMatchObject({ name: 'ProofError', code: 'PROOF_MALFORMED' });
    expect(error.message).toMatch(/RDF canonicalization \(RDFC-1\.0\) exceeded its work bound \(maxWorkFactor 1\)/);

    const { proofValue } = (
      await createProof(v2Credential(), { ...issuer, proofPurpose: 'assertionMethod', cryptosuite: eddsaRdfc2022 })
    ).proof as DataIntegrityProof;
    const forged = {
      ...clique(40),
      proof: {
        type: 'DataIntegrityProof',
        cryptosuite: 'eddsa-rdfc-2022',
        verificationMethod: issuer.verificationMethod,
        proofPurpose: 'assertionMethod',
        proofValue,
      },
    };
    const calls = issuer.resolveKey.calls;
    await expect(
      verifyProof(forged, {
        resolveKey: issuer.resolveKey,
        expectedProofPurpose: 'assertionMethod',
        cryptosuites: [eddsaRdfc2022],
      }),
    ).rejects.toThrow(/exceeded its work bound/);
    expect(issuer.resolveKey.calls).toBe(calls);
  });

  it('indistinguishable blank nodes an honest document has (equal list items) are within the bound; factor 0 refuses them', async () => {
    const twins = {
      ...v2Credential(),
      '@context': [V2, 'https://www.w3.org/ns/credentials/examples/v2'],
      credentialSubject: { id: 'did:example:s', achievements: [{ name: 'A' }, { name: 'A' }] },
    };
    const options = { ...issuer, proofPurpose: 'assertionMethod' as const };
    const signed = await createProof(twins, { ...options, cryptosuite: eddsaRdfc2022 });
    await expect(
      verifyProof(signed, {
        resolveKey: issuer.resolveKey,
        expectedProofPurpose: 'assertionMethod',
        cryptosuites: [eddsaRdfc2022],
      }),
    ).resolves.toBeDefined();
    const strict = createEddsaRdfc2022({ documentLoader: bundledDocumentLoader, maxWorkFactor: 0 });
    await expect(createProof(twins, { ...options, cryptosuite: strict })).rejects.toThrow(
      /work bound \(maxWorkFactor 0\)/,
    );
  });
});

describe('options', () => {
  const holder = identity('holder');
  const base = { resolveKey: holder.resolveKey, expectedProofPurpose: 'assertionMethod' };
  const bogus = (suite: object) => suite as unknown as EddsaCryptosuite;

  it('createEddsaRdfc2022 needs a document loader and a work factor of 0, 1 or 2', () => {
    expect(() => createEddsaRdfc2022({} as never)).toThrow(reason('PROOF_OPTIONS_INVALID'));
    for (const maxWorkFactor of [3, Infinity, -1, 1.5]) {
      expect(() =>
        createEddsaRdfc2022({ documentLoader: bundledDocumentLoader, maxWorkFactor: maxWorkFactor as 1 }),
      ).toThrow(/poison graphs/);
    }
  });

  it('verifyProof refuses a cryptosuites option that is not a list of suites', async () => {
    for (const cryptosuites of [
      [{}],
      [{ name: 'x' }],
      [{ name: '', hashData: async () => new Uint8Array(64) }],
      eddsaRdfc2022,
      'eddsa-rdfc-2022',
    ]) {
      await expect(verifyProof(signedDataInt, { ...base, cryptosuites: cryptosuites as never })).rejects.toThrow(
        reason('PROOF_OPTIONS_INVALID'),
      );
    }
  });

  it('verifyProof never hands an eddsa-jcs-2022 proof to a suite, and uses the first suite of a name', async () => {
    const jcs = await createProof(v2Credential(), { ...holder, proofPurpose: 'assertionMethod' });
    const impostor = bogus({
      name: 'eddsa-jcs-2022',
      hashData: async () => {
        throw new Error('never called');
      },
    });
    await expect(verifyProof(jcs, { ...base, cryptosuites: [impostor] })).resolves.toBeDefined();
    const rdfc = await createProof(v2Credential(), {
      ...holder,
      proofPurpose: 'assertionMethod',
      cryptosuite: eddsaRdfc2022,
    });
    const broken = bogus({ name: 'eddsa-rdfc-2022', hashData: async () => new Uint8Array(64) });
    await expect(verifyProof(rdfc, { ...base, cryptosuites: [eddsaRdfc2022, broken] })).resolves.toBeDefined();
    await expect(verifyProof(rdfc, { ...base, cryptosuites: [broken, eddsaRdfc2022] })).rejects.toThrow(
      reason('PROOF_SIGNATURE_INVALID'),
    );
  });

  it('createProof refuses an unusable cryptosuite, and a suite whose hash data is not 64 bytes', async () => {
    const options = { ...holder, proofPurpose: 'assertionMethod' };
    await expect(createProof(v2Credential(), { ...options, cryptosuite: bogus({ name: 'x' }) })).rejects.toThrow(
      reason('PROOF_OPTIONS_INVALID'),
    );
    await expect(
      createProof(v2Credential(), {
        ...options,
        cryptosuite: bogus({ name: 'eddsa-jcs-2022', hashData: async () => new Uint8Array(64) }),
      }),
    ).rejects.toThrow(reason('PROOF_OPTIONS_INVALID'));
    const short = bogus({ name: 'eddsa-rdfc-2022', hashData: async () => new Uint8Array(32) });
    await expect(createProof(v2Credential(), { ...options, cryptosuite: short })).rejects.toMatchObject({
      name: 'BytesError',
    });
  });

  it('the suite checks the proof options it hashes (§3.2.5 steps 2–3)', async () => {
    await expect(eddsaRdfc2022.hashData(unsigned, { ...proofOptions, cryptosuite: 'eddsa-jcs-2022' })).rejects.toThrow(
      reason('CRYPTOSUITE_UNSUPPORTED'),
    );
    await expect(eddsaRdfc2022.hashData(unsigned, { ...proofOptions, created: '2023-02-24' })).rejects.toThrow(
      reason('PROOF_MALFORMED'),
    );
    await expect(eddsaRdfc2022.hashData(unsigned, { ...signedDataInt.proof } as ProofOptions)).rejects.toThrow(
      /must not contain "proofValue"/,
    );
  });
});
