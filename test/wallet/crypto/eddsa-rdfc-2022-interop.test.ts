// Mandate ⇄ Digital Bazaar interop for eddsa-rdfc-2022 (EdDSA §3.2), both ways: what Digital
// Bazaar's @digitalbazaar/eddsa-rdfc-2022-cryptosuite signs, Mandate's verifyProof accepts, and
// what Mandate's createProof signs, Digital Bazaar's vc library verifies — for a credential
// (assertionMethod) and a presentation (authentication with challenge and domain), under the VC
// 2.0 context and as a VC 1.1 credential. Ed25519 is deterministic (RFC 8032 §5.1.6), so for one
// document, key and `created` both stacks must produce the same proofValue.
//
// Both stacks canonicalize with the same jsonld.js and rdf-canonize and the same context texts
// (dbBundledDocumentLoader serves Mandate's bundled contexts): what this proves is agreement on
// everything around canonicalization (proof configuration, @context handling, hash order,
// encoding). test/wallet/crypto/eddsa-rdfc-2022.test.ts proves the canonicalization on the W3C vectors.
// Every positive check has a tampered twin. Offline: global fetch throws.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProof, type DataIntegrityProof, verifyProof } from '../../../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { resolveDidKey } from '../../../wallet/did/key.ts';
import { createResolver } from '../../../wallet/did/registry.ts';
import { createKeyResolver } from '../../../wallet/did/verification-method.ts';
import { MANDATE_CONTEXTS } from '../../../wallet/vc/context.ts';
import { didKeyIdentity, type SigningIdentity } from '../../../wallet/vc/identity.ts';
import { eddsaRdfc2022 } from '../../../wallet/node.ts';
import {
  dbIssue,
  dbKeyPairFromSeed,
  dbSignPresentation,
  dbVerifyCredential,
  dbVerifyPresentation,
  type DbKeyPair,
} from '../../support/digitalbazaar.ts';

const RDFC = 'eddsa-rdfc-2022' as const;
const V2 = 'https://www.w3.org/ns/credentials/v2';
const V1 = 'https://www.w3.org/2018/credentials/v1';
const DI_V2 = 'https://w3id.org/security/data-integrity/v2';
const CHALLENGE = 'rdfc-interop-challenge-91f2';
const DOMAIN = 'verifier.example';
const CREATED = '2025-06-01T12:00:00Z';

/** Both implementations' view of one Ed25519 key, derived from the same seed. */
interface TwinKey {
  mandate: SigningIdentity;
  db: DbKeyPair;
}

async function twinKey(seed = generateSeed()): Promise<TwinKey> {
  return { mandate: didKeyIdentity(seedSigner(seed)), db: await dbKeyPairFromSeed(seed) };
}

const resolveKey = createKeyResolver(createResolver({ methods: { key: resolveDidKey } }));
const assertion = { resolveKey, expectedProofPurpose: 'assertionMethod', cryptosuites: [eddsaRdfc2022] };
const authentication = {
  resolveKey,
  expectedProofPurpose: 'authentication',
  expectedChallenge: CHALLENGE,
  expectedDomain: DOMAIN,
  cryptosuites: [eddsaRdfc2022],
};

let issuer: TwinKey;
let holder: TwinKey;

const v2Credential = (): Record<string, unknown> => ({
  '@context': [V2, 'https://www.w3.org/ns/credentials/examples/v2'],
  id: 'urn:uuid:3a4d1e66-7c55-4b0e-9f1a-000000000001',
  type: ['VerifiableCredential', 'AlumniCredential'],
  name: 'Alumni Credential',
  issuer: issuer.mandate.did,
  validFrom: '2025-01-01T00:00:00Z',
  credentialSubject: { id: holder.mandate.did, alumniOf: 'The School of Examples' },
});

/** A VC Data Model 1.1 credential, as the W3C test suites still send them. */
const v11Credential = (): Record<string, unknown> => ({
  '@context': [V1, DI_V2],
  id: 'urn:uuid:3a4d1e66-7c55-4b0e-9f1a-000000000011',
  type: ['VerifiableCredential'],
  issuer: issuer.mandate.did,
  issuanceDate: '2025-01-01T00:00:00Z',
  credentialSubject: { id: holder.mandate.did },
});

const mandateIssue = <T extends object>(credential: T, created?: string) =>
  createProof(credential, {
    signer: issuer.mandate.signer,
    verificationMethod: issuer.mandate.verificationMethod,
    proofPurpose: 'assertionMethod',
    cryptosuite: eddsaRdfc2022,
    ...(created !== undefined && { created }),
  });

const mandatePresent = <T extends object>(presentation: T, created?: string) =>
  createProof(presentation, {
    signer: holder.mandate.signer,
    verificationMethod: holder.mandate.verificationMethod,
    proofPurpose: 'authentication',
    challenge: CHALLENGE,
    domain: DOMAIN,
    cryptosuite: eddsaRdfc2022,
    ...(created !== undefined && { created }),
  });

