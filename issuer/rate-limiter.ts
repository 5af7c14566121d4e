/**
 * Fixed-window rate limiters, without HTTP: the middleware (http/rate-limit.ts) counts per
 * client address and per Authorization header, the onboarding service per enrollment token.
 * Held in memory (this file; SERVICE_CACHE_ADAPTER=memory) or in Redis and so shared by every
 * instance (http/redis-rate-limit.ts, chosen in http/rate-limits.ts). Over the limit:
 * RATE_LIMITED with the seconds until the window resets (the edge answers 429 with
 * `Retry-After`, RFC 9110 §10.2.3). In memory, windows live in a bounded LRU, so a flood of
 * distinct keys cannot exhaust memory (the oldest windows are forgotten first).
 */
import { bytesToHex } from '../wallet/crypto/bytes.ts';
import { sha256Utf8 } from '../wallet/crypto/hash.ts';
import { LruCache } from '../wallet/crypto/lru.ts';
import { refuse } from './refusal.ts';

export interface RateLimitDecision {
  allowed: boolean;
  /** Whole seconds until the window resets (≥ 1 when refused). */
  retryAfterSeconds: number;
  /** True for the first refusal of this key in this window (only that one is audited). */
  firstRefusal: boolean;
}

export interface RateLimiter {
  /**
   * Counts one request for `key` and says whether it is within the limit. A shared limiter
   * answers with a promise (and counts in memory while Redis cannot: redis-rate-limit.ts).
   */
  hit(key: string): RateLimitDecision | Promise<RateLimitDecision>;
}

/** The in-memory limiter: it always answers at once. */
export interface MemoryRateLimiter extends RateLimiter {
  hit(key: string): RateLimitDecision;
}

export interface RateLimiterOptions {
  limit: number;
  windowMs: number;
  /** Most keys tracked (default 100,000). */
  maxKeys?: number;
  now?: () => number;
}

interface Window {
  start: number;
  count: number;
}

export function createRateLimiter(options: RateLimiterOptions): MemoryRateLimiter {
  const now = options.now ?? Date.now;
  const windows = new LruCache<string, Window>({ max: options.maxKeys ?? 100_000, ttlMs: options.windowMs, now });
  return {
    hit(key) {
      const t = now();
      let window = windows.get(key);
      if (!window || t - window.start >= options.windowMs) {
        window = { start: t, count: 0 };
        windows.set(key, window);
      }
      window.count++;
      const allowed = window.count <= options.limit;
      const retryAfterSeconds = Math.max(1, Math.ceil((window.start + options.windowMs - t) / 1000));
      return { allowed, retryAfterSeconds, firstRefusal: window.count === options.limit + 1 };
    },
  };
}

/** Throws RATE_LIMITED (with the seconds to wait: the edge's 429 and Retry-After) when `decision` refuses. */
export function enforce(decision: RateLimitDecision, what: string): void {
  if (decision.allowed) return;
  throw refuse('RATE_LIMITED', `too many requests ${what}; retry after ${decision.retryAfterSeconds} s`, {
    retryAfterSeconds: decision.retryAfterSeconds,
    audit: decision.firstRefusal,
  });
}

/** Counts one request on `limiter` and throws RATE_LIMITED when it is over the limit. */
export async function enforceLimit(limiter: RateLimiter, key: string, what: string): Promise<void> {
  enforce(await limiter.hit(key), what);
}

/** A short, non-reversible key for a credential (never keep the credential itself in memory maps). */
export function credentialKey(prefix: string, secret: string): string {
  return `${prefix}:${bytesToHex(sha256Utf8(secret)).slice(0, 32)}`;
}

export interface RateLimits {
  /** Per client address, on every request (shared through Redis with SERVICE_CACHE_ADAPTER=redis). */
  perIp: RateLimiter;
  /** Per Authorization header, on every request that sends one (shared likewise). */
  perAuthorization: RateLimiter;
  /** Per enrollment token, in the onboarding service (shared likewise). */
  perToken: RateLimiter;
}
