/**
 * How a signed request names the authority it acts under (docs/protocol.md §Signed requests):
 * the agent's credential chain in full in `Mandate-Chain`, or, once a verifier holds it, by its
 * digest in `Mandate-Chain-Digest`. The request's RFC 9421 signature covers whichever is sent,
 * so the chain is bound to the request and to the holder's key; neither header is a secret.
 *
 * - `Mandate-Chain`: base64url without padding (RFC 4648 §5) of the UTF-8 JSON text of an
 *   array of credentials, ordered as a presentation's `verifiableCredential`: the leaf first,
 *   each followed by its parent, ending in the root, then any grants.
 * - `Mandate-Chain-Digest`: base64url without padding of SHA-256 over the UTF-8 of the array's
 *   JCS form (RFC 8785): 43 characters. JCS makes it independent of how the JSON was written;
 *   the credentials' proofs are inside, so it names exact signed bytes.
 */
import { base64urlToBytes, base64urlToBytesOfLength, bytesToBase64url } from '../crypto/base64url.ts';
import { bytesToUtf8, utf8ToBytes } from '../crypto/bytes.ts';
import { isMandateError } from '../crypto/errors.ts';
import { sha256Utf8 } from '../crypto/hash.ts';
import { canonicalizeJson } from '../crypto/jcs.ts';
import { parseJson } from '../crypto/json-parse.ts';
import type { JsonLimits, JsonValue } from '../crypto/json-value.ts';
import { VerificationError } from './reasons.ts';
import { DEFAULT_MAX_PRESENTATION_BYTES } from './transport.ts';

/** The credential chain in full (lower-case, as RFC 9421 §2.1 names covered fields). */
export const CHAIN_HEADER = 'mandate-chain';
/** The chain by its digest, once the verifier holds it. */
export const CHAIN_DIGEST_HEADER = 'mandate-chain-digest';

function malformed(message: string): never {
  throw new VerificationError('MALFORMED', message);
}

/** The `Mandate-Chain` value for `credentials` (leaf first, root, then grants). */
export function encodeChainHeader(credentials: readonly unknown[]): string {
  return bytesToBase64url(utf8ToBytes(JSON.stringify(credentials)));
}

/**
 * The `Mandate-Chain-Digest` of a chain: base64url(SHA-256(JCS(chain))). `limits` bounds the
 * canonical form (a verifier passes its presentation bound); JCS refuses what is not I-JSON.
 */
export function chainDigest(credentials: readonly unknown[] | JsonValue, limits?: JsonLimits): string {
  return bytesToBase64url(sha256Utf8(canonicalizeJson(credentials, limits)));
}

/** Both header forms of a chain, for a client that sends it in full once and by digest afterwards. */
export function chainHeaders(credentials: readonly unknown[]): {
  digest: string;
  full: Record<typeof CHAIN_HEADER, string>;
  byDigest: Record<typeof CHAIN_DIGEST_HEADER, string>;
} {
  const digest = chainDigest(credentials);
  return {
    digest,
    full: { [CHAIN_HEADER]: encodeChainHeader(credentials) },
    byDigest: { [CHAIN_DIGEST_HEADER]: digest },
  };
}

/**
 * The chain carried by a `Mandate-Chain` value: a non-empty JSON array (its credentials are
 * judged later, as a presentation's are). The length is bounded before decoding, the bytes
 * after; anything else is MALFORMED, and messages never quote the header.
 */
export function decodeChainHeader(value: string, maxBytes = DEFAULT_MAX_PRESENTATION_BYTES): JsonValue[] {
  // 4 base64url characters carry 3 bytes: a longer value cannot decode to maxBytes or less.
  if (value.length > Math.ceil((maxBytes * 4) / 3)) malformed(`${CHAIN_HEADER} is larger than ${maxBytes} bytes`);
  const bytes = base64urlToBytes(value);
  if (bytes === undefined || bytes.length === 0)
    malformed(`${CHAIN_HEADER} must be base64url without padding (RFC 4648 §5), sent once`);
  let chain: JsonValue;
  try {
    chain = parseJson(bytesToUtf8(bytes), { maxBytes });
  } catch (error) {
    // Only the code: a JSON error message may quote part of the input.
    malformed(`${CHAIN_HEADER} is not UTF-8 JSON (${isMandateError(error) ? error.code : 'UTF8_INVALID'})`);
  }
  if (!Array.isArray(chain) || chain.length === 0)
    malformed(`${CHAIN_HEADER} must hold a non-empty array of credentials`);
  return chain;
}

/** A `Mandate-Chain-Digest` value: exactly the canonical base64url of 32 bytes, or MALFORMED. */
export function decodeChainDigestHeader(value: string): string {
  if (base64urlToBytesOfLength(value, 32) === undefined)
    malformed(`${CHAIN_DIGEST_HEADER} must be the base64url of a SHA-256 digest (43 characters), sent once`);
  return value;
}
