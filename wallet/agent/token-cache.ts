/**
 * The agent's access tokens, kept per (authorization server, resource, scope) until shortly before
 * they expire (RFC 6749 §5.1 `expires_in`): a request to a resource the agent has a live token
 * for costs no token request. Concurrent requests that need the same missing token share one
 * token request. Held in memory only: a token is a bearer secret for its lifetime (or, bound by
 * DPoP, useless without the key), and never written anywhere.
 */

/** A token the agent holds for one resource. */
export interface AgentToken {
  readonly accessToken: string;
  /** `DPoP` when bound to the agent's DPoP key (RFC 9449 §5), else `Bearer`. */
  readonly tokenType: 'Bearer' | 'DPoP';
  /** The granted scopes (RFC 6749 §5.1 `scope`; the asked ones when the server omits it). */
  readonly scopes: readonly string[];
  /** ms since the epoch. */
  readonly expiresAt: number;
  /** The authorization server's `issuer`, and the RFC 8707 resource the token is for. */
  readonly issuer: string;
  readonly resource: string;
}

export interface TokenCache {
  /** A live token for the key, or undefined. */
  get(key: string): AgentToken | undefined;
  /** The live token for `key`, or the one `obtain` resolves with (shared by concurrent callers). */
  getOrObtain(key: string, obtain: () => Promise<AgentToken>): Promise<AgentToken>;
  /** Forgets the token of `key` when it is still `token` (a refused token is not used again). */
  drop(key: string, token: AgentToken): void;
  clear(): void;
  /** How many tokens are held (live or not yet swept). */
  readonly size: number;
}

/** The cache key of a token: issuer, resource and the scopes in one order. */
export function tokenKey(issuer: string, resource: string, scopes: readonly string[] | undefined): string {
  return JSON.stringify([issuer, resource, scopes === undefined ? null : [...new Set(scopes)].sort()]);
}

/**
 * Renewed this long before `expiresAt`, so a token does not expire in flight: 30 s, or a third
 * of a short lifetime.
 */
function margin(token: AgentToken, issuedAt: number): number {
  return Math.min(30_000, (token.expiresAt - issuedAt) / 3);
}

export function createTokenCache(now: () => number = Date.now): TokenCache {
  const tokens = new Map<string, { token: AgentToken; renewAt: number }>();
  const pending = new Map<string, Promise<AgentToken>>();
  const get = (key: string): AgentToken | undefined => {
    const entry = tokens.get(key);
    if (entry === undefined) return undefined;
    if (now() < entry.renewAt) return entry.token;
    tokens.delete(key);
    return undefined;
  };
  return {
    get,
    getOrObtain(key, obtain) {
      const live = get(key);
      if (live !== undefined) return Promise.resolve(live);
      let running = pending.get(key);
      if (running === undefined) {
        const issuedAt = now();
        running = obtain()
          .then((token) => {
            tokens.set(key, { token, renewAt: token.expiresAt - margin(token, issuedAt) });
            return token;
          })
          .finally(() => pending.delete(key));
        pending.set(key, running);
      }
      return running;
    },
    drop(key, token) {
      if (tokens.get(key)?.token === token) tokens.delete(key);
    },
    clear() {
      tokens.clear();
    },
    get size() {
      return tokens.size;
    },
  };
}
