/**
 * Fixed-window rate limits: per client IP on every request, and per credential — the
 * Authorization header here, the enrollment token in the onboarding service. Held in memory
 * (SERVICE_CACHE_ADAPTER=memory, this file) or, for the middleware's limits, in Redis and so
 * shared by every instance (SERVICE_CACHE_ADAPTER=redis, redis-rate-limit.ts; in memory again,
 * at this instance's share, while Redis is unreachable). Over the
 * limit: 429 RATE_LIMITED with `Retry-After` (RFC 9110 §10.2.3, seconds until the window
 * resets). In memory, windows live in a bounded LRU, so a flood of distinct keys cannot
 * exhaust memory (the oldest windows are forgotten first).
 *
 * The client IP is the socket's address; X-Forwarded-For is not trusted (a proxy in front
 * should enforce its own limits, or the deployment sets a trusted-proxy layer before this).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { bytesToHex } from '../../wallet/crypto/bytes.ts';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';
import { LruCache } from '../../wallet/crypto/lru.ts';
import { ipv6Groups } from '../../wallet/net/url-policy.ts';
import { bearerToken } from './admin-auth.ts';
import type { IssuerEnv } from './env.ts';
import { apiError } from './errors.ts';

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

/** Throws 429 RATE_LIMITED (with Retry-After) when `decision` refuses. */
export function enforce(decision: RateLimitDecision, what: string): void {
  if (decision.allowed) return;
  throw apiError('RATE_LIMITED', `too many requests ${what}; retry after ${decision.retryAfterSeconds} s`, {
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    audit: decision.firstRefusal,
  });
}

/** Counts one request on `limiter` and throws 429 RATE_LIMITED when it is over the limit. */
export async function enforceLimit(limiter: RateLimiter, key: string, what: string): Promise<void> {
  enforce(await limiter.hit(key), what);
}

/** The socket address of the client ('unknown' when not served by @hono/node-server, e.g. app.request in tests). */
export function clientIp(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
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

/**
 * What the per-address limit counts by: an IPv4 address (also when IPv4-mapped), or an IPv6
 * address's /64, the block one subscriber usually holds whole (RFC 6177): counted per address,
 * a client could rotate through 2^64 of them.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!address.includes(':')) return address;
  let groups: number[] | undefined;
  try {
    groups = ipv6Groups(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  } catch {
    groups = undefined; // a zone id or anything unusual: the address as it is
  }
  return groups
    ? `${groups
        .slice(0, 4)
        .map((g) => g.toString(16))
        .join(':')}::/64`
    : address;
}

/** Per-address limit on every request (IPv6 by /64), and per-Authorization-header limit when one is sent. */
export function rateLimit(limits: RateLimits): MiddlewareHandler<IssuerEnv> {
  return async (c, next) => {
    await enforceLimit(limits.perIp, `ip:${addressKey(clientIp(c))}`, 'from this address');
    const authorization = c.req.header('authorization');
    // Counted by the token as authentication reads it: `bearer K` and `Bearer   K` are one
    // credential, not a fresh budget each.
    if (authorization !== undefined)
      await enforceLimit(
        limits.perAuthorization,
        credentialKey('auth', bearerToken(authorization) ?? authorization),
        'with this credential',
      );
    return next();
  };
}
