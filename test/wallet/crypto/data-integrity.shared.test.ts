import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { sha256 as multiformatsSha256 } from 'multiformats/hashes/sha2';
import { base58btc } from 'multiformats/bases/base58';
import keyPair from '@vectors/w3c-vc-di-eddsa/keyPair.json';
import unsigned from '@vectors/w3c-vc-di-eddsa/unsigned.json';
import proofConfigJCS from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/proofConfigJCS.json';
import signedJCS from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/signedJCS.json';
import canonDocJCS from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/canonDocJCS.txt?raw';
import proofCanonJCS from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/proofCanonJCS.txt?raw';
import docHashJCS from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/docHashJCS.txt?raw';
import proofHashJCS from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/proofHashJCS.txt?raw';
import combinedHashJCS from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/combinedHashJCS.txt?raw';
import sigHexJCS from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/sigHexJCS.txt?raw';
import sigBTC58JCS from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/sigBTC58JCS.txt?raw';
import { bytesToHex, utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { generateSeed, seedSigner, type Signer } from '../../../wallet/crypto/ed25519.ts';
import {
  digestMultibase,
  digestMultibaseUtf8,
  sha256,
  sha256Utf8,
  verifyDigestMultibase,
  verifyDigestSri,
  verifyResourceDigestMultibase,
} from '../../../wallet/crypto/hash.ts';
import { createCanonicalMemo } from '../../../wallet/crypto/canonical-memo.ts';
import { canonicalizeJson } from '../../../wallet/crypto/jcs.ts';
import { parseJson } from '../../../wallet/crypto/json-parse.ts';
import {
  decodeBase58btc,
  decodePrivateKeyMultibase,
  decodePublicKeyMultibase,
  encodeBase58btc,
  encodePublicKeyMultibase,
} from '../../../wallet/crypto/multikey.ts';
import {
  createProof,
  type DataIntegrityProof,
  formatDateTimeStamp,
  hashData,
  type KeyResolver,
  MAX_PROOF_SET_SIZE,
  parseDateTimeStamp,
  proofConfiguration,
  type ProofErrorCode,
  type ProofOptions,
  transformJcs,
  verifyProof,
  type VerifyProofOptions,
} from '../../../wallet/crypto/data-integrity.ts';

// The .txt vectors carry no trailing newline today; trimming keeps the tests honest if one appears.
const text = (raw: string) => raw.trimEnd();
const reason = (c: ProofErrorCode) => expect.objectContaining({ name: 'ProofError', code: c });
const jsonReason = (c: string) => expect.objectContaining({ name: 'JsonError', code: c });
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const vectorSeed = decodePrivateKeyMultibase(keyPair.privateKeyMultibase);
const vectorPublicKey = decodePublicKeyMultibase(keyPair.publicKeyMultibase);
const vectorMethod = signedJCS.proof.verificationMethod;
/** When the W3C vector proof was made; every verification below runs a year later. */
const NOW = new Date('2024-02-24T00:00:00Z');

class UnknownKeyError extends Error {
  override name = 'UnknownKeyError';
}

/** A test KeyResolver: did:key-style verification methods mapped to their keys. */
function resolverFor(...keys: Uint8Array[]): KeyResolver & { calls: Array<[string, string]> } {
  const table = new Map(keys.map((key) => [didKeyMethod(key), key]));
  const calls: Array<[string, string]> = [];
  const resolve = async (verificationMethod: string, proofPurpose: string) => {
    calls.push([verificationMethod, proofPurpose]);
    const key = table.get(verificationMethod);
    if (key === undefined) throw new UnknownKeyError(`unknown verification method ${verificationMethod}`);
    return key;
  };
  return Object.assign(resolve, { calls });
}

function didKeyMethod(publicKey: Uint8Array): string {
  const multibase = encodePublicKeyMultibase(publicKey);
  return `did:key:${multibase}#${multibase}`;
}

function freshKey(): { signer: Signer; method: string } {
  const signer = seedSigner(generateSeed());
  return { signer, method: didKeyMethod(signer.publicKey) };
}

const verifyVector = (document: unknown, options: Partial<VerifyProofOptions> = {}) =>
  verifyProof(document, {
    resolveKey: resolverFor(vectorPublicKey),
    expectedProofPurpose: 'assertionMethod',
    now: NOW,
    ...options,
  });

type Signed = { proof: DataIntegrityProof | DataIntegrityProof[]; [key: string]: unknown };
/** A signed copy of the W3C credential with a fresh key, plus what verifying it needs. */
async function signedCredential(
  overrides: Partial<Parameters<typeof createProof>[1]> = {},
  document: object = unsigned,
) {
  const { signer, method } = freshKey();
  const signed = (await createProof(document, {
    signer,
    verificationMethod: method,
    proofPurpose: 'assertionMethod',
    created: '2024-02-23T12:00:00Z',
    ...overrides,
  })) as unknown as Signed;
  const verifyOptions: VerifyProofOptions = {
    resolveKey: resolverFor(signer.publicKey),
    expectedProofPurpose: String(overrides.proofPurpose ?? 'assertionMethod'),
    now: NOW,
  };
  return { signed, signer, method, verifyOptions };
}

function singleProof(document: Signed): DataIntegrityProof {
  if (Array.isArray(document.proof)) throw new Error('expected a single proof');
  return document.proof;
}

describe('eddsa-jcs-2022: W3C test vectors, byte for byte', () => {
  it('decodes the vector key pair into a signer for the vector public key', () => {
    expect(seedSigner(vectorSeed).publicKey).toEqual(vectorPublicKey);
  });

  it('reproduces every intermediate value (§3.3.3–§3.3.6)', async () => {
    const transformed = transformJcs(unsigned);
    expect(transformed).toBe(text(canonDocJCS));
    const canonicalProofConfig = proofConfiguration(proofConfigJCS as ProofOptions);
    expect(canonicalProofConfig).toBe(text(proofCanonJCS));
    expect(bytesToHex(sha256(utf8ToBytes(transformed)))).toBe(text(docHashJCS));
    expect(bytesToHex(sha256Utf8(canonicalProofConfig))).toBe(text(proofHashJCS));
    // §3.3.4: the proof configuration hash comes first.
    const data = hashData(transformed, canonicalProofConfig);
    expect(bytesToHex(data)).toBe(text(combinedHashJCS));
    const signature = await seedSigner(vectorSeed).sign(data);
    expect(bytesToHex(signature)).toBe(text(sigHexJCS));
    expect(encodeBase58btc(signature)).toBe(text(sigBTC58JCS));
  });

  it('createProof produces signedJCS.json exactly, member order included', async () => {
    const signed = await createProof(unsigned, {
      signer: seedSigner(vectorSeed),
      verificationMethod: proofConfigJCS.verificationMethod,
      proofPurpose: proofConfigJCS.proofPurpose,
      created: proofConfigJCS.created,
    });
    expect(signed).toEqual(signedJCS);
    expect(JSON.stringify(signed)).toBe(JSON.stringify(signedJCS));
    expect(unsigned).not.toHaveProperty('proof'); // the input is left alone
  });

  it('verifies signedJCS.json, resolving the did:key verification method for assertionMethod', async () => {
    const resolveKey = resolverFor(vectorPublicKey);
    const { proofs } = await verifyProof(signedJCS, { resolveKey, expectedProofPurpose: 'assertionMethod', now: NOW });
    expect(resolveKey.calls).toEqual([[vectorMethod, 'assertionMethod']]);
    expect(proofs).toHaveLength(1);
    expect(proofs[0]?.proof).toEqual(signedJCS.proof);
    expect(proofs[0]?.publicKey).toEqual(vectorPublicKey);
    expect(proofs[0]?.created).toEqual(new Date('2023-02-24T23:36:38Z'));
    expect(proofs[0]?.expires).toBeUndefined();
  });

  it('verifies signedJCS.json embedded in a document canonicalized first with the same memo', async () => {
    const document = clone(signedJCS);
    const memo = createCanonicalMemo();
    canonicalizeJson({ verifiableCredential: [document] }, undefined, memo);
    const resolveKey = resolverFor(vectorPublicKey);
    await expect(
      verifyProof(document, { resolveKey, expectedProofPurpose: 'assertionMethod', now: NOW, memo }),
    ).resolves.toBeDefined();
    // A memo only ever stands for the objects it saw: a changed copy is serialized afresh.
    const changed = { ...document, validFrom: '2023-01-01T00:00:01Z' };
    await expect(
      verifyProof(changed, { resolveKey, expectedProofPurpose: 'assertionMethod', now: NOW, memo }),
    ).rejects.toThrow(reason('PROOF_SIGNATURE_INVALID'));
  });

  it('verifies signedJCS.json parsed from text with different whitespace and member order', async () => {
    const { proof, ...rest } = signedJCS;
    const reverse = (o: object) => Object.fromEntries(Object.entries(o).reverse());
    const reordered = JSON.stringify({ proof: reverse(proof), ...reverse(rest) }, null, 3);
    await expect(verifyVector(parseJson(reordered))).resolves.toBeDefined();
  });

  describe('any change to signedJCS.json fails with its reason', () => {
    const tamperings: Array<[string, (doc: typeof signedJCS) => void, ProofErrorCode]> = [
      [
        'one character of a claim',
        (d) => {
          d.credentialSubject.alumniOf = 'The School of Examplez';
        },
        'PROOF_SIGNATURE_INVALID',
      ],
      [
        'the credential name',
        (d) => {
          d.name = 'Alumni credential';
        },
        'PROOF_SIGNATURE_INVALID',
      ],
      [
        'validFrom',
        (d) => {
          d.validFrom = '2023-01-01T00:00:01Z';
        },
        'PROOF_SIGNATURE_INVALID',
      ],
      [
        'an added claim',
        (d) => {
          Object.assign(d.credentialSubject, { degree: 'PhD' });
        },
        'PROOF_SIGNATURE_INVALID',
      ],
      [
        'a removed claim',
        (d) => {
          Reflect.deleteProperty(d, 'description');
        },
        'PROOF_SIGNATURE_INVALID',
      ],
      [
        'the order of types',
        (d) => {
          d.type.reverse();
        },
        'PROOF_SIGNATURE_INVALID',
      ],
      [
        'the proof created time (earlier)',
        (d) => {
          d.proof.created = '2023-02-24T23:36:37Z';
        },
        'PROOF_SIGNATURE_INVALID',
      ],
      [
        'the proof created time (same instant, other zone)',
        (d) => {
          d.proof.created = '2023-02-25T00:36:38+01:00';
        },
        'PROOF_SIGNATURE_INVALID',
      ],
      [
        'the proof created time (future)',
        (d) => {
          d.proof.created = '2030-01-01T00:00:00Z';
        },
        'PROOF_NOT_YET_VALID',
      ],
      [
        'the cryptosuite name',
        (d) => {
          d.proof.cryptosuite = 'eddsa-rdfc-2022';
        },
        'CRYPTOSUITE_UNSUPPORTED',
      ],
      [
        'the cryptosuite name (one letter)',
        (d) => {
          d.proof.cryptosuite = 'eddsa-jcs-2023';
        },
        'CRYPTOSUITE_UNSUPPORTED',
      ],
      [
        'the proof type',
        (d) => {
          d.proof.type = 'Ed25519Signature2020';
        },
        'CRYPTOSUITE_UNSUPPORTED',
      ],
      [
        'the proof purpose',
        (d) => {
          d.proof.proofPurpose = 'authentication';
        },
        'PROOF_PURPOSE_MISMATCH',
      ],
      [
        'the proof @context',
        (d) => {
          d.proof['@context'] = [d.proof['@context'][0] as string];
        },
        'PROOF_SIGNATURE_INVALID',
      ],
      [
        'the document @context',
        (d) => {
          d['@context'] = [d['@context'][0] as string, 'https://example.org/other/v1'];
        },
        'PROOF_CONTEXT_MISMATCH',
      ],
      [
        'an added proof member',
        (d) => {
          Object.assign(d.proof, { nonce: 'abc' });
        },
        'PROOF_SIGNATURE_INVALID',
      ],
      [
        'the proofValue encoding',
        (d) => {
          d.proof.proofValue = `u${d.proof.proofValue.slice(1)}`;
        },
        'PROOF_MALFORMED',
      ],
    ];
    for (const [what, tamper, expected] of tamperings) {
      it(`${what} → ${expected}`, async () => {
        const document = clone(signedJCS);
        tamper(document);
        await expect(verifyVector(document)).rejects.toThrow(reason(expected));
      });
    }

    it('any single flipped signature byte → PROOF_SIGNATURE_INVALID', async () => {
      const signature = decodeBase58btc(signedJCS.proof.proofValue);
      for (const index of [0, 31, 32, 63]) {
        const flipped = Uint8Array.from(signature);
        flipped[index] = (flipped[index] as number) ^ 0x01;
        const document = clone(signedJCS);
        document.proof.proofValue = encodeBase58btc(flipped);
        await expect(verifyVector(document)).rejects.toThrow(reason('PROOF_SIGNATURE_INVALID'));
      }
    });

    it('another key for the same verification method → PROOF_SIGNATURE_INVALID', async () => {
      const otherKey = seedSigner(generateSeed()).publicKey;
      const resolveKey: KeyResolver = async () => otherKey;
      await expect(verifyVector(signedJCS, { resolveKey })).rejects.toThrow(reason('PROOF_SIGNATURE_INVALID'));
    });
  });
});

describe('createProof and verifyProof round trip', () => {
  it('signs any JSON object and verifies it; the result is a deep copy', async () => {
    const document = {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      claims: { scopes: ['read', 'write'], limit: 1.5 },
      ünïcode: '😀',
    };
    const { signed, verifyOptions, method } = await signedCredential({}, document);
    const proof = singleProof(signed);
    expect(proof).toMatchObject({
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-jcs-2022',
      verificationMethod: method,
      proofPurpose: 'assertionMethod',
      '@context': document['@context'],
    });
    expect(decodeBase58btc(proof.proofValue)).toHaveLength(64);
    document.claims.scopes.push('admin'); // mutating the input afterwards changes nothing signed
    expect(signed.claims).toEqual({ scopes: ['read', 'write'], limit: 1.5 });
    await expect(verifyProof(signed, verifyOptions)).resolves.toMatchObject({ proofs: [{ proof }] });
  });

  it('defaults created to now, to the second', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const { signed } = await signedCredential({ created: undefined });
    const created = singleProof(signed).created as string;
    expect(created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(created)).toBeGreaterThanOrEqual(before);
  });

  it('accepts Date values for created and expires', async () => {
    const { signed, verifyOptions } = await signedCredential({
      created: new Date('2024-02-23T12:00:00.250Z'),
      expires: new Date('2025-01-01T00:00:00Z'),
    });
    expect(singleProof(signed)).toMatchObject({ created: '2024-02-23T12:00:00.250Z', expires: '2025-01-01T00:00:00Z' });
    const { proofs } = await verifyProof(signed, verifyOptions);
    expect(proofs[0]?.expires).toEqual(new Date('2025-01-01T00:00:00Z'));
  });

  it('signs documents without @context, and then the proof has none', async () => {
    const { signed, verifyOptions } = await signedCredential({}, { hello: 'world' });
    expect(singleProof(signed)).not.toHaveProperty('@context');
    await expect(verifyProof(signed, verifyOptions)).resolves.toBeDefined();
  });
});

