/**
 * The agent's DPoP key in use (RFC 9449): a proof per request, with the nonce each server last
 * gave (`DPoP-Nonce`, §8 at an authorization server, §9 at a resource server), remembered per
 * origin, since any answer of that server may carry a new one (§8.2). Proofs are made by the
 * crypto layer (wallet/crypto/dpop.ts); this only chooses their claims.
 */
import { createDpopProof } from '../crypto/dpop.ts';
import type { JwsSigningKey } from '../crypto/jws-key.ts';

export const DPOP_NONCE_HEADER = 'DPoP-Nonce';

export interface DpopSession {
  readonly key: JwsSigningKey;
  /** A proof for `method url`, with the origin's nonce, bound to `accessToken` when given (`ath`). */
  proof(method: string, url: string, accessToken?: string): Promise<string>;
  /** Records the nonce `response` carries for `url`'s origin; true when it is a new one. */
  remember(url: string, response: Response): boolean;
}

export function createDpopSession(key: JwsSigningKey, now: () => number): DpopSession {
  const nonces = new Map<string, string>();
  return {
    key,
    proof(method, url, accessToken) {
      const nonce = nonces.get(new URL(url).origin);
      return createDpopProof(key, {
        method,
        url,
        now: now(),
        ...(nonce === undefined ? {} : { nonce }),
        ...(accessToken === undefined ? {} : { accessToken }),
      });
    },
    remember(url, response) {
      const nonce = response.headers.get(DPOP_NONCE_HEADER);
      // RFC 9449 §8.1: a nonce is a non-empty run of NQCHAR; anything else is not kept.
      if (nonce === null || !/^[\x21\x23-\x5b\x5d-\x7e]{1,512}$/.test(nonce)) return false;
      const origin = new URL(url).origin;
      if (nonces.get(origin) === nonce) return false;
      nonces.set(origin, nonce);
      return true;
    },
  };
}