const presentation = (credentials: object[]) => ({
  '@context': [V2],
  type: ['VerifiablePresentation'],
  holder: holder.mandate.did,
  verifiableCredential: credentials,
});

beforeAll(async () => {
  vi.stubGlobal('fetch', () => Promise.reject(new Error('network is forbidden in this test')));
  issuer = await twinKey();
  holder = await twinKey();
});
afterAll(() => {
  vi.unstubAllGlobals();
});

describe.each([
  ['VC 2.0', v2Credential],
  ['VC 1.1 (credentials/v1 + data-integrity/v2, issuanceDate)', v11Credential],
])('a credential (assertionMethod), %s', (_model, credential) => {
  it('Digital Bazaar signs → Mandate verifies; changed, Mandate refuses it', async () => {
    const signed = await dbIssue(credential(), issuer.db, { cryptosuite: RDFC });
    expect(signed.proof).toMatchObject({
      type: 'DataIntegrityProof',
      cryptosuite: RDFC,
      verificationMethod: issuer.mandate.verificationMethod,
    });
    expect('@context' in signed.proof).toBe(false);
    const { proofs } = await verifyProof(signed, assertion);
    expect(proofs[0]?.publicKey).toEqual(issuer.mandate.signer.publicKey);
    const changed = structuredClone(signed) as Record<string, unknown>;
    (changed.credentialSubject as Record<string, unknown>).id = issuer.mandate.did;
    await expect(verifyProof(changed, assertion)).rejects.toMatchObject({ code: 'PROOF_SIGNATURE_INVALID' });
  });

  it('Mandate signs → Digital Bazaar verifies (issuer must control the key); changed, DB refuses it', async () => {
    const signed = await mandateIssue(credential());
    expect(await dbVerifyCredential(signed, { cryptosuite: RDFC })).toEqual({ verified: true });
    const changed = { ...structuredClone(signed), id: 'urn:uuid:3a4d1e66-7c55-4b0e-9f1a-0000000000ff' };
    const result = await dbVerifyCredential(changed, { cryptosuite: RDFC });
    expect(result.verified).toBe(false);
    expect(result.error?.message).toContain('Invalid signature');
  });

  it('for one key, document and created, both stacks sign to the same bytes', async () => {
    const fromMandate = await mandateIssue(credential(), CREATED);
    const fromDb = await dbIssue(credential(), issuer.db, { cryptosuite: RDFC, created: CREATED });
    expect(fromDb.proof.proofValue).toBe((fromMandate.proof as DataIntegrityProof).proofValue);
    expect(fromDb).toEqual(fromMandate);
  });
});

describe.each([
  [
    'VC 2.0 (no catch-all @vocab)',
    () => ({
      ...v2Credential(),
      '@context': [V2],
      type: ['VerifiableCredential'],
      credentialSubject: { id: holder.mandate.did },
    }),
  ],
  ['VC 1.1', v11Credential],
])('an undefined term (%s) is refused by both stacks', (_model, credential) => {
  it('when signing', async () => {
    const withUndefinedTerm = { ...credential(), undefinedTerm: 'IfDroppedWillVerify' };
    await expect(mandateIssue(withUndefinedTerm)).rejects.toMatchObject({
      code: 'PROOF_MALFORMED',
      message: expect.stringContaining('"undefinedTerm"'),
    });
    await expect(dbIssue(withUndefinedTerm, issuer.db, { cryptosuite: RDFC })).rejects.toMatchObject({
      name: 'jsonld.ValidationError',
    });
  });

  it('when verifying (added after signing)', async () => {
    const signed = await mandateIssue(credential());
    await expect(verifyProof(signed, assertion)).resolves.toBeDefined();
    expect(await dbVerifyCredential(signed, { cryptosuite: RDFC })).toEqual({ verified: true });
    const added = { ...signed, undefinedTerm: 'IfDroppedWillVerify' };
    await expect(verifyProof(added, assertion)).rejects.toMatchObject({ code: 'PROOF_MALFORMED' });
    expect((await dbVerifyCredential(added, { cryptosuite: RDFC })).verified).toBe(false);
  });
});

