/**
 * The `eddsa-rdfc-2022` cryptosuite (Data Integrity EdDSA Cryptosuites v1.0 §3.2), for Node:
 * the document and the proof configuration are read as JSON-LD, converted to RDF and
 * canonicalized with RDF Dataset Canonicalization (RDFC-1.0) before hashing. Signing and
 * verifying, with every check around them, stay in data-integrity.ts (`createProof` with
 * `cryptosuite`, `verifyProof` with `cryptosuites`); this module only computes the hash data.
 *
 * Node only. jsonld.js (and rdf-canonize under it) is loaded on first use, so importing this
 * module costs nothing until a proof is hashed; browser and service-worker bundles never
 * reach it (wallet/index.ts does not export it) and stay eddsa-jcs-2022 only.
 *
 * Canonicalization runs exactly as the specification and Digital Bazaar's
 * @digitalbazaar/eddsa-rdfc-2022-cryptosuite 1.3.0 run it, so both produce the same bytes:
 * - algorithm RDFC-1.0 with SHA-256 (§3.2.3 step 2; RDF-CANON §4), N-Quads output;
 * - `safe: true` — JSON-LD "safe mode" throws where it would otherwise drop data silently (an
 *   undefined term, a relative IRI, …). VC Data Integrity 1.0 §4.4 asks for an error when a
 *   JSON-LD processor drops data: what was dropped would not be signed;
 * - `base: null` — no base IRI, so a relative IRI stays relative and safe mode refuses it;
 * - `rdfDirection: 'i18n-datatype'` — `@direction` becomes RDF as JSON-LD 1.1 API §8.6.1
 *   describes (safe mode refuses it otherwise);
 * - `produceGeneralizedRdf: false` — no blank-node predicates (not RDF);
 * - the document loader is injected (`bundledDocumentLoader` in `mandate/wallet/node`): a
 *   context URL it does not serve is refused, never fetched. The crypto core imports no JSON-LD
 *   layer; jsonld.js never falls back to its network loader because a loader is always passed.
 *
 * The work is bounded (§3.2: "implementations will detect dataset poisoning by default, and
 * abort processing upon such detection"): rdf-canonize's `maxWorkFactor` allows
 * (non-unique blank nodes) ** maxWorkFactor runs of Hash N-Degree Quads. The default, 1, is
 * rdf-canonize's and Digital Bazaar's own, so Mandate accepts the datasets they accept; a
 * 60-node blank-node clique (58 KB) is refused in about 0.15 s where an unbounded run would not
 * end. The caller's JSON limits (`maxBytes`) bound everything else: JSON-LD expansion costs
 * grow with the document (about 1.4 s for 55 KB of type-scoped contexts).
 *
 * Errors: ProofError PROOF_MALFORMED naming the JSON-LD rule that refused the input (the
 * message quotes at most 64 characters of it; jsonld's own error is the `cause`),
 * CRYPTOSUITE_UNSUPPORTED for proof options of another suite, PROOF_CONTEXT_MISMATCH for a
 * proof whose own @context is not the document's, JsonError for input that is not safe JSON
 * within the caller's limits, PROOF_OPTIONS_INVALID for a bad factory option.
 */
import { type EddsaCryptosuite } from './cryptosuite.ts';
import { canonicalizeJson } from './jcs.ts';
import { assertSafeJson } from './json-safe.ts';
import { type JsonLimits } from './json-value.ts';
import { jsonLdRefusal } from './jsonld-refusal.ts';
import {
  checkProofConfiguration,
  EDDSA_RDFC_2022,
  hashData as hashCanonicalForms,
  ProofError,
  type ProofOptions,
} from './proof-config.ts';
// Types only, and none in this module's public API: the package's declarations must not name
// `jsonld`, which ships no types of its own.
import type { JsonLdApi } from 'jsonld';

export { EDDSA_RDFC_2022 };

/**
 * Resolves a JSON-LD context URL to its document (JSON-LD 1.1 API §9.4.3 RemoteDocument), and
 * rejects any URL it does not serve. It must not fetch what a document names: a verifier that
 * did would let the document's author choose what its terms mean.
 */
