/**
 * The authorization server's signing keys (RFC 7517 §5 key set at its `jwks_uri`), fetched once
 * and kept: a resource server checks a token on every request and must not fetch per request.
 *
 * - A set is used for `maxAgeMs` (default 10 minutes), then fetched again on the next request.
 * - Rotation: a token whose `kid` the set lacks triggers ONE refetch, at most once per
 *   `cooldownMs` (default 30 s), so a flood of tokens with made-up `kid`s cannot turn this server
 *   into a load generator against the issuer (jose's createRemoteJWKSet `cooldownDuration`, same idea).
 * - Concurrent requests share one fetch. A failed refetch keeps the last good set (an issuer
 *   outage does not stop valid tokens); with no set at all, JWKS_UNAVAILABLE.
 * - Only Ed25519 public keys are kept (wallet/crypto/jwt.ts parseEd25519PublicJwk); others are
 *   ignored (RFC 7517 §5).
 */
import { base64urlToBytes } from '../../wallet/crypto/base64url.ts';
import { parseEd25519PublicJwk } from '../../wallet/crypto/jwt.ts';
import type { JsonValue } from '../../wallet/crypto/json-value.ts';
import { fetchJson, type FetchLike } from '../../wallet/net/http.ts';
import { McpAuthError } from './errors.ts';

export interface JwksCacheOptions {
  jwksUri: string;
  fetch?: FetchLike;
  now: () => number;
  /** How long a fetched set is used before it is fetched again (default 10 minutes). */
  maxAgeMs?: number;
  /** Least time between two fetches for an unknown `kid` (default 30 s). */
  cooldownMs?: number;
}

export interface JwksCache {
  /** The public key for `kid`, or undefined when the set (even refetched) has none. Rejects with JWKS_UNAVAILABLE. */
  keyFor(kid: string | undefined): Promise<Uint8Array | undefined>;
  /** How many times the set was fetched (for tests and metrics). */
  readonly fetches: number;
}

export const DEFAULT_JWKS_MAX_AGE_MS = 10 * 60_000;
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;
const LIMITS = { timeoutMs: 5000, maxBytes: 64 * 1024 };
const MEDIA_TYPES = new Set(['application/json', 'application/jwk-set+json']);

type KeySet = Map<string | undefined, Uint8Array>;

function keySetOf(json: JsonValue): KeySet | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json) || !Array.isArray(json.keys)) return undefined;
  const keys: KeySet = new Map();
  for (const candidate of json.keys.slice(0, 64)) {
    try {
      const jwk = parseEd25519PublicJwk(candidate);
      const bytes = base64urlToBytes(jwk.x);
      if (bytes !== undefined) keys.set(jwk.kid, bytes);
    } catch {
      // RFC 7517 §5: keys a consumer does not understand are ignored.
    }
  }
  return keys;
}

/** The one key for `kid`; without a `kid`, the set's only key. */
function pick(keys: KeySet, kid: string | undefined): Uint8Array | undefined {
  if (kid !== undefined) return keys.get(kid);
  return keys.size === 1 ? keys.values().next().value : undefined;
}

export function createJwksCache(options: JwksCacheOptions): JwksCache {
  const maxAge = options.maxAgeMs ?? DEFAULT_JWKS_MAX_AGE_MS;
  const cooldown = options.cooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS;
  let keys: KeySet | undefined;
  let fetchedAt = -Infinity;
  let pending: Promise<void> | undefined;
  let fetches = 0;

  const load = async (): Promise<void> => {
    fetches++;
    fetchedAt = options.now(); // a failed attempt counts for the cooldown too
    const result = await fetchJson(options.jwksUri, {
      limits: LIMITS,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      accept: 'application/jwk-set+json, application/json',
      mediaTypes: MEDIA_TYPES,
    });
    const set = result.ok ? keySetOf(result.json) : undefined;
    if (set !== undefined) keys = set;
    else if (keys === undefined) {
      throw new McpAuthError('JWKS_UNAVAILABLE', `the authorization server's JWKS could not be read`);
    }
  };
  const refresh = (): Promise<void> => {
    pending ??= load().finally(() => {
      pending = undefined;
    });
    return pending;
  };

  return {
    async keyFor(kid) {
      if (keys === undefined && fetches > 0 && pending === undefined && options.now() - fetchedAt < cooldown)
        throw new McpAuthError('JWKS_UNAVAILABLE', `the authorization server's JWKS could not be read recently`);
      if (keys === undefined || options.now() - fetchedAt >= maxAge) await refresh();
      const key = pick(keys as KeySet, kid);
      if (key !== undefined || options.now() - fetchedAt < cooldown) return key;
      await refresh(); // rotation: the issuer may have published a new key since
      return pick(keys as KeySet, kid);
    },
    get fetches() {
      return fetches;
    },
  };
}
