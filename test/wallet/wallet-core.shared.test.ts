// The Wallet over the memory key store and credential store (isomorphic): its DID, choosing
// the chain to present, self-custody delegation between two wallets, the development root,
// and the credential store's rules — each checked against the in-process verifier.
import { describe, expect, it } from 'vitest';
import { createMemoryKeyStore } from '../../wallet/keystore/index.ts';
import { createMemoryCredentialStore } from '../../wallet/client/credential-store.ts';
import { resolveDidKey } from '../../wallet/did/key.ts';
import { createResolver } from '../../wallet/did/registry.ts';
import { issueAgentCredential } from '../../wallet/vc/agent-credential.ts';
import { createConsent, issueGrant } from '../../wallet/vc/grant.ts';
import { verifyPresentation } from '../../wallet/vc/verify.ts';
import { Wallet } from '../../wallet/wallet.ts';
import { newIdentity } from '../support/agents.ts';

const code = (c: string) => expect.objectContaining({ code: c });
const resolver = createResolver({ methods: { key: resolveDidKey } });
const FILES = 'files.example.com';
const CAL = 'cal.example.com';

const openWallet = (keyStore = createMemoryKeyStore(), credentialStore = createMemoryCredentialStore()) =>
  Wallet.open({ keyStore, credentialStore });

async function rootFor(
  wallet: Wallet,
  issuer = newIdentity(),
  overrides: Partial<Parameters<typeof issueAgentCredential>[0]> = {},
) {
  const credential = await issueAgentCredential({
    issuer,
    agentDid: wallet.did,
    privilegeScopes: ['files', 'calendar:read'],
    delegationDepth: 2,
    domains: [FILES, CAL],
    ...overrides,
  });
  await wallet.addCredential(credential);
  return { issuer, credential };
}

describe('Wallet: identity', () => {
  it('creates its key once: reopened on the same key store it has the same did:key DID', async () => {
    const keyStore = createMemoryKeyStore();
    const a = await openWallet(keyStore);
    const b = await openWallet(keyStore);
    expect(a.did).toMatch(/^did:key:z6Mk/);
    expect(b.did).toBe(a.did);
    expect(a.verificationMethod).toBe(`${a.did}#${a.publicKeyMultibase}`);
    expect((await keyStore.list()).map((k) => k.id)).toEqual(['agent']);
  });

  it('KEY_NOT_FOUND with createKey: false and no key', async () => {
    await expect(
      Wallet.open({
        keyStore: createMemoryKeyStore(),
        credentialStore: createMemoryCredentialStore(),
        createKey: false,
      }),
    ).rejects.toEqual(code('KEY_NOT_FOUND'));
  });

  it('WALLET_OPTIONS_INVALID: a DID without its key id, a did:key of another key, an empty challenge or target, a lifetime out of range', async () => {
    const keyStore = createMemoryKeyStore();
    const credentialStore = createMemoryCredentialStore();
    await expect(Wallet.open({ keyStore, credentialStore, did: 'did:web:agent.example' })).rejects.toEqual(
      code('WALLET_OPTIONS_INVALID'),
    );
    const other = newIdentity();
    await expect(
      Wallet.open({ keyStore, credentialStore, did: other.did, verificationMethod: other.verificationMethod }),
    ).rejects.toEqual(code('WALLET_OPTIONS_INVALID'));
    const custom = await Wallet.open({
      keyStore,
      credentialStore,
      did: 'did:web:agent.example',
      verificationMethod: 'did:web:agent.example#key-1',
    });
    expect(custom.verificationMethod).toBe('did:web:agent.example#key-1');
    const wallet = await openWallet();
    await wallet.selfIssue({ privilegeScopes: ['files'] });
    await expect(wallet.present({ target: FILES, challenge: '' })).rejects.toEqual(code('WALLET_OPTIONS_INVALID'));
    await expect(wallet.present({ target: '', challenge: 'n' })).rejects.toEqual(code('WALLET_OPTIONS_INVALID'));
    // A lifetime verifiers would refuse (more than 1 hour), or too short to reach them.
    await expect(wallet.present({ target: FILES, challenge: 'n', lifetimeMs: 2 * 3_600_000 })).rejects.toEqual(
      code('WALLET_OPTIONS_INVALID'),
    );
    await expect(wallet.present({ target: FILES, challenge: 'n', lifetimeMs: 999 })).rejects.toEqual(
      code('WALLET_OPTIONS_INVALID'),
    );
    await expect(wallet.selfIssue({ privilegeScopes: ['files'], lifetimeSeconds: 0 })).rejects.toEqual(
      code('WALLET_OPTIONS_INVALID'),
    );
  });
});

