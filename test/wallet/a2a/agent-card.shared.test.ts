// A2A agent cards signed by the agent's DID key, in Node and in Chromium: A2A v1.0 §8.4.1's
// canonical form (its example replayed verbatim), signing with any SigningIdentity (a
// non-extractable WebCrypto key included), then every refusal provoked by a crafted card.
import { beforeAll, describe, expect, it } from 'vitest';
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { cryptoKeySigner, generateNonExtractableKey } from '../../../wallet/crypto/ed25519.ts';
import { decodeProtectedHeader, signDetachedJws } from '../../../wallet/crypto/jws.ts';
import type { JsonObject, JsonValue } from '../../../wallet/crypto/json-value.ts';
import { MANDATE_A2A_EXTENSION_URI } from '../../../wallet/a2a/extension.ts';
import { agentCardPayload, type AgentCard, type AgentCardSignature } from '../../../wallet/a2a/payload.ts';
import { signAgentCard, type SignedAgentCard } from '../../../wallet/a2a/sign.ts';
import { verifyAgentCardSignature, type AgentCardFailure } from '../../../wallet/a2a/verify-signature.ts';
import { verifyAgentCard, type VerifyAgentCardOptions } from '../../../wallet/a2a/verify.ts';
import { delegate } from '../../../wallet/vc/delegation.ts';
import { issueAgentCredential } from '../../../wallet/vc/agent-credential.ts';
import { didKeyIdentity, type SigningIdentity } from '../../../wallet/vc/identity.ts';
import { createMemoryKeyStore } from '../../../wallet/keystore/memory.ts';
import type { AgentCredential } from '../../../wallet/vc/types.ts';
import { newIdentity, testIdentity, testResolver, type TestResolver } from '../../support/agents.ts';

const HOUR = 3600_000;
const utf8 = new TextDecoder();

let platform: SigningIdentity;
let agent: SigningIdentity;
let resolver: TestResolver;
let credential: AgentCredential;

function chainOptions(extra: Partial<VerifyAgentCardOptions> = {}): VerifyAgentCardOptions {
  return { trustedIssuers: [platform.did], expectedDomain: 'files.example.com', resolver, ...extra };
}

async function expectChainRefused(card: unknown, reason: string, extra: Partial<VerifyAgentCardOptions> = {}) {
  const result = await verifyAgentCard(card, chainOptions(extra));
  if (result.valid) throw new Error(`expected ${reason}, but the card was accepted`);
  expect(result.reason).toBe(reason);
  expect(result.message.length).toBeGreaterThan(0);
}

