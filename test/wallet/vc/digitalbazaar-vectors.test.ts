// Proves the Digital Bazaar harness (test/support/digitalbazaar.ts) against the official W3C
// eddsa-jcs-2022 vectors, and pins the Digital Bazaar behaviours Mandate's interop depends on.
// Everything runs offline: global fetch is stubbed to throw, and the loader refuses unknown URLs.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import signed from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/signedJCS.json';
import proofConfig from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/proofConfigJCS.json';
import keyPairJson from '@vectors/w3c-vc-di-eddsa/keyPair.json';
import unsigned from '@vectors/w3c-vc-di-eddsa/unsigned.json';
import didKeyVectors from '@vectors/did-key/ed25519-x25519.json';
import {
  dbDocumentLoader,
  dbIssue,
  dbKeyPairFromMultibase,
  dbKeyPairFromSeed,
  dbSignPresentation,
  dbVerifyCredential,
  dbVerifyPresentation,
  type DbDocumentLoader,
  type DbKeyPair,
} from '../../support/digitalbazaar.ts';
import { hexToBytes } from '../../../wallet/crypto/bytes.ts';
import { MANDATE_CONTEXT, MANDATE_CONTEXT_URL, VC_V2_CONTEXT as VC_V2 } from '../../../wallet/vc/context.ts';

/** A loader that records every URL Digital Bazaar asks for. */
function recordingLoader(extra: Record<string, object> = {}): { loader: DbDocumentLoader; urls: string[] } {
  const inner = dbDocumentLoader(extra);
  const urls: string[] = [];
  return {
    urls,
    loader: (url) => {
      urls.push(url);
      return inner(url);
    },
  };
}

beforeAll(() => {
  vi.stubGlobal('fetch', () => Promise.reject(new Error('network is forbidden in this test')));
});
afterAll(() => {
  vi.unstubAllGlobals();
});

