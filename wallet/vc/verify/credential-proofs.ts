/**
 * Check 3's signature work: a credential's proofs verified with its issuer's keys (and a
 * grant's consent with the user's), or vouched for by the verified-credential cache when the
 * keys that verified it before are still the DIDs' keys.
 */
import { verifyProof, type VerifiedProof } from '../../crypto/data-integrity.ts';
import { equalBytes } from '../../crypto/bytes.ts';
import type { CanonicalMemo } from '../../crypto/canonical-memo.ts';
import type { DidResolutionResult } from '../../did/types.ts';
import { keyFromResolution } from '../../did/verification-method.ts';
import type { ProofKey, VerifiedCredential, VerifiedCredentialCache } from '../credential-cache.ts';
import type { DelegationGrantCredential, MandateCredential } from '../types.ts';
import type { KeysOf } from './resolutions.ts';
import type { Settled } from './settled.ts';

/** What step 3 learned of a credential's proofs. */
export interface CheckedProofs {
  /** True when the verified-credential cache vouched for the signatures. */
  cached: boolean;
  /** The keys that verified them. */
  keys: readonly ProofKey[];
  /** The earliest proof `expires` (ms), or Infinity. */
  notAfter: number;
}

/**
 * A cached credential's keys, each looked up in its controller's resolution (`settled`, in the
 * same order): cached when every one is still authorized and the same key, a failure when a
 * lookup refuses (a key revoked or expired since), undefined — verify the signatures again —
 * when a resolution failed or a key changed.
 */
export function keysUnchanged(
  known: VerifiedCredential,
  settled: Settled<DidResolutionResult>[],
  now: number,
): Settled<CheckedProofs> | undefined {
  try {
    for (const [i, { controller, verificationMethod, purpose, publicKey }] of known.keys.entries()) {
      const resolution = settled[i] as Settled<DidResolutionResult>;
      if (
        !resolution.ok ||
        !equalBytes(keyFromResolution(resolution.value, controller, verificationMethod, purpose, now), publicKey)
      )
        return undefined;
    }
  } catch (error) {
    return { ok: false, error };
  }
  return { ok: true, value: { cached: true, keys: known.keys, notAfter: Infinity } };
}

/** A credential's proofs with its issuer's assertionMethod keys; a grant's consent with the user's authentication key. */
export async function verifyCredentialProofs(
  credential: MandateCredential,
  issuer: string,
  keysOf: KeysOf,
  now: number,
  skew: number,
  memo: CanonicalMemo,
): Promise<CheckedProofs> {
  const at = new Date(now);
  const keys: ProofKey[] = [];
  let notAfter = Infinity;
  const record = (proofs: readonly VerifiedProof[], controller: string, purpose: string): void => {
    for (const { proof, publicKey, expires } of proofs) {
      keys.push({ controller, verificationMethod: proof.verificationMethod, purpose, publicKey });
      if (expires !== undefined) notAfter = Math.min(notAfter, expires.getTime());
    }
  };
  record(
    (
      await verifyProof(credential, {
        resolveKey: keysOf(issuer),
        expectedProofPurpose: 'assertionMethod',
        now: at,
        clockSkewMs: skew,
        memo,
      })
    ).proofs,
    issuer,
    'assertionMethod',
  );
  if (credential.type.includes('DelegationGrantCredential')) {
    const consent = (credential as DelegationGrantCredential).credentialSubject.consent;
    const { proofs } = await verifyProof(consent, {
      resolveKey: keysOf(consent.user),
      expectedProofPurpose: 'authentication',
      // The provider checked its single-use challenge when the user signed; we check the signature.
      expectedChallenge: challengeOf(consent.proof),
      expectedDomain: consent.provider,
      now: at,
      clockSkewMs: skew,
      memo,
    });
    record(proofs, consent.user, 'authentication');
  }
  return { cached: false, keys, notAfter };
}

/** The presented credentials the cache recognizes, before anything else looks at them. */
export function recallCredentials(
  vp: unknown,
  cache: VerifiedCredentialCache | undefined,
  memo: CanonicalMemo,
): Map<unknown, VerifiedCredential> | undefined {
  const list =
    cache !== undefined && typeof vp === 'object' && vp !== null
      ? (vp as { verifiableCredential?: unknown }).verifiableCredential
      : undefined;
  return recallCredentialList(list, cache, memo);
}

/** The credentials of a list (a presentation's, or a signed request's chain) the cache recognizes. */
export function recallCredentialList(
  list: unknown,
  cache: VerifiedCredentialCache | undefined,
  memo: CanonicalMemo,
): Map<unknown, VerifiedCredential> | undefined {
  if (cache === undefined || !Array.isArray(list)) return undefined;
  const recalled = new Map<unknown, VerifiedCredential>();
  for (const item of list) {
    const verified = cache?.recall(item, memo);
    if (verified !== undefined) recalled.set(item, verified);
  }
  return recalled;
}

/** A proof's challenge, '' when it names none. */
export function challengeOf(proof: { challenge?: unknown } | undefined): string {
  return typeof proof?.challenge === 'string' ? proof.challenge : '';
}
