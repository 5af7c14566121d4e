/**
 * Data Integrity proofs with the `eddsa-jcs-2022` cryptosuite: creating them (Data Integrity
 * EdDSA Cryptosuites v1.0 §3.3.1, VC Data Integrity 1.0 §4.2 Add Proof and §4.3 Add Proof
 * Set/Chain) and verifying them (EdDSA §3.3.2, VC-DI §4.4 Verify Proof and §4.5 Verify Proof
 * Sets and Chains). Other EdDSA cryptosuites (`eddsa-rdfc-2022`, §3.2) plug in through
 * cryptosuite.ts and get the same checks; only their hashing differs, and eddsa-jcs-2022 keeps
 * its own synchronous path.
 *
 * Where the specifications leave a choice, it is made on the safe side (every proof of a set must
 * verify, a proof of a set signs the document without `proof` unless it names previous proofs,
 * zone-less times refused, authentication needs a challenge, local checks before any key lookup):
 * docs/crypto.md §Verification, step by step.
 */
import { assertBytes } from './bytes.ts';
import { checkCryptosuite, type EddsaCryptosuite, findCryptosuite, isCryptosuite } from './cryptosuite.ts';
import { verify, type Signer } from './ed25519.ts';
import { type CanonicalMemo } from './canonical-memo.ts';
import { canonicalizeJson } from './jcs.ts';
import { assertSafeJson } from './json-safe.ts';
import { type JsonLimits, type JsonObject } from './json-value.ts';
import { base58DigitsFor, decodeBase58btc, encodeBase58btc } from './multikey.ts';
import {
  DATA_INTEGRITY_PROOF,
  type DataIntegrityProof,
  EDDSA_JCS_2022,
  type EddsaCryptosuiteName,
  formatDateTimeStamp,
  hashData,
  type JsonLdContext,
  parseDateTimeStamp,
  proofConfiguration,
  ProofError,
  type ProofOptions,
  transformJcs,
} from './proof-config.ts';

// The hashing internals and the proof model, for one-stop imports.
export * from './proof-config.ts';
export type { EddsaCryptosuite } from './cryptosuite.ts';

/**
 * Maps a proof's verification method to its 32-byte Ed25519 public key, checking that the
 * method is authorized for `proofPurpose`. Supplied by the DID layer; its errors (resolution
 * failed, key not authorized) propagate out of verifyProof unchanged.
 */
export type KeyResolver = (verificationMethod: string, proofPurpose: string) => Promise<Uint8Array>;

export interface CreateProofOptions {
  signer: Signer;
  verificationMethod: string;
  proofPurpose: string;
  /** Defaults to now. */
  created?: Date | string;
  expires?: Date | string;
  challenge?: string;
  domain?: string | string[];
  nonce?: string;
  /** The new proof's `id` (a URL), so a later proof can name it in `previousProof`. */
  id?: string;
  /**
   * Proofs already on the document this one chains to (VC-DI §4.3 Add Proof Set/Chain step 3):
   * the `id` of each; the new proof signs the document with them as its `proof`.
   */
  previousProof?: string | string[];
  /** Limits for the document and the proof configuration (defaults: json-value.ts; a verifier needs the same). */
  limits?: JsonLimits;
  /**
   * The cryptosuite to sign with (EdDSA §3.1), e.g. `eddsaRdfc2022` from `mandate/wallet/node`.
   * Default: the built-in eddsa-jcs-2022.
   */
  cryptosuite?: EddsaCryptosuite;
}

export interface VerifyProofOptions {
  resolveKey: KeyResolver;
  /** Every proof must have this `proofPurpose` (VC-DI §4.4 step 5). */
  expectedProofPurpose: string;
  /** Required when the purpose is `authentication`; proofs must carry exactly this challenge. */
  expectedChallenge?: string;
  /** Proofs must carry exactly this set of domains (a string is a set of one; VC-DI §4.4 step 6). */
  expectedDomain?: string | string[];
  now?: Date;
  /** Tolerance for `created` in the future and `expires` in the past. Default 60 000 ms. */
  clockSkewMs?: number;
  /** Limits for the document and each proof configuration (defaults: json-value.ts). */
  limits?: JsonLimits;
  /**
   * Cryptosuites accepted besides the built-in eddsa-jcs-2022 (EdDSA §3.1), e.g.
   * `[eddsaRdfc2022]` from `mandate/wallet/node`. A proof of any other cryptosuite is
   * CRYPTOSUITE_UNSUPPORTED.
   */
  cryptosuites?: readonly EddsaCryptosuite[];
  /**
   * Canonical forms already computed in this verification (`createCanonicalMemo`), so nested
   * objects seen before — a presentation's credentials, say — are not serialized again. Only
   * for objects that are not modified while the verification runs.
   */
  memo?: CanonicalMemo;
}

