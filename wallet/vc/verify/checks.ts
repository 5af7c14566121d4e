/**
 * The seven checks of `verifyPresentation`, one function each over the verification's state
 * (verification.ts), run by verify.ts in this order: 1 presentation proof, 2 DID resolution,
 * 3 credential proofs and validity, 4 delegation chain and grants, 5 scopes, 6 status lists,
 * 7 replay. Each throws the first thing wrong as a VerificationError and otherwise returns what
 * it found. Checks 2, 3 and 6 return values, not promises, when all they judge is in hand.
 */
import { parseDateTimeStamp, verifyProof, type VerifiedProof } from '../../crypto/data-integrity.ts';
import { canonicalizeJson } from '../../crypto/jcs.ts';
import type { DidResolutionResult } from '../../did/types.ts';
import type { StatusCheckResult } from '../../status/client.ts';
import type { VerifiedCredential } from '../credential-cache.ts';
import { checkDelegationLink, credentialDigest, validUntilOf } from '../delegation.ts';
import { checkGrant } from '../grant.ts';
import { domainCovers, domainsCover } from '../domains.ts';
import { statusEntries } from '../parse.ts';
import { DEFAULT_PRESENTATION_LIFETIME_MS, MAX_PRESENTATION_LIFETIME_MS } from '../presentation.ts';
import { VerificationError } from '../reasons.ts';
import type { ReplayCache } from '../replay-cache.ts';
import { narrow, uncovered } from '../scopes.ts';
import type { ChainCredential, MandateCredential, StatusEntry } from '../types.ts';
import { challengeOf, keysUnchanged, verifyCredentialProofs, type CheckedProofs } from './credential-proofs.ts';
import { reasonFor } from './refusal.ts';
import { ageOf } from './resolutions.ts';
import { judgeInOrder, settle, type Pending, type Settled } from './settled.ts';
import type { SourceAge } from './types.ts';
import type { ChainVerification, Verification } from './verification.ts';

/**
 * 1. The presentation's own proof: holder's authentication key, time window, challenge, target.
 * Resolves to when the presentation expires (ms).
 */
export async function checkPresentationProof(v: Verification): Promise<number> {
  const { options } = v;
  let verifiedProof: VerifiedProof | undefined;
  try {
    ({
      proofs: [verifiedProof],
    } = await verifyProof(v.presentation, {
      resolveKey: v.keysOf(v.holder),
      expectedProofPurpose: 'authentication',
      // Without an expected nonce any challenge is accepted (a replay cache then makes each
      // one single-use); Data Integrity insists on naming one for authentication proofs.
      expectedChallenge: options.expectedChallenge ?? challengeOf(v.presentation.proof),
      expectedDomain: signedDomain(v),
      now: new Date(v.now),
      clockSkewMs: v.skew,
      limits: v.limits,
      memo: v.memo,
    }));
  } catch (error) {
    throw reasonFor(error, 'VP_SIGNATURE_INVALID', {
      PROOF_SIGNATURE_INVALID: 'VP_SIGNATURE_INVALID',
      CRYPTOSUITE_UNSUPPORTED: 'VP_SIGNATURE_INVALID',
      PROOF_PURPOSE_MISMATCH: 'VP_SIGNATURE_INVALID',
      PROOF_CONTEXT_MISMATCH: 'VP_SIGNATURE_INVALID',
      PROOF_EXPIRED: 'VP_EXPIRED',
      PROOF_NOT_YET_VALID: 'VP_EXPIRED',
      CHALLENGE_MISMATCH: 'CHALLENGE_MISMATCH',
      DOMAIN_MISMATCH: 'TARGET_MISMATCH',
    });
  }
  return presentationExpiry(v, verifiedProof);
}

/**
 * The domain the presentation's proof must name: `expectedDomain`, or the one it names when
 * that covers `expectedDomain` (a host signed for, the verifier a resource URI at it:
 * docs/protocol.md §Where authority applies). Data Integrity then checks the proof names it.
 */
export function signedDomain(v: Verification): string {
  const named = v.presentation.proof?.domain;
  const expected = v.options.expectedDomain;
  return typeof named === 'string' && domainCovers(named, expected) ? named : expected;
}

