// The requests of the latency bench, prepared in Node with the compiled wallet before each timed
// batch (so no signing is timed): every one a POST of the same JSON body to a path of the
// stand-in API, differing only in what proves the agent's authority:
// - `plain`: the Authorization header of a real presentation, unverified (no worker, or a path
//   the worker does not guard): the same bytes on the wire as `presentation`;
// - `presentation`: a fresh presentation over the bench chain answering one of the worker's
//   nonces (docs/verifier.md §Wire format), one per request;
// - `signed`: an RFC 9421 signed request naming the chain by digest (docs/protocol.md §Signed
//   requests), after one naming it in full so the worker holds the chain.
import type * as Wallet from '../../wallet/index.ts';
import { benchChain, BODY, TARGET } from './cases.ts';
import type { PreparedFetch } from './fetch-times.ts';

/** The route the worker guards, and one it does not. */
export const GUARDED = '/api/files/';
export const UNGUARDED = '/public/files/';
export const CHALLENGE_PATH = '/.well-known/mandate/challenge';

const JSON_TYPE = { 'content-type': 'application/json' };

/** The production worker's configuration for the bench chain (docs/verifier.md §Configuration). */
export function workerConfig(issuerDid: string) {
  return { target: TARGET, trustedIssuers: [issuerDid], routes: [{ path: `${GUARDED}*`, scopes: ['files:read'] }] };
}

export interface Requests {
  issuerDid: string;
  plain(prefix: string, count: number): PreparedFetch[];
  presentations(nonces: string[]): Promise<PreparedFetch[]>;
  /** `count` requests by digest to `origin`, with the one naming the chain in full first. */
  signed(origin: string, count: number): Promise<PreparedFetch[]>;
}

export async function benchRequests(w: typeof Wallet): Promise<Requests> {
  const { platform, agent, chain } = await benchChain(w);
  const present = async (challenge: string) =>
    w.encodePresentationHeader(
      await w.signPresentation({ holder: agent, credentials: chain, challenge, domain: TARGET }),
    );
  const sample = await present('bench-sample-nonce-22c');
  const signer = w.identityRequestSigner(agent);
  const signedAt = async (origin: string, i: number, byDigest: boolean): Promise<PreparedFetch> => {
    const path = `${GUARDED}${i}`;
    const request = new Request(`${origin}${path}`, { method: 'POST', body: BODY, headers: JSON_TYPE });
    // The longest lifetime verifiers accept (300 s): a slow machine must not expire them in the queue.
    const signed = await w.signChainedRequest(request, signer, chain, { byDigest, expiresIn: 300 });
    return { path, method: 'POST', headers: Object.fromEntries(signed.headers), body: BODY };
  };
  return {
    issuerDid: platform.did,
    plain: (prefix, count) =>
      Array.from({ length: count }, (_, i) => ({
        path: `${prefix}${i}`,
        method: 'POST',
        headers: { ...JSON_TYPE, authorization: sample },
        body: BODY,
      })),
    presentations: (nonces) =>
      Promise.all(
        nonces.map(async (nonce, i) => ({
          path: `${GUARDED}${i}`,
          method: 'POST',
          headers: { ...JSON_TYPE, authorization: await present(nonce) },
          body: BODY,
        })),
      ),
    async signed(origin, count) {
      const requests = [await signedAt(origin, -1, false)];
      for (let i = 0; i < count; i++) requests.push(await signedAt(origin, i, true));
      return requests;
    },
  };
}