export interface VerifiedProof {
  proof: DataIntegrityProof;
  /** The key the resolver returned for `proof.verificationMethod`. */
  publicKey: Uint8Array;
  created?: Date;
  expires?: Date;
}

/** A document with its proof (one) or proof set (several). */
export type SecuredDocument<T> = Omit<T, 'proof'> & { proof: DataIntegrityProof | DataIntegrityProof[] };

const DEFAULT_CLOCK_SKEW_MS = 60_000;
const AUTHENTICATION = 'authentication';
// RFC 3986 §3.1 scheme followed by ':' — enough to tell a URL (did:…, https:…, urn:…) from a bare name.
const ABSOLUTE_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isStringOrStringList(value: unknown): value is string | string[] {
  if (isNonEmptyString(value)) return true;
  return Array.isArray(value) && value.length > 0 && value.every(isNonEmptyString);
}

function asList<V>(value: V | V[]): V[] {
  return Array.isArray(value) ? value : [value];
}

/** Quotes a value taken from the document for an error message, bounded in length. */
function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

function optionsError(message: string): ProofError {
  return new ProofError('PROOF_OPTIONS_INVALID', message);
}

/** Most proofs a secured document may carry (a proof set, VC-DI §2.1.1, rarely holds more than two). */
export const MAX_PROOF_SET_SIZE = 4;

function malformed(message: string, cause?: unknown): ProofError {
  return new ProofError('PROOF_MALFORMED', message, cause === undefined ? undefined : { cause });
}

function toDateTimeStamp(value: Date | string, name: string): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw optionsError(`${name} is an invalid Date`);
    return formatDateTimeStamp(value);
  }
  if (parseDateTimeStamp(value) === undefined) throw optionsError(`${name} must be an XML Schema dateTimeStamp`);
  return value;
}

/** The document's existing proofs (VC-DI §4.3 step 1), which must be proof-shaped JSON objects. */
function existingProofs(document: Record<string, unknown>): JsonObject[] {
  if (!Object.hasOwn(document, 'proof')) return [];
  const proofs = asList(document.proof);
  for (const proof of proofs) {
    if (!isRecord(proof)) throw optionsError('document.proof must be a proof object or an array of proof objects');
  }
  assertSafeJson(proofs);
  return proofs as JsonObject[];
}

function withoutProof(document: Record<string, unknown>): Record<string, unknown> {
  const { proof: _proof, ...unsecured } = document;
  return unsecured;
}

/**
 * The proof options of a new proof (EdDSA §3.2.1/§3.3.1 step 1: the proof starts as a copy of
 * the options), checked as VC-DI §4.2 step 2 asks: type, verificationMethod and proofPurpose
 * are set. Members in the order of the W3C examples (JCS sorts them anyway; the N-Quads of
 * eddsa-rdfc-2022 do not depend on it).
 */
