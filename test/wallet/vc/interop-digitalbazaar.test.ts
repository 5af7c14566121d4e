// Mandate ⇄ Digital Bazaar interop (Node only): what Mandate signs, Digital Bazaar's independent
// eddsa-jcs-2022 stack verifies, and what Digital Bazaar signs, Mandate's verifier accepts as
// chain roots and presentations. Ed25519 is deterministic (RFC 8032 §5.1.6), so for one document,
// key and `created` the two stacks must also agree on the proofValue byte for byte.
//
// Every positive check has a tampered twin, so a verifier that accepted everything would fail.
// Offline: global fetch throws; DB's loader serves only known contexts, Mandate's and did:key.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProof, verifyProof, type DataIntegrityProof } from '../../../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { createCachedResolver } from '../../../wallet/did/cache.ts';
import { resolveDidKey } from '../../../wallet/did/key.ts';
import { createResolver } from '../../../wallet/did/registry.ts';
import { createKeyResolver } from '../../../wallet/did/verification-method.ts';
import { issueAgentCredential } from '../../../wallet/vc/agent-credential.ts';
import { MANDATE_CONTEXT, MANDATE_CONTEXT_URL, MANDATE_CONTEXTS } from '../../../wallet/vc/context.ts';
import { delegate } from '../../../wallet/vc/delegation.ts';
import { createConsent, issueGrant } from '../../../wallet/vc/grant.ts';
import { didKeyIdentity, newUrnUuid, type SigningIdentity } from '../../../wallet/vc/identity.ts';
import { signPresentation } from '../../../wallet/vc/presentation.ts';
import type { AgentCredential } from '../../../wallet/vc/types.ts';
import {
  verifyPresentation,
  type VerificationResult,
  type VerifyPresentationOptions,
} from '../../../wallet/vc/verify.ts';
import {
  dbDocumentLoader,
  dbIssue,
  dbKeyPairFromSeed,
  dbSignPresentation,
  dbVerifyCredential,
  dbVerifyPresentation,
  type DbDocumentLoader,
  type DbKeyPair,
} from '../../support/digitalbazaar.ts';

const TARGET = 'files.example.com';
const CHALLENGE = 'interop-challenge-5c1e';
const HOUR = 3_600_000;
const MINUTE = 60_000;

/** Both implementations' view of one Ed25519 key, derived from the same seed. */
interface TwinKey {
  mandate: SigningIdentity;
  db: DbKeyPair;
}

async function twinKey(seed = generateSeed()): Promise<TwinKey> {
  return { mandate: didKeyIdentity(seedSigner(seed)), db: await dbKeyPairFromSeed(seed) };
}

const resolver = createCachedResolver(createResolver({ methods: { key: resolveDidKey } }));
let loader: DbDocumentLoader;
let loadedUrls: string[];
let platform: TwinKey;
let agent: TwinKey;
let root: AgentCredential;

function mandateOptions(extra: Partial<VerifyPresentationOptions> = {}): VerifyPresentationOptions {
  return {
    trustedIssuers: [platform.mandate.did],
    expectedDomain: TARGET,
    expectedChallenge: CHALLENGE,
    resolver,
    ...extra,
  };
}

function expectRefused(result: VerificationResult, reason: string): void {
  if (result.valid) throw new Error(`expected ${reason}, but Mandate accepted the presentation`);
  expect(result.reason).toBe(reason);
}

/** The unsigned body of a Mandate AgentCredential, built by hand (what a non-Mandate issuer would write). */
function agentCredentialBody(issuer: string, subject: string): Record<string, unknown> {
  return {
    '@context': [...MANDATE_CONTEXTS],
    id: newUrnUuid(),
    type: ['VerifiableCredential', 'AgentCredential'],
    issuer,
    validFrom: '2025-01-01T00:00:00Z',
    validUntil: new Date(Date.now() + 24 * HOUR).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    credentialSubject: {
      id: subject,
      privilegeScopes: ['files', 'calendar:read'],
      delegationDepth: 2,
      domains: [TARGET],
    },
  };
}

/** A Mandate-shaped AgentCredential for the agent, issued by Digital Bazaar under a fresh did:key. */
async function issueWithDigitalBazaar(): Promise<{ issuer: TwinKey; credential: AgentCredential }> {
  const issuer = await twinKey();
  const credential = await dbIssue(agentCredentialBody(issuer.db.controller, agent.mandate.did), issuer.db, {
    documentLoader: loader,
  });
  return { issuer, credential: credential as unknown as AgentCredential };
}