describe('proof sets (VC Data Integrity §4.3, §4.5)', () => {
  async function twoProofs() {
    const a = freshKey();
    const b = freshKey();
    const once = await createProof(unsigned, {
      signer: a.signer,
      verificationMethod: a.method,
      proofPurpose: 'assertionMethod',
      created: '2024-01-01T00:00:00Z',
    });
    const twice = (await createProof(once, {
      signer: b.signer,
      verificationMethod: b.method,
      proofPurpose: 'assertionMethod',
      created: '2024-01-02T00:00:00Z',
    })) as unknown as Signed;
    const resolveKey = resolverFor(a.signer.publicKey, b.signer.publicKey);
    return {
      twice,
      a,
      b,
      options: { resolveKey, expectedProofPurpose: 'assertionMethod', now: NOW } satisfies VerifyProofOptions,
    };
  }

  it('appends to an existing proof and verifies every proof of the set', async () => {
    const { twice, a, b, options } = await twoProofs();
    expect(Array.isArray(twice.proof)).toBe(true);
    const { proofs } = await verifyProof(twice, options);
    expect(proofs.map((p) => p.proof.verificationMethod)).toEqual([a.method, b.method]);
    expect(options.resolveKey.calls.map(([method]) => method)).toEqual([a.method, b.method]);
  });

  it('each proof signs the document without the other proofs: order does not matter', async () => {
    const { twice, options } = await twoProofs();
    const proofs = twice.proof as DataIntegrityProof[];
    await expect(verifyProof({ ...twice, proof: [...proofs].reverse() }, options)).resolves.toBeDefined();
    await expect(verifyProof({ ...twice, proof: proofs[1] }, options)).resolves.toBeDefined();
  });

  it('one bad proof fails the whole set, with its position', async () => {
    const { twice, options } = await twoProofs();
    const tampered = clone(twice);
    const second = (tampered.proof as DataIntegrityProof[])[1] as DataIntegrityProof;
    second.created = '2024-01-02T00:00:01Z';
    await expect(verifyProof(tampered, options)).rejects.toThrow(reason('PROOF_SIGNATURE_INVALID'));
    await expect(verifyProof(tampered, options)).rejects.toThrow(/proof 2 of 2/);
    const otherSuite = clone(twice);
    ((otherSuite.proof as DataIntegrityProof[])[0] as { cryptosuite: string }).cryptosuite = 'ecdsa-jcs-2019';
    await expect(verifyProof(otherSuite, options)).rejects.toThrow(reason('CRYPTOSUITE_UNSUPPORTED'));
  });

  it('PROOF_MALFORMED before any key is resolved: more than MAX_PROOF_SET_SIZE proofs, or one proofValue twice (each would cost a signature check)', async () => {
    const { twice, options } = await twoProofs();
    const [first, second] = twice.proof as DataIntegrityProof[];
    const repeated = {
      ...twice,
      proof: [first, second, { ...(first as DataIntegrityProof), created: '2024-01-05T00:00:00Z' }],
    };
    await expect(verifyProof(repeated, options)).rejects.toThrow(/each with its own proofValue/);
    const many = await Array.from({ length: MAX_PROOF_SET_SIZE - 1 }).reduce<Promise<Signed>>(
      async (doc, _, i) => {
        const k = freshKey();
        return await createProof(await doc, {
          signer: k.signer,
          verificationMethod: k.method,
          proofPurpose: 'assertionMethod',
          created: `2024-02-0${i + 1}T00:00:00Z`,
        });
      },
      Promise.resolve(clone(twice)),
    );
    expect((many.proof as DataIntegrityProof[]).length).toBe(MAX_PROOF_SET_SIZE + 1);
    await expect(verifyProof(many, options)).rejects.toThrow(reason('PROOF_MALFORMED'));
    await expect(verifyProof(many, options)).rejects.toThrow(`a proof set holds at most ${MAX_PROOF_SET_SIZE} proofs`);
    expect(options.resolveKey.calls).toEqual([]);
  });

  it('checks every proof locally before resolving any key', async () => {
    const { twice, options } = await twoProofs();
    const tampered = clone(twice);
    ((tampered.proof as DataIntegrityProof[])[1] as DataIntegrityProof).proofPurpose = 'capabilityInvocation';
    await expect(verifyProof(tampered, options)).rejects.toThrow(reason('PROOF_PURPOSE_MISMATCH'));
    expect(options.resolveKey.calls).toEqual([]);
  });

  it('previousProof must name a proof of the set', async () => {
    const { twice, options } = await twoProofs();
    const proofs = twice.proof as DataIntegrityProof[];
    // previousProof is part of the signed proof configuration, so build valid proofs that use it.
    const a = freshKey();
    const first = singleProof(
      await createProof(unsigned, {
        signer: a.signer,
        verificationMethod: a.method,
        proofPurpose: 'assertionMethod',
        created: '2024-01-03T00:00:00Z',
      }),
    );
    const dangling = { ...twice, proof: [...proofs, { ...first, previousProof: 'urn:uuid:no-such-proof' }] };
    await expect(verifyProof(dangling, options)).rejects.toThrow(reason('PROOF_MALFORMED'));
  });
});