export type RdfcDocumentLoader = (
  url: string,
) => Promise<{ contextUrl: string | null; documentUrl: string; document: unknown }>;

export interface EddsaRdfc2022Options {
  documentLoader: RdfcDocumentLoader;
  /**
   * rdf-canonize's bound on deep blank-node comparisons (see the module comment): 0 refuses any
   * dataset with indistinguishable blank nodes, 1 (the default) allows a number of runs linear
   * in them, 2 quadratic (about 3 s for a 58 KB poison graph). Larger values admit poison graphs
   * and are refused.
   */
  maxWorkFactor?: 0 | 1 | 2;
}

/** An eddsa-rdfc-2022 cryptosuite, with the intermediate steps exposed for test vectors. */
export interface EddsaRdfc2022Cryptosuite extends EddsaCryptosuite {
  readonly name: typeof EDDSA_RDFC_2022;
  /** §3.2.3 Transformation: the canonical N-Quads of the unsecured document. */
  transform(
    unsecuredDocument: Record<string, unknown>,
    proofOptions: ProofOptions,
    options?: { limits?: JsonLimits },
  ): Promise<string>;
  /** §3.2.5 Proof Configuration: the canonical N-Quads of the proof options under the document's @context. */
  proofConfiguration(
    unsecuredDocument: Record<string, unknown>,
    proofOptions: ProofOptions,
    options?: { limits?: JsonLimits },
  ): Promise<string>;
  /** §3.2.4 Hashing of the two: SHA-256(proof configuration) ‖ SHA-256(document), 64 bytes. */
  hashData(
    unsecuredDocument: Record<string, unknown>,
    proofOptions: ProofOptions,
    options?: { limits?: JsonLimits },
  ): Promise<Uint8Array>;
}

const DEFAULT_MAX_WORK_FACTOR = 1;

let jsonldApi: Promise<JsonLdApi> | undefined;

/** jsonld.js, imported once on first use (about 0.1 s: it brings an HTTP client Mandate never calls). */
function loadJsonld(): Promise<JsonLdApi> {
  jsonldApi ??= import('jsonld').then((module) => module.default);
  return jsonldApi;
}

function optionsError(message: string): ProofError {
  return new ProofError('PROOF_OPTIONS_INVALID', message);
}

/** Which rule `error` (thrown by jsonld.js or rdf-canonize) enforces, in words. */
function describeRefusal(error: unknown, maxWorkFactor: number): string {
  // rdf-canonize: "Maximum deep iterations exceeded (N)." (RDFC-1.0 §4.4.3 step 6 bounded).
  if (error instanceof Error && error.message.startsWith('Maximum deep iterations exceeded')) {
    return `RDF canonicalization (RDFC-1.0) exceeded its work bound (maxWorkFactor ${maxWorkFactor}): too many indistinguishable blank nodes (a poison graph)`;
  }
  return jsonLdRefusal(error).message;
}

interface CanonizeConfig {
  documentLoader: RdfcDocumentLoader;
  maxWorkFactor: number;
}

/** JSON-LD → RDF → RDFC-1.0 canonical N-Quads (§3.2.3 step 2), or PROOF_MALFORMED. */
async function canonize(
  input: Record<string, unknown>,
  { documentLoader, maxWorkFactor }: CanonizeConfig,
): Promise<string> {
  const jsonld = await loadJsonld();
  try {
    return await jsonld.canonize(input, {
      documentLoader,
      safe: true,
      base: null,
      rdfDirection: 'i18n-datatype',
      produceGeneralizedRdf: false,
      // jsonld 9 hands these to rdf-canonize unchanged (top-level `algorithm` is ignored there).
      canonizeOptions: { algorithm: 'RDFC-1.0', format: 'application/n-quads', maxWorkFactor, rejectURDNA2015: true },
    });
  } catch (error) {
    throw new ProofError('PROOF_MALFORMED', describeRefusal(error, maxWorkFactor), { cause: error });
  }
}