function presentationBody(holder: string, credentials: object[]): Record<string, unknown> {
  return {
    '@context': [...MANDATE_CONTEXTS],
    id: newUrnUuid(),
    type: ['VerifiablePresentation'],
    holder,
    verifiableCredential: credentials,
  };
}

beforeAll(async () => {
  vi.stubGlobal('fetch', () => Promise.reject(new Error('network is forbidden in this test')));
  const inner = dbDocumentLoader({ [MANDATE_CONTEXT_URL]: MANDATE_CONTEXT });
  loadedUrls = [];
  loader = (url) => {
    loadedUrls.push(url);
    return inner(url);
  };
  platform = await twinKey();
  agent = await twinKey();
  root = await issueAgentCredential({
    issuer: platform.mandate,
    agentDid: agent.mandate.did,
    privilegeScopes: ['files', 'calendar:read'],
    delegationDepth: 2,
    domains: [TARGET],
    validUntil: new Date(Date.now() + 24 * HOUR),
  });
});

afterAll(() => {
  vi.unstubAllGlobals();
});

describe('one seed, one identity in both stacks', () => {
  it('Mandate and Digital Bazaar derive the same did:key and verification method', () => {
    expect(agent.db.controller).toBe(agent.mandate.did);
    expect(agent.db.id).toBe(agent.mandate.verificationMethod);
    expect(agent.db.publicKey).toEqual(agent.mandate.signer.publicKey);
    expect(platform.db.controller).not.toBe(agent.db.controller);
  });
});

