/**
 * The seam between the generic Data Integrity algorithms (data-integrity.ts: VC Data Integrity
 * 1.0 §4.2 Add Proof, §4.4 Verify Proof) and an EdDSA cryptosuite other than the built-in
 * `eddsa-jcs-2022`.
 *
 * EdDSA suites differ only in how the document and proof options become the 64 bytes signed
 * (§3.1 Instantiate Cryptosuite; §3.2.6/§3.2.7, §3.3.6/§3.3.7 are pure Ed25519), so a suite here is
 * that one step, `hashData`. eddsa-jcs-2022 stays inline and synchronous in data-integrity.ts (the
 * verifier's hot path); other suites are handed in by the caller, so a runtime bundles only what
 * it imports (eddsa-rdfc-2022 is Node only). See docs/crypto.md §Where it runs.
 */
import type { JsonLimits } from './json-value.ts';
import { EDDSA_JCS_2022, ProofError, type ProofOptions } from './proof-config.ts';

export interface EddsaCryptosuite {
  /** The `proof.cryptosuite` identifier this suite creates and verifies. */
  readonly name: string;
  /**
   * Transformation, Proof Configuration and Hashing of the suite (for eddsa-rdfc-2022, EdDSA
   * §3.2.3–§3.2.5): `SHA-256(canonical proof configuration) ‖ SHA-256(canonical document)`,
   * 64 bytes, the proof configuration hash FIRST. `unsecuredDocument` has no `proof` member;
   * `proofOptions` is the proof without `proofValue`. Rejects with a ProofError
   * (PROOF_MALFORMED, CRYPTOSUITE_UNSUPPORTED, PROOF_CONTEXT_MISMATCH) or a JsonError for input
   * it cannot hash.
   *
   * Contract: it reads (checks and copies) both inputs synchronously, before its first await.
   * createProof and verifyProof rely on it: what is hashed is the document as it was when they
   * were called, whatever their caller does to it meanwhile.
   */
  hashData(
    unsecuredDocument: Record<string, unknown>,
    proofOptions: ProofOptions,
    options: { limits?: JsonLimits },
  ): Promise<Uint8Array>;
}

/** True when `value` has a cryptosuite's shape (a name and a hashData function). */
export function isCryptosuite(value: unknown): value is EddsaCryptosuite {
  const suite = value as Partial<EddsaCryptosuite> | null | undefined;
  return typeof suite?.name === 'string' && suite.name.length > 0 && typeof suite.hashData === 'function';
}

/** Checks createProof's `cryptosuite`: PROOF_OPTIONS_INVALID unless it is a suite other than the built-in one. */
export function checkCryptosuite(value: unknown): EddsaCryptosuite {
  if (!isCryptosuite(value))
    throw new ProofError('PROOF_OPTIONS_INVALID', 'cryptosuite must have a name and a hashData function');
  // eddsa-jcs-2022 is built in: a suite of that name would sign what the built-in one does not verify.
  if (value.name === EDDSA_JCS_2022)
    throw new ProofError('PROOF_OPTIONS_INVALID', `${EDDSA_JCS_2022} is built in: omit cryptosuite`);
  return value;
}

/**
 * The first of `suites` named `name`, if any (a short list: a linear scan). verifyProof never
 * looks up eddsa-jcs-2022, so an entry of that name is never used.
 */
export function findCryptosuite(
  suites: readonly EddsaCryptosuite[] | undefined,
  name: string,
): EddsaCryptosuite | undefined {
  if (suites === undefined) return undefined;
  for (const suite of suites) if (suite.name === name) return suite;
  return undefined;
}