function newProofOptions(options: CreateProofOptions, cryptosuite: EddsaCryptosuiteName): ProofOptions {
  const { verificationMethod, proofPurpose, challenge, domain, nonce, id, previousProof } = options;
  if (!isNonEmptyString(verificationMethod) || !ABSOLUTE_URL.test(verificationMethod)) {
    throw optionsError('verificationMethod must be a URL');
  }
  if (id !== undefined && !(isNonEmptyString(id) && ABSOLUTE_URL.test(id))) throw optionsError('id must be a URL');
  if (previousProof !== undefined && !isStringOrStringList(previousProof))
    throw optionsError('previousProof must be a string or a list of strings');
  if (!isNonEmptyString(proofPurpose)) throw optionsError('proofPurpose must be a non-empty string');
  if (challenge !== undefined && typeof challenge !== 'string') throw optionsError('challenge must be a string');
  if (nonce !== undefined && typeof nonce !== 'string') throw optionsError('nonce must be a string');
  if (domain !== undefined && !isStringOrStringList(domain))
    throw optionsError('domain must be a string or a list of strings');
  return {
    ...(id !== undefined && { id }),
    type: DATA_INTEGRITY_PROOF,
    cryptosuite,
    // Default: now, to the second (the precision of the W3C examples).
    created: toDateTimeStamp(options.created ?? new Date(Math.floor(Date.now() / 1000) * 1000), 'created'),
    ...(options.expires !== undefined && { expires: toDateTimeStamp(options.expires, 'expires') }),
    verificationMethod,
    proofPurpose,
    ...(challenge !== undefined && { challenge }),
    ...(domain !== undefined && { domain: Array.isArray(domain) ? [...domain] : domain }),
    ...(nonce !== undefined && { nonce }),
    ...(previousProof !== undefined && {
      previousProof: Array.isArray(previousProof) ? [...previousProof] : previousProof,
    }),
  };
}

/**
 * VC-DI §4.3 step 3 / §4.5 step 3.2: the proofs of `allProofs` whose `id` a proof's
 * `previousProof` names, in set order; PROOF_MALFORMED (creating: PROOF_OPTIONS_INVALID) when a
 * name matches none.
 */
function matchingProofs<P extends { id?: unknown }>(
  allProofs: readonly P[],
  previousProof: string | string[],
  fail: (message: string) => ProofError,
): P[] {
  const names = asList(previousProof);
  const matching = allProofs.filter((proof) => typeof proof.id === 'string' && names.includes(proof.id));
  for (const name of names) {
    if (!matching.some((proof) => proof.id === name))
      throw fail(`previousProof ${quote(name)} names no proof of the proof set`);
  }
  return matching;
}

/**
 * Adds a Data Integrity proof to `document` (VC-DI §4.2, and §4.3 when the document already has
 * proofs: the new proof is appended to the proof set): eddsa-jcs-2022 (EdDSA §3.3.1) unless
 * `options.cryptosuite` names another suite (eddsa-rdfc-2022: §3.2.1). The input is not
 * modified; the result is a deep copy taken before signing.
 */
export async function createProof<T extends object>(
  document: T,
  options: CreateProofOptions,
): Promise<SecuredDocument<T>> {
  if (!isRecord(document)) throw optionsError('document must be a JSON object');
  if (typeof options?.signer?.sign !== 'function') throw optionsError('signer must implement sign()');
  const suite = options.cryptosuite === undefined ? undefined : checkCryptosuite(options.cryptosuite);
  const proof = newProofOptions(options, (suite?.name ?? EDDSA_JCS_2022) as EddsaCryptosuiteName);
  // JCS §3.3.1 step 2: the proof carries the document's @context, so it verifies inside a proof
  // set. (eddsa-rdfc-2022 does not: §3.2.5 step 4 gives only the proof configuration that @context.)
  if (suite === undefined && Object.hasOwn(document, '@context'))
    proof['@context'] = document['@context'] as JsonLdContext;

  // VC-DI §4.3 steps 1–2: existing proofs stay as they are; the new one signs the document
  // without them — or, step 3, with the ones its previousProof names (a proof chain).
  const previous = existingProofs(document);
  const chained =
    proof.previousProof === undefined ? undefined : matchingProofs(previous, proof.previousProof, optionsError);
  const unsecured = chained === undefined ? withoutProof(document) : { ...withoutProof(document), proof: chained };
  // Steps 3–5: proof configuration, transformation, hashing (JCS: here). Copy the document
  // before the first await, so a caller mutating it while we sign cannot make the output differ
  // from what was signed.
  let data: Uint8Array | undefined;
  if (suite === undefined) {
    const canonicalProofConfig = proofConfiguration(proof, options.limits);
    data = hashData(transformJcs(unsecured, options.limits), canonicalProofConfig);
  } else {
    assertSafeJson(unsecured, options.limits); // structuredClone would turn a Date or a Map into JSON-shaped data
  }
  const output = structuredClone(withoutProof(unsecured));
  const proofs = structuredClone(previous);
  const proofCopy = structuredClone(proof);
  // Another suite reads its input before its first await (cryptosuite.ts): the same snapshot.
  data ??= assertBytes(
    await (suite as EddsaCryptosuite).hashData(unsecured, proof, { limits: options.limits }),
    64,
    'hash data',
  );

  // Step 6: §3.2.6/§3.3.6 Proof Serialization — Ed25519 over the 64-byte hash data.
  const signature = assertBytes(await options.signer.sign(data), 64, 'signature');
  // Step 7: proofValue is the base58btc multibase of the signature.
  const signed: DataIntegrityProof = { ...proofCopy, proofValue: encodeBase58btc(signature) };
  output.proof = previous.length === 0 ? signed : [...proofs, signed];
  return output as SecuredDocument<T>;
}