/** When the presentation expires: a presentation without `expires` lives the default lifetime after `created`. */
function presentationExpiry(v: Verification, verifiedProof: VerifiedProof | undefined): number {
  const created = verifiedProof?.created?.getTime() ?? NaN;
  const expiresAt = verifiedProof?.expires?.getTime() ?? created + DEFAULT_PRESENTATION_LIFETIME_MS;
  if (!Number.isFinite(expiresAt) || v.now > expiresAt + v.skew) {
    throw new VerificationError('VP_EXPIRED', 'the presentation has no valid created/expires time or has expired');
  }
  const maxLifetime = v.options.maxPresentationLifetimeMs ?? MAX_PRESENTATION_LIFETIME_MS;
  if (!(expiresAt - created <= maxLifetime)) {
    throw new VerificationError(
      'VP_EXPIRED',
      `the presentation has no created time or lives longer than ${maxLifetime / 1000} s`,
    );
  }
  if (expiresAt < created) throw new VerificationError('VP_EXPIRED', 'the presentation expires before it was created');
  return expiresAt;
}

/** 2. Every DID involved resolves, and none is deactivated. Returns how old each document is. */
export function checkDids(v: ChainVerification): Pending<SourceAge[]> {
  const dids = [...v.dids];
  const ages: SourceAge[] = [];
  const judged = judgeInOrder(
    dids.map((did) => v.resolutions.of(did)),
    (settled, i) => ages.push(didAge(dids[i] as string, settled)),
  );
  return judged === undefined ? ages : judged.then(() => ages);
}

function didAge(did: string, settled: Settled<DidResolutionResult>): SourceAge {
  const result = settled.ok ? settled.value : undefined;
  if (!result || !result.didDocument || result.didResolutionMetadata.error) {
    const why = result?.didResolutionMetadata.error ?? 'resolver failed';
    // The resolver's own words say what to fix (a host the network policy refuses, say).
    const detail = result?.didResolutionMetadata.message;
    throw new VerificationError(
      'DID_RESOLUTION_FAILED',
      `${did} could not be resolved (${why}${typeof detail === 'string' ? `: ${detail.slice(0, 200)}` : ''})`,
    );
  }
  if (result.didDocumentMetadata.deactivated === true)
    throw new VerificationError('DID_DEACTIVATED', `${did} is deactivated`);
  return { id: did, ageMs: ageOf(result) };
}

/** What check 3 found, parallel to the verification's `credentials`. */
export interface CheckedCredentials {
  /** Digests where needed: parents are named by them (check 4) and the cache records them. */
  digests: (string | undefined)[];
  /** True where the verified-credential cache vouched for the signatures. */
  cached: boolean[];
  /**
   * Cache records, added only once the whole presentation passed, like the replay cache: a
   * refused one (a throwaway key presenting self-signed credentials) must not fill the cache
   * or evict entries.
   */
  toCache: Array<() => void>;
}

/**
 * 3. Each credential's proof (issuer's assertionMethod key) and validity window. Digests are
 * computed once, and only for parents and, with a cache, credentials about to be cached.
 */
export function checkCredentials(v: ChainVerification): Pending<CheckedCredentials> {
  const cache = v.options.credentialCache;
  const known = v.credentials.map((c) => v.recalled?.get(c));
  const found: CheckedCredentials = {
    digests: v.credentials.map(
      (c, i) =>
        known[i]?.digest ??
        (cache !== undefined || (i > 0 && i < v.chain.length) ? credentialDigest(c, v.memo) : undefined),
    ),
    cached: [],
    toCache: [],
  };
  const proofs = v.credentials.map((credential, i) => startProofs(v, credential, i, known[i]));
  const judged = judgeInOrder(proofs, (settled, i) => judgeCredential(v, found, settled, i));
  return judged === undefined ? found : judged.then(() => found);
}

/** A cached credential costs no signature work: only its keys are looked up again. */
function startProofs(
  v: ChainVerification,
  credential: MandateCredential,
  i: number,
  recalled: VerifiedCredential | undefined,
): Pending<Settled<CheckedProofs>> {
  const verify = () =>
    settle(() => verifyCredentialProofs(credential, v.issuers[i] as string, v.keysOf, v.now, v.skew, v.memo));
  if (recalled === undefined) return verify();
  // A recognized credential's keys, looked up in this verification's resolutions: synchronously
  // when they are all in hand (a cached resolver), since that is the whole cost of a hit.
  const keyResolutions = recalled.keys.map((key) => v.resolutions.of(key.controller));
  const judge = (settled: Settled<DidResolutionResult>[]) => keysUnchanged(recalled, settled, v.now) ?? verify();
  return keyResolutions.some((r) => r instanceof Promise)
    ? Promise.all(keyResolutions.map((r) => Promise.resolve(r))).then(judge)
    : judge(keyResolutions as Settled<DidResolutionResult>[]);
}