describe('Digital Bazaar harness: W3C eddsa-jcs-2022 vector', () => {
  it('verifies signedJCS.json (assertionMethod), resolving only the did:key', async () => {
    const { loader, urls } = recordingLoader();
    const result = await dbVerifyCredential(signed, { documentLoader: loader, issuerMustControlKey: false });
    expect(result).toEqual({ verified: true });
    // JCS: no JSON-LD context is ever fetched; only the verification method and its controller.
    const did = signed.proof.verificationMethod.split('#')[0];
    expect(new Set(urls)).toEqual(new Set([signed.proof.verificationMethod, did]));
  });

  it("fails under DB's default CredentialIssuancePurpose: the vector's issuer is not the key's controller", async () => {
    const result = await dbVerifyCredential(signed);
    expect(result.verified).toBe(false);
    expect(result.error?.message).toContain('Credential issuer must match the verification method controller');
  });

  it.each([
    ['a claim', (c: typeof signed) => void (c.credentialSubject.alumniOf = 'The School of Examples!')],
    ['the issuer', (c: typeof signed) => void (c.issuer = 'https://vc.example/issuers/5679')],
    ['proof.created', (c: typeof signed) => void (c.proof.created = '2023-02-24T23:36:39Z')],
    ['proof.cryptosuite', (c: typeof signed) => void (c.proof.cryptosuite = 'eddsa-rdfc-2022')],
    ['proof.@context', (c: typeof signed) => void c.proof['@context'].pop()],
    ['proofValue', (c: typeof signed) => void (c.proof.proofValue = `${c.proof.proofValue.slice(0, -2)}1X`)],
  ])('rejects a copy with %s changed', async (_what, tamper) => {
    const copy = structuredClone(signed);
    tamper(copy);
    const result = await dbVerifyCredential(copy, { issuerMustControlKey: false });
    expect(result.verified).toBe(false);
    expect(result.error).toBeInstanceOf(Error);
  });

  it('dbIssue with the vector key reproduces the vector proof byte for byte', async () => {
    const key = await dbKeyPairFromMultibase(keyPairJson);
    expect(key.id).toBe(signed.proof.verificationMethod);
    expect(key.controller).toBe(`did:key:${keyPairJson.publicKeyMultibase}`);
    const issued = await dbIssue(unsigned, key, { created: signed.proof.created });
    expect(issued).toEqual(signed);
    const { proofValue: _pv, ...config } = issued.proof;
    expect(config).toEqual(proofConfig);
  });

  it('dbIssue output verifies with dbVerifyCredential (issuer = did:key, default purpose)', async () => {
    const key = await dbKeyPairFromMultibase(keyPairJson);
    const issued = await dbIssue({ ...unsigned, issuer: key.controller }, key);
    expect(await dbVerifyCredential(issued)).toEqual({ verified: true });
    expect(issued.proof.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // the caller's object is never mutated by DB
    expect('proof' in unsigned).toBe(false);
  });
});

describe('Digital Bazaar harness: keys', () => {
  it('dbKeyPairFromSeed derives the did:key vectors', async () => {
    for (const [did, vector] of Object.entries(didKeyVectors)) {
      const key = await dbKeyPairFromSeed(hexToBytes(vector.seed));
      expect(key.controller).toBe(did);
      expect(key.id).toBe(`${did}#${did.slice('did:key:'.length)}`);
      expect(key.publicKey).toHaveLength(32);
    }
  });

  it('dbKeyPairFromMultibase rejects a private key that does not match the public key', async () => {
    const other = Object.keys(didKeyVectors)[0]!.slice('did:key:'.length);
    await expect(
      dbKeyPairFromMultibase({ publicKeyMultibase: other, privateKeyMultibase: keyPairJson.privateKeyMultibase }),
    ).rejects.toThrow(/does not match/);
    await expect(
      dbKeyPairFromMultibase({
        publicKeyMultibase: keyPairJson.privateKeyMultibase,
        privateKeyMultibase: keyPairJson.privateKeyMultibase,
      }),
    ).rejects.toThrow(/multicodec header/);
    await expect(dbKeyPairFromSeed(new Uint8Array(31))).rejects.toThrow(/32 bytes/);
  });
});

describe('Digital Bazaar harness: presentations', () => {
  let issuer: DbKeyPair;
  let holder: DbKeyPair;
  let credential: Awaited<ReturnType<typeof dbIssue<typeof unsigned>>>;
  const challenge = 'c0ffee-challenge-1';
  const domain = 'https://verifier.example';
  const presentation = () => ({
    '@context': [VC_V2],
    type: ['VerifiablePresentation'],
    holder: holder.controller,
    verifiableCredential: [credential],
  });

  beforeAll(async () => {
    issuer = await dbKeyPairFromSeed(hexToBytes('01'.repeat(32)));
    holder = await dbKeyPairFromSeed(hexToBytes('02'.repeat(32)));
    credential = await dbIssue(
      {
        ...unsigned,
        issuer: issuer.controller,
        credentialSubject: { ...unsigned.credentialSubject, id: holder.controller },
      },
      issuer,
    );
  });

  it('a VP signed by dbSignPresentation verifies with its challenge and domain', async () => {
    const vp = await dbSignPresentation(presentation(), holder, { challenge, domain });
    expect(vp.proof).toMatchObject({
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-jcs-2022',
      proofPurpose: 'authentication',
      verificationMethod: holder.id,
      challenge,
      domain,
      '@context': [VC_V2],
    });
    const result = await dbVerifyPresentation(vp, { challenge, domain });
    expect(result).toEqual({ verified: true, presentationVerified: true, credentialResults: [{ verified: true }] });
  });

  it('fails with a wrong challenge, a wrong domain, or no challenge (without throwing)', async () => {
    const vp = await dbSignPresentation(presentation(), holder, { challenge, domain });
    const wrongChallenge = await dbVerifyPresentation(vp, { challenge: 'another', domain });
    expect(wrongChallenge.verified).toBe(false);
    expect(wrongChallenge.presentationVerified).toBe(false);
    expect(wrongChallenge.error?.message).toContain('challenge is not as expected');

    const wrongDomain = await dbVerifyPresentation(vp, { challenge, domain: 'https://evil.example' });
    expect(wrongDomain.verified).toBe(false);
    expect(wrongDomain.error?.message).toContain('domain is not as expected');

    // DB's vc.verify rejects here; the facade resolves {verified:false}.
    const noChallenge = await dbVerifyPresentation(vp, { challenge: '' });
    expect(noChallenge.verified).toBe(false);
    expect(noChallenge.error?.message).toContain('"challenge" param is required');
  });

  it('DB checks the domain only when the verifier passes one', async () => {
    const vp = await dbSignPresentation(presentation(), holder, { challenge, domain });
    expect((await dbVerifyPresentation(vp, { challenge })).verified).toBe(true);
    const noDomain = await dbSignPresentation(presentation(), holder, { challenge });
    expect((await dbVerifyPresentation(noDomain, { challenge, domain })).verified).toBe(false);
  });

  it('a re-signed VP around a tampered credential fails on the credential only', async () => {
    const tampered = structuredClone(credential);
    tampered.credentialSubject.alumniOf = 'Somewhere Else';
    const vp = await dbSignPresentation({ ...presentation(), verifiableCredential: [tampered] }, holder, {
      challenge,
    });
    const result = await dbVerifyPresentation(vp, { challenge });
    expect(result.verified).toBe(false);
    expect(result.presentationVerified).toBe(true);
    expect(result.credentialResults).toHaveLength(1);
    expect(result.credentialResults[0]?.verified).toBe(false);
    expect(result.error?.message).toContain('credential 0: Invalid signature');
  });

  it('a malformed VP is {verified:false}, not a rejection', async () => {
    const vp = await dbSignPresentation(presentation(), holder, { challenge });
    const result = await dbVerifyPresentation({ ...vp, type: ['SomethingElse'] }, { challenge });
    expect(result.verified).toBe(false);
    expect(result.error?.message).toContain('must include "VerifiablePresentation"');
  });

  it('the W3C signed vector inside a DB-signed VP verifies when issuer binding is off', async () => {
    const vp = await dbSignPresentation({ ...presentation(), verifiableCredential: [signed] }, holder, { challenge });
    expect((await dbVerifyPresentation(vp, { challenge, issuerMustControlKey: false })).verified).toBe(true);
    expect((await dbVerifyPresentation(vp, { challenge })).credentialResults[0]?.verified).toBe(false);
  });
});

// What Digital Bazaar does and does not enforce, pinned so a version bump that changes it shows up.
describe('Digital Bazaar behaviour pinned for Mandate interop', () => {
  let issuer: DbKeyPair;
  let holder: DbKeyPair;
  beforeAll(async () => {
    issuer = await dbKeyPairFromSeed(hexToBytes('03'.repeat(32)));
    holder = await dbKeyPairFromSeed(hexToBytes('04'.repeat(32)));
  });
  const mandateShaped = (context: string[]) => ({
    '@context': [VC_V2, ...context],
    id: 'urn:uuid:7d1b3f2e-0000-4000-8000-000000000001',
    type: ['VerifiableCredential', 'DelegatedAgentCredential'],
    issuer: issuer.controller,
    credentialSubject: {
      id: holder.controller,
      privilegeScopes: ['payments:write'],
      delegationDepth: 1,
      domains: ['shop.example'],
      onBehalfOf: issuer.controller,
      consent: { type: 'UserConsent', user: issuer.controller, privilegeScopes: ['payments:write'] },
    },
    parentCredential: { id: 'urn:uuid:7d1b3f2e-0000-4000-8000-000000000000', digestMultibase: 'uEiBbase64urlDigest' },
  });

  it('eddsa-jcs-2022 never expands JSON-LD: undefined terms and an unloadable context still verify', async () => {
    const bare = await dbIssue(mandateShaped([]), issuer);
    expect(await dbVerifyCredential(bare)).toEqual({ verified: true });

    const { loader, urls } = recordingLoader();
    const unknownContext = await dbIssue(mandateShaped(['https://unknown.example/ctx']), issuer);
    expect(await dbVerifyCredential(unknownContext, { documentLoader: loader })).toEqual({ verified: true });
    expect(urls.every((u) => u.startsWith('did:key:'))).toBe(true);
  });

  it('serves an extra (Mandate) context, refuses unknown URLs, refuses to shadow built-ins', async () => {
    const { loader } = recordingLoader({ [MANDATE_CONTEXT_URL]: MANDATE_CONTEXT });
    expect((await loader(MANDATE_CONTEXT_URL)).document).toEqual(MANDATE_CONTEXT);
    expect((await loader(VC_V2)).document).toHaveProperty('@context');
    expect((await loader('https://w3id.org/security/data-integrity/v2')).document).toHaveProperty('@context');
    expect((await loader('https://w3id.org/security/multikey/v1')).document).toHaveProperty('@context');
    expect((await loader(holder.controller)).document).toMatchObject({
      id: holder.controller,
      assertionMethod: [holder.id],
    });
    expect((await loader(holder.id)).document).toMatchObject({ id: holder.id, type: 'Multikey' });
    await expect(loader('https://mandate.dev/contexts/v2')).rejects.toThrow(/refusing to load/);
    await expect(loader('did:web:example.com')).rejects.toThrow(/refusing to load/);
    expect(() => dbDocumentLoader({ [VC_V2]: { '@context': {} } })).toThrow(/built in/);
    expect(() => dbDocumentLoader({ [MANDATE_CONTEXT_URL]: { privilegeScopes: 'x' } })).toThrow(/"@context"/);

    const issued = await dbIssue(mandateShaped([MANDATE_CONTEXT_URL]), issuer, { documentLoader: loader });
    expect(await dbVerifyCredential(issued, { documentLoader: loader })).toEqual({ verified: true });
  });

  it('validFrom is optional; validFrom/validUntil are enforced at verification', async () => {
    const future = await dbIssue({ ...mandateShaped([]), validFrom: '2099-01-01T00:00:00Z' }, issuer);
    expect((await dbVerifyCredential(future)).error?.message).toContain('before "validFrom"');
    const expired = await dbIssue({ ...mandateShaped([]), validUntil: '2020-01-01T00:00:00Z' }, issuer);
    expect((await dbVerifyCredential(expired)).error?.message).toContain('after "validUntil"');
    expect((await dbVerifyCredential(expired, { now: '2019-12-31T00:00:00Z' })).verified).toBe(true);
    await expect(dbIssue({ ...mandateShaped([]), validFrom: '2020-01-01' }, issuer)).rejects.toThrow(/valid date/);
  });

  it('proof.expires is checked for format only, never against the clock', async () => {
    const past = await dbIssue(mandateShaped([]), issuer, { expires: '2000-01-01T00:00:00Z' });
    expect(past.proof.expires).toBe('2000-01-01T00:00:00Z');
    expect((await dbVerifyCredential(past)).verified).toBe(true);
    const malformed = await dbIssue(mandateShaped([]), issuer, { expires: 'yesterday' });
    expect((await dbVerifyCredential(malformed)).error?.message).toContain('"proof.expires"');
    const vp = await dbSignPresentation(
      { '@context': [VC_V2], type: ['VerifiablePresentation'], holder: holder.controller },
      holder,
      { challenge: 'c', expires: '2000-01-01T00:00:00Z' },
    );
    expect((await dbVerifyPresentation(vp, { challenge: 'c' })).verified).toBe(true);
  });

  it('created is optional; proof.@context (always added by DB) is covered by the signature', async () => {
    const noCreated = await dbIssue(mandateShaped([]), issuer, { created: null });
    expect('created' in noCreated.proof).toBe(false);
    expect((await dbVerifyCredential(noCreated)).verified).toBe(true);
    const { '@context': _ctx, ...proofWithoutContext } = noCreated.proof;
    expect((await dbVerifyCredential({ ...noCreated, proof: proofWithoutContext })).verified).toBe(false);
  });

  it('the VP proof is not bound to `holder`, nor credentialSubject to the presenter', async () => {
    const credential = await dbIssue(mandateShaped([]), issuer);
    const stranger = await dbKeyPairFromSeed(hexToBytes('05'.repeat(32)));
    const vp = await dbSignPresentation(
      {
        '@context': [VC_V2],
        type: ['VerifiablePresentation'],
        holder: holder.controller,
        verifiableCredential: [credential],
      },
      stranger,
      { challenge: 'c' },
    );
    expect((await dbVerifyPresentation(vp, { challenge: 'c' })).verified).toBe(true);
  });
});