/** A proof read from a secured document: validated shape, decoded signature and times. */
interface ParsedProof {
  proof: DataIntegrityProof;
  proofBytes: Uint8Array;
  created: number | undefined;
  expires: number | undefined;
  /** The caller's cryptosuite for this proof; undefined for the built-in eddsa-jcs-2022. */
  suite: EddsaCryptosuite | undefined;
  /** The proofs its `previousProof` names (VC-DI §4.5 step 3.2), which it signed with the document. */
  chained?: DataIntegrityProof[];
}

function checkOptionalString(proof: Record<string, unknown>, name: 'challenge' | 'nonce'): void {
  if (proof[name] !== undefined && typeof proof[name] !== 'string') throw malformed(`proof "${name}" must be a string`);
}

function checkOptionalStringOrList(proof: Record<string, unknown>, name: 'domain' | 'previousProof'): void {
  if (proof[name] !== undefined && !isStringOrStringList(proof[name])) {
    throw malformed(`proof "${name}" must be a string or a non-empty list of strings`);
  }
}

function optionalTime(proof: Record<string, unknown>, name: 'created' | 'expires'): number | undefined {
  if (proof[name] === undefined) return undefined;
  const time = parseDateTimeStamp(proof[name]);
  if (time === undefined) throw malformed(`proof "${name}" must be an XML Schema dateTimeStamp`);
  return time;
}

/** A proof object whose members have the types of DataIntegrityProof (checkProofMembers). */
type ProofRecord = Record<string, unknown> & DataIntegrityProof;

/**
 * The cryptosuite a proof names (EdDSA §3.1 Instantiate Cryptosuite): undefined for the
 * built-in eddsa-jcs-2022 (no lookup on the hot path); any other name must be one of the
 * caller's cryptosuites.
 */
function proofSuite(
  value: Record<string, unknown>,
  suites: readonly EddsaCryptosuite[] | undefined,
): EddsaCryptosuite | undefined {
  const { type, cryptosuite } = value;
  if (typeof type !== 'string' || typeof cryptosuite !== 'string')
    throw malformed('proof "type" and "cryptosuite" must be strings');
  const suite = cryptosuite === EDDSA_JCS_2022 ? undefined : findCryptosuite(suites, cryptosuite);
  if (type !== DATA_INTEGRITY_PROOF || (suite === undefined && cryptosuite !== EDDSA_JCS_2022)) {
    throw new ProofError(
      'CRYPTOSUITE_UNSUPPORTED',
      `unsupported proof ${quote(type)}/${quote(cryptosuite)}; expected ${DATA_INTEGRITY_PROOF}/${[EDDSA_JCS_2022, ...(suites ?? []).map((s) => s.name)].join(' or ')}`,
    );
  }
  return suite;
}

/**
 * Checks the members of a proof whose type and cryptosuite proofSuite accepted (VC-DI §2.1).
 * `proofValue` is left to parseProof, which decodes it (decodeBase58btc refuses a non-string).
 */
function checkProofMembers(value: Record<string, unknown>): asserts value is ProofRecord {
  const { verificationMethod, proofPurpose } = value;
  if (!isNonEmptyString(verificationMethod) || !ABSOLUTE_URL.test(verificationMethod)) {
    throw malformed('proof "verificationMethod" must be a URL');
  }
  if (!isNonEmptyString(proofPurpose)) throw malformed('proof "proofPurpose" must be a non-empty string');
  checkOptionalString(value, 'challenge');
  checkOptionalString(value, 'nonce');
  if (value.id !== undefined && !(isNonEmptyString(value.id) && ABSOLUTE_URL.test(value.id)))
    throw malformed('proof "id" must be a URL');
  checkOptionalStringOrList(value, 'domain');
  checkOptionalStringOrList(value, 'previousProof');
}

