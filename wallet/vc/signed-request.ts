/**
 * `verifySignedRequest`: a request signed by its agent (RFC 9421, `ed25519`) and bound to the
 * credential chain it names in `Mandate-Chain` or `Mandate-Chain-Digest` (docs/protocol.md
 * §Signed requests), judged in this process without calling the issuer.
 *
 * The order: 0 the chain header (decoded, or found by digest in the chain cache) and the
 * chain's shapes; 1 the signature — covered components, time window, `nonce`, the key (an
 * `authentication` key of the leaf's subject), the signature over the rebuilt base and
 * `content-digest` (wallet/http-signatures: the one RFC 9421 implementation); 2–6
 * `verifyPresentation`'s own chain checks (verify.ts `checkCredentialChain`); 7 the nonce in
 * the replay store, last, so a refused request spends nothing. Refusals are results.
 */
import type { JsonValue } from '../crypto/json-value.ts';
import { isMandateError } from '../crypto/errors.ts';
import { HttpSignatureError } from '../http-signatures/errors.ts';
import { verifyRequestSignature, type VerifiedRequestSignature } from '../http-signatures/verify.ts';
import { readBounded } from '../net/http.ts';
import type { ChainCache } from './chain-cache.ts';
import {
  CHAIN_DIGEST_HEADER,
  CHAIN_HEADER,
  chainDigest,
  decodeChainDigestHeader,
  decodeChainHeader,
} from './chain-header.ts';
import { validUntilOf } from './delegation.ts';
import { isSignedRequestReason, SignedRequestError, VerificationError, type RefusalCode } from './reasons.ts';
import type { ReplayCache } from './replay-cache.ts';
import {
  assertVerifyPresentationOptions,
  chainSuccess,
  invalidVerifierOptions,
  checkCredentialChain,
  passed,
  prepareChainVerification,
  refused,
  type ChainOptions,
  type ChainVerification,
  type ChainVerificationSuccess,
  type CheckName,
  type CheckOutcome,
  type Progress,
} from './verify.ts';
import { holderKey } from './verify/holder-key.ts';

/** Largest body whose `Content-Digest` a verifier reads by default: 1 MiB. */
export const DEFAULT_MAX_SIGNED_BODY_BYTES = 1024 * 1024;

export interface VerifySignedRequestOptions extends ChainOptions {
  /** Chains accepted before, by digest; without one, every `Mandate-Chain-Digest` is CHAIN_UNKNOWN. */
  chainCache?: ChainCache;
  /** Records each signature's nonce until it expires; without one, nothing stops a replay. */
  replayCache?: ReplayCache;
  /** Largest body read to check `Content-Digest` (default 1 MiB); a larger one is MALFORMED. */
  maxBodyBytes?: number;
  /**
   * The request's body as received, when the caller holds its bytes already (the Node adapter:
   * a body parser kept them): `Content-Digest` is checked on these, held to `maxBodyBytes` too,
   * and `request`'s own body is not read. Otherwise the body is read from a clone of `request`.
   */
  body?: Uint8Array;
}

/** What a signed request's signature said, once verified. */
export interface RequestSignature {
  label: string;
  keyid: string;
  nonce: string;
  /** Seconds since the epoch (RFC 9421 §2.3). */
  created: number;
  expires?: number;
  tag?: string;
}

export interface SignedRequestSuccess extends ChainVerificationSuccess {
  /** The chain's `Mandate-Chain-Digest`: what later requests name it by. */
  chainDigest: string;
  /** True when the request named the chain by digest and the chain cache held it. */
  chainCached: boolean;
  signature: RequestSignature;
}

export interface SignedRequestFailure {
  valid: false;
  reason: RefusalCode;
  message: string;
  failedCheck: CheckName;
  checks: CheckOutcome[];
}

export type SignedRequestResult = SignedRequestSuccess | SignedRequestFailure;

/** The chain a request names, with what the cache needs to hold it. */
interface NamedChain {
  chain: readonly JsonValue[];
  digest: string;
  /** The header that carried it: the signature must cover it. */
  header: typeof CHAIN_HEADER | typeof CHAIN_DIGEST_HEADER;
  /** JSON bytes, when sent in full (undefined when found by digest). */
  bytes: number | undefined;
}

/** Check 0: exactly one chain header, decoded, or its digest held by the cache. */
function namedChain(request: Request, options: VerifySignedRequestOptions): NamedChain {
  const full = request.headers.get(CHAIN_HEADER);
  const byDigest = request.headers.get(CHAIN_DIGEST_HEADER);
  if ((full === null) === (byDigest === null))
    throw new VerificationError('MALFORMED', `send exactly one of ${CHAIN_HEADER} and ${CHAIN_DIGEST_HEADER}`);
  const maxBytes = options.maxPresentationBytes ?? 64 * 1024;
  if (full !== null) {
    const chain = decodeChainHeader(full, maxBytes);
    // JCS refuses what is not I-JSON; the canonical form is held to the same bound as the text.
    const digest = chainDigest(chain, { maxBytes });
    return { chain, digest, header: CHAIN_HEADER, bytes: Math.floor((full.length * 3) / 4) };
  }
  const digest = decodeChainDigestHeader(byDigest as string);
  const chain = options.chainCache?.get(digest);
  if (chain === undefined)
    throw new SignedRequestError(
      'CHAIN_UNKNOWN',
      `this verifier does not hold chain ${digest}: send the request again with the chain in ${CHAIN_HEADER}`,
    );
  return { chain, digest, header: CHAIN_DIGEST_HEADER, bytes: undefined };
}

/**
 * The body `Content-Digest` is checked on: the bytes the caller holds, or else read from a clone
 * of `request` (its stream `tee`d: about half an Ed25519 verification in Node, docs/benchmarks.md).
 */
