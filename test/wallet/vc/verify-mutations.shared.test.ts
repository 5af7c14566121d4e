// Tampering, by property: a valid presentation (a delegated chain and a user's grant) is changed
// at a random place in a random way, and the verifier must refuse every change that alters its
// JSON, with one of its reason codes, never by throwing. Two attackers:
// - anyone on the path: the presentation's own signature covers everything in it;
// - the holder itself, who may tamper with the credentials it holds and sign the presentation
//   again: then each credential's signature must catch it — including when the
//   verified-credential cache has already seen the untampered chain;
// - the delegating agent, who signs whatever child credential it likes: then the chain rules
//   must hold, so that a presentation either is refused or carries no more authority than the
//   root credential and the user's grant give.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalizeJson } from '../../../wallet/crypto/jcs.ts';
import { issueAgentCredential } from '../../../wallet/vc/agent-credential.ts';
import { createVerifiedCredentialCache, type VerifiedCredentialCache } from '../../../wallet/vc/credential-cache.ts';
import { delegate } from '../../../wallet/vc/delegation.ts';
import { createConsent, issueGrant } from '../../../wallet/vc/grant.ts';
import type { SigningIdentity } from '../../../wallet/vc/identity.ts';
import { signPresentation } from '../../../wallet/vc/presentation.ts';
import { isReasonCode } from '../../../wallet/vc/reasons.ts';
import type { MandateCredential, VerifiablePresentation } from '../../../wallet/vc/types.ts';
import { verifyPresentation, type VerifyPresentationOptions } from '../../../wallet/vc/verify.ts';
import { within } from '../../../wallet/vc/scopes.ts';
import { newIdentity, signRaw, testResolver, type TestResolver } from '../../support/agents.ts';

const TARGET = 'files.example.com';
const CHALLENGE = 'nonce-m';
const CHECKS = ['presentation', 'dids', 'credentials', 'chain', 'scopes', 'status'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = Array<string | number>;

let agent: SigningIdentity;
let subAgent: SigningIdentity;
let credentials: MandateCredential[];
let vp: VerifiablePresentation;
let resolver: TestResolver;
let trusted: Pick<VerifyPresentationOptions, 'trustedIssuers' | 'trustedGrantIssuers'>;

beforeAll(async () => {
  const [platform, user, provider] = [newIdentity(), newIdentity(), newIdentity()];
  agent = newIdentity();
  subAgent = newIdentity();
  resolver = testResolver();
  const root = await issueAgentCredential({
    issuer: platform,
    agentDid: agent.did,
    privilegeScopes: ['files', 'calendar:read'],
    delegationDepth: 2,
    domains: [TARGET, 'calendar.example.com'],
    validUntil: new Date(Date.now() + 24 * 3600_000),
  });
  const child = await delegate(root, {
    delegator: agent,
    delegateeDid: subAgent.did,
    scopes: ['files:read', 'files:write'],
    domains: [TARGET],
  });
  const consent = await createConsent({
    user,
    agentDid: subAgent.did,
    providerDid: provider.did,
    privilegeScopes: ['files:read'],
    challenge: 'consent-1',
  });
  const grant = await issueGrant({
    provider,
    agentDid: subAgent.did,
    privilegeScopes: ['files:read'],
    consent,
    ceiling: child.credentialSubject.privilegeScopes,
  });
  credentials = [child, root, grant];
  vp = await signPresentation({
    holder: subAgent,
    credentials,
    challenge: CHALLENGE,
    domain: TARGET,
    lifetimeMs: 3600_000,
  });
  trusted = { trustedIssuers: [platform.did], trustedGrantIssuers: [provider.did] };
});

function options(credentialCache?: VerifiedCredentialCache): VerifyPresentationOptions {
  return {
    ...trusted,
    expectedDomain: TARGET,
    expectedChallenge: CHALLENGE,
    resolver,
    ...(credentialCache ? { credentialCache } : {}),
  };
}

/** Every place in `value` below its root: object members and array elements. */
function pathsIn(value: Json, prefix: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...prefix, i], ...pathsIn(item, [...prefix, i])]);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...pathsIn(item, [...prefix, key])]);
  return [];
}

const mutation = fc.record({
  pick: fc.nat(),
  op: fc.constantFrom('replace', 'delete', 'insert', 'tweak', 'duplicate'),
  value: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
  key: fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.constantFrom(
      'id',
      'type',
      'proof',
      'issuer',
      'validUntil',
      'privilegeScopes',
      'delegationDepth',
      'domains',
      'parentCredential',
    ),
  ),
  at: fc.nat(),
});
type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