/** Checks one proof's members (VC-DI §2.1, §4.4 step 4; EdDSA §3.2.2/§3.3.2 step 3). */
function parseProof(value: unknown, suites: readonly EddsaCryptosuite[] | undefined): ParsedProof {
  if (!isRecord(value)) throw malformed('each proof must be a JSON object');
  const suite = proofSuite(value, suites);
  checkProofMembers(value);
  const created = optionalTime(value, 'created');
  const expires = optionalTime(value, 'expires');
  let proofBytes: Uint8Array;
  try {
    proofBytes = decodeBase58btc(value.proofValue, 'proofValue', base58DigitsFor(64));
  } catch (error) {
    throw malformed('proof "proofValue" must be a base58btc multibase string', error);
  }
  // §3.2.6/§3.3.6: an Ed25519 signature is exactly 64 bytes.
  if (proofBytes.length !== 64) throw malformed(`proof "proofValue" must encode 64 bytes, got ${proofBytes.length}`);
  return { proof: value, proofBytes, created, expires, suite };
}

function sameStringSet(a: string | string[], b: string | string[]): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a === b; // the usual single domain
  const left = new Set(asList(a));
  const right = new Set(asList(b));
  return left.size === right.size && [...left].every((s) => right.has(s));
}

function sameContextEntry(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  try {
    return canonicalizeJson(a) === canonicalizeJson(b);
  } catch {
    return false;
  }
}

/** EdDSA §3.3.2 step 4.1: the document's @context starts with the proof's, in order. */
function contextStartsWith(documentContext: unknown, proofContext: unknown): boolean {
  if (documentContext === undefined) return false;
  const doc = asList(documentContext);
  const prefix = asList(proofContext);
  return prefix.length <= doc.length && prefix.every((entry, i) => sameContextEntry(doc[i], entry));
}

function checkVerifyOptions(options: VerifyProofOptions): { now: number; skew: number } {
  if (typeof options?.resolveKey !== 'function') throw optionsError('resolveKey must be a function');
  if (!isNonEmptyString(options.expectedProofPurpose))
    throw optionsError('expectedProofPurpose must be a non-empty string');
  if (options.expectedChallenge !== undefined && typeof options.expectedChallenge !== 'string') {
    throw optionsError('expectedChallenge must be a string');
  }
  // VC-DI §2.1 `challenge`: authentication proofs are replayable without one.
  if (options.expectedProofPurpose === AUTHENTICATION && options.expectedChallenge === undefined) {
    throw optionsError('verifying an authentication proof requires expectedChallenge');
  }
  if (options.expectedDomain !== undefined && !isStringOrStringList(options.expectedDomain)) {
    throw optionsError('expectedDomain must be a string or a list of strings');
  }
  const now = options.now === undefined ? Date.now() : options.now instanceof Date ? options.now.getTime() : Number.NaN;
  if (Number.isNaN(now)) throw optionsError('now must be a valid Date');
  const skew = options.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
  if (!Number.isFinite(skew) || skew < 0) throw optionsError('clockSkewMs must be a non-negative number');
  if (
    options.cryptosuites !== undefined &&
    !(Array.isArray(options.cryptosuites) && options.cryptosuites.every(isCryptosuite))
  ) {
    throw optionsError('cryptosuites must be a list of cryptosuites');
  }
  return { now, skew };
}