describe('proof chains (VC Data Integrity §4.3 step 3, §4.5 steps 3.2–3.3)', () => {
  async function chain() {
    const a = freshKey();
    const b = freshKey();
    const first = await createProof(unsigned, {
      signer: a.signer,
      verificationMethod: a.method,
      proofPurpose: 'assertionMethod',
      id: 'urn:uuid:5f4e0c1a-6e4f-4d7b-9a55-0a1b2c3d4e5f',
      created: '2024-01-01T00:00:00Z',
    });
    const chained = (await createProof(first, {
      signer: b.signer,
      verificationMethod: b.method,
      proofPurpose: 'assertionMethod',
      previousProof: 'urn:uuid:5f4e0c1a-6e4f-4d7b-9a55-0a1b2c3d4e5f',
      created: '2024-01-02T00:00:00Z',
    })) as unknown as Signed;
    const resolveKey = resolverFor(a.signer.publicKey, b.signer.publicKey);
    return { chained, options: { resolveKey, expectedProofPurpose: 'assertionMethod', now: NOW } };
  }

  it('a chained proof signs the document with the proofs its previousProof names, and verifies so', async () => {
    const { chained, options } = await chain();
    const [first, second] = chained.proof as DataIntegrityProof[];
    expect(first?.id).toBe('urn:uuid:5f4e0c1a-6e4f-4d7b-9a55-0a1b2c3d4e5f');
    expect(second?.previousProof).toBe(first?.id);
    await expect(verifyProof(chained, options)).resolves.toMatchObject({ proofs: [{}, {}] });
    // Order does not matter (a set); the link does: the chained proof alone, or over the bare
    // document, is not what was signed.
    await expect(verifyProof({ ...chained, proof: [second, first] }, options)).resolves.toBeDefined();
    const { previousProof: _previous, ...unlinked } = second as DataIntegrityProof;
    await expect(verifyProof({ ...chained, proof: [first, unlinked] }, options)).rejects.toThrow(
      reason('PROOF_SIGNATURE_INVALID'),
    );
    // An earlier proof changed after the chain was made breaks both.
    const changed = { ...(first as DataIntegrityProof), created: '2024-01-01T00:00:01Z' };
    await expect(verifyProof({ ...chained, proof: [changed, second] }, options)).rejects.toThrow(
      reason('PROOF_SIGNATURE_INVALID'),
    );
  });

  it('previousProof naming no proof: PROOF_OPTIONS_INVALID when creating, PROOF_MALFORMED when verifying', async () => {
    const k = freshKey();
    const once = await createProof(unsigned, {
      signer: k.signer,
      verificationMethod: k.method,
      proofPurpose: 'assertionMethod',
    });
    await expect(
      createProof(once, {
        signer: k.signer,
        verificationMethod: k.method,
        proofPurpose: 'assertionMethod',
        previousProof: ['urn:uuid:no-such-proof'],
      }),
    ).rejects.toThrow(reason('PROOF_OPTIONS_INVALID'));
    const { chained, options } = await chain();
    const [first, second] = chained.proof as DataIntegrityProof[];
    const dangling = { ...chained, proof: [first, { ...second, previousProof: ['urn:uuid:no-such-proof'] }] };
    await expect(verifyProof(dangling, options)).rejects.toThrow(/names no proof of the proof set/);
  });
});

