// verifyPresentation end to end, in Node and in Chromium: the happy paths (root, delegation
// chain, grants), then every reason code provoked by crafted input. Status-list reasons live in
// test/wallet/status/verify-status.shared.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { createProof, MAX_PROOF_SET_SIZE } from '../../../wallet/crypto/data-integrity.ts';
import { issueAgentCredential } from '../../../wallet/vc/agent-credential.ts';
import { createVerifiedCredentialCache } from '../../../wallet/vc/credential-cache.ts';
import { credentialDigest, delegate } from '../../../wallet/vc/delegation.ts';
import { createConsent, issueGrant } from '../../../wallet/vc/grant.ts';
import type { SigningIdentity } from '../../../wallet/vc/identity.ts';
import { MANDATE_CONTEXTS } from '../../../wallet/vc/context.ts';
import { MAX_DOMAINS } from '../../../wallet/vc/parse.ts';
import { signPresentation } from '../../../wallet/vc/presentation.ts';
import { createReplayCache, type ReplayCache } from '../../../wallet/vc/replay-cache.ts';
import type { AgentCredential, DelegatedAgentCredential, MandateCredential } from '../../../wallet/vc/types.ts';
import {
  verifyPresentation,
  type VerificationResult,
  type VerifyPresentationOptions,
} from '../../../wallet/vc/verify.ts';
import { newIdentity, signRaw, testIdentity, testResolver, type TestResolver } from '../../support/agents.ts';

const TARGET = 'files.example.com';
const HOUR = 3600_000;

let platform: SigningIdentity;
let agent: SigningIdentity;
let subAgent: SigningIdentity;
let resolver: TestResolver;
let root: AgentCredential;

function options(extra: Partial<VerifyPresentationOptions> = {}): VerifyPresentationOptions {
  return { trustedIssuers: [platform.did], expectedDomain: TARGET, expectedChallenge: 'nonce-1', resolver, ...extra };
}

function present(
  holder: SigningIdentity,
  credentials: MandateCredential[],
  extra: { challenge?: string; domain?: string; created?: Date } = {},
) {
  return signPresentation({
    holder,
    credentials,
    challenge: extra.challenge ?? 'nonce-1',
    domain: extra.domain ?? TARGET,
    created: extra.created,
  });
}

function expectRefused(result: VerificationResult, reason: string, failedCheck?: string): void {
  if (result.valid) throw new Error(`expected ${reason}, but the presentation was accepted`);
  expect(result.reason).toBe(reason);
  if (failedCheck) expect(result.failedCheck).toBe(failedCheck);
  expect(result.message.length).toBeGreaterThan(0);
}

/** The platform's credential for `agent`: each call issues a new one (a new id, the same claims). */
function issueRoot(): Promise<AgentCredential> {
  return issueAgentCredential({
    issuer: platform,
    agentDid: agent.did,
    privilegeScopes: ['files', 'calendar:read'],
    delegationDepth: 2,
    domains: [TARGET, 'calendar.example.com'],
    validUntil: new Date(Date.now() + 24 * HOUR),
  });
}

beforeAll(async () => {
  platform = newIdentity();
  agent = newIdentity();
  subAgent = newIdentity();
  resolver = testResolver();
  root = await issueRoot();
});

