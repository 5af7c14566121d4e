// A credential chain on its own, as a signed request names it (docs/protocol.md §Signed requests),
// in Node and in Chromium: the Mandate-Chain and Mandate-Chain-Digest headers, the chain cache,
// and verifyCredentialChain — verifyPresentation's chain checks, with its reason codes.
import { beforeAll, describe, expect, it } from 'vitest';
import { createChainCache } from '../../../wallet/vc/chain-cache.ts';
import {
  CHAIN_DIGEST_HEADER,
  CHAIN_HEADER,
  chainDigest,
  chainHeaders,
  decodeChainDigestHeader,
  decodeChainHeader,
  encodeChainHeader,
} from '../../../wallet/vc/chain-header.ts';
import { issueAgentCredential } from '../../../wallet/vc/agent-credential.ts';
import { createVerifiedCredentialCache } from '../../../wallet/vc/credential-cache.ts';
import { delegate } from '../../../wallet/vc/delegation.ts';
import type { SigningIdentity } from '../../../wallet/vc/identity.ts';
import type { AgentCredential, DelegatedAgentCredential } from '../../../wallet/vc/types.ts';
import { verifyCredentialChain, verifyPresentation, type ChainVerificationResult } from '../../../wallet/vc/verify.ts';
import { signPresentation } from '../../../wallet/vc/presentation.ts';
import { newIdentity, testResolver, type TestResolver } from '../../support/agents.ts';

const TARGET = 'files.example.com';

let platform: SigningIdentity;
let parentAgent: SigningIdentity;
let agent: SigningIdentity;
let resolver: TestResolver;
let root: AgentCredential;
let child: DelegatedAgentCredential;

beforeAll(async () => {
  platform = newIdentity();
  parentAgent = newIdentity();
  agent = newIdentity();
  resolver = testResolver();
  root = await issueAgentCredential({
    issuer: platform,
    agentDid: parentAgent.did,
    privilegeScopes: ['files'],
    delegationDepth: 1,
    domains: [TARGET],
    validUntil: new Date(Date.now() + 365 * 86_400_000),
  });
  child = await delegate(root, { delegator: parentAgent, delegateeDid: agent.did, scopes: ['files:read'] });
});

function expectRefused(result: ChainVerificationResult, reason: string, failedCheck: string): void {
  if (result.valid) throw new Error(`expected ${reason}, but the chain was accepted`);
  expect({ reason: result.reason, failedCheck: result.failedCheck }).toEqual({ reason, failedCheck });
}

describe('the chain headers', () => {
  it('names a chain by base64url(SHA-256(JCS(chain))): a digest computed by hand, whatever the JSON spelling', () => {
    // JCS: [{"a":[1,"é"],"b":2},"x"] — members sorted, no white space, é as UTF-8.
    const expected = 'rIgd6eRVqBqh34-x8J6Cnv9-v2i1A-yZVa30k8aCqH4';
    expect(chainDigest([{ b: 2, a: [1, 'é'] }, 'x'])).toBe(expected);
    // The same chain written otherwise: other member order, white space, an escaped é.
    const spelled = decodeChainHeader('W3siYiI6IDIsICJhIjogWzEsICJcdTAwZTkiXX0sICJ4Il0');
    expect(chainDigest(spelled)).toBe(expected);
  });

  it('round-trips a real chain and gives both header forms', () => {
    const headers = chainHeaders([child, root]);
    expect(headers.full[CHAIN_HEADER]).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeChainHeader(headers.full[CHAIN_HEADER])).toEqual([child, root]);
    expect(headers.byDigest[CHAIN_DIGEST_HEADER]).toBe(headers.digest);
    expect(decodeChainDigestHeader(headers.digest)).toBe(headers.digest);
    expect(headers.digest).toHaveLength(43);
  });

  it('refuses as MALFORMED what is not one canonical base64url JSON array, or not a 32-byte digest', () => {
    const b64 = (text: string) => encodeChainHeader(JSON.parse(text) as unknown[]);
    const full = encodeChainHeader([child]);
    const bad = [
      `${full}==`, // padding
      `${full}, ${full}`, // two field lines, combined (RFC 9110 §5.3)
      '',
      b64('{"a":1}').slice(0, -1) + '!',
      encodeChainHeader([]), // empty
      'eyJhIjoxfQ', // {"a":1}: not an array
      'W3siYSI6', // [{"a": — not JSON
      '_w', // 0xFF: not UTF-8
    ];
    for (const value of bad)
      expect(() => decodeChainHeader(value), value).toThrow(expect.objectContaining({ code: 'MALFORMED' }));
    expect(() => decodeChainHeader(full, 100)).toThrow(expect.objectContaining({ code: 'MALFORMED' }));
    const digest = chainDigest([child]);
    for (const value of [digest.slice(1), `${digest}A`, `${digest.slice(0, 42)}B`, `${digest}=`, `sha-256=${digest}`])
      expect(() => decodeChainDigestHeader(value), value).toThrow(expect.objectContaining({ code: 'MALFORMED' }));
  });
});

