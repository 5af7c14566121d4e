/**
 * DPoP proofs at the token endpoint (RFC 9449 §4.3): the client proves possession of a key, and
 * the access token is bound to that key's RFC 7638 thumbprint (`cnf.jkt`, §6.1). The proof is
 * checked by the crypto layer's verifier (wallet/crypto/dpop.ts, shared with the MCP resource
 * server) with `htm` = POST, `htu` = the token endpoint URL, no `ath`, and:
 * - `nonce` = a current server nonce, when the operator requires nonces (SERVICE_OAUTH_DPOP_NONCE);
 * - `iat` within 60 s of now (5 minutes in the past at most with a nonce);
 * - `jti` not seen before: remembered in the replay store, keyed by the key's thumbprint, until
 *   the proof could no longer pass the `iat` check.
 *
 * Server nonces (§8): a random value that changes every NONCE_PERIOD_MS; the current and the
 * previous one are accepted. They live in this process only, so an issuer running several
 * processes needs sticky sessions for nonce-requiring clients (a refused nonce only costs a retry).
 */
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { randomBytes } from '../../../wallet/crypto/bytes.ts';
import { DpopError, verifyDpopProof } from '../../../wallet/crypto/dpop.ts';
import type { IssuerDeps } from '../../deps.ts';
import { oauthReasonOf, refuse } from './errors.ts';

const IAT_WINDOW_SECONDS = 60;
const NONCE_PERIOD_MS = 5 * 60_000;

export interface DpopBinding {
  /** RFC 7638 thumbprint of the proof key: the token's `cnf.jkt`. */
  jkt: string;
}

export interface DpopNonces {
  /** The nonce a client should use now (sent as `DPoP-Nonce`). */
  current(): string;
  accepts(nonce: unknown): boolean;
}

export function createDpopNonces(now: () => number): DpopNonces {
  let period = -1;
  let values: [string, string] = ['', ''];
  const roll = (): [string, string] => {
    const p = Math.floor(now() / NONCE_PERIOD_MS);
    if (p !== period) {
      values = [bytesToBase64url(randomBytes(18)), p === period + 1 ? values[0] : ''];
      period = p;
    }
    return values;
  };
  return {
    current: () => roll()[0],
    accepts: (nonce) => typeof nonce === 'string' && nonce.length > 0 && roll().includes(nonce),
  };
}

export interface DpopCheck {
  /** The `DPoP` header values of the request (several = refused). */
  headers: string[];
  /** The token endpoint URL the proof must name. */
  htu: string;
  nonces: DpopNonces | undefined;
}

/** The proof's binding, or undefined when the request carries no proof; refuses per the module comment. */
export async function checkDpopProof(
  deps: Pick<IssuerDeps, 'stores' | 'now'>,
  check: DpopCheck,
): Promise<DpopBinding | undefined> {
  if (check.headers.length === 0) return undefined;
  const { nonces } = check;
  try {
    const { jkt } = await verifyDpopProof({
      header: check.headers.join(', '),
      method: 'POST',
      url: check.htu,
      ...(nonces === undefined ? {} : { acceptsNonce: (nonce: unknown) => nonces.accepts(nonce) }),
      maxAgeSec: nonces === undefined ? IAT_WINDOW_SECONDS : NONCE_PERIOD_MS / 1000,
      clockSkewSec: IAT_WINDOW_SECONDS,
      now: deps.now(),
      firstUse: (key, until) => deps.stores.replay.remember(`oauth:dpop:${key}`, until, deps.now()),
    });
    return { jkt };
  } catch (error) {
    if (!(error instanceof DpopError)) throw error;
    return refuse(
      error.code === 'DPOP_NONCE_REQUIRED' ? 'use_dpop_nonce' : 'invalid_dpop_proof',
      // No `jkt` is passed at the token endpoint, so DPOP_BINDING_MISMATCH cannot occur here.
      oauthReasonOf(error.code, 'DPOP_PROOF_INVALID'),
      error.message,
    );
  }
}
