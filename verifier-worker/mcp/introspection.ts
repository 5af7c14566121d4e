/**
 * Token introspection (RFC 7662) at the MCP resource server: the revocation bound a resource
 * server chooses. A verified token is honoured offline until it expires (`exp` + clockSkewSec:
 * up to 300 + 60 s with Mandate's defaults), even when a credential of its chain was revoked
 * meanwhile. With `introspection` set, mcpAuth also asks the issuer whether the token is still
 * active (§2.1: POST `token=…`, authenticated with a resource-server key, a
 * SERVICE_INTROSPECTION_KEYS entry) and keeps the answer at most `cacheTtlSec` (≤ 30 s): a
 * revocation then reaches this server within `cacheTtlSec` (docs/mcp.md §Revocation bound).
 *
 * Only a definite answer is kept: `active: false` refuses (TOKEN_INACTIVE), and an issuer that
 * cannot answer (network, status, not RFC 7662 JSON) refuses with 503 INTROSPECTION_UNAVAILABLE:
 * fail closed, never a token honoured because its issuer was unreachable. Concurrent requests
 * with one token share one introspection.
 */
import { LruCache } from '../../wallet/crypto/lru.ts';
import { parseJson } from '../../wallet/crypto/json-parse.ts';
import { globalFetch, readBounded, untilAborted, type FetchLike } from '../../wallet/net/http.ts';
import { McpAuthError } from './errors.ts';

export interface McpIntrospectionOptions {
  /** The issuer's introspection endpoint (default `${authorizationServer}/v1/sessions/introspect`). */
  endpoint?: string;
  /** The resource server's credential at that endpoint: a SERVICE_INTROSPECTION_KEYS key (sent as Bearer). */
  key: string;
  /** How long an answer is used, seconds: the revocation bound (default 10, at most 30). */
  cacheTtlSec?: number;
}

/** The largest `cacheTtlSec`: beyond it a resource server should rely on the token lifetime. */
export const MAX_INTROSPECTION_TTL_SEC = 30;
export const DEFAULT_INTROSPECTION_TTL_SEC = 10;

export interface Introspector {
  /** Resolves when the token (verified, with this `jti` and `exp`) is active; throws TOKEN_INACTIVE or INTROSPECTION_UNAVAILABLE. */
  assertActive(token: string, jti: string, expiresAt: number): Promise<void>;
}

const LIMITS = { timeoutMs: 5000, maxBytes: 64 * 1024 };

function unavailable(message: string): never {
  throw new McpAuthError('INTROSPECTION_UNAVAILABLE', `token introspection failed: ${message}`);
}

/** The RFC 7662 §2.2 answer's `active`, for this token (`jti`, when the answer names one, must match). */
async function askIssuer(
  fetch: FetchLike,
  endpoint: string,
  key: string,
  token: string,
  jti: string,
): Promise<boolean> {
  const timeout = AbortSignal.timeout(LIMITS.timeoutMs);
  let bytes: Uint8Array | undefined;
  try {
    const response = await untilAborted(
      fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token }).toString(),
        redirect: 'manual',
        credentials: 'omit',
        signal: timeout,
      }),
      timeout,
    );
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      unavailable(`HTTP ${response.status} from the introspection endpoint`);
    }
    bytes = await untilAborted(readBounded(response.body, LIMITS.maxBytes), timeout);
  } catch (error) {
    if (error instanceof McpAuthError) throw error;
    unavailable('the introspection endpoint could not be reached');
  }
  if (bytes === undefined) unavailable('the answer is too large');
  let answer: unknown;
  try {
    answer = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(bytes), { maxBytes: LIMITS.maxBytes });
  } catch {
    unavailable('the answer is not JSON');
  }
  if (typeof answer !== 'object' || answer === null || typeof (answer as { active?: unknown }).active !== 'boolean')
    unavailable('the answer has no boolean "active" (RFC 7662 §2.2)');
  const { active, jti: answered } = answer as { active: boolean; jti?: unknown };
  return active && (answered === undefined || answered === jti);
}

export function createIntrospector(
  options: Required<McpIntrospectionOptions>,
  fetch: FetchLike | undefined,
  now: () => number,
): Introspector {
  const ttlMs = options.cacheTtlSec * 1000;
  // jti → the answer (or the introspection in flight). Keyed by jti: the token's signature was
  // verified first, so its jti is the issuer's.
  const answers = new LruCache<string, Promise<boolean>>({ max: 10_000, ttlMs, now });
  return {
    async assertActive(token, jti, expiresAt) {
      let answer = answers.get(jti);
      if (answer === undefined) {
        answer = askIssuer(fetch ?? globalFetch, options.endpoint, options.key, token, jti);
        const asked = answer;
        // An issuer that failed is asked again by the next request.
        asked.catch(() => answers.get(jti) === asked && answers.delete(jti));
        // Never kept past the token's own expiry (the token is refused then anyway).
        answers.set(jti, answer, Math.max(1, Math.min(ttlMs, expiresAt * 1000 - now())));
      }
      if (!(await answer))
        throw new McpAuthError('TOKEN_INACTIVE', 'the issuer says the token is no longer active (RFC 7662 §2.2)');
    },
  };
}
