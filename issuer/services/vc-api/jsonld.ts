/**
 * What the VC-API does that needs JSON-LD (Node, this path only): the JSON-LD rules a document
 * must keep (wallet/jsonld/rules.ts), related-resource digests, and `eddsa-rdfc-2022` beside the
 * built-in `eddsa-jcs-2022`.
 */
import type { EddsaCryptosuite } from '../../../wallet/crypto/cryptosuite.ts';
import { eddsaRdfc2022 } from '../../../wallet/node.ts';
import { assertJsonLdRules, assertRelatedResourceDigests } from '../../../wallet/jsonld/rules.ts';
import { VC_API_CRYPTOSUITE_NAMES } from '../../../wallet/contract/vc-api.ts';

export { VC_API_CRYPTOSUITE_NAMES };
export type VcApiCryptosuite = (typeof VC_API_CRYPTOSUITE_NAMES)[number];

/** The suites the VC-API verifies beyond the built-in one. */
export const VC_API_CRYPTOSUITES: readonly EddsaCryptosuite[] = [eddsaRdfc2022];

/** createProof's option for the suite asked for (nothing for the default, eddsa-jcs-2022). */
export function suiteFor(name: VcApiCryptosuite | undefined): { cryptosuite?: EddsaCryptosuite } {
  return name === 'eddsa-rdfc-2022' ? { cryptosuite: eddsaRdfc2022 } : {};
}

/**
 * The JSON-LD rules, then the digests of the related resources Mandate holds. Resolves with the
 * ids of related resources it could not check; rejects with JsonLdError naming the rule.
 */
export async function assertJsonLdConformance(document: Record<string, unknown>): Promise<string[]> {
  await assertJsonLdRules(document);
  return assertRelatedResourceDigests(document);
}
