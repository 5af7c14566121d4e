/**
 * The nonces this verifier hands out (docs/verifier.md §Challenges): how a presentation's
 * challenge is checked, where issued nonces live until answered, and the names they travel under.
 */
import { bytesToBase64url } from '../wallet/crypto/base64url.ts';
import { randomBytes } from '../wallet/crypto/bytes.ts';
import { LruCache } from '../wallet/crypto/lru.ts';
import { invalidVerifierOptions } from '../wallet/vc/verify.ts';

/** Where the verifier hands out nonces, relative to its origin. */
export const DEFAULT_CHALLENGE_PATH = '/.well-known/mandate/challenge';
/** The request header carrying the challenge in `challenge: 'request'` mode. */
export const CHALLENGE_HEADER = 'X-Mandate-Challenge';
/** How long a nonce from the challenge endpoint may be answered (default 5 minutes). */
export const DEFAULT_CHALLENGE_TTL_MS = 5 * 60_000;
/** Longest challenge looked up in a store or taken from a header. */
export const MAX_CHALLENGE_LENGTH = 512;

/**
 * How the presentation's challenge is checked:
 * - `'endpoint'` (default): it must be a nonce this verifier issued (`issueChallenge` / the
 *   challenge endpoint), not expired, and is consumed by the first request that carries it.
 * - `'request'`: it must equal the request's `X-Mandate-Challenge` header; only the replay cache
 *   makes it single-use, so a `replayCache` must be given.
 * - `'none'`: any challenge; the replay cache (required) remembers each vpId and challenge.
 */
export type ChallengeMode = 'endpoint' | 'request' | 'none';

export interface IssuedChallenge {
  /** 128 random bits, base64url. */
  challenge: string;
  /** ms since the epoch. */
  expiresAt: number;
}

/**
 * Where issued nonces live until answered or expired. The in-memory default suits one process;
 * a fleet behind a load balancer shares one (e.g. backed by Redis `SET … NX PX` + `GETDEL`).
 */
export interface ChallengeStore {
  issue(): IssuedChallenge | Promise<IssuedChallenge>;
  /** True exactly once for a live issued challenge; false when unknown, used or expired. */
  consume(challenge: string): boolean | Promise<boolean>;
}

export interface ChallengeStoreOptions {
  /** Lifetime of a nonce (default 5 minutes). */
  ttlMs?: number;
  /** Most outstanding nonces (default 10,000); the oldest are forgotten first, so rate-limit the endpoint. */
  max?: number;
  now?: () => number;
}

/** An in-memory, bounded store of single-use nonces on the wallet's LruCache. */
export function createChallengeStore(options: ChallengeStoreOptions = {}): ChallengeStore {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? DEFAULT_CHALLENGE_TTL_MS;
  const max = options.max ?? 10_000;
  if (!Number.isInteger(ttlMs) || ttlMs < 1 || !Number.isInteger(max) || max < 1)
    invalidVerifierOptions('challenge ttlMs and max must be positive integers');
  const issued = new LruCache<string, true>({ max, now });
  return Object.freeze({
    issue() {
      const challenge = bytesToBase64url(randomBytes(16));
      issued.set(challenge, true, ttlMs);
      return { challenge, expiresAt: now() + ttlMs };
    },
    consume(challenge: string) {
      // get() drops expired entries; delete() makes the answer single-use.
      if (issued.get(challenge) !== true) return false;
      issued.delete(challenge);
      return true;
    },
  });
}
