/**
 * The rate-limit middleware: per client IP on every request, and per Authorization header when
 * one is sent (the limiters themselves, and the enrollment token's, are in ../rate-limiter.ts:
 * in memory, or in Redis and so shared by every instance — redis-rate-limit.ts — and in memory
 * again, at this instance's share, while Redis is unreachable). Over the limit: 429
 * RATE_LIMITED with `Retry-After` (RFC 9110 §10.2.3, seconds until the window resets).
 *
 * The client IP is the socket's address; X-Forwarded-For is not trusted (a proxy in front
 * should enforce its own limits, or the deployment sets a trusted-proxy layer before this).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { ipv6Groups } from '../../wallet/net/url-policy.ts';
import { bearerToken } from './admin-auth.ts';
import { credentialKey, enforceLimit, type RateLimits } from '../rate-limiter.ts';
import type { IssuerEnv } from './env.ts';

/** The socket address of the client ('unknown' when not served by @hono/node-server, e.g. app.request in tests). */
export function clientIp(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
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