function judgeCredential(
  v: ChainVerification,
  found: CheckedCredentials,
  settled: Settled<CheckedProofs>,
  i: number,
): void {
  const credential = v.credentials[i] as MandateCredential;
  if (!settled.ok) {
    throw reasonFor(settled.error, 'CREDENTIAL_SIGNATURE_INVALID', {
      PROOF_EXPIRED: 'CREDENTIAL_EXPIRED',
      PROOF_NOT_YET_VALID: 'CREDENTIAL_NOT_YET_VALID',
    });
  }
  const checked = settled.value;
  found.cached[i] = checked.cached;
  const validFrom = parseDateTimeStamp(credential.validFrom) ?? Infinity;
  const validUntil = validUntilOf(credential);
  if (validFrom > v.now + v.skew)
    throw new VerificationError('CREDENTIAL_NOT_YET_VALID', `${credential.id} is valid from ${credential.validFrom}`);
  if (validUntil < v.now - v.skew)
    throw new VerificationError('CREDENTIAL_EXPIRED', `${credential.id} expired at ${credential.validUntil}`);
  const digest = found.digests[i];
  const cache = v.options.credentialCache;
  if (cache !== undefined && !checked.cached && digest !== undefined) {
    // Cached no longer than the earliest proof `expires`: a hit does not look at the proofs.
    found.toCache.push(() =>
      cache.add(
        { canonical: canonicalizeJson(credential, undefined, v.memo), digest, keys: checked.keys },
        Math.min(validUntil, checked.notAfter),
      ),
    );
  }
}

/** 4. The chain: each link narrows its parent; the root is trusted; the leaf is the holder. */
export function checkChain(v: ChainVerification, digests: readonly (string | undefined)[]): void {
  const { chain, options } = v;
  for (let i = 0; i < chain.length; i++) {
    const child = chain[i] as ChainCredential;
    const parent = chain[i + 1];
    const isDelegated = 'parentCredential' in child;
    if (parent === undefined) {
      if (isDelegated) throw new VerificationError('CHAIN_BROKEN', `${child.id} names a parent that was not presented`);
      break;
    }
    if (!isDelegated)
      throw new VerificationError('CHAIN_BROKEN', `${child.id} is a root credential but more credentials follow it`);
    checkDelegationLink(parent, child, digests[i + 1]);
  }
  const root = chain[chain.length - 1] as ChainCredential;
  const leaf = chain[0] as ChainCredential;
  const rootIssuer = v.issuers[chain.length - 1] as string;
  const selfSigned = rootIssuer === root.credentialSubject.id;
  if (!options.trustedIssuers.includes(rootIssuer) && !(selfSigned && options.allowSelfSigned === true)) {
    throw new VerificationError(
      'UNTRUSTED_ISSUER',
      `${rootIssuer} is not a trusted issuer${selfSigned ? ' (self-signed root)' : ''}`,
    );
  }
  if (leaf.credentialSubject.id !== v.holder) {
    throw new VerificationError(
      'HOLDER_MISMATCH',
      `the presentation is signed by ${v.holder}, but the credential is for ${leaf.credentialSubject.id}`,
    );
  }
  checkGrants(v, root);
}

/** Check 4 for the grants: each from a trusted provider, for an agent of the chain, within the root's scopes. */
function checkGrants(v: ChainVerification, root: ChainCredential): void {
  const { chain } = v;
  for (const [j, grant] of v.grants.entries()) {
    const provider = v.issuers[chain.length + j] as string; // grants follow the chain in `credentials`
    if (!(v.options.trustedGrantIssuers ?? []).includes(provider)) {
      throw new VerificationError('UNTRUSTED_ISSUER', `${provider} is not a trusted grant issuer`);
    }
    if (!chain.some((c) => c.credentialSubject.id === grant.credentialSubject.id)) {
      throw new VerificationError(
        'HOLDER_MISMATCH',
        `${grant.id} is for ${grant.credentialSubject.id}, who is not in the presented chain`,
      );
    }
    checkGrant(grant, root.credentialSubject.privilegeScopes);
  }
}

/**
 * 5. Scopes: the leaf's, narrowed by grants; one of the leaf's domains must cover the target
 * (domains.ts: a host entry covers the https URIs at that host and port).
 * Returns the effective scopes.
 */
export function checkScopes(v: ChainVerification): string[] {
  const { options } = v;
  const leaf = v.chain[0] as ChainCredential;
  const leafDomains = leaf.credentialSubject.domains;
  if (!domainsCover(leafDomains, options.expectedDomain)) {
    throw new VerificationError(
      'TARGET_MISMATCH',
      `this authority is limited to ${(leafDomains ?? []).join(', ')}, not ${options.expectedDomain}`,
    );
  }
  let effectiveScopes = leaf.credentialSubject.privilegeScopes;
  if (v.grants.length > 0)
    effectiveScopes = narrow(
      effectiveScopes,
      v.grants.flatMap((g) => g.credentialSubject.privilegeScopes),
    );
  const missing = uncovered(options.requiredScopes ?? [], effectiveScopes);
  if (missing.length > 0)
    throw new VerificationError('INSUFFICIENT_SCOPE', `not covered by the effective scopes: ${missing.join(', ')}`);
  return effectiveScopes;
}

