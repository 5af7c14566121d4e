/**
 * The agent's side of a signed request bound to its credential chain (docs/protocol.md §Signed
 * requests): the chain named in `Mandate-Chain` (first request to a verifier) or by digest in
 * `Mandate-Chain-Digest` (afterwards), and the request signed by wallet/http-signatures with
 * that header covered.
 */
import { signRequest, type RequestSigner, type SignRequestOptions } from '../http-signatures/sign.ts';
import { CHAIN_DIGEST_HEADER, CHAIN_HEADER, chainDigest, encodeChainHeader } from './chain-header.ts';

export interface ChainedRequestOptions extends SignRequestOptions {
  /** Name the chain by its digest (a verifier that accepted it before holds it); default: in full. */
  byDigest?: boolean;
}

/**
 * `request` signed by `signer` (the chain leaf's holder: `identityRequestSigner(agent)`), naming
 * `credentials` (leaf first, root, then grants). A verifier that answers CHAIN_UNKNOWN to a
 * request by digest wants the same request again with the chain in full.
 *
 * @example
 * const first = await signChainedRequest(new Request(url), identityRequestSigner(agent), [child, root]);
 * const later = await signChainedRequest(new Request(url), identityRequestSigner(agent), [child, root], { byDigest: true });
 */
export async function signChainedRequest(
  request: Request,
  signer: RequestSigner,
  credentials: readonly unknown[],
  options: ChainedRequestOptions = {},
): Promise<Request> {
  const { byDigest = false, ...signOptions } = options;
  const header = byDigest ? CHAIN_DIGEST_HEADER : CHAIN_HEADER;
  const headers = new Headers(request.headers);
  headers.delete(CHAIN_HEADER);
  headers.delete(CHAIN_DIGEST_HEADER);
  headers.set(header, byDigest ? chainDigest(credentials) : encodeChainHeader(credentials));
  return signRequest(new Request(request, { headers }), signer, {
    ...signOptions,
    components: [...(signOptions.components ?? []), header],
  });
}