/** VC-DI §4.4 steps 5–7 and the validity window: checks that need neither keys nor hashing. */
function checkProofClaims(parsed: ParsedProof, options: VerifyProofOptions, now: number, skew: number): void {
  const { proof } = parsed;
  if (proof.proofPurpose !== options.expectedProofPurpose) {
    throw new ProofError(
      'PROOF_PURPOSE_MISMATCH',
      `proof purpose ${quote(proof.proofPurpose)} is not the expected ${quote(options.expectedProofPurpose)}`,
    );
  }
  if (options.expectedChallenge !== undefined && proof.challenge !== options.expectedChallenge) {
    throw new ProofError('CHALLENGE_MISMATCH', 'proof challenge does not match the expected challenge');
  }
  if (
    options.expectedDomain !== undefined &&
    (proof.domain === undefined || !sameStringSet(proof.domain, options.expectedDomain))
  ) {
    throw new ProofError('DOMAIN_MISMATCH', 'proof domain does not match the expected domain');
  }
  if (parsed.created !== undefined && parsed.created > now + skew) {
    throw new ProofError('PROOF_NOT_YET_VALID', `proof was created in the future (${proof.created})`);
  }
  if (parsed.expires !== undefined && now > parsed.expires + skew) {
    throw new ProofError('PROOF_EXPIRED', `proof expired at ${proof.expires}`);
  }
}

/**
 * VC-DI §4.4 step 4 and §4.5 for every proof of the set, all before any hashing or key lookup:
 * shape, set size, purpose, challenge, domain, validity window, and the proofs each
 * previousProof names (step 3.2), which the proof signed with the document (step 3.3).
 */
function parseProofSet(allProofs: unknown[], options: VerifyProofOptions, now: number, skew: number): ParsedProof[] {
  const parsedProofs = allProofs.map((proof) => parseProof(proof, options.cryptosuites));
  // Each proof costs a signature check: one valid proof repeated could make one document cost
  // a verifier dozens of them. (A single proof, the usual case, needs no set.)
  if (parsedProofs.length > 1) {
    const proofValues = new Set(parsedProofs.map((p) => p.proof.proofValue));
    if (proofValues.size < parsedProofs.length || proofValues.size > MAX_PROOF_SET_SIZE) {
      throw malformed(`a proof set holds at most ${MAX_PROOF_SET_SIZE} proofs, each with its own proofValue`);
    }
  }
  const proofs = parsedProofs.map((p) => p.proof);
  for (const parsed of parsedProofs) {
    checkProofClaims(parsed, options, now, skew);
    const previous = parsed.proof.previousProof;
    if (previous !== undefined) parsed.chained = matchingProofs(proofs, previous, malformed);
  }
  return parsedProofs;
}

/** The document a proof signed (VC-DI §4.5 step 3.3): without `proof`, or with the proofs it chains to. */
function signedInput(unsecured: Record<string, unknown>, chained: DataIntegrityProof[] | undefined) {
  return chained === undefined ? unsecured : { ...unsecured, proof: chained };
}

/**
 * The hash data of each eddsa-jcs-2022 proof (EdDSA §3.3.2 steps 2–6), synchronously; undefined
 * for a proof of another cryptosuite (`hashSuiteProofs`).
 */
function hashJcsProofs(
  unsecured: Record<string, unknown>,
  parsedProofs: ParsedProof[],
  options: VerifyProofOptions,
): Array<Uint8Array | undefined> {
  let transformedDocument: string | undefined; // shared by proofs whose @context is the document's
  return parsedProofs.map(({ proof, suite, chained }) => {
    if (suite !== undefined) return undefined;
    // Step 2: proof options = the proof without proofValue.
    const { proofValue: _proofValue, ...proofOptions } = proof;
    const proofContext = proof['@context'];
    const documentContext = unsecured['@context'];
    let transformed: string;
    if (chained !== undefined) {
      // VC-DI §4.5 step 3.3: a chained proof signed the document with the proofs it names.
      if (proofContext !== undefined && !contextStartsWith(documentContext, proofContext)) {
        throw new ProofError('PROOF_CONTEXT_MISMATCH', 'document @context does not start with the proof @context');
      }
      const context = proofContext === undefined ? {} : { '@context': proofContext };
      transformed = transformJcs(signedInput({ ...unsecured, ...context }, chained), options.limits, options.memo);
    } else if (proofContext === undefined) {
      transformed = transformedDocument ??= transformJcs(unsecured, options.limits, options.memo);
    } else {
      // Step 4.1: the document's @context must start with the proof's, in order.
      if (!contextStartsWith(documentContext, proofContext)) {
        throw new ProofError('PROOF_CONTEXT_MISMATCH', 'document @context does not start with the proof @context');
      }
      // Step 4.2: the proof signed the document under its own @context. When that equals the
      // document's (same shape and length, entries already compared) the shared form serves.
      const sameContext =
        Array.isArray(proofContext) === Array.isArray(documentContext) &&
        asList(proofContext).length === asList(documentContext).length;
      transformed = sameContext
        ? (transformedDocument ??= transformJcs(unsecured, options.limits, options.memo))
        : transformJcs({ ...unsecured, '@context': proofContext }, options.limits, options.memo);
    }
    // Steps 5–7: transformation, proof configuration, hashing.
    return hashData(transformed, proofConfiguration(proofOptions, options.limits, options.memo));
  });
}

