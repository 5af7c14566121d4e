/**
 * The verified-credential cache: a credential presented again — the same JSON, hence the same
 * canonical form and digest — skips re-verifying its signature until its validity or the cache
 * TTL ends (or the earliest proof `expires`). Only successes are stored; validity windows,
 * chain rules and revocation are still checked every time, and so are the keys: each key that
 * verified a signature must still be authorized in its DID document, and be the same key.
 *
 * Entries are found by the credential's `proofValue` and hit only when the presented
 * credential is structurally identical to the one verified (`recallCanonical`, canonical-memo.ts): every
 * member and value the same. The entry then supplies the canonical text and the digest computed
 * at the time, so a cached credential is neither serialized nor hashed again — its text goes
 * straight into the presentation's canonical form. Identity of content needs no collision
 * resistance, and the `proofValue` only picks the candidate: a forged credential reusing
 * another's signature differs in its content and misses.
 */
import {
  type CanonicalMemo,
  canonicalSnapshot,
  type CanonicalSnapshot,
  recallCanonical,
} from '../crypto/canonical-memo.ts';
import { LruCache } from '../crypto/lru.ts';

export interface CredentialCacheOptions {
  /** Most cached credentials (default 10,000). */
  max?: number;
  /**
   * Most canonical text held, in UTF-16 code units (default 4 Mi). Each entry also keeps a
   * parsed copy of its text, several times the text's size: about 20 MB at the default.
   */
  maxTextLength?: number;
  /** How long a verified signature is trusted (default 10 minutes). */
  ttlMs?: number;
  now?: () => number;
}

/** A key that verified one of a credential's proofs (or a grant's consent proof). */
export interface ProofKey {
  /** The DID whose document must list the key. */
  controller: string;
  verificationMethod: string;
  /** The proof purpose, hence the verification relationship the key must be in. */
  purpose: string;
  publicKey: Uint8Array;
}

/** What the cache knows of a credential it verified. */
export interface VerifiedCredential {
  /** Its JCS canonical form (the text its digest and its signature cover). */
  canonical: string;
  /** `digestMultibase` of `canonical`: what a child credential names it by. */
  digest: string;
  /**
   * The keys its signatures verified with. A hit skips the signatures, not the keys: each is
   * looked up again in the DID documents of the verification at hand, and must still be
   * authorized (not revoked, not expired) and the same.
   */
  keys: readonly ProofKey[];
}

export interface VerifiedCredentialCache {
  /**
   * When `credential` is identical to one verified before (and the entry is live): that entry,
   * with the credential's canonical text recorded in `memo`. Otherwise undefined.
   */
  recall(credential: unknown, memo: CanonicalMemo): VerifiedCredential | undefined;
  /**
   * Records a verified credential until `validUntil` (ms) or the TTL, whichever is first. The
   * verifier passes the earliest of the credential's `validUntil` and its proofs' `expires`.
   */
  add(verified: VerifiedCredential, validUntil: number): void;
}

interface Entry {
  snapshot: CanonicalSnapshot;
  digest: string;
  keys: readonly ProofKey[];
}

/** The first proof's proofValue: what entries are found by. */
function proofValueOf(credential: unknown): string | undefined {
  if (typeof credential !== 'object' || credential === null) return undefined;
  const proof: unknown = (credential as { proof?: unknown }).proof;
  const first: unknown = Array.isArray(proof) ? proof[0] : proof;
  const value =
    typeof first === 'object' && first !== null ? (first as { proofValue?: unknown }).proofValue : undefined;
  return typeof value === 'string' ? value : undefined;
}

export function createVerifiedCredentialCache(options: CredentialCacheOptions = {}): VerifiedCredentialCache {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const cache = new LruCache<string, Entry>({
    max: options.max ?? 10_000,
    maxSize: options.maxTextLength ?? 4 * 1024 * 1024,
    sizeOf: (entry) => entry.snapshot.text.length,
    now,
  });
  return {
    recall(credential, memo) {
      const proofValue = proofValueOf(credential);
      const entry = proofValue === undefined ? undefined : cache.get(proofValue);
      if (entry === undefined || !recallCanonical(credential, entry.snapshot, memo)) return undefined;
      return { canonical: entry.snapshot.text, digest: entry.digest, keys: entry.keys };
    },
    add({ canonical, digest, keys }, validUntil) {
      const ttl = Math.min(ttlMs, validUntil - now());
      const snapshot = canonicalSnapshot(canonical);
      const proofValue = proofValueOf(snapshot.value);
      if (ttl > 0 && proofValue !== undefined) cache.set(proofValue, { snapshot, digest, keys }, ttl);
    },
  };
}