/** A changed copy of `document`: one operation at one of the places `within` selects. */
function mutate(document: Json, m: Mutation, within: (path: Path) => boolean): Json | undefined {
  const copy = structuredClone(document);
  const candidates = pathsIn(copy).filter(within);
  if (candidates.length === 0) return undefined;
  const path = candidates[m.pick % candidates.length]!;
  const parent = path
    .slice(0, -1)
    .reduce<Json>((node, step) => (node as Record<string | number, Json>)[step]!, copy) as
    Record<string | number, Json> | Json[];
  const last = path.at(-1)!;
  const current = (parent as Record<string | number, Json>)[last]!;
  switch (m.op) {
    case 'replace':
      (parent as Record<string | number, Json>)[last] = m.value;
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last];
      break;
    case 'insert':
      if (Array.isArray(current)) current.splice(m.at % (current.length + 1), 0, m.value);
      else if (current !== null && typeof current === 'object') current[m.key] = m.value;
      else return undefined;
      break;
    case 'tweak':
      if (typeof current === 'string' && current.length > 0) {
        const i = m.at % current.length;
        (parent as Record<string | number, Json>)[last] =
          current.slice(0, i) + String.fromCharCode(current.charCodeAt(i) ^ 1) + current.slice(i + 1);
      } else if (typeof current === 'number') (parent as Record<string | number, Json>)[last] = current + 1;
      else if (typeof current === 'boolean') (parent as Record<string | number, Json>)[last] = !current;
      else return undefined;
      break;
    case 'duplicate':
      if (!Array.isArray(parent)) return undefined;
      parent.splice(last as number, 0, structuredClone(current));
      break;
  }
  return copy;
}

/** The same JSON to a verifier: equal canonical forms. */
function sameJson(a: Json, b: Json): boolean {
  try {
    return canonicalizeJson(a) === canonicalizeJson(b);
  } catch {
    return false;
  }
}

async function expectRefused(presentation: unknown, credentialCache?: VerifiedCredentialCache): Promise<void> {
  const result = await verifyPresentation(presentation, options(credentialCache));
  if (result.valid)
    throw new Error(`a tampered presentation was accepted: ${JSON.stringify(presentation).slice(0, 400)}`);
  expect(isReasonCode(result.reason)).toBe(true);
  expect(CHECKS).toContain(result.failedCheck);
  expect(result.checks.at(-1)).toMatchObject({ check: result.failedCheck, ok: false, reason: result.reason });
  expect(result.message.length).toBeGreaterThan(0);
}

describe('tampering with a valid presentation', () => {
  it('the untampered presentation is accepted, with and without the credential cache', async () => {
    expect(await verifyPresentation(vp, options())).toMatchObject({
      valid: true,
      agentDid: subAgent.did,
      effectiveScopes: ['files:read'],
    });
    const cache = createVerifiedCredentialCache();
    expect((await verifyPresentation(vp, options(cache))).valid).toBe(true);
    expect((await verifyPresentation(vp, options(cache))).valid).toBe(true);
  });

  it('on the path: any change anywhere is refused with a reason code', async () => {
    const original = vp as unknown as Json;
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        const tampered = mutate(original, m, () => true);
        fc.pre(tampered !== undefined && !sameJson(tampered, original));
        await expectRefused(tampered);
      }),
      { numRuns: 300 },
    );
  });

  it('by the holder, who signs again: any change inside a credential is refused, even once the cache knows the real chain', async () => {
    const cache = createVerifiedCredentialCache();
    expect((await verifyPresentation(vp, options(cache))).valid).toBe(true);
    const original = credentials as unknown as Json;
    await fc.assert(
      fc.asyncProperty(mutation, fc.boolean(), async (m, cached) => {
        // Inside a credential: the holder chooses which credentials to present (leaving out a
        // grant only widens what it may claim back to its own chain), not what they say.
        const tampered = mutate(original, m, (path) => path.length >= 2);
        fc.pre(tampered !== undefined && !sameJson(tampered, original));
        let resigned: VerifiablePresentation;
        try {
          resigned = await signPresentation({
            holder: subAgent,
            credentials: tampered as unknown as MandateCredential[],
            challenge: CHALLENGE,
            domain: TARGET,
            lifetimeMs: 3600_000,
          });
        } catch {
          return fc.pre(false); // not JSON the holder could sign
        }
        await expectRefused(resigned, cached ? cache : undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('by the delegating agent, who signs any child it likes: refused, or no more authority than the root and the grant give', async () => {
    const [child, root, grant] = credentials as unknown as [Record<string, Json>, ...Json[]];
    const { proof: _proof, ...unsignedChild } = child;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        const tampered = mutate(unsignedChild, m, (path) => path[0] !== '@context' || path.length > 1);
        fc.pre(
          tampered !== undefined &&
            tampered !== null &&
            typeof tampered === 'object' &&
            !Array.isArray(tampered) &&
            !sameJson(tampered, unsignedChild),
        );
        let presentation: VerifiablePresentation;
        try {
          const signed = await signRaw(tampered as object, agent);
          presentation = await signPresentation({
            holder: subAgent,
            credentials: [signed, root, grant] as unknown as MandateCredential[],
            challenge: CHALLENGE,
            domain: TARGET,
            lifetimeMs: 3600_000,
          });
        } catch {
          return fc.pre(false); // not JSON the agent could sign
        }
        const result = await verifyPresentation(presentation, options());
        if (!result.valid) {
          expect(isReasonCode(result.reason)).toBe(true);
          return;
        }
        accepted += 1; // a change the rules allow: another id, fewer scopes, an earlier end…
        expect(result.agentDid).toBe(subAgent.did);
        expect(result.chain.filter((link) => link.type === 'AgentCredential').map((link) => link.id)).toEqual([
          (root as { id: string }).id,
        ]);
        expect(within(result.privilegeScopes, ['files', 'calendar:read'])).toBe(true);
        expect(within(result.effectiveScopes, ['files:read'])).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(accepted).toBeGreaterThan(0);
  });
});