async function bodyOf(
  request: Request,
  maxBytes: number,
  given: Uint8Array | undefined,
): Promise<Uint8Array | undefined> {
  const tooLarge = () =>
    new VerificationError('MALFORMED', `the body is larger than the ${maxBytes} bytes this verifier checks`);
  if (given !== undefined) {
    if (given.length > maxBytes) throw tooLarge();
    // Copied before the first await, so a writable alias cannot swap the bytes judged.
    return given.slice();
  }
  if (request.body === null) return undefined;
  const declared = Number(request.headers.get('content-length') ?? '0');
  const bytes = declared > maxBytes ? undefined : await readBounded(request.clone().body, maxBytes);
  if (bytes === undefined) throw tooLarge();
  return bytes;
}

/** A replay record httpsig asked for, kept to be made last (check 7). */
interface PendingNonce {
  key: string;
  until: number;
}

/**
 * Check 1: the signature, by wallet/http-signatures, with the components this protocol requires
 * and the holder's key. Its replay record is captured, not made: check 7 makes it.
 */
async function checkSignature(
  request: Request,
  v: ChainVerification,
  named: NamedChain,
  options: VerifySignedRequestOptions,
): Promise<{ signature: VerifiedRequestSignature; nonce: PendingNonce }> {
  const body = await bodyOf(request, options.maxBodyBytes ?? DEFAULT_MAX_SIGNED_BODY_BYTES, options.body);
  const required = ['@method', '@authority', '@path'];
  if (new URL(request.url).search !== '') required.push('@query');
  required.push(named.header);
  let nonce: PendingNonce | undefined;
  const signature = await verifyRequestSignature(request, {
    resolveKey: (keyid) => holderKey(v, keyid),
    now: v.now,
    maxSkewSeconds: v.skew / 1000,
    requiredComponents: required,
    // Makes `nonce` required and names the record; made in check 7, after everything else.
    replay: {
      remember(key, until) {
        nonce = { key, until };
        return true;
      },
    },
    ...(body === undefined ? {} : { body }),
  });
  if (nonce === undefined) throw new VerificationError('MALFORMED', 'the signature named no nonce');
  return { signature, nonce };
}

/** Check 7: the nonce, recorded until the signature expires; only `true` accepts. */
async function checkNonce(replayCache: ReplayCache | undefined, { key, until }: PendingNonce): Promise<void> {
  if (replayCache === undefined) return;
  let answer: unknown;
  try {
    const pending = replayCache.remember(key, until);
    answer = typeof pending === 'boolean' ? pending : await pending;
  } catch (error) {
    throw new HttpSignatureError(
      'HTTP_SIGNATURE_REPLAYED',
      'the replay store could not record the nonce (fail closed)',
      {
        cause: error,
      },
    );
  }
  if (answer !== true)
    throw new HttpSignatureError(
      'HTTP_SIGNATURE_REPLAYED',
      'this nonce was seen before for this key, or expires too soon to be vouched for (RFC 9421 §7.2.2)',
    );
}

/** How long the cache may hold a chain: not past its earliest `validUntil` (plus skew). */
function chainNotAfter(v: ChainVerification): number {
  let notAfter = Infinity;
  for (const credential of v.credentials) notAfter = Math.min(notAfter, validUntilOf(credential));
  return notAfter + v.skew;
}

/**
 * Verifies a signed request bound to a credential chain (docs/protocol.md §Signed requests).
 * A refusal is a result; it rejects only with VerifierOptionsError for invalid `options`.
 * The body, when there is one, is `options.body` or read from a clone: `request` stays unread.
 */
export async function verifySignedRequest(
  request: Request,
  options: VerifySignedRequestOptions,
): Promise<SignedRequestResult> {
  const { chainCache, replayCache, maxBodyBytes: _maxBodyBytes, body: _body, ...chainOptions } = options;
  assertVerifyPresentationOptions(chainOptions);
  if (options.body !== undefined && !(options.body instanceof Uint8Array))
    invalidVerifierOptions('body must be the bytes of the request body (a Uint8Array)');
  const progress: Progress = { checks: [], current: 'signature' };
  try {
    const named = namedChain(request, options);
    const v = prepareChainVerification(named.chain, undefined, chainOptions);
    const { signature, nonce } = await checkSignature(request, v, named, options);
    passed(progress, 'dids');
    const found = await checkCredentialChain(v, progress);
    progress.current = 'replay';
    await checkNonce(replayCache, nonce);
    passed(progress);
    for (const add of found.credentials.toCache) add();
    if (named.bytes !== undefined) chainCache?.add(named.digest, named.chain, named.bytes, chainNotAfter(v));
    const { label, keyid, created, expires, tag } = signature;
    return {
      ...chainSuccess(v, progress.checks, found),
      chainDigest: named.digest,
      chainCached: named.bytes === undefined,
      signature: {
        label,
        keyid,
        nonce: signature.nonce ?? '',
        created,
        ...(expires === undefined ? {} : { expires }),
        ...(tag === undefined ? {} : { tag }),
      },
    };
  } catch (error) {
    return refusedRequest(error, progress);
  }
}

/** A refusal: the signature layer's own codes pass through; anything else as verifyPresentation's. */
function refusedRequest(error: unknown, progress: Progress): SignedRequestFailure {
  if (isMandateError(error) && isSignedRequestReason(error.code)) {
    const { checks, current } = progress;
    checks.push({ check: current, ok: false, reason: error.code, message: error.message });
    return { valid: false, reason: error.code, message: error.message, failedCheck: current, checks };
  }
  return refused(error, progress);
}