/** A plain A2A v1.0 card, as an A2A server would declare it. */
function baseCard(): AgentCard {
  return {
    name: 'Files agent',
    description: 'Reads and summarises files',
    supportedInterfaces: [{ url: 'https://files.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'summarise', name: 'Summarise', description: 'Summarises a file', tags: ['files'] }],
  };
}

function sign(card: AgentCard = baseCard(), identity: SigningIdentity = agent): Promise<SignedAgentCard> {
  return signAgentCard(card, identity, { credentials: [credential as unknown as JsonObject] });
}

async function expectRefused(card: unknown, reason: string): Promise<AgentCardFailure> {
  const result = await verifyAgentCardSignature(card, { resolver });
  if (result.valid) throw new Error(`expected ${reason}, but the card was accepted`);
  expect(result.reason).toBe(reason);
  expect(result.message.length).toBeGreaterThan(0);
  return result;
}

/** `card` with its one signature re-made by `identity` over the card's payload, under `header`. */
async function resigned(
  card: SignedAgentCard,
  header: Record<string, JsonValue>,
  identity: SigningIdentity = agent,
): Promise<SignedAgentCard> {
  const jws = await signDetachedJws({ alg: 'EdDSA', ...header }, agentCardPayload(card), identity.signer);
  return { ...card, signatures: [{ protected: jws.protected, signature: jws.signature }] };
}

function withProtected(card: SignedAgentCard, header: JsonValue): SignedAgentCard {
  const encoded = bytesToBase64url(new TextEncoder().encode(JSON.stringify(header)));
  return { ...card, signatures: [{ ...(card.signatures[0] as JsonObject), protected: encoded } as never] };
}

beforeAll(async () => {
  platform = newIdentity();
  agent = newIdentity();
  resolver = testResolver();
  credential = await issueAgentCredential({
    issuer: platform,
    agentDid: agent.did,
    privilegeScopes: ['files:read'],
    delegationDepth: 1,
    domains: ['files.example.com'],
    validUntil: new Date(Date.now() + 24 * HOUR),
  });
});

describe('the signed form of a card (A2A v1.0 §8.4.1)', () => {
  it("reproduces the specification's default-value example byte for byte", () => {
    // A2A v1.0 §8.4.1 "Example of Default Value Removal", input and output verbatim.
    const fragment = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    expect(utf8.decode(agentCardPayload(fragment))).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
  });

  it('leaves out signatures, implicit-presence defaults, nulls and members A2A v1.0 does not define', () => {
    const card = {
      ...baseCard(),
      supportedInterfaces: [{ url: 'u', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
      capabilities: { extensions: [{ uri: 'urn:x', required: false, description: '', params: {} }] },
      securitySchemes: {},
      provider: null,
      url: 'https://legacy.example.com',
      signatures: [{ protected: 'x', signature: 'y' }],
    };
    const text = utf8.decode(agentCardPayload(card));
    expect(text).toContain('"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"u"}]');
    // An extension's params is a message (explicit presence): kept even empty.
    expect(text).toContain('"capabilities":{"extensions":[{"params":{},"uri":"urn:x"}]}');
    for (const gone of ['signatures', 'securitySchemes', 'provider', 'legacy', 'tenant', 'required'])
      expect(text).not.toContain(gone);
  });
});

describe('signAgentCard and verifyAgentCardSignature — accepted', () => {
  it('signs with the DID key and names the DID and its credentials in the extension', async () => {
    const card = await sign();
    expect(card.signatures).toHaveLength(1);
    expect(decodeProtectedHeader(card.signatures[0]?.protected)).toEqual({
      alg: 'EdDSA',
      typ: 'JOSE',
      kid: agent.verificationMethod,
    });
    const extensions = card.capabilities.extensions ?? [];
    expect(extensions).toEqual([
      expect.objectContaining({
        uri: MANDATE_A2A_EXTENSION_URI,
        params: { did: agent.did, credentials: [credential] },
      }),
    ]);
    const result = await verifyAgentCardSignature(card, { resolver });
    expect(result).toMatchObject({ valid: true, agentDid: agent.did, keyId: agent.verificationMethod });
    if (!result.valid) return;
    expect(result.card.signatures).toBeUndefined();
    expect(result.card.name).toBe('Files agent');
    expect(result.credentials).toEqual([credential]);
  });

  it('verifies a card read back from JSON text, whose members come in another order', async () => {
    const card = await sign();
    const reordered = Object.fromEntries(Object.entries(JSON.parse(JSON.stringify(card)) as JsonObject).reverse());
    expect((await verifyAgentCardSignature(reordered, { resolver })).valid).toBe(true);
  });

  it('verifies a card passed as JSON text', async () => {
    const card = await sign();
    expect(await verifyAgentCardSignature(JSON.stringify(card), { resolver })).toMatchObject({ valid: true });
  });

  it('accepts a card another party countersigned, and one whose first agent signature is stale', async () => {
    const card = await sign();
    const agentSignature = card.signatures[0] as AgentCardSignature;
    const provider = await signDetachedJws(
      { alg: 'EdDSA', typ: 'JOSE', kid: 'provider-key-1' },
      agentCardPayload(card),
      newIdentity().signer,
    );
    const countersigned = { ...card, signatures: [provider, agentSignature] };
    expect(await verifyAgentCardSignature(countersigned, { resolver })).toMatchObject({ valid: true });
    const stale = (await sign({ ...baseCard(), version: '0.9.0' })).signatures[0] as AgentCardSignature;
    const rotated = { ...card, signatures: [stale, agentSignature] };
    expect(await verifyAgentCardSignature(rotated, { resolver })).toMatchObject({ valid: true });
  });

  it('signs with a non-extractable WebCrypto key', async () => {
    const { privateKey, publicKey } = await generateNonExtractableKey();
    const identity = didKeyIdentity(cryptoKeySigner(privateKey, publicKey));
    const result = await verifyAgentCardSignature(await sign(baseCard(), identity), { resolver });
    expect(result).toMatchObject({ valid: true, agentDid: identity.did });
  });

  it('signs with a key-store key', async () => {
    const store = createMemoryKeyStore();
    const { id } = await store.generate();
    const identity = didKeyIdentity(await store.signer(id));
    const result = await verifyAgentCardSignature(await sign(baseCard(), identity), { resolver });
    expect(result).toMatchObject({ valid: true, agentDid: identity.did });
  });

  it('replaces an earlier Mandate extension and keeps the other extensions', async () => {
    const card = baseCard();
    card.capabilities.extensions = [
      { uri: 'https://example.com/ext/v1', params: { a: 1 } },
      { uri: MANDATE_A2A_EXTENSION_URI, params: { did: 'did:key:old', credentials: [1] } },
    ];
    const signed = await sign(card);
    expect(signed.capabilities.extensions?.map((e) => e.uri)).toEqual([
      'https://example.com/ext/v1',
      MANDATE_A2A_EXTENSION_URI,
    ]);
    expect((await verifyAgentCardSignature(signed, { resolver })).valid).toBe(true);
  });

  it('still verifies when defaults and members outside A2A v1.0 are added, and reports only what was signed', async () => {
    const card = await sign();
    const padded = {
      ...card,
      securityRequirements: [],
      supportedInterfaces: [{ ...card.supportedInterfaces[0], tenant: '' }],
      url: 'https://attacker.example.com',
    };
    const result = await verifyAgentCardSignature(padded, { resolver });
    expect(result.valid).toBe(true);
    if (result.valid) expect(result.card.url).toBeUndefined();
  });
});

describe('signAgentCard — refused', () => {
  it('A2A_CARD_AMBIGUOUS: an empty value the SDKs would drop and the specification keeps, a member no signature covers', async () => {
    await expect(sign({ ...baseCard(), description: '' })).rejects.toMatchObject({ code: 'A2A_CARD_AMBIGUOUS' });
    await expect(sign({ ...baseCard(), skills: [] })).rejects.toMatchObject({ code: 'A2A_CARD_AMBIGUOUS' });
    // Members outside the v1.0 schema: a v0.3 `url`, a snake_case spelling the SDKs also read.
    await expect(sign({ ...baseCard(), url: 'https://files.example.com' })).rejects.toMatchObject({
      code: 'A2A_CARD_AMBIGUOUS',
    });
    const skill = { id: 's', name: 'S', description: 'd', tags: ['t'], input_modes: ['text/plain'] };
    await expect(sign({ ...baseCard(), skills: [skill] })).rejects.toMatchObject({ code: 'A2A_CARD_AMBIGUOUS' });
  });

  it('A2A_CARD_MALFORMED: a field of the wrong type', async () => {
    await expect(sign({ ...baseCard(), name: 5 as never })).rejects.toMatchObject({ code: 'A2A_CARD_MALFORMED' });
  });
});

describe('verifyAgentCardSignature — refused', () => {
  it('A2A_CARD_MALFORMED: not an object, not JSON, a wrong type, too large', async () => {
    await expectRefused('a card', 'A2A_CARD_MALFORMED');
    const duplicate = '{"name":"a","name":"b"}';
    for (const junk of [null, 42, [], true, '{"name":', '[]', duplicate, { __proto__: null, name: 1 }])
      await expectRefused(junk, 'A2A_CARD_MALFORMED');
    const card = await sign();
    await expectRefused({ ...card, skills: 'summarise' }, 'A2A_CARD_MALFORMED');
    await expectRefused({ ...card, signatures: { protected: 'x' } }, 'A2A_CARD_MALFORMED');
    await expectRefused({ ...card, iconUrl: 'x'.repeat(300 * 1024) }, 'A2A_CARD_MALFORMED');
  });

  it('A2A_CARD_UNSIGNED: no signatures, or none by a DID key', async () => {
    const card = await sign();
    const { signatures: _, ...unsigned } = card;
    await expectRefused(unsigned, 'A2A_CARD_UNSIGNED');
    await expectRefused({ ...card, signatures: [] }, 'A2A_CARD_UNSIGNED');
    // A provider's own signature (kid "key-1", A2A v1.0 §8.5) does not speak for the agent's DID.
    await expectRefused(await resigned(card, { typ: 'JOSE', kid: 'key-1' }), 'A2A_CARD_UNSIGNED');
  });

  it('A2A_EXTENSION_MISSING: no Mandate identity extension', async () => {
    const card = await sign();
    await expectRefused({ ...card, capabilities: { streaming: false } }, 'A2A_EXTENSION_MISSING');
  });

  it('A2A_EXTENSION_MALFORMED: twice, no DID, no credentials', async () => {
    const card = await sign();
    const ours = card.capabilities.extensions?.[0] as JsonObject;
    const withExtension = (params: JsonValue, twice = false) => ({
      ...card,
      capabilities: { extensions: twice ? [ours, ours] : [{ uri: MANDATE_A2A_EXTENSION_URI, params }] },
    });
    await expectRefused(withExtension(null, true), 'A2A_EXTENSION_MALFORMED');
    await expectRefused(
      withExtension({ did: 'not a did', credentials: [credential as never] }),
      'A2A_EXTENSION_MALFORMED',
    );
    await expectRefused(
      withExtension({ did: `${agent.did}#key`, credentials: [credential as never] }),
      'A2A_EXTENSION_MALFORMED',
    );
    await expectRefused(withExtension({ did: agent.did, credentials: [] }), 'A2A_EXTENSION_MALFORMED');
    await expectRefused(
      { ...card, capabilities: { extensions: [{ uri: MANDATE_A2A_EXTENSION_URI }] } },
      'A2A_EXTENSION_MALFORMED',
    );
  });

  it('A2A_CARD_SIGNATURE_MALFORMED: another alg, no typ, a crit, a short signature, a clashing unprotected header', async () => {
    const card = await sign();
    const kid = agent.verificationMethod;
    await expectRefused(withProtected(card, { alg: 'ES256', typ: 'JOSE', kid }), 'A2A_CARD_SIGNATURE_MALFORMED');
    await expectRefused(await resigned(card, { kid }), 'A2A_CARD_SIGNATURE_MALFORMED');
    await expectRefused(await resigned(card, { typ: 'JOSE', kid, crit: ['exp'] }), 'A2A_CARD_SIGNATURE_MALFORMED');
    const entry = card.signatures[0]!;
    await expectRefused(
      { ...card, signatures: [{ ...entry, signature: entry.signature.slice(0, 40) }] },
      'A2A_CARD_SIGNATURE_MALFORMED',
    );
    await expectRefused(
      { ...card, signatures: [{ ...entry, header: { kid: 'other' } }] },
      'A2A_CARD_SIGNATURE_MALFORMED',
    );
    await expectRefused({ ...card, signatures: [{ ...entry, header: 'x' }] }, 'A2A_CARD_SIGNATURE_MALFORMED');
  });

  it('A2A_CARD_SIGNATURE_INVALID: a tampered card, a tampered credential, another signature', async () => {
    const card = await sign();
    await expectRefused({ ...card, name: 'Payments agent' }, 'A2A_CARD_SIGNATURE_INVALID');
    await expectRefused(
      { ...card, skills: [...card.skills, { id: 'pay', name: 'Pay', description: 'Pays', tags: ['x'] }] },
      'A2A_CARD_SIGNATURE_INVALID',
    );
    const other = await sign({ ...baseCard(), version: '2.0.0' });
    await expectRefused({ ...card, signatures: other.signatures }, 'A2A_CARD_SIGNATURE_INVALID');
  });

  it('KEY_NOT_AUTHORIZED: a key of another DID, a key that is not an assertionMethod of the DID', async () => {
    const card = await sign();
    const mallory = newIdentity();
    // Mallory signs a card naming the agent's DID and credential: her key is not the DID's.
    await expectRefused(
      await resigned(card, { typ: 'JOSE', kid: mallory.verificationMethod }, mallory),
      'KEY_NOT_AUTHORIZED',
    );
    // The agent's DID, a key id its document does not have.
    await expectRefused(await resigned(card, { typ: 'JOSE', kid: `${agent.did}#other` }), 'KEY_NOT_AUTHORIZED');
    // A key the document lists for authentication only.
    const limited = testIdentity('authentication-only');
    resolver.documents.set(limited.did, {
      document: { ...limited.document, assertionMethod: [] },
    });
    const limitedCard = await sign(baseCard(), limited);
    await expectRefused(limitedCard, 'KEY_NOT_AUTHORIZED');
    // The same document with the key in assertionMethod accepts it.
    resolver.documents.set(limited.did, { document: limited.document });
    expect((await verifyAgentCardSignature(limitedCard, { resolver })).valid).toBe(true);
  });

  it('DID_RESOLUTION_FAILED and DID_DEACTIVATED: the DID does not resolve, or is deactivated', async () => {
    const gone = testIdentity('unknown');
    await expectRefused(await sign(baseCard(), gone), 'DID_RESOLUTION_FAILED');
    const retired = testIdentity('retired');
    resolver.documents.set(retired.did, { document: retired.document, deactivated: true });
    await expectRefused(await sign(baseCard(), retired), 'DID_DEACTIVATED');
  });
});

describe("verifyAgentCard — the agent's authority", () => {
  it('accepts a card whose DID holds an issuer-backed credential, and reports the authority', async () => {
    const card = await sign();
    const result = await verifyAgentCard(card, chainOptions({ requiredScopes: ['files:read'] }));
    expect(result).toMatchObject({
      valid: true,
      agentDid: agent.did,
      keyId: agent.verificationMethod,
      privilegeScopes: ['files:read'],
      effectiveScopes: ['files:read'],
    });
    if (!result.valid) return;
    expect(result.card.name).toBe('Files agent');
    expect(result.chain).toEqual([
      expect.objectContaining({ id: credential.id, type: 'AgentCredential', issuer: platform.did, subject: agent.did }),
    ]);
    expect(result.checks.map((c) => c.check)).toEqual(['dids', 'credentials', 'chain', 'scopes', 'status']);
  });

  it('accepts a sub-agent whose card carries its delegated chain, leaf first', async () => {
    const subAgent = newIdentity();
    const child = await delegate(credential, {
      delegator: agent,
      delegateeDid: subAgent.did,
      scopes: ['files:read:public'],
      domains: ['files.example.com'],
    });
    const card = await signAgentCard(baseCard(), subAgent, {
      credentials: [child as unknown as JsonObject, credential as unknown as JsonObject],
    });
    const result = await verifyAgentCard(card, chainOptions());
    expect(result).toMatchObject({ valid: true, agentDid: subAgent.did, effectiveScopes: ['files:read:public'] });
    if (result.valid) expect(result.chain.map((l) => l.subject)).toEqual([subAgent.did, agent.did]);
  });

  it('reports a refused signature before looking at the chain', async () => {
    const card = await sign();
    await expectChainRefused({ ...card, name: 'Payments agent' }, 'A2A_CARD_SIGNATURE_INVALID');
  });

  it("A2A_CARD_SUBJECT_MISMATCH: the card's DID is not the credential's subject", async () => {
    const other = newIdentity();
    // The agent signs a card carrying someone else's (valid) credential.
    const theirs = await issueAgentCredential({
      issuer: platform,
      agentDid: other.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    const card = await signAgentCard(baseCard(), agent, { credentials: [theirs as unknown as JsonObject] });
    await expectChainRefused(card, 'A2A_CARD_SUBJECT_MISMATCH');
  });

  it("passes the chain's own reason through: issuer trust, expiry, target, scopes, status, a forged credential", async () => {
    const card = await sign();
    await expectChainRefused(card, 'UNTRUSTED_ISSUER', { trustedIssuers: [newIdentity().did] });
    await expectChainRefused(card, 'CREDENTIAL_EXPIRED', { now: new Date(Date.now() + 48 * HOUR) });
    await expectChainRefused(card, 'TARGET_MISMATCH', { expectedDomain: 'payments.example.com' });
    await expectChainRefused(card, 'INSUFFICIENT_SCOPE', { requiredScopes: ['files:write'] });
    await expectChainRefused(card, 'STATUS_UNAVAILABLE', { requireCredentialStatus: true });
    // The agent widens its own credential's scopes and signs the card: the issuer's proof breaks.
    const forged = {
      ...credential,
      credentialSubject: { ...credential.credentialSubject, privilegeScopes: ['files'] },
    };
    const forgedCard = await signAgentCard(baseCard(), agent, { credentials: [forged as unknown as JsonObject] });
    await expectChainRefused(forgedCard, 'CREDENTIAL_SIGNATURE_INVALID');
    const junk = await signAgentCard(baseCard(), agent, { credentials: [{ id: 'urn:uuid:x', type: ['x'] }] });
    await expectChainRefused(junk, 'MALFORMED');
  });

  it('rejects options that cannot work, as verifyPresentation does', async () => {
    const card = await sign();
    await expect(verifyAgentCard(card, chainOptions({ expectedDomain: '' }))).rejects.toMatchObject({
      code: 'INVALID_VERIFIER_OPTIONS',
    });
  });
});