describe('verifyPresentation — accepted', () => {
  it('accepts an agent presenting its issuer-backed credential', async () => {
    const vp = await present(agent, [root]);
    const result = await verifyPresentation(vp, options({ requiredScopes: ['files:read'] }));
    expect(result).toMatchObject({
      valid: true,
      agentDid: agent.did,
      vpId: vp.id,
      effectiveScopes: ['files', 'calendar:read'],
    });
    if (!result.valid) return;
    expect(result.checks.map((c) => c.check)).toEqual([
      'presentation',
      'dids',
      'credentials',
      'chain',
      'scopes',
      'status',
    ]);
    expect(result.chain).toEqual([
      expect.objectContaining({ id: root.id, type: 'AgentCredential', issuer: platform.did, subject: agent.did }),
    ]);
    expect(result.sources.dids.map((d) => d.id).sort()).toEqual([agent.did, platform.did].sort());
  });

  it('accepts a presentation passed as JSON text', async () => {
    const vp = await present(agent, [root]);
    expect((await verifyPresentation(JSON.stringify(vp), options())).valid).toBe(true);
  });

  it('accepts a delegated chain and reports the leaf scopes', async () => {
    const child = await delegate(root, {
      delegator: agent,
      delegateeDid: subAgent.did,
      scopes: ['files:read'],
      domains: [TARGET],
    });
    const vp = await present(subAgent, [child, root]);
    const result = await verifyPresentation(vp, options({ requiredScopes: ['files:read:public'] }));
    expect(result).toMatchObject({
      valid: true,
      agentDid: subAgent.did,
      privilegeScopes: ['files:read'],
      effectiveScopes: ['files:read'],
    });
  });

  it('narrows effective scopes by a grant carrying the user consent', async () => {
    const provider = newIdentity();
    const user = newIdentity();
    const consent = await createConsent({
      user,
      agentDid: agent.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'c-1',
    });
    const grant = await issueGrant({
      provider,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      consent,
      ceiling: root.credentialSubject.privilegeScopes,
    });
    const vp = await present(agent, [root, grant]);
    const result = await verifyPresentation(vp, options({ trustedGrantIssuers: [provider.did] }));
    expect(result).toMatchObject({
      valid: true,
      privilegeScopes: ['files', 'calendar:read'],
      effectiveScopes: ['files:read'],
    });
  });

  it('narrows by the union of several grants: the worked example of docs/scopes.md', async () => {
    const owner = newIdentity();
    const middle = newIdentity();
    const leafAgent = newIdentity();
    const user = newIdentity();
    const rootScopes = ['files', 'mail'];
    const top = await issueAgentCredential({
      issuer: platform,
      agentDid: owner.did,
      privilegeScopes: rootScopes,
      delegationDepth: 2,
    });
    const mid = await delegate(top, {
      delegator: owner,
      delegateeDid: middle.did,
      scopes: ['files:read', 'mail:send'],
    });
    const leaf = await delegate(mid, {
      delegator: middle,
      delegateeDid: leafAgent.did,
      scopes: ['files:read:public', 'mail:send'],
    });
    const grantOf = async (scopes: string[], challenge: string) => {
      const provider = newIdentity();
      const consent = await createConsent({
        user,
        agentDid: leafAgent.did,
        providerDid: provider.did,
        privilegeScopes: scopes,
        challenge,
      });
      return {
        provider,
        grant: await issueGrant({
          provider,
          agentDid: leafAgent.did,
          privilegeScopes: scopes,
          consent,
          ceiling: rootScopes,
        }),
      };
    };
    const files = await grantOf(['files:read'], 'g-1');
    const mail = await grantOf(['mail:send:internal'], 'g-2');
    const vp = await present(leafAgent, [leaf, mid, top, files.grant, mail.grant]);
    const verify = (requiredScopes: string[]) =>
      verifyPresentation(vp, options({ trustedGrantIssuers: [files.provider.did, mail.provider.did], requiredScopes }));
    const result = await verify(['files:read:public:report.pdf', 'mail:send:internal']);
    expect(result.valid && [...result.effectiveScopes].sort()).toEqual(['files:read:public', 'mail:send:internal']);
    expectRefused(await verify(['files:read']), 'INSUFFICIENT_SCOPE', 'scopes');
    expectRefused(await verify(['mail:send']), 'INSUFFICIENT_SCOPE', 'scopes');
  });

  it('skips re-verifying a cached credential signature but still checks the rest', async () => {
    const cache = createVerifiedCredentialCache();
    const first = await verifyPresentation(await present(agent, [root]), options({ credentialCache: cache }));
    const second = await verifyPresentation(await present(agent, [root]), options({ credentialCache: cache }));
    expect(first.valid && first.chain[0]?.cached).toBe(false);
    expect(second.valid && second.chain[0]?.cached).toBe(true);
    // The cache never lets an expired credential through: validity is checked every time.
    const later = await verifyPresentation(
      await present(agent, [root], { created: new Date(Date.now() + 48 * HOUR) }),
      options({ credentialCache: cache, now: new Date(Date.now() + 48 * HOUR) }),
    );
    expectRefused(later, 'CREDENTIAL_EXPIRED', 'credentials');
  });

  it('caches only credentials of presentations that passed: a refused one neither fills the cache nor evicts an entry', async () => {
    const cache = createVerifiedCredentialCache({ max: 1 });
    const stranger = newIdentity();
    // A throwaway key presenting the agent's (public) credential, or its own self-signed one.
    const selfSigned = await issueAgentCredential({
      issuer: stranger,
      agentDid: stranger.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
      validUntil: new Date(Date.now() + HOUR),
    });
    expectRefused(
      await verifyPresentation(await present(stranger, [root]), options({ credentialCache: cache })),
      'HOLDER_MISMATCH',
      'chain',
    );
    const genuine = await verifyPresentation(await present(agent, [root]), options({ credentialCache: cache }));
    expect(genuine.valid && genuine.chain[0]?.cached).toBe(false);
    expectRefused(
      await verifyPresentation(await present(stranger, [selfSigned]), options({ credentialCache: cache })),
      'UNTRUSTED_ISSUER',
      'chain',
    );
    // The agent's credential with its proof wrapped in a set: same proofValue, other content.
    expectRefused(
      await verifyPresentation(
        await present(stranger, [{ ...root, proof: [root.proof] } as never]),
        options({ credentialCache: cache }),
      ),
      'HOLDER_MISMATCH',
      'chain',
    );
    const again = await verifyPresentation(await present(agent, [root]), options({ credentialCache: cache }));
    expect(again.valid && again.chain[0]?.cached).toBe(true);
  });

  it("verifies a cached credential's signature again once the cache TTL has passed", async () => {
    let clock = Date.now();
    const cache = createVerifiedCredentialCache({ ttlMs: 60_000, now: () => clock });
    const cachedFlag = async () => {
      const result = await verifyPresentation(await present(agent, [root]), options({ credentialCache: cache }));
      return result.valid && result.chain[0]?.cached;
    };
    expect(await cachedFlag()).toBe(false);
    expect(await cachedFlag()).toBe(true);
    clock += 59_000;
    expect(await cachedFlag()).toBe(true);
    clock += 2_000;
    expect(await cachedFlag()).toBe(false);
    expect(await cachedFlag()).toBe(true);
  });

  it("a cached credential is refused once its proof expires, or its key is revoked in the issuer's DID document", async () => {
    const t0 = Date.now();
    let clock = t0;
    const cache = createVerifiedCredentialCache({ now: () => clock });
    // The proof expires in 2 minutes, the credential itself in a day.
    const { proof: _proof, ...body } = await issueRoot();
    const shortProof = (await createProof(body, {
      signer: platform.signer,
      verificationMethod: platform.verificationMethod,
      proofPurpose: 'assertionMethod',
      expires: new Date(t0 + 2 * 60_000),
    })) as unknown as AgentCredential;
    const at = (ms: number) => ((clock = t0 + ms), { credentialCache: cache, now: new Date(t0 + ms) });
    const presentAt = (ms: number) => present(agent, [shortProof], { created: new Date(t0 + ms) });
    expect((await verifyPresentation(await presentAt(0), options(at(0)))).valid).toBe(true);
    const hit = await verifyPresentation(await presentAt(1000), options(at(1000)));
    expect(hit.valid && hit.chain[0]?.cached).toBe(true);
    expectRefused(
      await verifyPresentation(await presentAt(5 * 60_000), options(at(5 * 60_000))),
      'CREDENTIAL_EXPIRED',
      'credentials',
    );

    // An issuer whose key is revoked in its DID document after the credential was cached.
    clock = Date.now();
    const issuer = testIdentity('revoking-issuer');
    resolver.documents.set(issuer.did, { document: issuer.document });
    const credential = await issueAgentCredential({
      issuer,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    const trusting = options({ trustedIssuers: [issuer.did], credentialCache: cache });
    expect((await verifyPresentation(await present(agent, [credential]), trusting)).valid).toBe(true);
    const cached = await verifyPresentation(await present(agent, [credential]), trusting);
    expect(cached.valid && cached.chain[0]?.cached).toBe(true);
    // The same through a resolver that answers from memory (the synchronous path of a hit).
    const inMemory = async () => {
      const answered = await resolver.resolve(issuer.did);
      return { resolve: resolver.resolve, resolveCached: (did: string) => (did === issuer.did ? answered : undefined) };
    };
    const fromMemory = await verifyPresentation(await present(agent, [credential]), {
      ...trusting,
      resolver: await inMemory(),
    });
    expect(fromMemory.valid && fromMemory.chain[0]?.cached).toBe(true);
    const [method] = issuer.document.verificationMethod ?? [];
    const revoked = {
      ...issuer.document,
      verificationMethod: [{ ...method, revoked: new Date(Date.now() - 60_000).toISOString() }],
    };
    resolver.documents.set(issuer.did, { document: revoked as typeof issuer.document });
    expectRefused(
      await verifyPresentation(await present(agent, [credential]), trusting),
      'KEY_NOT_AUTHORIZED',
      'credentials',
    );
    expectRefused(
      await verifyPresentation(await present(agent, [credential]), { ...trusting, resolver: await inMemory() }),
      'KEY_NOT_AUTHORIZED',
      'credentials',
    );
    // A key replaced under the same id: the cached signature no longer counts, and fails anew.
    const stranger = testIdentity('revoking-issuer');
    resolver.documents.set(issuer.did, { document: stranger.document });
    expectRefused(
      await verifyPresentation(await present(agent, [credential]), trusting),
      'CREDENTIAL_SIGNATURE_INVALID',
      'credentials',
    );
  });

  it('verifies again a credential that differs from the cached one only in content, keeping its proofValue', async () => {
    const cache = createVerifiedCredentialCache();
    expect((await verifyPresentation(await present(agent, [root]), options({ credentialCache: cache }))).valid).toBe(
      true,
    );
    // Same proof (so the same cache slot), wider scopes: the text differs, the cache misses,
    // and the signature check refuses it.
    const widened = {
      ...root,
      credentialSubject: { ...root.credentialSubject, privilegeScopes: ['files', 'calendar'] },
    };
    const result = await verifyPresentation(await present(agent, [widened]), options({ credentialCache: cache }));
    expectRefused(result, 'CREDENTIAL_SIGNATURE_INVALID', 'credentials');
    // The genuine credential is still cached.
    const again = await verifyPresentation(await present(agent, [root]), options({ credentialCache: cache }));
    expect(again.valid && again.chain[0]?.cached).toBe(true);
  });

  it('keeps the cached text within maxTextLength, and supplies parent digests from the cache', async () => {
    const child = await delegate(root, {
      delegator: agent,
      delegateeDid: subAgent.did,
      scopes: ['files:read'],
      domains: [TARGET],
    });
    const cache = createVerifiedCredentialCache({ maxTextLength: 1 });
    const first = await verifyPresentation(await present(subAgent, [child, root]), options({ credentialCache: cache }));
    const second = await verifyPresentation(
      await present(subAgent, [child, root]),
      options({ credentialCache: cache }),
    );
    // Nothing fits in one character, so nothing was cached, and both verified in full.
    expect(first.valid && second.valid && second.chain.map((c) => c.cached)).toEqual([false, false]);
    const roomy = createVerifiedCredentialCache();
    await verifyPresentation(await present(subAgent, [child, root]), options({ credentialCache: roomy }));
    const cachedRun = await verifyPresentation(
      await present(subAgent, [child, root]),
      options({ credentialCache: roomy }),
    );
    // Both cached: the child's link to its parent was checked with the digest the cache kept.
    expect(cachedRun.valid && cachedRun.chain.map((c) => c.cached)).toEqual([true, true]);
    expect(cachedRun.valid && cachedRun.checks.find((c) => c.check === 'chain')?.ok).toBe(true);
    const otherParent = await issueRoot();
    // A cached child presented with another valid parent still breaks the chain.
    expectRefused(
      await verifyPresentation(await present(subAgent, [child, otherParent]), options({ credentialCache: roomy })),
      'CHAIN_BROKEN',
      'chain',
    );
    expect(credentialDigest(root)).toBe(child.parentCredential.digestMultibase);
  });

  it('accepts a self-signed root only with allowSelfSigned', async () => {
    const self = await issueAgentCredential({
      issuer: agent,
      agentDid: agent.did,
      privilegeScopes: ['dev'],
      delegationDepth: 0,
    });
    const vp = await present(agent, [self]);
    expect((await verifyPresentation(vp, options({ trustedIssuers: [], allowSelfSigned: true }))).valid).toBe(true);
    expectRefused(await verifyPresentation(vp, options({ trustedIssuers: [] })), 'UNTRUSTED_ISSUER', 'chain');
  });
});

describe('verifyPresentation — refused', () => {
  it('MALFORMED: not an object, unsafe keys, oversized, bad scopes, missing proof', async () => {
    expectRefused(await verifyPresentation(42, options()), 'MALFORMED', 'presentation');
    expectRefused(await verifyPresentation('{"not json', options()), 'MALFORMED');
    // A member named twice: JSON.parse would keep the second holder, another parser the first.
    const twice = await present(agent, [root]);
    expectRefused(
      await verifyPresentation(`{"holder":"did:key:z6MkOther",${JSON.stringify(twice).slice(1)}`, options()),
      'MALFORMED',
      'presentation',
    );
    const vp = await present(agent, [root]);
    expectRefused(
      await verifyPresentation(
        JSON.parse(JSON.stringify(vp).replace('"holder"', '"__proto__":{},"holder"')),
        options(),
      ),
      'MALFORMED',
    );
    expectRefused(await verifyPresentation(vp, options({ maxPresentationBytes: 512 })), 'MALFORMED');
    const { proof: _proof, ...unsigned } = vp;
    expectRefused(await verifyPresentation(unsigned, options()), 'MALFORMED');
    const { proof: _rootProof, ...rootUnsigned } = root;
    const badScope = await signRaw(
      { ...rootUnsigned, credentialSubject: { ...root.credentialSubject, privilegeScopes: ['Files'] } },
      platform,
    );
    expectRefused(await verifyPresentation(await present(agent, [badScope]), options()), 'MALFORMED');
  });

  it('MALFORMED before any DID is resolved: unsafe JSON anywhere, an oversized presentation', async () => {
    const asked: string[] = [];
    const counting = { resolve: (did: string) => (asked.push(did), resolver.resolve(did)) };
    const vp = await present(agent, [root]);
    const loneSurrogate = { ...vp, note: { text: 'broken \ud800 half' } };
    const refusedSurrogate = await verifyPresentation(loneSurrogate, options({ resolver: counting }));
    expectRefused(refusedSurrogate, 'MALFORMED', 'presentation');
    expect(refusedSurrogate.valid === false && refusedSurrogate.message).toContain('surrogate');
    const nonFinite = { ...vp, extra: { deep: [Number.NaN] } };
    const refusedNaN = await verifyPresentation(nonFinite, options({ resolver: counting }));
    expectRefused(refusedNaN, 'MALFORMED', 'presentation');
    expect(refusedNaN.valid === false && refusedNaN.message).toContain('finite');
    expectRefused(
      await verifyPresentation(vp, options({ resolver: counting, maxPresentationBytes: 1024 })),
      'MALFORMED',
      'presentation',
    );
    expect(asked).toEqual([]);
    expect((await verifyPresentation(vp, options({ resolver: counting }))).valid).toBe(true);
    expect(asked.sort()).toEqual([agent.did, platform.did].sort());
  });

  it('MALFORMED before any DID is resolved: a proof that is no proof object (or, on the presentation, a proof set)', async () => {
    const asked: string[] = [];
    const counting = { resolve: (did: string) => (asked.push(did), resolver.resolve(did)) };
    const vp = await present(agent, [root]);
    for (const proof of [[], 'z3Ahmm', [vp.proof, 7], null]) {
      expectRefused(
        await verifyPresentation({ ...vp, proof }, options({ resolver: counting })),
        'MALFORMED',
        'presentation',
      );
      expectRefused(
        await verifyPresentation(await present(agent, [{ ...root, proof } as never]), options({ resolver: counting })),
        'MALFORMED',
        'presentation',
      );
    }
    // A presentation has one proof: a set, even of its own valid proof, is not one.
    expectRefused(
      await verifyPresentation({ ...vp, proof: [vp.proof] }, options({ resolver: counting })),
      'MALFORMED',
      'presentation',
    );
    expect(asked).toEqual([]);
  });

  it('MALFORMED before any DID is resolved: an issuer, holder or subject that is not a DID by DID Core §3.1', async () => {
    const asked: string[] = [];
    const counting = { resolve: (did: string) => (asked.push(did), resolver.resolve(did)) };
    const vp = await present(agent, [root]);
    for (const did of ['did:example:a:', 'did:example:%zz', 'did:Example:a', 'did:example:a b', 'did:example:']) {
      expectRefused(
        await verifyPresentation({ ...vp, holder: did }, options({ resolver: counting })),
        'MALFORMED',
        'presentation',
      );
      expectRefused(
        await verifyPresentation(await present(agent, [{ ...root, issuer: did }]), options({ resolver: counting })),
        'MALFORMED',
        'presentation',
      );
      const subject = { ...root.credentialSubject, id: did };
      expectRefused(
        await verifyPresentation(
          await present(agent, [{ ...root, credentialSubject: subject }]),
          options({ resolver: counting }),
        ),
        'MALFORMED',
        'presentation',
      );
    }
    expect(asked).toEqual([]);
    // Empty segments are DID Core syntax: such a DID is well-formed, so it gets as far as resolution.
    expect(
      await verifyPresentation(
        await present(agent, [{ ...root, issuer: 'did:example:a::b' }]),
        options({ resolver: counting }),
      ),
    ).toMatchObject({ valid: false, reason: 'DID_RESOLUTION_FAILED' });
  });

  it('MALFORMED: a credential whose proof set holds more than MAX_PROOF_SET_SIZE proofs, or one proofValue twice (each costs a signature check)', async () => {
    const tooMany = await present(agent, [
      { ...root, proof: Array.from({ length: MAX_PROOF_SET_SIZE + 1 }, () => root.proof) } as never,
    ]);
    const many = await verifyPresentation(tooMany, options());
    expectRefused(many, 'MALFORMED', 'credentials');
    expect(!many.valid && many.message).toMatch(/a proof set holds at most 4 proofs, each with its own proofValue/);
    const repeated = await verifyPresentation(
      await present(agent, [{ ...root, proof: [root.proof, root.proof] } as never]),
      options(),
    );
    expectRefused(repeated, 'MALFORMED', 'credentials');
    expect(!repeated.valid && repeated.message).toMatch(/each with its own proofValue/);
  });

  it('MALFORMED: a grant naming a parentCredential (only delegated credentials have a parent)', async () => {
    const provider = newIdentity();
    const consent = await createConsent({
      user: newIdentity(),
      agentDid: agent.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'c-p',
    });
    const grant = await issueGrant({
      provider,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      consent,
      ceiling: root.credentialSubject.privilegeScopes,
    });
    const parented = { ...grant, parentCredential: { id: root.id, digestMultibase: credentialDigest(root) } };
    const result = await verifyPresentation(
      await present(agent, [root, parented]),
      options({ trustedGrantIssuers: [provider.did] }),
    );
    expectRefused(result, 'MALFORMED', 'presentation');
    expect(!result.valid && result.message).toMatch(/a DelegationGrantCredential has no parentCredential/);
  });

  it('MALFORMED: an AgentCredential naming a parentCredential, and a parentCredential of the wrong shape (docs/protocol.md §Delegated credential)', async () => {
    const { proof: _proof, ...unsignedRoot } = root;
    const parented = await signRaw(
      { ...unsignedRoot, parentCredential: { id: root.id, digestMultibase: credentialDigest(root) } },
      platform,
    );
    expectRefused(await verifyPresentation(await present(agent, [parented]), options()), 'MALFORMED', 'presentation');
    const child = await delegate(root, {
      delegator: agent,
      delegateeDid: subAgent.did,
      scopes: ['files:read'],
      domains: [TARGET],
    });
    const { proof: _childProof, ...unsignedChild } = child;
    for (const parentCredential of [
      { id: '', digestMultibase: credentialDigest(root) },
      { id: 'https://example.com/1', digestMultibase: credentialDigest(root) },
      { id: root.id, digestMultibase: '' },
      'urn:uuid:x',
    ]) {
      const odd = await signRaw({ ...unsignedChild, parentCredential } as never, agent);
      expectRefused(
        await verifyPresentation(await present(subAgent, [odd, root]), options()),
        'MALFORMED',
        'presentation',
      );
    }
    // Well formed but naming another parent: a broken link, judged in check 4.
    const other = await signRaw(
      {
        ...unsignedChild,
        parentCredential: { id: `urn:uuid:${crypto.randomUUID()}`, digestMultibase: credentialDigest(root) },
      },
      agent,
    );
    expectRefused(await verifyPresentation(await present(subAgent, [other, root]), options()), 'CHAIN_BROKEN', 'chain');
  });

  it('accepts the Mandate type listed twice and a URN:UUID prefix in capitals; two Mandate types are MALFORMED (docs/protocol.md §Common envelope)', async () => {
    const { proof: _proof, ...unsignedRoot } = root;
    const twice = await signRaw(
      { ...unsignedRoot, type: ['VerifiableCredential', 'AgentCredential', 'AgentCredential'] },
      platform,
    );
    expect((await verifyPresentation(await present(agent, [twice]), options())).valid).toBe(true);
    const capitals = await signRaw(
      { ...unsignedRoot, id: root.id.replace('urn:uuid:', 'URN:UUID:').toUpperCase() },
      platform,
    );
    expect((await verifyPresentation(await present(agent, [capitals]), options())).valid).toBe(true);
    const two = await signRaw(
      { ...unsignedRoot, type: ['VerifiableCredential', 'AgentCredential', 'DelegationGrantCredential'] },
      platform,
    );
    expectRefused(await verifyPresentation(await present(agent, [two]), options()), 'MALFORMED', 'presentation');
  });

  it('MALFORMED: a presentation proof over maxPresentationBytes on its own, though the rest is small', async () => {
    const vp = await present(agent, [root]);
    const padded = { ...vp, proof: { ...vp.proof, note: 'x'.repeat(66 * 1024) } };
    const result = await verifyPresentation(padded, options());
    expectRefused(result, 'MALFORMED', 'presentation');
    expect(!result.valid && result.message).toMatch(/65536 bytes/);
    // Under the limit, the extra member is just a signature that no longer verifies.
    expectRefused(
      await verifyPresentation({ ...vp, proof: { ...vp.proof, note: 'x'.repeat(1024) } }, options()),
      'VP_SIGNATURE_INVALID',
      'presentation',
    );
  });

  it('MALFORMED: a @context other than [v2, Mandate] or [v2] — such as one appended after signing, which the proofs alone would let through', async () => {
    const extra = 'https://attacker.example/ctx';
    const { proof: _proof, ...unsignedRoot } = root;
    const vp = await present(agent, [root]);
    // eddsa-jcs-2022 verifies a document whose @context starts with the one signed: appending is
    // invisible to the signature, so the verifier knows its contexts instead.
    expectRefused(
      await verifyPresentation({ ...vp, '@context': [...MANDATE_CONTEXTS, extra] }, options()),
      'MALFORMED',
      'presentation',
    );
    expectRefused(
      await verifyPresentation(
        await present(agent, [{ ...root, '@context': [...MANDATE_CONTEXTS, extra] }]),
        options(),
      ),
      'MALFORMED',
      'presentation',
    );
    for (const contexts of [
      [...MANDATE_CONTEXTS, MANDATE_CONTEXTS[1]],
      [MANDATE_CONTEXTS[0], extra],
      [MANDATE_CONTEXTS[1], MANDATE_CONTEXTS[0]],
    ]) {
      const result = await verifyPresentation(
        await present(agent, [await signRaw({ ...unsignedRoot, '@context': contexts }, platform)]),
        options(),
      );
      expectRefused(result, 'MALFORMED', 'presentation');
    }
    // The v2 context alone is known too: a credential signed that way is accepted.
    const v2Only = await signRaw({ ...unsignedRoot, '@context': [MANDATE_CONTEXTS[0]] }, platform);
    expect((await verifyPresentation(await present(agent, [v2Only]), options())).valid).toBe(true);
  });

  it('rejects invalid options with VerifierOptionsError: a programming error, never blamed on the presentation', async () => {
    const vp = await present(agent, [root]);
    const bad: Array<Partial<Record<keyof VerifyPresentationOptions, unknown>>> = [
      { requiredScopes: ['FILES'] },
      { requiredScopes: 'files' },
      { trustedIssuers: 'did:key:z6Mk' },
      { trustedIssuers: ['https://issuer.example'] },
      { trustedGrantIssuers: ['bob'] },
      { expectedDomain: '' },
      { expectedChallenge: 7 },
      { resolver: undefined },
      { resolver: {} },
      { statusLists: {} },
      { replayCache: new Set() },
      { credentialCache: {} },
      { now: Date.now() },
      { now: new Date(Number.NaN) },
      { clockSkewMs: -1 },
      { maxPresentationLifetimeMs: Number.POSITIVE_INFINITY },
      { maxChainLength: 0 },
      { maxPresentationBytes: 1.5 },
      { allowSelfSigned: 'yes' },
      { requireCredentialStatus: 1 },
    ];
    for (const extra of bad) {
      await expect(
        verifyPresentation(vp, options(extra as Partial<VerifyPresentationOptions>)),
        JSON.stringify(extra),
      ).rejects.toMatchObject({
        name: 'VerifierOptionsError',
        code: 'INVALID_VERIFIER_OPTIONS',
      });
    }
    await expect(verifyPresentation(vp, null as never)).rejects.toMatchObject({ code: 'INVALID_VERIFIER_OPTIONS' });
    expect(
      (
        await verifyPresentation(
          vp,
          options({ requiredScopes: ['files:read'], now: new Date(), clockSkewMs: 0, maxChainLength: 1 }),
        )
      ).valid,
    ).toBe(true);
  });

  it('MALFORMED: more than MAX_DOMAINS domains, at verification and at issuance', async () => {
    const domains = Array.from({ length: MAX_DOMAINS + 1 }, (_, i) => `d${i}.example.com`);
    const { proof: _rootProof, ...rootUnsigned } = root;
    const wide = await signRaw(
      { ...rootUnsigned, credentialSubject: { ...root.credentialSubject, domains } },
      platform,
    );
    expectRefused(await verifyPresentation(await present(agent, [wide]), options()), 'MALFORMED', 'presentation');
    await expect(
      issueAgentCredential({
        issuer: platform,
        agentDid: agent.did,
        privilegeScopes: ['files'],
        delegationDepth: 0,
        domains,
      }),
    ).rejects.toThrow(expect.objectContaining({ code: 'MALFORMED' }));
    const atTheBound = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
      domains: [TARGET, ...domains.slice(1, MAX_DOMAINS)],
    });
    expect((await verifyPresentation(await present(agent, [atTheBound]), options())).valid).toBe(true);
  });

  it('MALFORMED: a chain longer than maxChainLength', async () => {
    const child = await delegate(root, {
      delegator: agent,
      delegateeDid: subAgent.did,
      scopes: ['files:read'],
      domains: [TARGET],
    });
    expectRefused(
      await verifyPresentation(await present(subAgent, [child, root]), options({ maxChainLength: 1 })),
      'MALFORMED',
    );
  });

  it('VP_SIGNATURE_INVALID: the presentation was changed after signing', async () => {
    const vp = await present(agent, [root]);
    expectRefused(
      await verifyPresentation({ ...vp, id: 'urn:uuid:00000000-0000-4000-8000-000000000000' }, options()),
      'VP_SIGNATURE_INVALID',
      'presentation',
    );
  });

  it('VP_EXPIRED: past expires, and created in the future', async () => {
    const vp = await present(agent, [root], { created: new Date(Date.now() - 10 * 60_000) });
    expectRefused(await verifyPresentation(vp, options()), 'VP_EXPIRED', 'presentation');
    const future = await present(agent, [root], { created: new Date(Date.now() + 10 * 60_000) });
    expectRefused(await verifyPresentation(future, options()), 'VP_EXPIRED');
  });

  it('VP_EXPIRED: a presentation valid for longer than the verifier accepts (default 1 hour)', async () => {
    const decade = await signPresentation({
      holder: agent,
      credentials: [root],
      challenge: 'nonce-1',
      domain: TARGET,
      lifetimeMs: 10 * 365 * 24 * HOUR,
    });
    expectRefused(await verifyPresentation(decade, options()), 'VP_EXPIRED', 'presentation');
    const twoHours = await signPresentation({
      holder: agent,
      credentials: [root],
      challenge: 'nonce-1',
      domain: TARGET,
      lifetimeMs: 2 * HOUR,
    });
    expectRefused(await verifyPresentation(twoHours, options()), 'VP_EXPIRED', 'presentation');
    expect((await verifyPresentation(twoHours, options({ maxPresentationLifetimeMs: 2 * HOUR }))).valid).toBe(true);
    const oneHour = await signPresentation({
      holder: agent,
      credentials: [root],
      challenge: 'nonce-1',
      domain: TARGET,
      lifetimeMs: HOUR,
    });
    expect((await verifyPresentation(oneHour, options())).valid).toBe(true);
    // Signed by hand, one that expires before it was created (still inside the clock skew) is refused.
    const { proof: _proof, ...unsigned } = oneHour;
    const backwards = await createProof(unsigned, {
      signer: agent.signer,
      verificationMethod: agent.verificationMethod,
      proofPurpose: 'authentication',
      challenge: 'nonce-1',
      domain: TARGET,
      created: new Date(Math.floor(Date.now() / 1000) * 1000 + 20_000),
      expires: new Date(Math.floor(Date.now() / 1000) * 1000 - 20_000),
    });
    expectRefused(await verifyPresentation(backwards, options()), 'VP_EXPIRED', 'presentation');
    // signPresentation does not sign one that would expire before it was created.
    for (const lifetimeMs of [0, -HOUR, 1.5, Number.NaN]) {
      await expect(
        signPresentation({ holder: agent, credentials: [root], challenge: 'nonce-1', domain: TARGET, lifetimeMs }),
        String(lifetimeMs),
      ).rejects.toMatchObject({ code: 'PROOF_OPTIONS_INVALID' });
    }
  });

  it('VP_EXPIRED: a proof without expires lives 5 minutes after created', async () => {
    const unsigned = {
      '@context': [...MANDATE_CONTEXTS],
      id: `urn:uuid:${crypto.randomUUID()}`,
      type: ['VerifiablePresentation'],
      holder: agent.did,
      verifiableCredential: [root],
    };
    const withoutExpires = (ageMs: number) =>
      createProof(unsigned, {
        signer: agent.signer,
        verificationMethod: agent.verificationMethod,
        proofPurpose: 'authentication',
        challenge: 'nonce-1',
        domain: TARGET,
        created: new Date(Date.now() - ageMs),
      });
    const fresh = await withoutExpires(3 * 60_000);
    expect(fresh.proof).not.toHaveProperty('expires');
    expect((await verifyPresentation(fresh, options())).valid).toBe(true);
    expectRefused(await verifyPresentation(await withoutExpires(7 * 60_000), options()), 'VP_EXPIRED', 'presentation');
  });

  it('CHALLENGE_MISMATCH and TARGET_MISMATCH', async () => {
    expectRefused(
      await verifyPresentation(await present(agent, [root], { challenge: 'other' }), options()),
      'CHALLENGE_MISMATCH',
      'presentation',
    );
    expectRefused(
      await verifyPresentation(await present(agent, [root], { domain: 'evil.example.com' }), options()),
      'TARGET_MISMATCH',
      'presentation',
    );
  });

  it('TARGET_MISMATCH: the verifier is not one of the credential domains', async () => {
    const vp = await present(agent, [root], { domain: 'mail.example.com' });
    expectRefused(
      await verifyPresentation(vp, options({ expectedDomain: 'mail.example.com' })),
      'TARGET_MISMATCH',
      'scopes',
    );
  });

  it('REPLAYED: the same presentation, or the same challenge, twice', async () => {
    const replayCache = createReplayCache();
    const vp = await present(agent, [root]);
    expect((await verifyPresentation(vp, options({ replayCache }))).valid).toBe(true);
    expectRefused(await verifyPresentation(vp, options({ replayCache })), 'REPLAYED', 'replay');
    expectRefused(
      await verifyPresentation(await present(agent, [root]), options({ replayCache })),
      'REPLAYED',
      'replay',
    );
  });

  it('REPLAYED: a shared cache that answers with a promise (Redis SET NX) is awaited, and only true accepts', async () => {
    const store = new Map<string, number>();
    const shared: ReplayCache = {
      remember: async (key, expiresAt) => {
        await new Promise((resolve) => setTimeout(resolve, 1)); // a network round trip
        if (store.has(key)) return false;
        store.set(key, expiresAt);
        return true;
      },
    };
    const vp = await present(agent, [root]);
    expect((await verifyPresentation(vp, options({ replayCache: shared }))).valid).toBe(true);
    expectRefused(await verifyPresentation(vp, options({ replayCache: shared })), 'REPLAYED', 'replay');
    // A cache that answers something other than true ('OK', a truthy object) refuses.
    const sloppy = { remember: () => 'OK' } as unknown as ReplayCache;
    expectRefused(
      await verifyPresentation(await present(agent, [root]), options({ replayCache: sloppy })),
      'REPLAYED',
      'replay',
    );
  });

  it('remembers only presentations that passed every other check: refused ones neither fill the cache nor use up a nonce', async () => {
    const replayCache = createReplayCache({ max: 2 });
    const stranger = newIdentity();
    // A throwaway key wrapping the agent's (public) credential: refused, and not remembered.
    for (let i = 0; i < 5; i++) {
      const junk = await present(stranger, [root], { challenge: 'nonce-9' });
      expectRefused(
        await verifyPresentation(junk, options({ replayCache, expectedChallenge: 'nonce-9' })),
        'HOLDER_MISMATCH',
        'chain',
      );
    }
    // The genuine answer to the same nonce still passes, once.
    const genuine = await present(agent, [root], { challenge: 'nonce-9' });
    const accepted = await verifyPresentation(genuine, options({ replayCache, expectedChallenge: 'nonce-9' }));
    expect(accepted.valid && accepted.checks.map((c) => c.check)).toEqual([
      'presentation',
      'dids',
      'credentials',
      'chain',
      'scopes',
      'status',
      'replay',
    ]);
    expectRefused(
      await verifyPresentation(genuine, options({ replayCache, expectedChallenge: 'nonce-9' })),
      'REPLAYED',
      'replay',
    );
  });

  it('REPLAYED: a presentation replayed after a full replay cache made room by forgetting it', async () => {
    const replayCache = createReplayCache({ max: 2 });
    const answer = async (challenge: string) =>
      verifyPresentation(
        await present(agent, [root], { challenge }),
        options({ replayCache, expectedChallenge: challenge }),
      );
    const first = await present(agent, [root], { challenge: 'first' });
    expect((await verifyPresentation(first, options({ replayCache, expectedChallenge: 'first' }))).valid).toBe(true);
    // Two later presentations (two entries each: id and challenge) push `first` out of memory.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await answer('second')).valid).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await answer('third')).valid).toBe(true);
    expectRefused(
      await verifyPresentation(first, options({ replayCache, expectedChallenge: 'first' })),
      'REPLAYED',
      'replay',
    );
  });

  it('DID_RESOLUTION_FAILED: an issuer DID that does not resolve', async () => {
    const ghost = testIdentity('ghost'); // never published
    const credential = await issueAgentCredential({
      issuer: ghost,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    expectRefused(
      await verifyPresentation(await present(agent, [credential]), options({ trustedIssuers: [ghost.did] })),
      'DID_RESOLUTION_FAILED',
      'dids',
    );
    // The refusal carries the resolver's own explanation, which says what to fix.
    const explaining = {
      resolve: async (did: string) =>
        did === ghost.did
          ? {
              didDocument: null,
              didDocumentMetadata: {},
              didResolutionMetadata: { error: 'internalError', message: 'private address refused: plain http' },
            }
          : resolver.resolve(did),
    };
    const refused = await verifyPresentation(
      await present(agent, [credential]),
      options({ trustedIssuers: [ghost.did], resolver: explaining }),
    );
    expectRefused(refused, 'DID_RESOLUTION_FAILED', 'dids');
    expect(refused.valid === false && refused.message).toBe(
      `${ghost.did} could not be resolved (internalError: private address refused: plain http)`,
    );
  });

  it('DID_DEACTIVATED: a deactivated issuer DID', async () => {
    const retired = testIdentity('retired');
    resolver.documents.set(retired.did, { document: retired.document, deactivated: true });
    const credential = await issueAgentCredential({
      issuer: retired,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    expectRefused(
      await verifyPresentation(await present(agent, [credential]), options({ trustedIssuers: [retired.did] })),
      'DID_DEACTIVATED',
      'dids',
    );
  });

  it('DID_RESOLUTION_FAILED and DID_DEACTIVATED for the holder, in check 1 (its key is needed first)', async () => {
    const ghost = testIdentity('ghost-holder'); // never published
    const forGhost = await issueAgentCredential({
      issuer: platform,
      agentDid: ghost.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    expectRefused(
      await verifyPresentation(await present(ghost, [forGhost]), options()),
      'DID_RESOLUTION_FAILED',
      'presentation',
    );
    const retired = testIdentity('retired-holder');
    resolver.documents.set(retired.did, { document: retired.document, deactivated: true });
    const forRetired = await issueAgentCredential({
      issuer: platform,
      agentDid: retired.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    expectRefused(
      await verifyPresentation(await present(retired, [forRetired]), options()),
      'DID_DEACTIVATED',
      'presentation',
    );
  });

  it('judges results a resolver answers from memory (resolveCached) like resolved ones, and fails closed when it throws', async () => {
    const retired = testIdentity('retired-in-memory');
    resolver.documents.set(retired.did, { document: retired.document, deactivated: true });
    const credential = await issueAgentCredential({
      issuer: retired,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    const vp = await present(agent, [credential]);
    const answered = await resolver.resolve(retired.did);
    const inMemory = {
      resolve: resolver.resolve,
      resolveCached: (did: string) => (did === retired.did ? answered : undefined),
    };
    expectRefused(
      await verifyPresentation(vp, options({ trustedIssuers: [retired.did], resolver: inMemory })),
      'DID_DEACTIVATED',
      'dids',
    );
    const broken = {
      resolve: resolver.resolve,
      resolveCached: () => {
        throw new Error('cache corrupted');
      },
    };
    expectRefused(
      await verifyPresentation(await present(agent, [root]), options({ resolver: broken })),
      'DID_RESOLUTION_FAILED',
    );
  });

  it("KEY_NOT_AUTHORIZED: a key outside assertionMethod, or another DID's key", async () => {
    const authOnly = testIdentity('auth-only');
    resolver.documents.set(authOnly.did, { document: { ...authOnly.document, assertionMethod: [] } });
    const credential = await issueAgentCredential({
      issuer: authOnly,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    expectRefused(
      await verifyPresentation(await present(agent, [credential]), options({ trustedIssuers: [authOnly.did] })),
      'KEY_NOT_AUTHORIZED',
      'credentials',
    );
    // The holder signs with a key that belongs to someone else.
    const vp = await signPresentation({
      holder: { ...subAgent, did: agent.did },
      credentials: [root],
      challenge: 'nonce-1',
      domain: TARGET,
    });
    expectRefused(await verifyPresentation(vp, options()), 'KEY_NOT_AUTHORIZED', 'presentation');
  });

  it('a proof naming its key by a relative reference or a non-DID URL, or a previousProof that names no proof (docs/protocol.md §Verification)', async () => {
    const vp = await present(agent, [root]);
    const withProof = (change: Record<string, unknown>) => ({ ...vp, proof: { ...vp.proof, ...change } });
    const fragment = String(vp.proof?.verificationMethod).slice(agent.did.length); // "#z6Mk…"
    // Not an absolute URL: a proof member malformed, before any key is looked up.
    expectRefused(
      await verifyPresentation(withProof({ verificationMethod: fragment }), options()),
      'MALFORMED',
      'presentation',
    );
    // A URL, but not a DID URL of the holder.
    expectRefused(
      await verifyPresentation(
        withProof({ verificationMethod: `https://files.example.com/keys${fragment}` }),
        options(),
      ),
      'KEY_NOT_AUTHORIZED',
      'presentation',
    );
    // A presentation has one proof, so a previousProof has nothing to name.
    expectRefused(
      await verifyPresentation(
        withProof({ previousProof: 'urn:uuid:0b8f4d9e-0c57-4d7e-9a77-3f0c2a1d5e6b' }),
        options(),
      ),
      'MALFORMED',
      'presentation',
    );
    // The same for a credential's proof, in check 3.
    const credential = {
      ...root,
      proof: { ...root.proof, verificationMethod: `https://files.example.com/keys${fragment}` },
    } as AgentCredential;
    expectRefused(
      await verifyPresentation(await present(agent, [credential]), options()),
      'KEY_NOT_AUTHORIZED',
      'credentials',
    );
  });

  it('KEY_NOT_AUTHORIZED: a holder key that is only an assertionMethod, not an authentication key', async () => {
    const assertOnly = testIdentity('assert-only-holder');
    resolver.documents.set(assertOnly.did, { document: { ...assertOnly.document, authentication: [] } });
    const credential = await issueAgentCredential({
      issuer: platform,
      agentDid: assertOnly.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    expectRefused(
      await verifyPresentation(await present(assertOnly, [credential]), options()),
      'KEY_NOT_AUTHORIZED',
      'presentation',
    );
  });

  it('CREDENTIAL_SIGNATURE_INVALID: a credential changed after its issuer signed it', async () => {
    const forged = { ...root, credentialSubject: { ...root.credentialSubject, privilegeScopes: ['files', 'admin'] } };
    expectRefused(
      await verifyPresentation(await present(agent, [forged]), options()),
      'CREDENTIAL_SIGNATURE_INVALID',
      'credentials',
    );
  });

  it('CREDENTIAL_SIGNATURE_INVALID: a grant whose consent was not signed by the user', async () => {
    const provider = newIdentity();
    const user = newIdentity();
    const consent = await createConsent({
      user,
      agentDid: agent.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'c-2',
    });
    const grant = await issueGrant({
      provider,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      consent: { ...consent, privilegeScopes: ['files'] },
      ceiling: ['files'],
    });
    expectRefused(
      await verifyPresentation(await present(agent, [root, grant]), options({ trustedGrantIssuers: [provider.did] })),
      'CREDENTIAL_SIGNATURE_INVALID',
      'credentials',
    );
  });

  it('CREDENTIAL_EXPIRED and CREDENTIAL_NOT_YET_VALID', async () => {
    const expired = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
      validFrom: new Date(Date.now() - 2 * HOUR),
      validUntil: new Date(Date.now() - HOUR),
    });
    expectRefused(
      await verifyPresentation(await present(agent, [expired]), options()),
      'CREDENTIAL_EXPIRED',
      'credentials',
    );
    const early = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
      validFrom: new Date(Date.now() + HOUR),
    });
    expectRefused(
      await verifyPresentation(await present(agent, [early]), options()),
      'CREDENTIAL_NOT_YET_VALID',
      'credentials',
    );
  });

  it('UNTRUSTED_ISSUER: a root from an issuer the verifier does not trust, and an untrusted grant', async () => {
    const rogue = newIdentity();
    const credential = await issueAgentCredential({
      issuer: rogue,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    expectRefused(await verifyPresentation(await present(agent, [credential]), options()), 'UNTRUSTED_ISSUER', 'chain');
    const provider = newIdentity();
    const user = newIdentity();
    const consent = await createConsent({
      user,
      agentDid: agent.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'c-3',
    });
    const grant = await issueGrant({
      provider,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      consent,
      ceiling: ['files'],
    });
    expectRefused(
      await verifyPresentation(await present(agent, [root, grant]), options()),
      'UNTRUSTED_ISSUER',
      'chain',
    );
  });

  function childOf(
    parent: AgentCredential | DelegatedAgentCredential,
    overrides: {
      subject?: Partial<DelegatedAgentCredential['credentialSubject']>;
      parentCredential?: DelegatedAgentCredential['parentCredential'];
      validUntil?: string;
    } = {},
  ) {
    return {
      '@context': [...MANDATE_CONTEXTS],
      id: `urn:uuid:${crypto.randomUUID()}`,
      type: ['VerifiableCredential', 'DelegatedAgentCredential'],
      issuer: parent.credentialSubject.id,
      validFrom: new Date(Date.now() - 60_000).toISOString(),
      validUntil: overrides.validUntil ?? parent.validUntil,
      credentialSubject: {
        id: subAgent.did,
        privilegeScopes: ['files:read'],
        delegationDepth: 0,
        domains: [TARGET],
        ...overrides.subject,
      },
      parentCredential: overrides.parentCredential ?? { id: parent.id, digestMultibase: credentialDigest(parent) },
    };
  }

  it('CHAIN_BROKEN: wrong parent digest, wrong delegator, missing parent, outliving the parent', async () => {
    const wrongDigest = await signRaw(
      childOf(root, {
        parentCredential: {
          id: root.id,
          digestMultibase: credentialDigest({ ...root, validFrom: '2020-01-01T00:00:00Z' }),
        },
      }),
      agent,
    );
    expectRefused(
      await verifyPresentation(await present(subAgent, [wrongDigest, root]), options()),
      'CHAIN_BROKEN',
      'chain',
    );
    const stranger = newIdentity();
    const wrongDelegator = await signRaw({ ...childOf(root), issuer: stranger.did }, stranger);
    expectRefused(
      await verifyPresentation(await present(subAgent, [wrongDelegator, root]), options()),
      'CHAIN_BROKEN',
      'chain',
    );
    const orphan = await signRaw(childOf(root), agent);
    expectRefused(await verifyPresentation(await present(subAgent, [orphan]), options()), 'CHAIN_BROKEN', 'chain');
    const outliving = await signRaw(
      childOf(root, { validUntil: new Date(Date.now() + 48 * HOUR).toISOString() }),
      agent,
    );
    expectRefused(
      await verifyPresentation(await present(subAgent, [outliving, root]), options()),
      'CHAIN_BROKEN',
      'chain',
    );
  });

  it('CHAIN_BROKEN: a root followed by more credentials, and a parent with another id', async () => {
    const child = await delegate(root, {
      delegator: agent,
      delegateeDid: subAgent.did,
      scopes: ['files:read'],
      domains: [TARGET],
    });
    expectRefused(await verifyPresentation(await present(agent, [root, child]), options()), 'CHAIN_BROKEN', 'chain');
    const renamed = await signRaw(
      childOf(root, {
        parentCredential: { id: `urn:uuid:${crypto.randomUUID()}`, digestMultibase: credentialDigest(root) },
      }),
      agent,
    );
    expectRefused(
      await verifyPresentation(await present(subAgent, [renamed, root]), options()),
      'CHAIN_BROKEN',
      'chain',
    );
  });

  it('SCOPE_ESCALATION: a child wider than its parent (and delegate refuses to sign it)', async () => {
    const wider = await signRaw(childOf(root, { subject: { privilegeScopes: ['files', 'admin'] } }), agent);
    expectRefused(
      await verifyPresentation(await present(subAgent, [wider, root]), options()),
      'SCOPE_ESCALATION',
      'chain',
    );
    // String-prefix tricks are not coverage: "filesystem" is not under "files".
    const prefixTrick = await signRaw(childOf(root, { subject: { privilegeScopes: ['filesystem:read'] } }), agent);
    expectRefused(
      await verifyPresentation(await present(subAgent, [prefixTrick, root]), options()),
      'SCOPE_ESCALATION',
      'chain',
    );
    await expect(
      delegate(root, { delegator: agent, delegateeDid: subAgent.did, scopes: ['admin'] }),
    ).rejects.toMatchObject({ code: 'SCOPE_ESCALATION' });
  });

  it('DEPTH_EXCEEDED: a child as deep as its parent (and delegate refuses)', async () => {
    const deep = await signRaw(childOf(root, { subject: { delegationDepth: 2 } }), agent);
    expectRefused(
      await verifyPresentation(await present(subAgent, [deep, root]), options()),
      'DEPTH_EXCEEDED',
      'chain',
    );
    const leafOnly = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['files'],
      delegationDepth: 0,
    });
    await expect(
      delegate(leafOnly, { delegator: agent, delegateeDid: subAgent.did, scopes: ['files'] }),
    ).rejects.toMatchObject({ code: 'DEPTH_EXCEEDED' });
  });

  it('DOMAIN_ESCALATION: a child with a domain its parent lacks, or none at all', async () => {
    const extra = await signRaw(childOf(root, { subject: { domains: [TARGET, 'bank.example.com'] } }), agent);
    expectRefused(
      await verifyPresentation(await present(subAgent, [extra, root]), options()),
      'DOMAIN_ESCALATION',
      'chain',
    );
    const unbounded = childOf(root);
    delete (unbounded.credentialSubject as { domains?: string[] }).domains;
    const signed = await signRaw(unbounded, agent);
    expectRefused(
      await verifyPresentation(await present(subAgent, [signed, root]), options()),
      'DOMAIN_ESCALATION',
      'chain',
    );
    await expect(
      delegate(root, {
        delegator: agent,
        delegateeDid: subAgent.did,
        scopes: ['files'],
        domains: ['bank.example.com'],
      }),
    ).rejects.toMatchObject({ code: 'DOMAIN_ESCALATION' });
  });

  it("HOLDER_MISMATCH: presenting another agent's credential, or a grant for an outsider", async () => {
    expectRefused(await verifyPresentation(await present(subAgent, [root]), options()), 'HOLDER_MISMATCH', 'chain');
    const provider = newIdentity();
    const user = newIdentity();
    const outsider = newIdentity();
    const consent = await createConsent({
      user,
      agentDid: outsider.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'c-4',
    });
    const grant = await issueGrant({
      provider,
      agentDid: outsider.did,
      privilegeScopes: ['files:read'],
      consent,
      ceiling: ['files'],
    });
    expectRefused(
      await verifyPresentation(await present(agent, [root, grant]), options({ trustedGrantIssuers: [provider.did] })),
      'HOLDER_MISMATCH',
      'chain',
    );
  });

  it("SCOPE_ESCALATION: a grant beyond the agent's ceiling", async () => {
    const provider = newIdentity();
    const user = newIdentity();
    const consent = await createConsent({
      user,
      agentDid: agent.did,
      providerDid: provider.did,
      privilegeScopes: ['mail'],
      challenge: 'c-5',
    });
    const grant = await signRaw(
      {
        '@context': [...MANDATE_CONTEXTS],
        id: `urn:uuid:${crypto.randomUUID()}`,
        type: ['VerifiableCredential', 'DelegationGrantCredential'],
        issuer: provider.did,
        validFrom: new Date(Date.now() - 60_000).toISOString(),
        credentialSubject: { id: agent.did, privilegeScopes: ['mail'], onBehalfOf: user.did, consent },
      },
      provider,
    );
    expectRefused(
      await verifyPresentation(await present(agent, [root, grant]), options({ trustedGrantIssuers: [provider.did] })),
      'SCOPE_ESCALATION',
      'chain',
    );
    await expect(
      issueGrant({ provider, agentDid: agent.did, privilegeScopes: ['mail'], consent, ceiling: ['files'] }),
    ).rejects.toMatchObject({ code: 'SCOPE_ESCALATION' });
  });

  /** A grant signed by `provider` exactly as given: no issuance checks. */
  function craftedGrant(
    provider: SigningIdentity,
    subject: { id: string; privilegeScopes: string[]; onBehalfOf: string; consent: unknown },
  ) {
    const unsigned = {
      '@context': [...MANDATE_CONTEXTS],
      id: `urn:uuid:${crypto.randomUUID()}`,
      type: ['VerifiableCredential', 'DelegationGrantCredential'],
      issuer: provider.did,
      validFrom: new Date(Date.now() - 60_000).toISOString(),
      credentialSubject: subject,
    };
    return signRaw(unsigned, provider) as Promise<never>;
  }

  it('CHAIN_BROKEN: a grant whose consent names another agent or another user; SCOPE_ESCALATION: a grant beyond its consent', async () => {
    const provider = newIdentity();
    const user = newIdentity();
    const trusting = options({ trustedGrantIssuers: [provider.did] });
    const forSubAgent = await createConsent({
      user,
      agentDid: subAgent.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'c-6',
    });
    const otherAgent = await craftedGrant(provider, {
      id: agent.did,
      privilegeScopes: ['files:read'],
      onBehalfOf: user.did,
      consent: forSubAgent,
    });
    expectRefused(
      await verifyPresentation(await present(agent, [root, otherAgent]), trusting),
      'CHAIN_BROKEN',
      'chain',
    );
    const forAgent = await createConsent({
      user,
      agentDid: agent.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'c-7',
    });
    const otherUser = await craftedGrant(provider, {
      id: agent.did,
      privilegeScopes: ['files:read'],
      onBehalfOf: newIdentity().did,
      consent: forAgent,
    });
    expectRefused(await verifyPresentation(await present(agent, [root, otherUser]), trusting), 'CHAIN_BROKEN', 'chain');
    // `files` is within the agent's ceiling but wider than the `files:read` the user approved.
    const beyondConsent = await craftedGrant(provider, {
      id: agent.did,
      privilegeScopes: ['files'],
      onBehalfOf: user.did,
      consent: forAgent,
    });
    expectRefused(
      await verifyPresentation(await present(agent, [root, beyondConsent]), trusting),
      'SCOPE_ESCALATION',
      'chain',
    );
    await expect(
      issueGrant({ provider, agentDid: agent.did, privilegeScopes: ['files'], consent: forAgent, ceiling: ['files'] }),
    ).rejects.toMatchObject({ code: 'SCOPE_ESCALATION' });
  });

  it("resolves a grant's onBehalfOf in check 2, and a consent user who is someone else in check 3 (docs/protocol.md §Order within the checks)", async () => {
    const provider = newIdentity();
    const user = newIdentity();
    const trusting = options({ trustedGrantIssuers: [provider.did] });
    const ghost = testIdentity(`ghost-${crypto.randomUUID()}`); // never registered: does not resolve
    const byGhost = await createConsent({
      user: ghost,
      agentDid: agent.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'c-8',
    });
    const ghostConsent = await craftedGrant(provider, {
      id: agent.did,
      privilegeScopes: ['files:read'],
      onBehalfOf: user.did,
      consent: byGhost,
    });
    expectRefused(
      await verifyPresentation(await present(agent, [root, ghostConsent]), trusting),
      'DID_RESOLUTION_FAILED',
      'credentials',
    );
    const forUser = await createConsent({
      user,
      agentDid: agent.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'c-9',
    });
    const ghostBehalf = await craftedGrant(provider, {
      id: agent.did,
      privilegeScopes: ['files:read'],
      onBehalfOf: ghost.did,
      consent: forUser,
    });
    expectRefused(
      await verifyPresentation(await present(agent, [root, ghostBehalf]), trusting),
      'DID_RESOLUTION_FAILED',
      'dids',
    );
  });

  it('INSUFFICIENT_SCOPE: a required scope outside the effective scopes', async () => {
    expectRefused(
      await verifyPresentation(await present(agent, [root]), options({ requiredScopes: ['calendar:write'] })),
      'INSUFFICIENT_SCOPE',
      'scopes',
    );
  });

  it('stops at the first failure and records the checks that ran', async () => {
    const vp = await present(subAgent, [root], { challenge: 'other' });
    const result = await verifyPresentation(vp, options());
    expectRefused(result, 'CHALLENGE_MISMATCH');
    expect(result.checks).toEqual([
      expect.objectContaining({ check: 'presentation', ok: false, reason: 'CHALLENGE_MISMATCH' }),
    ]);
  });
});

// docs/protocol.md §Where authority applies: a host entry covers the https resource URIs at
// exactly that host and port; a URI entry covers itself.
describe('verifyPresentation — where authority applies', () => {
  const MCP = 'https://files.example.com/mcp';

  it('a credential limited to a host is accepted at a resource URI on that host', async () => {
    // The presentation names the resource URI, or the host (which covers it).
    for (const domain of [MCP, TARGET]) {
      const vp = await present(agent, [root], { domain });
      expect((await verifyPresentation(vp, options({ expectedDomain: MCP }))).valid, domain).toBe(true);
    }
  });

  it('TARGET_MISMATCH: a subdomain, http on a public host, another port', async () => {
    for (const target of [
      'https://sub.files.example.com/mcp',
      'http://files.example.com/mcp',
      'https://files.example.com:8443/mcp',
      'https://user@files.example.com/mcp',
    ]) {
      const vp = await present(agent, [root], { domain: target });
      expectRefused(await verifyPresentation(vp, options({ expectedDomain: target })), 'TARGET_MISMATCH', 'scopes');
    }
  });

  it('TARGET_MISMATCH at the proof: a presentation for one URI is not for another, nor for its host', async () => {
    const vp = await present(agent, [root], { domain: MCP });
    expectRefused(
      await verifyPresentation(vp, options({ expectedDomain: 'https://files.example.com/other' })),
      'TARGET_MISMATCH',
      'presentation',
    );
    expectRefused(await verifyPresentation(vp, options({ expectedDomain: TARGET })), 'TARGET_MISMATCH', 'presentation');
  });

  it('REPLAYED: a presentation signed for a host is spent once for every URI at it', async () => {
    const replayCache = createReplayCache();
    const vp = await present(agent, [root], { domain: TARGET });
    expect((await verifyPresentation(vp, options({ expectedDomain: MCP, replayCache }))).valid).toBe(true);
    // Another presentation (another id) answering the same challenge, for the same host.
    const again = await present(agent, [root], { domain: TARGET });
    expectRefused(
      await verifyPresentation(again, options({ expectedDomain: 'https://files.example.com/other', replayCache })),
      'REPLAYED',
    );
  });

  it('a URI entry is narrower than its host: host → URI delegates, URI → host is DOMAIN_ESCALATION', async () => {
    const child = await delegate(root, {
      delegator: agent,
      delegateeDid: subAgent.did,
      scopes: ['files:read'],
      delegationDepth: 1,
      domains: [MCP],
    });
    const ok = await verifyPresentation(
      await present(subAgent, [child, root], { domain: MCP }),
      options({ expectedDomain: MCP }),
    );
    expect(ok.valid).toBe(true);
    // The URI entry covers only itself: the child cannot present to the host or another path.
    expectRefused(
      await verifyPresentation(
        await present(subAgent, [child, root], { domain: 'https://files.example.com/other' }),
        options({ expectedDomain: 'https://files.example.com/other' }),
      ),
      'TARGET_MISMATCH',
      'scopes',
    );
    const third = newIdentity();
    await expect(
      delegate(child, { delegator: subAgent, delegateeDid: third.did, scopes: ['files:read'], domains: [TARGET] }),
    ).rejects.toMatchObject({ code: 'DOMAIN_ESCALATION' });
    const widened = await signRaw(
      {
        '@context': [...MANDATE_CONTEXTS],
        id: `urn:uuid:${crypto.randomUUID()}`,
        type: ['VerifiableCredential', 'DelegatedAgentCredential'],
        issuer: subAgent.did,
        validFrom: new Date(Date.now() - 60_000).toISOString(),
        validUntil: child.validUntil,
        credentialSubject: { id: third.did, privilegeScopes: ['files:read'], delegationDepth: 0, domains: [TARGET] },
        parentCredential: { id: child.id, digestMultibase: credentialDigest(child) },
      },
      subAgent,
    );
    expectRefused(
      await verifyPresentation(
        await present(third, [widened, child, root], { domain: MCP }),
        options({ expectedDomain: MCP }),
      ),
      'DOMAIN_ESCALATION',
      'chain',
    );
  });
});