describe('validity window: created and expires', () => {
  const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

  it('PROOF_NOT_YET_VALID: created later than now plus the clock skew (60 s default)', async () => {
    const future = await signedCredential({ created: at(120_000) });
    await expect(verifyProof(future.signed, future.verifyOptions)).rejects.toThrow(reason('PROOF_NOT_YET_VALID'));
    const withinSkew = await signedCredential({ created: at(30_000) });
    await expect(verifyProof(withinSkew.signed, withinSkew.verifyOptions)).resolves.toBeDefined();
    await expect(verifyProof(withinSkew.signed, { ...withinSkew.verifyOptions, clockSkewMs: 0 })).rejects.toThrow(
      reason('PROOF_NOT_YET_VALID'),
    );
  });

  it('PROOF_EXPIRED: now later than expires plus the clock skew', async () => {
    const expired = await signedCredential({ created: at(-86_400_000), expires: at(-120_000) });
    await expect(verifyProof(expired.signed, expired.verifyOptions)).rejects.toThrow(reason('PROOF_EXPIRED'));
    const withinSkew = await signedCredential({ created: at(-86_400_000), expires: at(-30_000) });
    await expect(verifyProof(withinSkew.signed, withinSkew.verifyOptions)).resolves.toBeDefined();
    await expect(verifyProof(withinSkew.signed, { ...withinSkew.verifyOptions, clockSkewMs: 0 })).rejects.toThrow(
      reason('PROOF_EXPIRED'),
    );
    await expect(
      verifyProof(withinSkew.signed, { ...withinSkew.verifyOptions, now: at(-3_600_000) }),
    ).resolves.toBeDefined();
  });

  it('times with a zone offset compare as instants', async () => {
    // 30 minutes before NOW, written in UTC+01:00 (it would be in the future if read as UTC)…
    const { signed, verifyOptions } = await signedCredential({ created: '2024-02-24T00:30:00+01:00' });
    await expect(verifyProof(signed, verifyOptions)).resolves.toBeDefined();
    // …and 30 minutes after NOW, written in UTC-01:00 (in the past if read as UTC).
    const { signed: late } = await signedCredential({ created: '2024-02-23T23:30:00-01:00' });
    await expect(verifyProof(late, verifyOptions)).rejects.toThrow(reason('PROOF_NOT_YET_VALID'));
  });
});