describe('the chain cache', () => {
  it('holds a chain until the TTL or its notAfter, whichever is first, within its bounds', () => {
    let now = 1_000_000;
    const cache = createChainCache({ ttlMs: 60_000, max: 2, now: () => now });
    cache.add('a', [1], 10, now + 30_000);
    cache.add('b', [2], 10, Infinity);
    expect(cache.get('a')).toEqual([1]);
    now += 30_000;
    expect(cache.get('a')).toBeUndefined(); // its notAfter
    expect(cache.get('b')).toEqual([2]);
    now += 30_000;
    expect(cache.get('b')).toBeUndefined(); // the TTL
    cache.add('c', [3], 10, Infinity);
    cache.add('d', [4], 10, Infinity);
    cache.add('e', [5], 10, Infinity);
    expect([cache.get('c'), cache.get('d'), cache.get('e')]).toEqual([undefined, [4], [5]]); // max 2
    cache.add('expired', [6], 10, now - 1);
    expect(cache.get('expired')).toBeUndefined();
    const small = createChainCache({ maxBytes: 15 });
    small.add('x', [1], 10, Infinity);
    small.add('y', [2], 10, Infinity);
    expect([small.get('x'), small.get('y')]).toEqual([undefined, [2]]); // bytes
  });
});

describe('verifyCredentialChain', () => {
  const options = () => ({ trustedIssuers: [platform.did], expectedDomain: TARGET, resolver });

  it('accepts a real chain, held by its leaf subject, with what verifyPresentation reports but the vpId', async () => {
    const result = await verifyCredentialChain([child, root], { ...options(), requiredScopes: ['files:read'] });
    if (!result.valid) throw new Error(result.message);
    expect(result.agentDid).toBe(agent.did);
    expect(result.effectiveScopes).toEqual(['files:read']);
    expect(result.chain.map((link) => link.id)).toEqual([child.id, root.id]);
    expect(result.checks.map((c) => c.check)).toEqual(['dids', 'credentials', 'chain', 'scopes', 'status']);
    const vp = await signPresentation({ holder: agent, credentials: [child, root], challenge: 'c', domain: TARGET });
    const presented = await verifyPresentation(vp, options());
    if (!presented.valid) throw new Error(presented.message);
    const { vpId, ...rest } = presented;
    expect(vpId).toBe(vp.id);
    // The same report but for the presentation's own check.
    expect(result).toEqual({ ...rest, checks: rest.checks.slice(1) });
  });

  it("refuses with verifyPresentation's codes, in its checks", async () => {
    expectRefused(
      await verifyCredentialChain([child, root], { ...options(), trustedIssuers: [] }),
      'UNTRUSTED_ISSUER',
      'chain',
    );
    expectRefused(await verifyCredentialChain([root], { ...options(), holder: agent.did }), 'HOLDER_MISMATCH', 'chain');
    expectRefused(await verifyCredentialChain([child], options()), 'CHAIN_BROKEN', 'chain');
    expectRefused(
      await verifyCredentialChain([child, root], { ...options(), requiredScopes: ['files:write'] }),
      'INSUFFICIENT_SCOPE',
      'scopes',
    );
    expectRefused(
      await verifyCredentialChain([child, root], { ...options(), expectedDomain: 'mail.example.com' }),
      'TARGET_MISMATCH',
      'scopes',
    );
    const forged = { ...child, credentialSubject: { ...child.credentialSubject, privilegeScopes: ['files'] } };
    expectRefused(
      await verifyCredentialChain([forged, root], options()),
      'CREDENTIAL_SIGNATURE_INVALID',
      'credentials',
    );
    expectRefused(
      await verifyCredentialChain([child, root], { ...options(), now: new Date(Date.now() + 3 * 365 * 86_400_000) }),
      'CREDENTIAL_EXPIRED',
      'credentials',
    );
    expectRefused(await verifyCredentialChain([], options()), 'MALFORMED', 'chain');
    expectRefused(await verifyCredentialChain([{ ...child, type: 'x' }, root], options()), 'MALFORMED', 'chain');
  });

  it('skips the signatures the verified-credential cache vouches for, as a presentation does', async () => {
    const credentialCache = createVerifiedCredentialCache();
    const first = await verifyCredentialChain([child, root], { ...options(), credentialCache });
    const again = await verifyCredentialChain(structuredClone([child, root]), { ...options(), credentialCache });
    if (!first.valid || !again.valid) throw new Error('refused');
    expect(first.chain.map((link) => link.cached)).toEqual([false, false]);
    expect(again.chain.map((link) => link.cached)).toEqual([true, true]);
  });
});