interface StatusLookup {
  credential: MandateCredential;
  entry: StatusEntry;
  pending: Promise<Settled<StatusCheckResult>>;
}

/**
 * 6. Status: revocation and suspension of every credential, through its issuer's status list.
 * Returns how old each list relied on is.
 */
export function checkStatus(v: ChainVerification): Pending<SourceAge[]> {
  const entriesOf = v.credentials.map(statusEntries);
  // A credential that can never be revoked decides the verdict: judged before any list is fetched.
  if (v.options.requireCredentialStatus === true) requireRevocable(v.credentials, entriesOf);
  const lookups: StatusLookup[] = [];
  for (const [i, credential] of v.credentials.entries()) {
    for (const entry of entriesOf[i] ?? []) {
      const client = v.options.statusLists;
      const pending = client
        ? settle(() => client.check(entry, v.issuers[i] as string, v.now))
        : Promise.resolve({
            ok: false as const,
            error: new VerificationError('STATUS_UNAVAILABLE', 'no status list client is configured'),
          });
      lookups.push({ credential, entry, pending });
    }
  }
  const ages: SourceAge[] = [];
  const judged = judgeInOrder(
    lookups.map((lookup) => lookup.pending),
    (settled, k) => ages.push(judgeStatus(lookups[k] as StatusLookup, settled)),
  );
  return judged === undefined ? ages : judged.then(() => ages);
}

/** Refuses a credential that carries no revocation or suspension entry (delegated ones are exempt). */
function requireRevocable(credentials: readonly MandateCredential[], entriesOf: readonly StatusEntry[][]): void {
  for (const [i, credential] of credentials.entries()) {
    if (
      'parentCredential' in credential ||
      entriesOf[i]?.some((e) => e.statusPurpose === 'revocation' || e.statusPurpose === 'suspension')
    )
      continue;
    throw new VerificationError(
      'STATUS_UNAVAILABLE',
      `${credential.id} carries no revocation or suspension status entry, and this verifier requires one`,
    );
  }
}

function judgeStatus({ credential, entry }: StatusLookup, settled: Settled<StatusCheckResult>): SourceAge {
  if (!settled.ok)
    throw reasonFor(settled.error, 'STATUS_UNAVAILABLE', { DID_RESOLUTION_FAILED: 'STATUS_UNAVAILABLE' });
  const { status, ageMs } = settled.value;
  if (status !== 0 && entry.statusPurpose === 'revocation')
    throw new VerificationError('CREDENTIAL_REVOKED', `${credential.id} is revoked`);
  if (status !== 0 && entry.statusPurpose === 'suspension')
    throw new VerificationError('CREDENTIAL_SUSPENDED', `${credential.id} is suspended`);
  return { id: entry.statusListCredential, ageMs };
}

/** The other reason a replay cache refuses: a full one cannot vouch for keys about to expire. */
const UNVOUCHED = ' (or expires too soon to be vouched for)';

/**
 * 7. Replay, last: only a presentation that passed everything else is remembered, so refused
 * ones (a throwaway key wrapping someone's public credential, say) cannot fill the cache or use
 * up a verifier's nonce. An in-memory cache records both keys synchronously, after the last
 * await, so two concurrent verifications of one presentation cannot both get through; a shared
 * one (Redis `SET NX`) answers with a promise and is atomic itself. Only `true` accepts: a
 * cache that answers anything else fails closed.
 */
export async function checkReplay(v: Verification, replayCache: ReplayCache, expiresAt: number): Promise<void> {
  const until = expiresAt + v.skew;
  const remember = async (key: string, refusal: string): Promise<void> => {
    const answer = replayCache.remember(key, until);
    if ((typeof answer === 'boolean' ? answer : await answer) !== true)
      throw new VerificationError('REPLAYED', `${refusal}${UNVOUCHED}`);
  };
  // A full cache also refuses presentations about to expire that it could no longer vouch for.
  // The challenge is a nonce of one target: keyed by it, so a verifier serving several targets
  // (the issuer's /v1/vp/verify) does not let an agent of one spend a nonce another handed out.
  // The target is the domain the proof names: a presentation signed for a host is spent once
  // for every resource URI at that host. It is taken first: a replayed presentation then fails
  // there and records nothing.
  const challenge = v.presentation.proof?.challenge;
  if (challenge !== undefined)
    await remember(`challenge:${signedDomain(v)}:${challenge}`, 'this challenge was already answered');
  await remember(`vp:${v.presentation.id}`, `presentation ${v.presentation.id} was already presented`);
}