describe('challenge and domain', () => {
  async function authenticationProof(extra: { challenge?: string; domain?: string | string[] }) {
    return signedCredential(
      { proofPurpose: 'authentication', ...extra },
      { type: 'VerifiablePresentation', holder: 'did:example:holder' },
    );
  }

  it('verifies an authentication proof bound to the expected challenge and domain', async () => {
    const { signed, verifyOptions } = await authenticationProof({ challenge: 'c-123', domain: 'verifier.example' });
    expect(singleProof(signed)).toMatchObject({ challenge: 'c-123', domain: 'verifier.example' });
    await expect(
      verifyProof(signed, { ...verifyOptions, expectedChallenge: 'c-123', expectedDomain: 'verifier.example' }),
    ).resolves.toBeDefined();
  });

  it('CHALLENGE_MISMATCH: a different or missing challenge', async () => {
    const { signed, verifyOptions } = await authenticationProof({ challenge: 'c-123' });
    await expect(verifyProof(signed, { ...verifyOptions, expectedChallenge: 'c-124' })).rejects.toThrow(
      reason('CHALLENGE_MISMATCH'),
    );
    const none = await authenticationProof({});
    await expect(verifyProof(none.signed, { ...none.verifyOptions, expectedChallenge: 'c-123' })).rejects.toThrow(
      reason('CHALLENGE_MISMATCH'),
    );
  });

  it('DOMAIN_MISMATCH: the proof domain set must equal the expected set', async () => {
    const { signed, verifyOptions } = await authenticationProof({ challenge: 'c', domain: ['a.example', 'b.example'] });
    const options = { ...verifyOptions, expectedChallenge: 'c' };
    await expect(
      verifyProof(signed, { ...options, expectedDomain: ['b.example', 'a.example'] }),
    ).resolves.toBeDefined();
    await expect(verifyProof(signed, { ...options, expectedDomain: 'a.example' })).rejects.toThrow(
      reason('DOMAIN_MISMATCH'),
    );
    await expect(verifyProof(signed, { ...options, expectedDomain: 'c.example' })).rejects.toThrow(
      reason('DOMAIN_MISMATCH'),
    );
    const none = await authenticationProof({ challenge: 'c' });
    await expect(
      verifyProof(none.signed, { ...none.verifyOptions, expectedChallenge: 'c', expectedDomain: 'a.example' }),
    ).rejects.toThrow(reason('DOMAIN_MISMATCH'));
  });

  it('PROOF_OPTIONS_INVALID: verifying authentication without an expected challenge', async () => {
    const { signed, verifyOptions } = await authenticationProof({ challenge: 'c' });
    await expect(verifyProof(signed, verifyOptions)).rejects.toThrow(reason('PROOF_OPTIONS_INVALID'));
  });
});

describe('@context binding (EdDSA §3.3.2 step 4)', () => {
  const V2 = 'https://www.w3.org/ns/credentials/v2';
  const EXTRA = 'https://example.org/extra/v1';

  it('a proof made before the document @context was extended still verifies', async () => {
    const { signed, verifyOptions } = await signedCredential({}, { '@context': [V2], id: 'urn:uuid:1' });
    const extended = { ...signed, '@context': [V2, EXTRA] };
    await expect(verifyProof(extended, verifyOptions)).resolves.toBeDefined();
  });

  it('PROOF_CONTEXT_MISMATCH: the document @context does not start with the proof @context', async () => {
    const { signed, verifyOptions } = await signedCredential({}, { '@context': [V2, EXTRA], id: 'urn:uuid:1' });
    await expect(verifyProof({ ...signed, '@context': [EXTRA, V2] }, verifyOptions)).rejects.toThrow(
      reason('PROOF_CONTEXT_MISMATCH'),
    );
    await expect(verifyProof({ ...signed, '@context': [V2] }, verifyOptions)).rejects.toThrow(
      reason('PROOF_CONTEXT_MISMATCH'),
    );
    const { '@context': _context, ...withoutContext } = signed;
    await expect(verifyProof(withoutContext, verifyOptions)).rejects.toThrow(reason('PROOF_CONTEXT_MISMATCH'));
  });

  it('string and embedded-object contexts are compared by value', async () => {
    const single = await signedCredential({}, { '@context': V2, id: 'urn:uuid:1' });
    expect(singleProof(single.signed)['@context']).toBe(V2);
    await expect(verifyProof(single.signed, single.verifyOptions)).resolves.toBeDefined();
    // The proof says "V2" but the document now says ["V2"]: a prefix, so the document is
    // hashed under the proof's string form — which is what was signed.
    await expect(verifyProof({ ...single.signed, '@context': [V2] }, single.verifyOptions)).resolves.toBeDefined();
    const embedded = await signedCredential({}, { '@context': [V2, { ex: 'https://example.org/#' }], ex: 1 });
    await expect(verifyProof(clone(embedded.signed), embedded.verifyOptions)).resolves.toBeDefined();
    const changed = clone(embedded.signed);
    (changed['@context'] as unknown[])[1] = { ex: 'https://evil.example/#' };
    await expect(verifyProof(changed, embedded.verifyOptions)).rejects.toThrow(reason('PROOF_CONTEXT_MISMATCH'));
  });
});

