/**
 * RFC 9530 `Content-Digest`: a dictionary of digest algorithms to byte sequences, over the
 * message content (the bytes of the body as sent, after any Content-Encoding). Created with
 * `sha-256`; `sha-256` and `sha-512` are checked (§5, §6 "Active" algorithms); the insecure ones
 * (`md5`, `sha`, …) and any other are ignored, so a field listing none of ours is refused.
 */
import { equalBytes } from '../crypto/bytes.ts';
import { sha256, sha512 } from '../crypto/hash.ts';
import { refuse } from './errors.ts';
import { isInnerList, parseDictionary, serializeDictionary, StructuredFieldError } from './structured-fields.ts';

/** The algorithms Mandate computes (RFC 9530 §5 Hash Algorithms for HTTP Digest Fields). */
export type ContentDigestAlgorithm = 'sha-256' | 'sha-512';

/** SHA-256 is the crypto core's synchronous one (node:crypto where there is one); SHA-512 WebCrypto's. */
const DIGESTS: Readonly<Record<ContentDigestAlgorithm, (bytes: Uint8Array) => Uint8Array | Promise<Uint8Array>>> = {
  'sha-256': sha256,
  'sha-512': sha512,
};

/** The `Content-Digest` field value of `body`, e.g. `sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:`. */
export async function createContentDigest(
  body: Uint8Array,
  algorithm: ContentDigestAlgorithm = 'sha-256',
): Promise<string> {
  const digest = Object.hasOwn(DIGESTS, algorithm) ? DIGESTS[algorithm] : undefined;
  if (digest === undefined) return refuse('HTTP_SIGNATURE_OPTIONS_INVALID', `unsupported digest "${algorithm}"`);
  return serializeDictionary(new Map([[algorithm, { value: await digest(body), params: new Map() }]]));
}

/**
 * Checks a `Content-Digest` field value against `body`: every listed algorithm Mandate supports
 * must match (so a wrong sha-512 beside a right sha-256 is refused), at least one must be listed
 * (CONTENT_DIGEST_UNSUPPORTED), and the field must be a dictionary of byte sequences
 * (CONTENT_DIGEST_MISMATCH otherwise). Resolves to the algorithms checked; rejects with the
 * HttpSignatureError.
 */
export async function verifyContentDigest(body: Uint8Array, field: string): Promise<ContentDigestAlgorithm[]> {
  let dictionary;
  try {
    dictionary = parseDictionary(field);
  } catch (error) {
    if (!(error instanceof StructuredFieldError)) throw error;
    return refuse('CONTENT_DIGEST_MISMATCH', `Content-Digest is not an RFC 8941 dictionary (${error.message})`);
  }
  const checked: ContentDigestAlgorithm[] = [];
  for (const [algorithm, member] of dictionary) {
    if (!Object.hasOwn(DIGESTS, algorithm)) continue;
    const name = algorithm as ContentDigestAlgorithm;
    if (isInnerList(member) || !(member.value instanceof Uint8Array))
      return refuse('CONTENT_DIGEST_MISMATCH', `Content-Digest ${name} is not a byte sequence (RFC 9530 §2)`);
    if (!equalBytes(member.value, await DIGESTS[name](body)))
      return refuse('CONTENT_DIGEST_MISMATCH', `Content-Digest ${name} does not match the body`);
    checked.push(name);
  }
  if (checked.length === 0)
    return refuse('CONTENT_DIGEST_UNSUPPORTED', 'Content-Digest lists neither sha-256 nor sha-512 (RFC 9530 §5)');
  return checked;
}
