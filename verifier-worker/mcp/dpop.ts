/**
 * DPoP proofs at the resource server (RFC 9449 §7.1): a token bound to a key (`cnf.jkt`) is
 * usable only with a fresh proof of that key for this very request. The proof is checked by the
 * crypto layer's verifier (wallet/crypto/dpop.ts), the one the issuer's token endpoint uses, so
 * every key type the issuer binds tokens to (DPOP_ALGS) is accepted here. The proof's `jti` goes
 * through a replay cache (wallet/vc/replay-cache.ts, the same abstraction the presentation
 * verifier uses, so one Redis adapter can serve both: docs/mcp.md §Replay store).
 */
import { DpopError, verifyDpopProof as verifyProof } from '../../wallet/crypto/dpop.ts';
import { isMandateError } from '../../wallet/crypto/errors.ts';
import type { ReplayCache } from '../../wallet/vc/replay-cache.ts';
import { McpAuthError } from './errors.ts';

export interface DpopChecks {
  /** The request's method and URL (`htm`, `htu`). */
  method: string;
  url: string;
  /** The access token the proof accompanies (`ath`). */
  accessToken: string;
  /** `cnf.jkt` of the token. */
  jkt: string;
  replayCache: ReplayCache;
  /** How old a proof may be (its `iat`), seconds. */
  maxAgeSec: number;
  clockSkewSec: number;
  now: () => number;
}

/**
 * Checks the `DPoP` header value `header` (several headers combined with ",") for this request
 * and token. Throws McpAuthError: DPOP_PROOF_INVALID, DPOP_BINDING_MISMATCH or DPOP_PROOF_REPLAYED.
 */
export async function verifyDpopProof(header: string, checks: DpopChecks): Promise<void> {
  try {
    await verifyProof({
      header,
      method: checks.method.toUpperCase(),
      url: checks.url,
      accessToken: checks.accessToken,
      jkt: checks.jkt,
      maxAgeSec: checks.maxAgeSec + checks.clockSkewSec,
      clockSkewSec: checks.clockSkewSec,
      now: checks.now(),
      firstUse: (key, until) => firstUse(checks.replayCache, `dpop:${key}`, until),
    });
  } catch (error) {
    if (!(error instanceof DpopError)) throw error;
    // No server nonces here (acceptsNonce is not set), so DPOP_NONCE_REQUIRED cannot occur.
    throw new McpAuthError(error.code === 'DPOP_NONCE_REQUIRED' ? 'DPOP_PROOF_INVALID' : error.code, error.message, {
      cause: error,
    });
  }
}

/**
 * The cache's answer; a cache that fails (a shared store that is down: redis-replay-cache.ts)
 * refuses the proof as a replay — fail closed, and a refusal rather than a 500.
 */
async function firstUse(cache: ReplayCache, key: string, until: number): Promise<boolean> {
  try {
    return await cache.remember(key, until);
  } catch (error) {
    // Only our own errors' text goes to the client: a driver's could name internal hosts.
    const why = isMandateError(error) ? error.message : 'the replay cache failed';
    throw new DpopError('DPOP_PROOF_REPLAYED', `this DPoP proof could not be recorded as used: ${why}`, {
      cause: error,
    });
  }
}