describe('reason codes for malformed input', () => {
  it('PROOF_MISSING: not an object, no proof, or an empty proof set', async () => {
    for (const document of [null, 'text', [signedJCS], 42, { ...unsigned }, { ...unsigned, proof: [] }]) {
      await expect(verifyVector(document)).rejects.toThrow(reason('PROOF_MISSING'));
    }
  });

  it('PROOF_MALFORMED: a proofValue longer than any 64-byte signature, refused before decoding it', async () => {
    const document = structuredClone(signedJCS) as { proof: { proofValue: string } };
    document.proof.proofValue = `z${'2'.repeat(50_000)}`; // base58 decoding is quadratic: ~1 s of CPU if decoded
    await expect(verifyVector(document)).rejects.toThrow(
      expect.objectContaining({
        code: 'PROOF_MALFORMED',
        cause: expect.objectContaining({ message: 'proofValue is longer than 88 base58 digits' }),
      }),
    );
  });

  it('PROOF_MALFORMED: missing or ill-typed members', async () => {
    const mutations: Array<(proof: Record<string, unknown>) => void> = [
      (p) => {
        delete p.verificationMethod;
      },
      (p) => {
        p.verificationMethod = 'not a url';
      },
      (p) => {
        p.proofPurpose = 7;
      },
      (p) => {
        p.proofPurpose = '';
      },
      (p) => {
        delete p.proofValue;
      },
      (p) => {
        p.proofValue = 'z0OIl';
      }, // outside the base58btc alphabet
      (p) => {
        p.proofValue = encodeBase58btc(new Uint8Array(63));
      },
      (p) => {
        p.proofValue = encodeBase58btc(new Uint8Array(65));
      },
      (p) => {
        p.created = 'yesterday';
      },
      (p) => {
        p.created = '2023-02-24T23:36:38';
      }, // no timezone
      (p) => {
        p.created = '2023-02-29T00:00:00Z';
      }, // not a leap year
      (p) => {
        p.expires = '2023-02-24T24:00:00Z';
      },
      (p) => {
        p.expires = 1700000000;
      },
      (p) => {
        p.challenge = 1;
      },
      (p) => {
        p.nonce = ['n'];
      },
      (p) => {
        p.domain = [];
      },
      (p) => {
        p.domain = ['a', 2];
      },
      (p) => {
        p.id = 'proof-1';
      },
      (p) => {
        p.previousProof = {};
      },
      (p) => {
        p.type = 1;
      },
    ];
    for (const mutate of mutations) {
      const document = clone(signedJCS) as unknown as { proof: Record<string, unknown> };
      mutate(document.proof);
      await expect(verifyVector(document)).rejects.toThrow(reason('PROOF_MALFORMED'));
    }
    await expect(verifyVector({ ...signedJCS, proof: 'z123' })).rejects.toThrow(reason('PROOF_MALFORMED'));
    await expect(verifyVector({ ...signedJCS, proof: [signedJCS.proof, null] })).rejects.toThrow(
      reason('PROOF_MALFORMED'),
    );
  });

  it('proofConfiguration refuses other suites, bad created values and a proofValue (§3.3.5)', () => {
    const options = proofConfigJCS as ProofOptions;
    expect(() => proofConfiguration({ ...options, cryptosuite: 'x' } as unknown as ProofOptions)).toThrow(
      reason('CRYPTOSUITE_UNSUPPORTED'),
    );
    expect(() => proofConfiguration({ ...options, created: '2023-13-01T00:00:00Z' })).toThrow(
      reason('PROOF_MALFORMED'),
    );
    expect(() => proofConfiguration({ ...options, proofValue: 'z1' } as ProofOptions)).toThrow(
      reason('PROOF_MALFORMED'),
    );
  });

  it('JSON boundary errors in the document or the proof propagate as JsonError', async () => {
    const polluted = parseJsonUnchecked(
      JSON.stringify(signedJCS).replace('"name":', '"__proto__":{"admin":true},"name":'),
    );
    await expect(verifyVector(polluted)).rejects.toThrow(jsonReason('JSON_UNSAFE_KEY'));
    await expect(verifyVector({ ...clone(signedJCS), score: Number.NaN })).rejects.toThrow(
      jsonReason('JSON_NON_FINITE'),
    );
    await expect(verifyVector({ ...clone(signedJCS), when: new Date() })).rejects.toThrow(
      jsonReason('JSON_UNSUPPORTED_VALUE'),
    );
    await expect(verifyVector(signedJCS, { limits: { maxBytes: 200 } })).rejects.toThrow(jsonReason('JSON_TOO_LARGE'));
    await expect(verifyVector({ ...clone(signedJCS), deep: [[[[1]]]] }, { limits: { maxDepth: 3 } })).rejects.toThrow(
      jsonReason('JSON_TOO_DEEP'),
    );
    const badProof = clone(signedJCS);
    Object.assign(badProof.proof, { note: 'x\ud800' });
    await expect(verifyVector(badProof)).rejects.toThrow(jsonReason('JSON_LONE_SURROGATE'));
  });

  it('key resolver errors propagate unchanged, and only after local checks pass', async () => {
    const failure = new UnknownKeyError('did resolution failed');
    const resolveKey = vi.fn<KeyResolver>(async () => {
      throw failure;
    });
    await expect(verifyVector(signedJCS, { resolveKey })).rejects.toBe(failure);
    resolveKey.mockClear();
    await expect(
      verifyVector(signedJCS, { resolveKey, expectedProofPurpose: 'authentication', expectedChallenge: 'c' }),
    ).rejects.toThrow(reason('PROOF_PURPOSE_MISMATCH'));
    expect(resolveKey).not.toHaveBeenCalled();
  });

  it('PROOF_OPTIONS_INVALID: unusable verify options', async () => {
    const bad: Array<Partial<VerifyProofOptions>> = [
      { resolveKey: undefined },
      { expectedProofPurpose: '' },
      { now: new Date(Number.NaN) },
      { clockSkewMs: -1 },
      { clockSkewMs: Number.POSITIVE_INFINITY },
      { expectedDomain: [] },
      { expectedChallenge: 5 as unknown as string },
    ];
    for (const options of bad)
      await expect(verifyVector(signedJCS, options)).rejects.toThrow(reason('PROOF_OPTIONS_INVALID'));
  });

  it('PROOF_OPTIONS_INVALID: unusable create options', async () => {
    const { signer, method } = freshKey();
    const base = { signer, verificationMethod: method, proofPurpose: 'assertionMethod' };
    const bad: Array<[object, Partial<Parameters<typeof createProof>[1]>]> = [
      [unsigned, { verificationMethod: 'key-1' }],
      [unsigned, { proofPurpose: '' }],
      [unsigned, { created: '2024-01-01' }],
      [unsigned, { expires: new Date(Number.NaN) }],
      [unsigned, { challenge: 1 as unknown as string }],
      [unsigned, { domain: [] }],
      [unsigned, { signer: {} as Signer }],
      [[1, 2], {}],
      [{ ...unsigned, proof: 'z123' }, {}],
    ];
    for (const [document, options] of bad) {
      await expect(createProof(document, { ...base, ...options })).rejects.toThrow(reason('PROOF_OPTIONS_INVALID'));
    }
  });

  it('createProof refuses unsafe JSON and a signer that returns a wrong-sized signature', async () => {
    const { signer, method } = freshKey();
    const base = { signer, verificationMethod: method, proofPurpose: 'assertionMethod' };
    await expect(createProof({ a: undefined }, base)).rejects.toThrow(jsonReason('JSON_UNSUPPORTED_VALUE'));
    await expect(createProof(JSON.parse('{"constructor":{}}') as object, base)).rejects.toThrow(
      jsonReason('JSON_UNSAFE_KEY'),
    );
    const short: Signer = { publicKey: signer.publicKey, sign: async () => new Uint8Array(63) };
    await expect(createProof(unsigned, { ...base, signer: short })).rejects.toThrow(
      expect.objectContaining({ code: 'INVALID_BYTES' }),
    );
  });
});

