/**
 * DPoP proof validation at the resource server (RFC 9449 §4.3 and §7.1): a token bound to a key
 * (`cnf.jkt`) is usable only with a fresh proof of that key for this very request. Each numbered
 * check of §4.3 is one line below; the proof's `jti` goes through a replay cache
 * (wallet/vc/replay-cache.ts, the same abstraction the presentation verifier uses, so one Redis
 * adapter can serve both: docs/mcp.md §Replay store).
 */
import { base64urlToBytes, bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { isMandateError } from '../../wallet/crypto/errors.ts';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';
import type { JsonValue } from '../../wallet/crypto/json-value.ts';
import { jwkThumbprint, parseEd25519PublicJwk } from '../../wallet/crypto/jwt.ts';
import type { ReplayCache } from '../../wallet/vc/replay-cache.ts';
import { McpAuthError } from './errors.ts';
import { isEdDsaAlg, parseCompactJws, verifyJws } from './jws.ts';

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

const MAX_PROOF_LENGTH = 4096;

function invalid(message: string): never {
  throw new McpAuthError('DPOP_PROOF_INVALID', `${message} (RFC 9449 §4.3)`);
}

/** `htu` as §4.3 step 9 compares it: the URI without query and fragment, syntax-normalized (RFC 3986 §6.2.2). */
function targetUri(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

/** Steps 8, 9, 11, 12: htm, htu, iat, ath. */
function checkClaims(claims: Record<string, JsonValue>, checks: DpopChecks): { jti: string; iat: number } {
  const { jti, htm, htu, iat, ath } = claims;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) invalid('the proof needs a "jti"');
  if (htm !== checks.method.toUpperCase()) invalid('the proof\'s "htm" is not this request\'s method');
  if (typeof htu !== 'string' || targetUri(htu) === undefined || targetUri(htu) !== targetUri(checks.url))
    invalid('the proof\'s "htu" is not this request\'s URI');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) invalid('the proof needs a numeric "iat"');
  const now = checks.now() / 1000;
  if (iat > now + checks.clockSkewSec || iat < now - checks.maxAgeSec - checks.clockSkewSec)
    invalid(`the proof's "iat" is outside the accepted window (${checks.maxAgeSec} s)`);
  if (ath !== bytesToBase64url(sha256Utf8(checks.accessToken)))
    invalid('the proof\'s "ath" is not the hash of the access token');
  return { jti, iat };
}

/**
 * Checks the `DPoP` header value `proof` for this request and token (RFC 9449 §4.3, §7.1).
 * Throws McpAuthError: DPOP_PROOF_INVALID, DPOP_BINDING_MISMATCH or DPOP_REPLAYED.
 */
export async function verifyDpopProof(proof: string, checks: DpopChecks): Promise<void> {
  const jws = parseCompactJws(proof, MAX_PROOF_LENGTH); // step 2
  if (jws === undefined) invalid('the DPoP header is not a compact JWS');
  const { typ, alg, jwk } = jws.header;
  if (typ !== 'dpop+jwt') invalid('the proof\'s "typ" must be "dpop+jwt"'); // step 4
  if (!isEdDsaAlg(alg)) invalid('the proof\'s "alg" must be EdDSA'); // step 5
  let key;
  try {
    key = parseEd25519PublicJwk(jwk); // step 7: a public Ed25519 key, no "d"
  } catch {
    invalid('the proof\'s "jwk" must be a public Ed25519 key');
  }
  const publicKey = base64urlToBytes(key.x) as Uint8Array;
  if (!(await verifyJws(jws, publicKey))) invalid('the proof signature does not verify'); // step 6
  const { jti, iat } = checkClaims(jws.claims, checks);
  if ((await jwkThumbprint(key)) !== checks.jkt)
    throw new McpAuthError(
      'DPOP_BINDING_MISMATCH',
      'the proof key is not the key the token is bound to (RFC 9449 §6.1)',
    );
  // §11.1: one use per proof. Kept until it can no longer pass the iat window; keyed by the
  // bound key too, so one client cannot spend another's jti values.
  const until = (iat + checks.maxAgeSec + 2 * checks.clockSkewSec) * 1000;
  if ((await firstUse(checks.replayCache, `dpop:${checks.jkt}:${jti}`, until)) !== true)
    throw new McpAuthError('DPOP_REPLAYED', 'this DPoP proof was used before (RFC 9449 §11.1)');
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
    throw new McpAuthError('DPOP_REPLAYED', `this DPoP proof could not be recorded as used: ${why}`, { cause: error });
  }
}
