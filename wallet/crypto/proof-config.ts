/**
 * The pieces of Data Integrity EdDSA Cryptosuites v1.0 §3.3 `eddsa-jcs-2022` that turn a
 * document and a proof into the 64 bytes that Ed25519 signs: §3.3.3 Transformation, §3.3.4
 * Hashing, §3.3.5 Proof Configuration; plus the proof data model of VC Data Integrity 1.0
 * §2.1 "Proofs" and its dateTimeStamp values.
 *
 * Exported separately from data-integrity.ts (which signs and verifies) so tests and other
 * implementers can check every intermediate value of the W3C test vectors byte for byte.
 */
import { concatBytes } from './bytes.ts';
import { MandateError } from './errors.ts';
import { sha256Utf8 } from './hash.ts';
import { canonicalizeJson, type JsonLimits, type JsonObject } from './jcs.ts';

export const DATA_INTEGRITY_PROOF = 'DataIntegrityProof';
export const EDDSA_JCS_2022 = 'eddsa-jcs-2022';

export type ProofErrorCode =
  | 'PROOF_MISSING'
  | 'PROOF_MALFORMED'
  | 'CRYPTOSUITE_UNSUPPORTED'
  | 'PROOF_PURPOSE_MISMATCH'
  | 'PROOF_CONTEXT_MISMATCH'
  | 'PROOF_EXPIRED'
  | 'PROOF_NOT_YET_VALID'
  | 'CHALLENGE_MISMATCH'
  | 'DOMAIN_MISMATCH'
  | 'PROOF_SIGNATURE_INVALID'
  | 'PROOF_OPTIONS_INVALID';

/** A Data Integrity proof failed, or was asked for with unusable options (PROOF_OPTIONS_INVALID). */
export class ProofError extends MandateError<ProofErrorCode> {
  override name = 'ProofError';
}

/** A JSON-LD `@context` value as carried by documents and proofs. */
export type JsonLdContext = string | JsonObject | Array<string | JsonObject>;

/** A `DataIntegrityProof` using `eddsa-jcs-2022` (VC Data Integrity 1.0 §2.1, §3.1). */
export interface DataIntegrityProof {
  '@context'?: JsonLdContext;
  id?: string;
  type: typeof DATA_INTEGRITY_PROOF;
  cryptosuite: typeof EDDSA_JCS_2022;
  verificationMethod: string;
  proofPurpose: string;
  created?: string;
  expires?: string;
  challenge?: string;
  domain?: string | string[];
  nonce?: string;
  previousProof?: string | string[];
  proofValue: string;
}

/** Proof options: a proof without its value (the input of §3.3.5 Proof Configuration). */
export type ProofOptions = Omit<DataIntegrityProof, 'proofValue'>;

// XML Schema 1.1 Part 2 §3.4.28 dateTimeStamp: dateTime with a mandatory timezone. Years are
// limited to four digits and 24:00:00 is refused: neither appears in real proofs, and both
// complicate comparison for no benefit.
const DATE_TIME_STAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Milliseconds since the epoch of an XSD `dateTimeStamp` ("2023-02-24T23:36:38Z",
 * "2023-02-24T23:36:38.5+01:00"), or undefined when `value` is not one. A timezone is
 * required: VC Data Integrity §2.1 lets processors read zone-less values as UTC, Mandate
 * refuses them instead (fail closed on ambiguous times).
 */
export function parseDateTimeStamp(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DATE_TIME_STAMP.exec(value);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (m[8] !== 'Z') {
    const offsetHours = Number(m[9]);
    const offsetMins = Number(m[10]);
    if (offsetHours > 14 || offsetMins > 59 || (offsetHours === 14 && offsetMins !== 0)) return undefined;
    offsetMinutes = (m[8]?.[0] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // setUTCFullYear, unlike Date.UTC, keeps years 0–99 literal
  if (date.getUTCMonth() !== month - 1) return undefined; // day past the end of the month rolled over
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime() - offsetMinutes * 60_000;
}

/** An XSD dateTimeStamp in UTC, with milliseconds only when non-zero ("2023-02-24T23:36:38Z"). */
export function formatDateTimeStamp(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/**
 * §3.3.3 Transformation (eddsa-jcs-2022): the JCS (RFC 8785) canonical form of the unsecured
 * document. (Step 1, the type/cryptosuite check, is made once in `proofConfiguration`, which
 * every caller runs on the same options.)
 */
export function transformJcs(unsecuredDocument: unknown, limits?: JsonLimits): string {
  return canonicalizeJson(unsecuredDocument, limits);
}

/**
 * §3.3.5 Proof Configuration (eddsa-jcs-2022): checks the type, cryptosuite and `created` of
 * the proof options and returns their JCS canonical form. The options must not contain
 * `proofValue` (§3.3.2 step 2 removes it before calling this).
 */
export function proofConfiguration(proofOptions: ProofOptions, limits?: JsonLimits): string {
  // Step 2.
  if (proofOptions.type !== DATA_INTEGRITY_PROOF || proofOptions.cryptosuite !== EDDSA_JCS_2022) {
    throw new ProofError('CRYPTOSUITE_UNSUPPORTED', `proof must be a ${DATA_INTEGRITY_PROOF} using ${EDDSA_JCS_2022}`);
  }
  // Step 3.
  if (proofOptions.created !== undefined && parseDateTimeStamp(proofOptions.created) === undefined) {
    throw new ProofError('PROOF_MALFORMED', 'proof "created" must be an XML Schema dateTimeStamp');
  }
  if (Object.hasOwn(proofOptions, 'proofValue')) {
    throw new ProofError('PROOF_MALFORMED', 'proof options must not contain "proofValue"');
  }
  // Steps 1 and 4 (the clone is implicit: canonicalization reads without modifying).
  return canonicalizeJson(proofOptions, limits);
}

/**
 * §3.3.4 Hashing (eddsa-jcs-2022): SHA-256(canonical proof configuration) ‖
 * SHA-256(transformed document), each over UTF-8 (§3.3.3: "Whenever this algorithm encodes
 * strings, it MUST use UTF-8") — the proof configuration hash comes FIRST. 64 bytes.
 */
export function hashData(transformedDocument: string, canonicalProofConfig: string): Uint8Array {
  return concatBytes(sha256Utf8(canonicalProofConfig), sha256Utf8(transformedDocument));
}