/**
 * The hash data of each proof of another cryptosuite (EdDSA §3.2.2 steps 1–6 for eddsa-rdfc-2022),
 * filled into `hashes`. All suites start before any await, so all read the document as passed in.
 */
async function hashSuiteProofs(
  unsecured: Record<string, unknown>,
  parsedProofs: ParsedProof[],
  hashes: Array<Uint8Array | undefined>,
  limits: JsonLimits | undefined,
): Promise<void> {
  const pending = parsedProofs.map(({ proof, suite, chained }) => {
    // Promise.all would wrap a plain undefined the same way.
    if (suite === undefined) return Promise.resolve(undefined);
    const { proofValue: _proofValue, ...proofOptions } = proof;
    const input = signedInput(unsecured, chained);
    // A suite that throws rather than rejects becomes a rejection too, handled by Promise.all.
    return new Promise<Uint8Array>((resolve) => resolve(suite.hashData(input, proofOptions, { limits })));
  });
  for (const [i, data] of (await Promise.all(pending)).entries()) {
    if (data !== undefined) hashes[i] = assertBytes(data, 64, 'hash data');
  }
}

/**
 * Verifies every proof on `securedDocument` (EdDSA §3.2.2/§3.3.2; VC-DI §4.4, §4.5). Resolves
 * with the verified proofs in document order; throws on the first proof that fails: ProofError
 * with a reason code, JsonError when the document is not safe JSON, or whatever `resolveKey`
 * throws.
 */
export async function verifyProof(
  securedDocument: unknown,
  options: VerifyProofOptions,
): Promise<{ proofs: VerifiedProof[] }> {
  const { now, skew } = checkVerifyOptions(options);
  if (!isRecord(securedDocument) || !Object.hasOwn(securedDocument, 'proof')) {
    throw new ProofError('PROOF_MISSING', 'document has no proof');
  }
  const allProofs = asList(securedDocument.proof);
  if (allProofs.length === 0) throw new ProofError('PROOF_MISSING', 'document has an empty proof set');

  // All local checks of all proofs first: a document with one bad proof costs no key lookups.
  const parsedProofs = parseProofSet(allProofs, options, now, skew);
  // EdDSA §3.2.2/§3.3.2 step 1: the unsecured document (shallow copy without `proof`).
  const unsecured = withoutProof(securedDocument);
  const hashes = hashJcsProofs(unsecured, parsedProofs, options);
  if (hashes.includes(undefined)) await hashSuiteProofs(unsecured, parsedProofs, hashes, options.limits);

  const verified: VerifiedProof[] = [];
  for (const [i, { proof, proofBytes, created, expires }] of parsedProofs.entries()) {
    // §3.2.7/§3.3.7 step 1: the key comes from the verification method, authorized for the purpose.
    const publicKey = assertBytes(
      await options.resolveKey(proof.verificationMethod, proof.proofPurpose),
      32,
      'resolved public key',
    );
    // §3.2.7/§3.3.7 step 2 (every entry of `hashes` is set by now).
    if (!(await verify(proofBytes, hashes[i] as Uint8Array, publicKey))) {
      throw new ProofError(
        'PROOF_SIGNATURE_INVALID',
        `proof ${i + 1} of ${parsedProofs.length}: signature does not verify`,
      );
    }
    const result: VerifiedProof = { proof, publicKey };
    if (created !== undefined) result.created = new Date(created);
    if (expires !== undefined) result.expires = new Date(expires);
    verified.push(result);
  }
  return { proofs: verified };
}