describe('XML Schema dateTimeStamp', () => {
  it('parses UTC and offset forms to instants', () => {
    expect(parseDateTimeStamp('2023-02-24T23:36:38Z')).toBe(Date.UTC(2023, 1, 24, 23, 36, 38));
    expect(parseDateTimeStamp('2023-02-25T00:36:38+01:00')).toBe(Date.UTC(2023, 1, 24, 23, 36, 38));
    expect(parseDateTimeStamp('2023-02-24T13:36:38.5-10:00')).toBe(Date.UTC(2023, 1, 24, 23, 36, 38, 500));
    expect(parseDateTimeStamp('2024-02-29T00:00:00.123456Z')).toBe(Date.UTC(2024, 1, 29, 0, 0, 0, 123));
    expect(parseDateTimeStamp('0099-01-01T00:00:00Z')).toBe(new Date('0099-01-01T00:00:00Z').getTime());
    expect(parseDateTimeStamp('2023-01-01T00:00:00+14:00')).toBe(Date.UTC(2022, 11, 31, 10));
  });

  it('agrees with Date on every day of years 0–9999, leap days and month ends included', () => {
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        (date, offset) => {
          const local = new Date(date.getTime() + offset * 60_000);
          const zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60), 2)}:${pad(Math.abs(offset) % 60, 2)}`;
          const text = `${pad(local.getUTCFullYear(), 4)}-${local.toISOString().slice(-19, -1)}${zone}`;
          if (local.getUTCFullYear() < 0 || local.getUTCFullYear() > 9999) return;
          expect(parseDateTimeStamp(text)).toBe(date.getTime());
        },
      ),
      { numRuns: 2000 },
    );
    for (const leap of ['0000-02-29', '0400-02-29', '2000-02-29', '2024-02-29'])
      expect(parseDateTimeStamp(`${leap}T12:00:00Z`)).toBe(new Date(`${leap}T12:00:00Z`).getTime());
    for (const notLeap of [
      '0100-02-29',
      '1900-02-29',
      '2023-02-29',
      '2023-04-31',
      '2023-06-31',
      '2023-09-31',
      '2023-11-31',
      '2023-12-32',
    ]) {
      expect(parseDateTimeStamp(`${notLeap}T12:00:00Z`)).toBeUndefined();
    }
    for (const monthEnd of [
      '2023-01-31',
      '2023-03-31',
      '2023-05-31',
      '2023-07-31',
      '2023-08-31',
      '2023-10-31',
      '2023-12-31',
      '2023-04-30',
    ]) {
      expect(parseDateTimeStamp(`${monthEnd}T12:00:00Z`)).toBe(new Date(`${monthEnd}T12:00:00Z`).getTime());
    }
  });

  it('refuses anything else', () => {
    for (const value of [
      '2023-02-24T23:36:38',
      '2023-02-24 23:36:38Z',
      '2023-02-24T23:36Z',
      '2023-2-24T23:36:38Z',
      '2023-02-24T23:36:38z',
      '2023-02-30T00:00:00Z',
      '2023-00-01T00:00:00Z',
      '2023-01-01T24:00:00Z',
      '2023-01-01T00:60:00Z',
      '2023-01-01T00:00:60Z',
      '2023-01-01T00:00:00+14:30',
      '2023-01-01T00:00:00+15:00',
      '2023-01-01T00:00:00+0100',
      '+2023-01-01T00:00:00Z',
      ' 2023-01-01T00:00:00Z',
      20230101,
      undefined,
    ]) {
      expect(parseDateTimeStamp(value)).toBeUndefined();
    }
  });

  it('formats Dates as UTC dateTimeStamps, with milliseconds only when present', () => {
    expect(formatDateTimeStamp(new Date('2023-02-24T23:36:38Z'))).toBe('2023-02-24T23:36:38Z');
    expect(formatDateTimeStamp(new Date('2023-02-24T23:36:38.25Z'))).toBe('2023-02-24T23:36:38.250Z');
  });
});

describe('SHA-256 and digestMultibase (VC DM 2.0 §5.3)', () => {
  it('hashes (FIPS 180-4 test vector)', () => {
    expect(bytesToHex(sha256(utf8ToBytes('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(bytesToHex(sha256(new Uint8Array(0)))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(() => sha256('abc' as unknown as Uint8Array)).toThrow(expect.objectContaining({ code: 'INVALID_BYTES' }));
  });

  it('gives the same digests as noble-hashes whichever backend runs (native in Node)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.nat(16), (bytes, offset) => {
        const view = bytes.subarray(Math.min(offset, bytes.length));
        const digest = sha256(view);
        expect(digest).toEqual(nobleSha256(view));
        expect(digest).toBeInstanceOf(Uint8Array);
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 500 }), (value) => {
        expect(sha256Utf8(value)).toEqual(nobleSha256(utf8ToBytes(value)));
      }),
      { numRuns: 200 },
    );
  });

  it('encodes the sha2-256 multihash as base58btc (default) or base64url, as multiformats does', async () => {
    const resource = utf8ToBytes('{"@context":"https://www.w3.org/ns/credentials/v2"}');
    const multihash = (await multiformatsSha256.digest(resource)).bytes;
    expect(digestMultibase(resource)).toBe(base58btc.encode(multihash));
    expect(digestMultibase(resource)).toMatch(/^zQm/);
    expect(digestMultibase(resource, 'base64url')).toMatch(/^uEi/);
  });

  it('digests text as its UTF-8 bytes, in either encoding', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (value) => {
        expect(digestMultibaseUtf8(value)).toBe(digestMultibase(utf8ToBytes(value)));
        expect(digestMultibaseUtf8(value, 'base64url')).toBe(digestMultibase(utf8ToBytes(value), 'base64url'));
      }),
      { numRuns: 100 },
    );
  });

  it('verifies digests in either encoding and rejects everything else without throwing', () => {
    const resource = utf8ToBytes('resource');
    expect(verifyDigestMultibase(resource, digestMultibase(resource))).toBe(true);
    expect(verifyDigestMultibase(resource, digestMultibase(resource, 'base64url'))).toBe(true);
    expect(verifyDigestMultibase(utf8ToBytes('resourcE'), digestMultibase(resource))).toBe(false);
    const other = digestMultibase(utf8ToBytes('other'));
    const overlong = `z${'1'.repeat(50_000)}${digestMultibase(resource).slice(1)}`; // leading zero digits: too long for a sha2-256 multihash
    for (const digest of [
      other,
      '',
      'z',
      'zz0',
      overlong,
      'm' + digestMultibase(resource).slice(1),
      encodeBase58btc(sha256(resource)),
      42 as unknown as string,
    ]) {
      expect(verifyDigestMultibase(resource, digest)).toBe(false);
    }
  });

  it('related resources (VC DM 2.0 §5.3): SRI and both digestMultibase notations, checked against independent hashes', async () => {
    const resource = utf8ToBytes('{"@context": {}}');
    const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
    const b64url = (bytes: Uint8Array) => b64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    // WebCrypto computes the expected digests: an implementation independent of ours.
    const digest = async (name: string) => new Uint8Array(await crypto.subtle.digest(name, resource));
    const [d256, d384, d512] = (await Promise.all(['SHA-256', 'SHA-384', 'SHA-512'].map(digest))) as [
      Uint8Array,
      Uint8Array,
      Uint8Array,
    ];
    for (const sri of [`sha256-${b64(d256)}`, `sha384-${b64(d384)}`, `sha512-${b64(d512)}`])
      expect(verifyDigestSri(resource, sri), sri).toBe(true);
    for (const sri of [
      `sha384-${b64(d256)}`,
      `sha384-${b64url(d384)}x`,
      `md5-${b64(d256)}`,
      'sha256-',
      `sha256-${b64(d256)}!`,
      7,
    ])
      expect(verifyDigestSri(resource, sri), String(sri)).toBe(false);
    // The bare digest (as the W3C suite writes it), and the multihash (VC Data Integrity §2.6), in base64url and base58btc.
    for (const value of [
      `u${b64url(d256)}`,
      `u${b64url(d384)}`,
      digestMultibase(resource),
      digestMultibase(resource, 'base64url'),
      encodeBase58btc(d256),
      `u${b64url(Uint8Array.of(0x20, 48, ...d384))}`,
    ]) {
      expect(verifyResourceDigestMultibase(resource, value), value).toBe(true);
    }
    for (const value of [
      `u${b64url(d512)}`,
      `u${b64url(d256.slice(1))}`,
      `u${b64url(Uint8Array.of(0x12, 32, ...d384.slice(0, 32)))}`,
      digestMultibase(utf8ToBytes('other')),
      'x',
      '',
      null,
    ]) {
      expect(verifyResourceDigestMultibase(resource, value), String(value)).toBe(false);
    }
  });
});

/** JSON.parse without the boundary checks: builds the hostile objects an attacker could send. */
function parseJsonUnchecked(textValue: string): unknown {
  return JSON.parse(textValue) as unknown;
}
