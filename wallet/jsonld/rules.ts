/**
 * The JSON-LD rules VC DM 2.0 requires of a credential or presentation (§4.3, §4.5, §5.1, §11),
 * checked the way a JSON-LD processor in safe mode checks them (JSON-LD 1.1 API §5.1 Expansion,
 * with jsonld.js's `safe` option) over the bundled contexts only, plus the digests of related
 * resources (§5.3) Mandate holds. Each rule and its reason code: docs/conformance.md §JSON-LD
 * without a JSON-LD processor on the hot path.
 *
 * Node only, on the issuer's VC-API path: verifyPresentation, the middleware and the service
 * worker keep their static profile checks (docs/conformance.md).
 */
import jsonld from 'jsonld';
import { utf8ToBytes } from '../crypto/bytes.ts';
import { verifyDigestSri, verifyResourceDigestMultibase } from '../crypto/hash.ts';
import { jsonLdRefusal } from '../crypto/jsonld-refusal.ts';
import { LruCache } from '../crypto/lru.ts';
import { BUNDLED_CONTEXT_TEXTS, bundledDocumentLoader, JsonLdError } from './document-loader.ts';
import { EARLIER_PUBLISHED_VERSIONS } from './published-versions.ts';

/** What jsonld.js threw, as the JSON-LD rule it breaks (the crypto core's reading, shared with eddsa-rdfc-2022). */
export function jsonLdRuleError(error: unknown): JsonLdError {
  if (error instanceof JsonLdError) return error;
  const { rule, message } = jsonLdRefusal(error);
  return new JsonLdError(rule, message, { cause: error });
}

/** Expands `document` in safe mode over the bundled contexts; throws JsonLdError naming the rule broken. */
export async function assertJsonLdRules(document: object): Promise<void> {
  try {
    await jsonld.expand(document, { documentLoader: bundledDocumentLoader, safe: true, base: null });
  } catch (error) {
    throw jsonLdRuleError(error);
  }
}

// The bundled texts never change, so neither does a verdict on a digest of one: hashing 10 KB
// with SHA-384 costs more than the rest of the check. Bounded: distinct digests only refill it.
const verdicts = new LruCache<string, boolean>({ max: 256 });

/** The texts Mandate holds of what `url` served: the bundled one, then earlier published versions. */
function publishedTexts(url: string): string[] | undefined {
  const current = BUNDLED_CONTEXT_TEXTS.get(url);
  if (current === undefined) return undefined;
  return [current, ...(EARLIER_PUBLISHED_VERSIONS.get(url) ?? []).map((version) => version.text)];
}

function digestMatches(key: string, text: string, kind: 'sri' | 'multibase', digest: unknown): boolean {
  if (digest === undefined) return true; // not given: nothing to match
  if (typeof digest !== 'string') return false;
  const cacheKey = `${key} ${kind} ${digest}`;
  let verdict = verdicts.get(cacheKey);
  if (verdict === undefined) {
    const bytes = utf8ToBytes(text);
    verdict = kind === 'sri' ? verifyDigestSri(bytes, digest) : verifyResourceDigestMultibase(bytes, digest);
    verdicts.set(cacheKey, verdict);
  }
  return verdict;
}

/**
 * §5.3: each related resource whose bytes Mandate holds (a bundled context) must match every
 * digest given for it — in one version W3C published at its URL (the current bytes, or an earlier
 * version in published-versions.ts: a digest names what the URL served when the credential was
 * issued); RELATED_RESOURCE_DIGEST_MISMATCH otherwise. Returns the ids of the resources it could
 * not check (not bundled, and never fetched). The shape of relatedResource was checked before
 * (wallet/vc/conformance.ts).
 */
export function assertRelatedResourceDigests(document: Record<string, unknown>): string[] {
  const listed = document.relatedResource;
  const resources = (Array.isArray(listed) ? listed : listed === undefined ? [] : [listed]) as Array<
    Record<string, unknown>
  >;
  const unchecked: string[] = [];
  for (const resource of resources) {
    const id = resource.id as string;
    const texts = publishedTexts(id);
    if (texts === undefined) {
      unchecked.push(id);
      continue;
    }
    const matches = texts.map((text, version) => ({
      sri: digestMatches(`${id} ${version}`, text, 'sri', resource.digestSRI),
      multibase: digestMatches(`${id} ${version}`, text, 'multibase', resource.digestMultibase),
    }));
    if (!matches.some(({ sri, multibase }) => sri && multibase)) {
      const sriMatchesSome = resource.digestSRI !== undefined && matches.some(({ sri }) => sri);
      throw new JsonLdError(
        'RELATED_RESOURCE_DIGEST_MISMATCH',
        `the ${sriMatchesSome || resource.digestSRI === undefined ? 'digestMultibase' : 'digestSRI'} of relatedResource ${JSON.stringify(id.slice(0, 100))} does not match the resource (VC DM 2.0 §5.3): it matches no version W3C published at that URL`,
      );
    }
  }
  return unchecked;
}
