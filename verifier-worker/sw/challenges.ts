/**
 * The worker's nonce store for verifyRequest's 'endpoint' challenge mode: single-use nonces
 * that expire, kept across the worker's stops (expiring-set.ts). Chromium stops an idle
 * service worker about 30 s after its last event; an agent that fetched a nonce just before
 * must still be able to answer it when its request wakes a fresh worker.
 */
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { randomBytes } from '../../wallet/crypto/bytes.ts';
import type { ChallengeStore, IssuedChallenge } from '../request.ts';
import { createExpiringSet, type ExpiringSetOptions } from './expiring-set.ts';

export interface WorkerChallengeStoreOptions extends Omit<ExpiringSetOptions, 'max'> {
  /** Lifetime of a nonce (default 5 minutes). */
  ttlMs?: number;
  /** Most outstanding nonces (default 10,000): the oldest are forgotten first. */
  max?: number;
}

export interface WorkerChallengeStore extends ChallengeStore {
  issue(): IssuedChallenge;
  consume(challenge: string): boolean;
  /** Reads the outstanding nonces into memory; call (and await) before the first request. */
  load(): Promise<void>;
}

export function createWorkerChallengeStore(options: WorkerChallengeStoreOptions): WorkerChallengeStore {
  const clock = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const outstanding = createExpiringSet({ ...options, max: options.max ?? 10_000 });
  return {
    load: () => outstanding.load(),
    issue() {
      // 128 random bits, base64url, as verifyRequest's own store.
      const challenge = bytesToBase64url(randomBytes(16));
      const expiresAt = clock() + ttlMs;
      outstanding.add(challenge, expiresAt);
      return { challenge, expiresAt };
    },
    consume: (challenge) => outstanding.take(challenge),
  };
}
