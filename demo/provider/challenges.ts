/** The provider's consent challenges: single use, short-lived, bounded in number. */
import { randomBytes } from '../../wallet/crypto/bytes.ts';
import { LruCache } from '../../wallet/crypto/lru.ts';
import { encodeBase64url } from '../../wallet/crypto/multikey.ts';

export const CHALLENGE_TTL_MS = 5 * 60_000;
/** Bound on outstanding challenges: a flood of GETs evicts the oldest rather than growing memory. */
const MAX_CHALLENGES = 1000;

export interface ConsentChallenges {
  /** A fresh challenge and when it expires. */
  issue(): { challenge: string; expiresAt: Date };
  /** True once for a challenge this provider issued and that has not expired. */
  consume(challenge: string): boolean;
}

export function createConsentChallenges(now: () => number): ConsentChallenges {
  const outstanding = new LruCache<string, true>({ max: MAX_CHALLENGES, ttlMs: CHALLENGE_TTL_MS, now });
  return {
    issue() {
      const challenge = encodeBase64url(randomBytes(16));
      outstanding.set(challenge, true);
      return { challenge, expiresAt: new Date(now() + CHALLENGE_TTL_MS) };
    },
    consume(challenge) {
      if (!outstanding.get(challenge)) return false;
      outstanding.delete(challenge);
      return true;
    },
  };
}