/**
 * §3.2.3 Transformation step 1, then the document as it will be canonicalized: checked against
 * the safe-JSON rules and copied, synchronously (the cryptosuite contract in cryptosuite.ts).
 */
function readDocument(
  unsecuredDocument: Record<string, unknown>,
  proofOptions: ProofOptions,
  limits: JsonLimits | undefined,
): Record<string, unknown> {
  // Step 1: the options are a DataIntegrityProof of this suite.
  checkProofConfiguration(proofOptions, EDDSA_RDFC_2022);
  assertSafeJson(unsecuredDocument, limits);
  return structuredClone(unsecuredDocument);
}

/**
 * §3.2.5 Proof Configuration steps 1–4, synchronously: a copy of the proof options whose
 * @context is the document's. Step 4 replaces any @context of the proof's own; Digital Bazaar
 * keeps it instead (`{'@context': document['@context'], ...proof}`), so a proof whose @context
 * differs from the document's would read differently there: PROOF_CONTEXT_MISMATCH. Without a
 * document @context, safe mode refuses the proof's terms.
 */
function readProofConfiguration(
  unsecuredDocument: Record<string, unknown>,
  proofOptions: ProofOptions,
  limits: JsonLimits | undefined,
): Record<string, unknown> {
  // Steps 2–3: type, cryptosuite, `created`.
  checkProofConfiguration(proofOptions, EDDSA_RDFC_2022);
  assertSafeJson(proofOptions, limits);
  const documentContext = unsecuredDocument['@context'];
  if (documentContext !== undefined) assertSafeJson(documentContext, limits);
  // Step 1.
  const { '@context': proofContext, ...proofConfig } = structuredClone(proofOptions) as ProofOptions &
    Record<string, unknown>;
  if (
    proofContext !== undefined &&
    (documentContext === undefined || canonicalizeJson(proofContext) !== canonicalizeJson(documentContext))
  ) {
    throw new ProofError('PROOF_CONTEXT_MISMATCH', 'proof @context is not the document @context');
  }
  // Step 4.
  if (documentContext !== undefined) proofConfig['@context'] = structuredClone(documentContext);
  return proofConfig;
}

/**
 * An eddsa-rdfc-2022 cryptosuite for `createProof({ cryptosuite })` and
 * `verifyProof({ cryptosuites: [...] })`, canonicalizing with `documentLoader`'s contexts.
 */
export function createEddsaRdfc2022(options: EddsaRdfc2022Options): EddsaRdfc2022Cryptosuite {
  if (typeof options?.documentLoader !== 'function') throw optionsError('documentLoader must be a function');
  const maxWorkFactor = options.maxWorkFactor ?? DEFAULT_MAX_WORK_FACTOR;
  if (maxWorkFactor !== 0 && maxWorkFactor !== 1 && maxWorkFactor !== 2) {
    throw optionsError('maxWorkFactor must be 0, 1 or 2: larger values let poison graphs through');
  }
  const config: CanonizeConfig = { documentLoader: options.documentLoader, maxWorkFactor };
  // Each method reads its input before its first await (the cryptosuite contract).
  const suite: EddsaRdfc2022Cryptosuite = {
    name: EDDSA_RDFC_2022,
    // §3.2.3 step 2.
    transform: async (document, proofOptions, { limits } = {}) =>
      canonize(readDocument(document, proofOptions, limits), config),
    // §3.2.5 step 5.
    proofConfiguration: async (document, proofOptions, { limits } = {}) =>
      canonize(readProofConfiguration(document, proofOptions, limits), config),
    // §3.2.4 Hashing: the proof configuration's hash FIRST.
    async hashData(document, proofOptions, { limits } = {}) {
      const unsecured = readDocument(document, proofOptions, limits);
      const proofConfig = readProofConfiguration(document, proofOptions, limits);
      const canonicalProofConfig = await canonize(proofConfig, config);
      return hashCanonicalForms(await canonize(unsecured, config), canonicalProofConfig);
    },
  };
  return Object.freeze(suite);
}
