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
 * Canonicalization runs with Digital Bazaar's options (RDF-CANON §4, JSON-LD safe mode, no base IRI,
 * an injected loader that never fetches), and its work is bounded against poison graphs (§3.2).
 * Why, and the errors: docs/crypto.md §Data Integrity eddsa-rdfc-2022.
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
 * §3.2.5 Proof Configuration steps 1–4, synchronously: a copy of the proof options whose @context
 * is the document's; a different own one is PROOF_CONTEXT_MISMATCH (why: docs/crypto.md §The algorithm).
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