describe('a presentation (authentication with challenge and domain)', () => {
  it('Digital Bazaar signs a VP around a DB-issued credential → Mandate verifies both proofs', async () => {
    const credential = await dbIssue(v2Credential(), issuer.db, { cryptosuite: RDFC });
    const vp = await dbSignPresentation(presentation([credential]), holder.db, {
      cryptosuite: RDFC,
      challenge: CHALLENGE,
      domain: DOMAIN,
    });
    expect(vp.proof).toMatchObject({
      cryptosuite: RDFC,
      proofPurpose: 'authentication',
      challenge: CHALLENGE,
      domain: DOMAIN,
    });
    const { proofs } = await verifyProof(vp, authentication);
    expect(proofs[0]?.publicKey).toEqual(holder.mandate.signer.publicKey);
    await expect(verifyProof(vp.verifiableCredential[0], assertion)).resolves.toBeDefined();

    await expect(verifyProof(vp, { ...authentication, expectedChallenge: 'another' })).rejects.toMatchObject({
      code: 'CHALLENGE_MISMATCH',
    });
    await expect(verifyProof(vp, { ...authentication, expectedDomain: 'evil.example' })).rejects.toMatchObject({
      code: 'DOMAIN_MISMATCH',
    });
    // The embedded credential is part of the signed graph: changing it breaks the VP proof too.
    const changed = structuredClone(vp);
    (changed.verifiableCredential[0] as Record<string, unknown>).validFrom = '2025-01-01T00:00:01Z';
    await expect(verifyProof(changed, authentication)).rejects.toMatchObject({ code: 'PROOF_SIGNATURE_INVALID' });
  });

  it('Mandate signs a VP around a Mandate-issued credential → Digital Bazaar verifies both proofs', async () => {
    const credential = await mandateIssue(v2Credential());
    const vp = await mandatePresent(presentation([credential]));
    expect(await dbVerifyPresentation(vp, { cryptosuite: RDFC, challenge: CHALLENGE, domain: DOMAIN })).toEqual({
      verified: true,
      presentationVerified: true,
      credentialResults: [{ verified: true }],
    });
    const wrongChallenge = await dbVerifyPresentation(vp, { cryptosuite: RDFC, challenge: 'another', domain: DOMAIN });
    expect(wrongChallenge.presentationVerified).toBe(false);
    expect(wrongChallenge.error?.message).toContain('challenge is not as expected');
    const changed = structuredClone(vp);
    changed.holder = issuer.mandate.did;
    expect(
      (await dbVerifyPresentation(changed, { cryptosuite: RDFC, challenge: CHALLENGE, domain: DOMAIN }))
        .presentationVerified,
    ).toBe(false);
  });

  it('for one key, presentation and created, both stacks sign to the same bytes', async () => {
    const credential = await mandateIssue(v2Credential(), CREATED);
    const fromMandate = await mandatePresent(presentation([credential]), CREATED);
    const fromDb = await dbSignPresentation(presentation([credential]), holder.db, {
      cryptosuite: RDFC,
      challenge: CHALLENGE,
      domain: DOMAIN,
      created: CREATED,
    });
    expect(fromDb.proof.proofValue).toBe((fromMandate.proof as DataIntegrityProof).proofValue);
    expect(fromDb).toEqual(fromMandate);
  });
});

describe('Digital Bazaar behaviour pinned for rdfc interop', () => {
  it('a proof without created verifies in Mandate (created is optional, §3.2.5 step 3)', async () => {
    const signed = await dbIssue(v2Credential(), issuer.db, { cryptosuite: RDFC, created: null });
    expect('created' in signed.proof).toBe(false);
    await expect(verifyProof(signed, assertion)).resolves.toMatchObject({
      proofs: [expect.not.objectContaining({ created: expect.anything() })],
    });
  });

  it('a Mandate-shaped credential under the Mandate context signs and verifies both ways', async () => {
    const body = {
      '@context': [...MANDATE_CONTEXTS],
      id: 'urn:uuid:3a4d1e66-7c55-4b0e-9f1a-000000000021',
      type: ['VerifiableCredential', 'AgentCredential'],
      issuer: issuer.mandate.did,
      validFrom: '2025-01-01T00:00:00Z',
      credentialSubject: {
        id: holder.mandate.did,
        privilegeScopes: ['files:read'],
        delegationDepth: 1,
        domains: [DOMAIN],
      },
    };
    const fromMandate = await mandateIssue(body, CREATED);
    expect(await dbVerifyCredential(fromMandate, { cryptosuite: RDFC })).toEqual({ verified: true });
    const fromDb = await dbIssue(body, issuer.db, { cryptosuite: RDFC, created: CREATED });
    expect(fromDb).toEqual(fromMandate);
    await expect(verifyProof(fromDb, assertion)).resolves.toBeDefined();
  });

  it('a VC 1.1 credential with only credentials/v1: DB adds data-integrity/v2 to it when signing; Mandate does not sign it', async () => {
    const bare = { ...v11Credential(), '@context': [V1] };
    const fromDb = await dbIssue(bare, issuer.db, { cryptosuite: RDFC });
    expect(fromDb['@context']).toEqual([V1, DI_V2]);
    await expect(verifyProof(fromDb, assertion)).resolves.toBeDefined();
    // EdDSA §3.2.5 step 4 hashes the proof under the document's @context only, which (VC 1.1)
    // does not define DataIntegrityProof: safe mode refuses it rather than sign a dropped term.
    await expect(mandateIssue(bare)).rejects.toMatchObject({
      code: 'PROOF_MALFORMED',
      message: expect.stringMatching(/safe mode/),
    });
  });
});