describe('(a) a Mandate AgentCredential verifies with Digital Bazaar', () => {
  it('verifies under DB’s default purpose (issuer must control the key)', async () => {
    loadedUrls.length = 0;
    expect(await dbVerifyCredential(root, { documentLoader: loader })).toEqual({ verified: true });
    // eddsa-jcs-2022 signs JSON, not RDF: DB only dereferenced the issuer's did:key.
    expect(loadedUrls.length).toBeGreaterThan(0);
    expect(loadedUrls.every((url) => url.startsWith(platform.mandate.did))).toBe(true);
  });

  it.each([
    ['a widened scope', (c: AgentCredential) => void c.credentialSubject.privilegeScopes.push('payments')],
    ['a deeper delegationDepth', (c: AgentCredential) => void (c.credentialSubject.delegationDepth = 7)],
    ['another subject', (c: AgentCredential) => void (c.credentialSubject.id = platform.mandate.did)],
    ['a later validUntil', (c: AgentCredential) => void (c.validUntil = '2099-01-01T00:00:00Z')],
    ['proof.created', (c: AgentCredential) => void ((c.proof as DataIntegrityProof).created = '2025-01-01T00:00:00Z')],
    [
      'proofValue',
      (c: AgentCredential) => {
        const proof = c.proof as DataIntegrityProof;
        proof.proofValue = `${proof.proofValue.slice(0, -3)}${proof.proofValue.endsWith('a') ? 'bbb' : 'aaa'}`;
      },
    ],
  ])('rejects a copy with %s', async (_what, tamper) => {
    const copy = structuredClone(root);
    tamper(copy);
    const result = await dbVerifyCredential(copy, { documentLoader: loader });
    expect(result.verified).toBe(false);
    expect(result.error).toBeInstanceOf(Error);
  });

  it('rejects a Mandate credential whose issuer is not the signing key’s controller', async () => {
    const forged = await issueAgentCredential({
      issuer: { ...agent.mandate, did: platform.mandate.did },
      agentDid: agent.mandate.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    const result = await dbVerifyCredential(forged, { documentLoader: loader });
    expect(result.verified).toBe(false);
    expect(result.error?.message).toContain('issuer must match the verification method controller');
  });
});

describe('(a2) Mandate credentials in the shapes real issuers produce verify with Digital Bazaar', () => {
  /** DB's status hook: records what it was asked about; status semantics stay Mandate's own. */
  function statusRecorder() {
    const seen: unknown[] = [];
    const checkStatus = async ({ credential }: { credential: Record<string, unknown> }) => {
      seen.push(credential.credentialStatus);
      return { verified: true };
    };
    return { seen, checkStatus };
  }

  it('an AgentCredential with revocation and suspension entries (BitstringStatusListEntry)', async () => {
    const entries = ['revocation', 'suspension'].map((statusPurpose, i) => ({
      type: 'BitstringStatusListEntry',
      statusPurpose,
      statusListIndex: String(94_567 + i),
      statusListCredential: `https://issuer.example.com/v1/status-list/${statusPurpose}-1`,
    }));
    const withStatus = await issueAgentCredential({
      issuer: platform.mandate,
      agentDid: agent.mandate.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
      credentialStatus: entries as never,
    });
    const { seen, checkStatus } = statusRecorder();
    expect(await dbVerifyCredential(withStatus, { documentLoader: loader, checkStatus })).toEqual({ verified: true });
    expect(seen).toEqual([entries]);
    const moved = structuredClone(withStatus) as unknown as { credentialStatus: Array<{ statusListIndex: string }> };
    (moved.credentialStatus[0] as { statusListIndex: string }).statusListIndex = '1';
    expect((await dbVerifyCredential(moved, { documentLoader: loader, checkStatus })).verified).toBe(false);
  });

  it('a DelegationGrantCredential carrying the user’s signed consent (a JSON literal in the Mandate context)', async () => {
    const provider = await twinKey();
    const user = await twinKey();
    const consent = await createConsent({
      user: user.mandate,
      agentDid: agent.mandate.did,
      providerDid: provider.mandate.did,
      privilegeScopes: ['files:read'],
      challenge: 'consent-1',
    });
    const grant = await issueGrant({
      provider: provider.mandate,
      agentDid: agent.mandate.did,
      privilegeScopes: ['files:read'],
      consent,
      ceiling: ['files'],
    });
    expect(await dbVerifyCredential(grant, { documentLoader: loader })).toEqual({ verified: true });
    const widened = structuredClone(grant);
    widened.credentialSubject.consent.privilegeScopes = ['files'];
    expect((await dbVerifyCredential(widened, { documentLoader: loader })).verified).toBe(false);
    // And in a presentation, next to the chain it narrows.
    const vp = await signPresentation({
      holder: agent.mandate,
      credentials: [root, grant],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    const result = await dbVerifyPresentation(vp, { challenge: CHALLENGE, domain: TARGET, documentLoader: loader });
    expect(result).toEqual({
      verified: true,
      presentationVerified: true,
      credentialResults: [{ verified: true }, { verified: true }],
    });
  });
});

describe('(b) a Mandate presentation verifies with Digital Bazaar', () => {
  it('verifies the VP proof (challenge, domain) and its embedded credential', async () => {
    const vp = await signPresentation({
      holder: agent.mandate,
      credentials: [root],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    const result = await dbVerifyPresentation(vp, { challenge: CHALLENGE, domain: TARGET, documentLoader: loader });
    expect(result).toEqual({ verified: true, presentationVerified: true, credentialResults: [{ verified: true }] });
  });

  it('verifies a Mandate delegation chain (two credentials, each signed by its own issuer)', async () => {
    const sub = await twinKey();
    const child = await delegate(root, {
      delegator: agent.mandate,
      delegateeDid: sub.mandate.did,
      scopes: ['files:read'],
    });
    const vp = await signPresentation({
      holder: sub.mandate,
      credentials: [child, root],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    const result = await dbVerifyPresentation(vp, { challenge: CHALLENGE, domain: TARGET, documentLoader: loader });
    expect(result).toEqual({
      verified: true,
      presentationVerified: true,
      credentialResults: [{ verified: true }, { verified: true }],
    });
  });

  it('rejects the same VP for another challenge or domain', async () => {
    const vp = await signPresentation({
      holder: agent.mandate,
      credentials: [root],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    const wrongChallenge = await dbVerifyPresentation(vp, {
      challenge: 'another-challenge',
      domain: TARGET,
      documentLoader: loader,
    });
    expect(wrongChallenge).toMatchObject({ verified: false, presentationVerified: false });
    const wrongDomain = await dbVerifyPresentation(vp, {
      challenge: CHALLENGE,
      domain: 'evil.example.com',
      documentLoader: loader,
    });
    expect(wrongDomain).toMatchObject({ verified: false, presentationVerified: false });
  });

  it('rejects a VP changed after signing', async () => {
    const vp = await signPresentation({
      holder: agent.mandate,
      credentials: [root],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    const retargeted = structuredClone(vp);
    retargeted.holder = platform.mandate.did;
    const result = await dbVerifyPresentation(retargeted, {
      challenge: CHALLENGE,
      domain: TARGET,
      documentLoader: loader,
    });
    expect(result).toMatchObject({ verified: false, presentationVerified: false });
  });

  it('fails on the embedded credential alone when it was tampered before the holder signed', async () => {
    const tampered = structuredClone(root);
    tampered.credentialSubject.privilegeScopes = ['*'];
    const vp = await signPresentation({
      holder: agent.mandate,
      credentials: [tampered],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    const result = await dbVerifyPresentation(vp, { challenge: CHALLENGE, domain: TARGET, documentLoader: loader });
    expect(result).toMatchObject({
      verified: false,
      presentationVerified: true,
      credentialResults: [{ verified: false }],
    });
  });
});

describe('(c) a credential issued by Digital Bazaar is a Mandate chain root', () => {
  let dbIssuer: TwinKey;
  let dbRoot: AgentCredential;

  beforeAll(async () => {
    ({ issuer: dbIssuer, credential: dbRoot } = await issueWithDigitalBazaar());
  });

  it('verifies with Mandate’s verifyProof against the did:key assertionMethod key', async () => {
    const { proofs } = await verifyProof(dbRoot, {
      resolveKey: createKeyResolver(resolver),
      expectedProofPurpose: 'assertionMethod',
    });
    expect(proofs).toHaveLength(1);
    expect(proofs[0]?.proof.verificationMethod).toBe(dbIssuer.db.id);
    expect(proofs[0]?.publicKey).toEqual(dbIssuer.db.publicKey);
  });

  it('fails Mandate’s verifyProof when a claim or the proof is changed', async () => {
    const resolveKey = createKeyResolver(resolver);
    const widened = structuredClone(dbRoot);
    widened.credentialSubject.privilegeScopes.push('payments');
    await expect(verifyProof(widened, { resolveKey, expectedProofPurpose: 'assertionMethod' })).rejects.toMatchObject({
      code: 'PROOF_SIGNATURE_INVALID',
    });
    const redated = structuredClone(dbRoot);
    (redated.proof as DataIntegrityProof).created = '2025-01-01T00:00:00Z';
    await expect(verifyProof(redated, { resolveKey, expectedProofPurpose: 'assertionMethod' })).rejects.toMatchObject({
      code: 'PROOF_SIGNATURE_INVALID',
    });
    await expect(
      verifyProof(dbRoot, { resolveKey, expectedProofPurpose: 'authentication', expectedChallenge: 'x' }),
    ).rejects.toMatchObject({
      code: 'PROOF_PURPOSE_MISMATCH',
    });
  });

  it('is accepted as the root of a Mandate presentation', async () => {
    const vp = await signPresentation({
      holder: agent.mandate,
      credentials: [dbRoot],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    const result = await verifyPresentation(
      vp,
      mandateOptions({ trustedIssuers: [dbIssuer.db.controller], requiredScopes: ['files:read'] }),
    );
    expect(result).toMatchObject({
      valid: true,
      agentDid: agent.mandate.did,
      effectiveScopes: ['files', 'calendar:read'],
    });
    if (result.valid)
      expect(result.chain).toEqual([
        expect.objectContaining({ id: dbRoot.id, issuer: dbIssuer.db.controller, type: 'AgentCredential' }),
      ]);
  });

  it('can be delegated from by a Mandate agent, and the chain verifies', async () => {
    const sub = await twinKey();
    const child = await delegate(dbRoot, {
      delegator: agent.mandate,
      delegateeDid: sub.mandate.did,
      scopes: ['files:read'],
    });
    const vp = await signPresentation({
      holder: sub.mandate,
      credentials: [child, dbRoot],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    expect((await verifyPresentation(vp, mandateOptions({ trustedIssuers: [dbIssuer.db.controller] }))).valid).toBe(
      true,
    );
  });

  it('a grant signed by Digital Bazaar narrows a Mandate presentation; tampered, it is refused', async () => {
    const provider = await twinKey();
    const user = await twinKey();
    const consent = await createConsent({
      user: user.mandate,
      agentDid: agent.mandate.did,
      providerDid: provider.mandate.did,
      privilegeScopes: ['files:read'],
      challenge: 'consent-2',
    });
    const mandateGrant = await issueGrant({
      provider: provider.mandate,
      agentDid: agent.mandate.did,
      privilegeScopes: ['files:read'],
      consent,
      ceiling: ['files'],
    });
    const { proof: _mandateProof, ...body } = mandateGrant;
    const dbGrant = (await dbIssue(body, provider.db, { documentLoader: loader })) as unknown as typeof mandateGrant;
    const trusting = mandateOptions({
      trustedIssuers: [dbIssuer.db.controller],
      trustedGrantIssuers: [provider.db.controller],
    });
    const vp = await signPresentation({
      holder: agent.mandate,
      credentials: [dbRoot, dbGrant],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    expect(await verifyPresentation(vp, trusting)).toMatchObject({ valid: true, effectiveScopes: ['files:read'] });
    const widened = structuredClone(dbGrant);
    widened.credentialSubject.privilegeScopes = ['files'];
    const vpWidened = await signPresentation({
      holder: agent.mandate,
      credentials: [dbRoot, widened],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    expectRefused(await verifyPresentation(vpWidened, trusting), 'CREDENTIAL_SIGNATURE_INVALID');
  });

  it('is refused when tampered, or when its issuer is not trusted', async () => {
    const tampered = structuredClone(dbRoot);
    tampered.credentialSubject.delegationDepth = 5;
    const vpTampered = await signPresentation({
      holder: agent.mandate,
      credentials: [tampered],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    expectRefused(
      await verifyPresentation(vpTampered, mandateOptions({ trustedIssuers: [dbIssuer.db.controller] })),
      'CREDENTIAL_SIGNATURE_INVALID',
    );

    const vp = await signPresentation({
      holder: agent.mandate,
      credentials: [dbRoot],
      challenge: CHALLENGE,
      domain: TARGET,
    });
    expectRefused(await verifyPresentation(vp, mandateOptions()), 'UNTRUSTED_ISSUER');
  });
});

describe('(d) a presentation signed by Digital Bazaar verifies with Mandate', () => {
  let dbIssuer: TwinKey;
  let dbRoot: AgentCredential;

  beforeAll(async () => {
    ({ issuer: dbIssuer, credential: dbRoot } = await issueWithDigitalBazaar());
  });

  async function dbPresent(
    credentials: object[],
    extra: { expires?: string; created?: string; signer?: DbKeyPair; holder?: string } = {},
  ) {
    const { signer = agent.db, holder = agent.db.controller, ...times } = extra;
    return dbSignPresentation(presentationBody(holder, credentials), signer, {
      challenge: CHALLENGE,
      domain: TARGET,
      documentLoader: loader,
      ...times,
    });
  }

  const inFiveMinutes = () => new Date(Date.now() + 5 * MINUTE).toISOString();

  it('DB writes `expires` into the VP proof, and Mandate accepts it with a Mandate-issued root', async () => {
    const expires = inFiveMinutes();
    const vp = await dbPresent([root], { expires });
    expect(vp.proof).toMatchObject({
      proofPurpose: 'authentication',
      challenge: CHALLENGE,
      domain: TARGET,
      expires,
      verificationMethod: agent.mandate.verificationMethod,
    });
    const result = await verifyPresentation(vp, mandateOptions());
    expect(result).toMatchObject({ valid: true, agentDid: agent.mandate.did, vpId: vp.id });
  });

  it('accepts a DB-signed VP around a DB-issued root (no Mandate code signed anything)', async () => {
    const vp = await dbPresent([dbRoot], { expires: inFiveMinutes() });
    expect((await verifyPresentation(vp, mandateOptions({ trustedIssuers: [dbIssuer.db.controller] }))).valid).toBe(
      true,
    );
    // DB agrees with itself on the same bytes.
    expect(
      (await dbVerifyPresentation(vp, { challenge: CHALLENGE, domain: TARGET, documentLoader: loader })).verified,
    ).toBe(true);
  });

  it('refuses it for another challenge or another target', async () => {
    const vp = await dbPresent([root], { expires: inFiveMinutes() });
    expectRefused(
      await verifyPresentation(vp, mandateOptions({ expectedChallenge: 'another-challenge' })),
      'CHALLENGE_MISMATCH',
    );
    expectRefused(
      await verifyPresentation(vp, mandateOptions({ expectedDomain: 'calendar.example.com' })),
      'TARGET_MISMATCH',
    );
  });

  it('refuses it when changed after signing', async () => {
    const vp = await dbPresent([root], { expires: inFiveMinutes() });
    const changed = structuredClone(vp);
    changed.id = newUrnUuid();
    expectRefused(await verifyPresentation(changed, mandateOptions()), 'VP_SIGNATURE_INVALID');
  });

  it('enforces `expires`, which DB itself only checks for format', async () => {
    const vp = await dbPresent([root], { expires: new Date(Date.now() - 10 * MINUTE).toISOString() });
    expect(
      (await dbVerifyPresentation(vp, { challenge: CHALLENGE, domain: TARGET, documentLoader: loader })).verified,
    ).toBe(true);
    expectRefused(await verifyPresentation(vp, mandateOptions()), 'VP_EXPIRED');
  });

  it('without `expires`, treats created + 5 min as the expiry', async () => {
    const fresh = await dbPresent([root]);
    expect(fresh.proof.expires).toBeUndefined();
    expect((await verifyPresentation(fresh, mandateOptions())).valid).toBe(true);
    const stale = await dbPresent([root], { created: new Date(Date.now() - 10 * MINUTE).toISOString() });
    expectRefused(await verifyPresentation(stale, mandateOptions()), 'VP_EXPIRED');
  });

  it('binds the VP key to `holder`, which DB does not', async () => {
    const stranger = await twinKey();
    const vp = await dbPresent([root], { expires: inFiveMinutes(), signer: stranger.db });
    expect(
      (await dbVerifyPresentation(vp, { challenge: CHALLENGE, domain: TARGET, documentLoader: loader })).verified,
    ).toBe(true);
    expectRefused(await verifyPresentation(vp, mandateOptions()), 'KEY_NOT_AUTHORIZED');
  });
});

describe('(e) the same proofValue from both stacks', () => {
  const created = '2025-06-01T12:00:00Z';

  it('Mandate createProof and DB dbIssue sign an AgentCredential to identical bytes', async () => {
    const seed = generateSeed();
    const issuer = await twinKey(seed);
    const body = agentCredentialBody(issuer.mandate.did, agent.mandate.did);
    const fromMandate = await createProof(body, {
      signer: issuer.mandate.signer,
      verificationMethod: issuer.mandate.verificationMethod,
      proofPurpose: 'assertionMethod',
      created,
    });
    const fromDb = await dbIssue(body, issuer.db, { created, documentLoader: loader });
    expect(fromDb.proof.proofValue).toBe((fromMandate.proof as DataIntegrityProof).proofValue);
    expect(fromDb).toEqual(fromMandate);
    // Each verifies the other's output.
    expect(await dbVerifyCredential(fromMandate, { documentLoader: loader })).toEqual({ verified: true });
    await expect(
      verifyProof(fromDb, { resolveKey: createKeyResolver(resolver), expectedProofPurpose: 'assertionMethod' }),
    ).resolves.toBeDefined();
  });

  it('a VP proof (authentication, challenge, domain, expires) is identical too', async () => {
    const body = presentationBody(agent.mandate.did, [root]);
    const expires = '2025-06-01T12:05:00Z';
    const fromMandate = await createProof(body, {
      signer: agent.mandate.signer,
      verificationMethod: agent.mandate.verificationMethod,
      proofPurpose: 'authentication',
      challenge: CHALLENGE,
      domain: TARGET,
      created,
      expires,
    });
    const fromDb = await dbSignPresentation(body, agent.db, {
      challenge: CHALLENGE,
      domain: TARGET,
      created,
      expires,
      documentLoader: loader,
    });
    expect(fromDb.proof.proofValue).toBe((fromMandate.proof as DataIntegrityProof).proofValue);
    expect(fromDb).toEqual(fromMandate);
  });

  it('differs when the document, `created` or the key differ', async () => {
    const body = agentCredentialBody(platform.mandate.did, agent.mandate.did);
    const sign = (doc: object, at: string, who: TwinKey) =>
      dbIssue(doc, who.db, { created: at, documentLoader: loader }).then((d) => d.proof.proofValue);
    const reference = await sign(body, created, platform);
    const mandateReference = await createProof(body, {
      signer: platform.mandate.signer,
      verificationMethod: platform.mandate.verificationMethod,
      proofPurpose: 'assertionMethod',
      created,
    });
    expect((mandateReference.proof as DataIntegrityProof).proofValue).toBe(reference);
    expect(await sign({ ...body, validFrom: '2025-01-01T00:00:01Z' }, created, platform)).not.toBe(reference);
    expect(await sign(body, '2025-06-01T12:00:01Z', platform)).not.toBe(reference);
    const other = await twinKey();
    expect(await sign(body, created, other)).not.toBe(reference);
  });
});
