/**
 * The agent's side of a signed request bound to its credential chain (docs/protocol.md §Signed
 * requests): the chain named in `Mandate-Chain` (first request to a verifier) or by digest in
 * `Mandate-Chain-Digest` (afterwards), and the request signed by wallet/http-signatures with
 * that header covered.
 */
import { bytesToUtf8 } from '../crypto/bytes.ts';
import { signRequest, type RequestSigner, type SignRequestOptions } from '../http-signatures/sign.ts';
import { readBounded } from '../net/http.ts';
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

export interface SigningFetchOptions {
  /** The chain leaf's holder key: `identityRequestSigner(agent)`, or a key store's signer. */
  signer: RequestSigner;
  /** The chain the requests name: the leaf first, each parent, the root, then any grants. */
  credentials: readonly unknown[];
  /** Sends each signed request (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Signature options (`tag`, `expires`, extra `components`, …), as signChainedRequest takes them. */
  sign?: SignRequestOptions;
}

/** Largest refusal body read for its reason code: a verifier's JSON answer is far smaller. */
const MAX_REFUSAL_BYTES = 16 * 1024;

/** The `reason` of a verifier's JSON refusal, or undefined for anything else (never throws). */
async function refusalReason(response: Response): Promise<string | undefined> {
  if (response.status !== 401 || !/json/i.test(response.headers.get('content-type') ?? '')) return undefined;
  try {
    const bytes = await readBounded(response.clone().body, MAX_REFUSAL_BYTES);
    const body: unknown = bytes === undefined ? undefined : JSON.parse(bytesToUtf8(bytes));
    const { reason } = (typeof body === 'object' && body !== null ? body : {}) as { reason?: unknown };
    return typeof reason === 'string' ? reason : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A `fetch` whose every request is signed by `signer` and names `credentials`
 * (docs/protocol.md §Signed requests): in full to an origin until it accepted the chain once
 * (a 2xx answer), by digest afterwards; when an origin answers a digest with 401
 * CHAIN_UNKNOWN (it lost its cache), the same request is sent once more in full. Any other
 * answer is returned as it is. Pass it where a client takes a fetch (the A2A SDK's
 * `fetchImpl`, the MCP SDK transport's `fetch`).
 *
 * @example
 * const fetchSigned = signingFetch({ signer: identityRequestSigner(agent), credentials: [child, root] });
 * const answer = await fetchSigned('https://files.example.com/files/q3');
 */
export function signingFetch(
  options: SigningFetchOptions,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  const { signer, credentials, sign = {} } = options;
  const send = options.fetch ?? ((request: Request) => fetch(request));
  /** Origins that accepted the chain: they are sent its digest. */
  const holding = new Set<string>();
  const signed = (request: Request, byDigest: boolean) =>
    signChainedRequest(request, signer, credentials, { ...sign, byDigest });
  return async (input, init) => {
    const request = new Request(input, init);
    const { origin } = new URL(request.url);
    const byDigest = holding.has(origin);
    // Kept unread for a second send in full: a body stream can be read once.
    const again = byDigest ? request.clone() : undefined;
    let response = await send(await signed(request, byDigest));
    if (again !== undefined && (await refusalReason(response)) === 'CHAIN_UNKNOWN') {
      holding.delete(origin);
      response = await send(await signed(again, false));
    }
    if (response.ok) holding.add(origin);
    return response;
  };
}