describe('Wallet: presenting', () => {
  it('presents an issued chain that the verifier accepts, bound to the target and challenge', async () => {
    const wallet = await openWallet();
    const { issuer, credential } = await rootFor(wallet);
    const vp = await wallet.present({ target: FILES, challenge: 'nonce-1', scopes: ['files:read'] });
    expect(vp.holder).toBe(wallet.did);
    expect(vp.verifiableCredential.map((c) => c.id)).toEqual([credential.id]);
    const result = await verifyPresentation(vp, {
      trustedIssuers: [issuer.did],
      expectedDomain: FILES,
      expectedChallenge: 'nonce-1',
      requiredScopes: ['files:read'],
      resolver,
    });
    expect(result).toMatchObject({ valid: true, agentDid: wallet.did, effectiveScopes: ['files', 'calendar:read'] });
  });

  it('NO_MATCHING_CREDENTIAL when no stored chain covers the scopes or allows the target, or the only one expired', async () => {
    const wallet = await openWallet();
    await expect(wallet.present({ target: FILES, challenge: 'n' })).rejects.toEqual(code('NO_MATCHING_CREDENTIAL'));
    await rootFor(wallet);
    await expect(wallet.present({ target: FILES, challenge: 'n', scopes: ['mail:send'] })).rejects.toEqual(
      code('NO_MATCHING_CREDENTIAL'),
    );
    await expect(wallet.present({ target: 'other.example.com', challenge: 'n' })).rejects.toEqual(
      code('NO_MATCHING_CREDENTIAL'),
    );
    await expect(
      wallet.present({ target: FILES, challenge: 'n', now: new Date(Date.now() - 86_400_000) }),
    ).rejects.toEqual(code('NO_MATCHING_CREDENTIAL'));
    const error = (await wallet
      .present({ target: FILES, challenge: 'n', scopes: ['mail:send'] })
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('mail:send');
  });

  it('prefers the newest credential (a renewal) and ignores untrusted roots when trusted issuers are named', async () => {
    const wallet = await openWallet();
    const issuer = newIdentity();
    await rootFor(wallet, issuer, { validFrom: new Date(Date.now() - 3_600_000) });
    const { credential: newer } = await rootFor(wallet, issuer, { validFrom: new Date(Date.now() - 60_000) });
    await rootFor(wallet, newIdentity(), { validFrom: new Date() });
    expect((await wallet.select({ target: FILES, trustedIssuers: [issuer.did] })).chain[0]?.id).toBe(newer.id);
  });

  it('a self-issued root (selfIssue) verifies only with allowSelfSigned', async () => {
    const wallet = await openWallet();
    await wallet.selfIssue({ privilegeScopes: ['files:read'], domains: [FILES] });
    const vp = await wallet.present({ target: FILES, challenge: 'dev' });
    expect(
      await verifyPresentation(vp, { trustedIssuers: [], expectedDomain: FILES, resolver, allowSelfSigned: true }),
    ).toMatchObject({ valid: true });
    expect(await verifyPresentation(vp, { trustedIssuers: [], expectedDomain: FILES, resolver })).toMatchObject({
      valid: false,
      reason: 'UNTRUSTED_ISSUER',
    });
  });

  it("includes the target provider's grant (narrowing the effective scopes), or none with grantIssuers: []", async () => {
    const wallet = await openWallet();
    const provider = newIdentity();
    const user = newIdentity();
    const { issuer, credential } = await rootFor(wallet, newIdentity(), { domains: undefined });
    const consent = await createConsent({
      user,
      agentDid: wallet.did,
      providerDid: provider.did,
      privilegeScopes: ['files:read'],
      challenge: 'consent-1',
    });
    const grant = await issueGrant({
      provider,
      agentDid: wallet.did,
      privilegeScopes: ['files:read'],
      consent,
      ceiling: credential.credentialSubject.privilegeScopes,
    });
    await wallet.addCredential(grant);
    const options = {
      trustedIssuers: [issuer.did],
      trustedGrantIssuers: [provider.did],
      expectedDomain: provider.did,
      resolver,
    };

    const vp = await wallet.present({ target: provider.did, challenge: 'c1', scopes: ['files:read'] });
    expect(vp.verifiableCredential.map((c) => c.id)).toEqual([credential.id, grant.id]);
    expect(await verifyPresentation(vp, options)).toMatchObject({ valid: true, effectiveScopes: ['files:read'] });
    await expect(wallet.present({ target: provider.did, challenge: 'c2', scopes: ['files:write'] })).rejects.toEqual(
      code('NO_MATCHING_CREDENTIAL'),
    );
    const withoutGrant = await wallet.present({
      target: provider.did,
      challenge: 'c3',
      scopes: ['files:write'],
      grantIssuers: [],
    });
    expect(withoutGrant.verifiableCredential).toHaveLength(1);
    // A grant from another provider is not presented to this one.
    expect((await wallet.present({ target: newIdentity().did, challenge: 'c4' })).verifiableCredential).toHaveLength(1);
  });
});

describe('Wallet: where authority applies (docs/protocol.md)', () => {
  const MCP = 'https://files.example.com/mcp';

  it('presents a credential limited to a host at a resource URI on it, and delegates that URI alone', async () => {
    const a = await openWallet();
    const b = await openWallet();
    const { issuer } = await rootFor(a);
    const vp = await a.present({ target: MCP, challenge: 'n-uri' });
    expect(vp.proof?.domain).toBe(MCP);
    const options = { trustedIssuers: [issuer.did], expectedDomain: MCP, resolver };
    expect((await verifyPresentation(vp, { ...options, expectedChallenge: 'n-uri' })).valid).toBe(true);
    for (const target of ['https://sub.files.example.com/mcp', 'http://files.example.com/mcp'])
      await expect(a.present({ target, challenge: 'n' })).rejects.toEqual(code('NO_MATCHING_CREDENTIAL'));
    // Host → a URI at it narrows; B then holds that URI only.
    const { chain } = await a.delegate({ to: b.did, scopes: ['files:read'], domains: [MCP], lifetimeSeconds: 3600 });
    await b.addCredentials(chain);
    const delegated = await b.present({ target: MCP, challenge: 'n-b' });
    expect((await verifyPresentation(delegated, { ...options, expectedChallenge: 'n-b' })).valid).toBe(true);
    await expect(b.present({ target: FILES, challenge: 'n' })).rejects.toEqual(code('NO_MATCHING_CREDENTIAL'));
    await expect(b.present({ target: 'https://files.example.com/other', challenge: 'n' })).rejects.toEqual(
      code('NO_MATCHING_CREDENTIAL'),
    );
  });
});

describe('Wallet: self-custody delegation', () => {
  it('A delegates files:read to B; B stores the chain and presents it; the verifier accepts it with B as the agent', async () => {
    const a = await openWallet();
    const b = await openWallet();
    const { issuer, credential: root } = await rootFor(a);
    const { credential, chain } = await a.delegate({
      to: b.did,
      scopes: ['files:read'],
      domains: [FILES],
      lifetimeSeconds: 3600,
    });
    expect(credential).toMatchObject({
      issuer: a.did,
      credentialSubject: { id: b.did, privilegeScopes: ['files:read'], delegationDepth: 1, domains: [FILES] },
    });
    expect(chain.map((c) => c.id)).toEqual([credential.id, root.id]);
    await b.addCredentials(chain);
    const vp = await b.present({ target: FILES, challenge: 'n-b', scopes: ['files:read'] });
    expect(vp.verifiableCredential.map((c) => c.id)).toEqual([credential.id, root.id]);
    const result = await verifyPresentation(vp, {
      trustedIssuers: [issuer.did],
      expectedDomain: FILES,
      expectedChallenge: 'n-b',
      requiredScopes: ['files:read'],
      resolver,
    });
    expect(result).toMatchObject({ valid: true, agentDid: b.did, effectiveScopes: ['files:read'] });
    // B cannot present what A did not hand over.
    await expect(b.present({ target: FILES, challenge: 'n', scopes: ['files:write'] })).rejects.toEqual(
      code('NO_MATCHING_CREDENTIAL'),
    );
    await expect(b.present({ target: CAL, challenge: 'n' })).rejects.toEqual(code('NO_MATCHING_CREDENTIAL'));
  });

  it('refuses what no chain allows (NO_MATCHING_CREDENTIAL) and what the verifier would refuse (its reason codes)', async () => {
    const a = await openWallet();
    const b = await openWallet();
    const { credential: root } = await rootFor(a, newIdentity(), { validUntil: new Date(Date.now() + 3_600_000) });
    await expect(a.delegate({ to: b.did, scopes: ['mail:send'] })).rejects.toEqual(code('NO_MATCHING_CREDENTIAL'));
    await expect(a.delegate({ to: b.did, scopes: ['files:read'], delegationDepth: 2 })).rejects.toEqual(
      code('NO_MATCHING_CREDENTIAL'),
    );
    await expect(
      a.delegate({ to: b.did, scopes: ['files:read'], parentId: 'urn:uuid:00000000-0000-4000-8000-000000000000' }),
    ).rejects.toEqual(code('NO_MATCHING_CREDENTIAL'));
    await expect(a.delegate({ to: b.did, scopes: ['mail:send'], parentId: root.id })).rejects.toEqual(
      code('SCOPE_ESCALATION'),
    );
    await expect(
      a.delegate({ to: b.did, scopes: ['files:read'], parentId: root.id, domains: ['evil.example.com'] }),
    ).rejects.toEqual(code('DOMAIN_ESCALATION'));
    await expect(a.delegate({ to: b.did, scopes: ['files:read'], lifetimeSeconds: 7200 })).rejects.toEqual(
      code('CHAIN_BROKEN'),
    );
    // B holds the child but not its parent: the chain is broken, so nothing is presented.
    const { credential } = await a.delegate({ to: b.did, scopes: ['files:read'] });
    await b.addCredential(credential);
    await expect(b.present({ target: FILES, challenge: 'n' })).rejects.toEqual(code('NO_MATCHING_CREDENTIAL'));
  });
});

describe('credential stores', () => {
  it('CREDENTIAL_INVALID for what is not a Mandate credential; identical re-adds are no-ops; CREDENTIAL_CONFLICT for a different document under a stored id', async () => {
    const wallet = await openWallet();
    const { credential } = await rootFor(wallet);
    await expect(wallet.addCredential({ id: 'x' })).rejects.toEqual(code('CREDENTIAL_INVALID'));
    await expect(wallet.addCredential('not an object')).rejects.toEqual(code('CREDENTIAL_INVALID'));
    await expect(wallet.addCredential({ ...credential, proof: undefined })).rejects.toEqual(code('CREDENTIAL_INVALID'));
    await wallet.addCredential(structuredClone(credential));
    const tampered = structuredClone(credential);
    tampered.credentialSubject.privilegeScopes = ['files', 'calendar', 'mail'];
    await expect(wallet.addCredential(tampered)).rejects.toEqual(code('CREDENTIAL_CONFLICT'));
    expect(await wallet.credentials()).toEqual([credential]);
  });

  it('keeps its own copies: editing what was added or listed changes nothing stored', async () => {
    const store = createMemoryCredentialStore();
    const wallet = await openWallet(createMemoryKeyStore(), store);
    const { credential } = await rootFor(wallet);
    credential.credentialSubject.privilegeScopes.push('mail');
    const [listed] = await wallet.credentials();
    listed!.credentialSubject.privilegeScopes.push('admin');
    expect((await store.get(credential.id))?.credentialSubject.privilegeScopes).toEqual(['files', 'calendar:read']);
    expect(await wallet.removeCredential(credential.id)).toBe(true);
    expect(await wallet.removeCredential(credential.id)).toBe(false);
  });

  it('CREDENTIAL_STORE_FULL beyond maxCredentials', async () => {
    const wallet = await openWallet(createMemoryKeyStore(), createMemoryCredentialStore({ maxCredentials: 1 }));
    await rootFor(wallet);
    await expect(rootFor(wallet)).rejects.toEqual(code('CREDENTIAL_STORE_FULL'));
  });
});
