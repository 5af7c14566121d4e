/**
 * The pieces of Data Integrity EdDSA Cryptosuites v1.0 §3.3 `eddsa-jcs-2022` that turn a
 * document and a proof into the 64 bytes that Ed25519 signs: §3.3.3 Transformation, §3.3.4
 * Hashing, §3.3.5 Proof Configuration; plus the proof data model of VC Data Integrity 1.0
 * §2.1 "Proofs" and its dateTimeStamp values, shared by every EdDSA cryptosuite (the
 * `eddsa-rdfc-2022` steps of §3.2 are in eddsa-rdfc-2022.ts, Node only).
 *
 * Exported separately from data-integrity.ts (which signs and verifies) so tests and other
 * implementers can check every intermediate value of the W3C test vectors byte for byte.
 */
import { concatBytes } from './bytes.ts';
import { MandateError } from './errors.ts';
import { sha256Utf8 } from './hash.ts';
import { type CanonicalMemo } from './canonical-memo.ts';
import { canonicalizeJson } from './jcs.ts';
import { type JsonLimits, type JsonObject } from './json-value.ts';

export const DATA_INTEGRITY_PROOF = 'DataIntegrityProof';
export const EDDSA_JCS_2022 = 'eddsa-jcs-2022';
/** EdDSA §3.2; implemented in eddsa-rdfc-2022.ts (Node only: it needs a JSON-LD processor). */
export const EDDSA_RDFC_2022 = 'eddsa-rdfc-2022';

/** The `cryptosuite` identifiers of Data Integrity EdDSA Cryptosuites v1.0 §2.2.1 that Mandate implements. */
export type EddsaCryptosuiteName = typeof EDDSA_JCS_2022 | typeof EDDSA_RDFC_2022;

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

/** A `DataIntegrityProof` using an EdDSA cryptosuite (VC Data Integrity 1.0 §2.1, §3.1; EdDSA §2.2.1). */
export interface DataIntegrityProof {
  '@context'?: JsonLdContext;
  id?: string;
  type: typeof DATA_INTEGRITY_PROOF;
  cryptosuite: EddsaCryptosuiteName;
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
const DATE_TIME_STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

const MS_PER_DAY = 86_400_000;

/** Proleptic Gregorian leap years (the calendar of XSD and of ECMAScript dates; year 0 is one). */
function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysInMonth(year: number, month: number): number {
  // 31 for January–July when odd and for August–December when even: (month + month>>3) is odd.
  return month === 2 ? (isLeapYear(year) ? 29 : 28) : 30 + ((month + (month >> 3)) & 1);
}

/**
 * Days from 1970-01-01 to `year-month-day`, proleptic Gregorian (H. Hinnant, days_from_civil),
 * in plain arithmetic: cheaper than Date objects (docs/crypto.md §Hot-path details).
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The number two ASCII digits at `text[i]`, `text[i+1]` spell (already matched as digits). */
function twoDigits(text: string, i: number): number {
  return (text.charCodeAt(i) - 48) * 10 + text.charCodeAt(i + 1) - 48;
}

/**
 * Milliseconds since the epoch of an XSD `dateTimeStamp` ("2023-02-24T23:36:38Z",
 * "2023-02-24T23:36:38.5+01:00"), or undefined when `value` is not one. A timezone is
 * required: VC Data Integrity §2.1 lets processors read zone-less values as UTC, Mandate
 * refuses them instead (fail closed on ambiguous times). Fractions finer than a millisecond
 * are truncated.
 */
export function parseDateTimeStamp(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const known = readStamps.get(value);
  if (known !== undefined) return known;
  const ms = readDateTimeStamp(value);
  if (ms !== undefined && value.length <= 40) {
    if (readStamps.size >= READ_STAMPS_MAX) readStamps.clear();
    readStamps.set(value, ms);
  }
  return ms;
}

/**
 * Timestamps already read, by their text (valid ones only, at most READ_STAMPS_MAX, then afresh):
 * verifiers read the same dates again and again (docs/crypto.md §Hot-path details).
 */
const readStamps = new Map<string, number>();
const READ_STAMPS_MAX = 1024;

function readDateTimeStamp(value: string): number | undefined {
  // The shape is checked once by the pattern; the fields are then read at fixed positions
  // (YYYY-MM-DDTHH:MM:SS, then an optional fraction, then Z or ±HH:MM at the end).
  if (!DATE_TIME_STAMP.test(value)) return undefined;
  const year = twoDigits(value, 0) * 100 + twoDigits(value, 2);
  const month = twoDigits(value, 5);
  const day = twoDigits(value, 8);
  const hour = twoDigits(value, 11);
  const minute = twoDigits(value, 14);
  const second = twoDigits(value, 17);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const utc = value.charCodeAt(value.length - 1) === 90; /* 'Z' */
  const zoneStart = utc ? value.length - 1 : value.length - 6;
  let millis = 0;
  for (let i = 20, scale = 100; i < zoneStart && scale >= 1; i++, scale /= 10)
    millis += (value.charCodeAt(i) - 48) * scale;
  let offsetMinutes = 0;
  if (!utc) {
    const offsetHours = twoDigits(value, zoneStart + 1);
    const offsetMins = twoDigits(value, zoneStart + 4);
    if (offsetHours > 14 || offsetMins > 59 || (offsetHours === 14 && offsetMins !== 0)) return undefined;
    offsetMinutes = (value.charCodeAt(zoneStart) === 45 /* '-' */ ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  return (
    daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millis
  );
}

/** An XSD dateTimeStamp in UTC, with milliseconds only when non-zero ("2023-02-24T23:36:38Z"). */
export function formatDateTimeStamp(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/**
 * §3.3.3 Transformation (eddsa-jcs-2022): the JCS (RFC 8785) canonical form of the unsecured
 * document. (Step 1, the type/cryptosuite check, is made once in `proofConfiguration`, which
 * every caller runs on the same options.) `memo`: see `createCanonicalMemo` in canonical-memo.ts.
 */
export function transformJcs(unsecuredDocument: unknown, limits?: JsonLimits, memo?: CanonicalMemo): string {
  return canonicalizeJson(unsecuredDocument, limits, memo);
}

/**
 * §3.3.5 Proof Configuration (eddsa-jcs-2022): checks the type, cryptosuite and `created` of
 * the proof options and returns their JCS canonical form. The options must not contain
 * `proofValue` (§3.3.2 step 2 removes it before calling this).
 */
export function proofConfiguration(proofOptions: ProofOptions, limits?: JsonLimits, memo?: CanonicalMemo): string {
  checkProofConfiguration(proofOptions, EDDSA_JCS_2022);
  // Steps 1 and 4 (the clone is implicit: canonicalization reads without modifying).
  return canonicalizeJson(proofOptions, limits, memo);
}

/**
 * Steps 2 and 3 of Proof Configuration, the same for every EdDSA cryptosuite (§3.2.5 for
 * eddsa-rdfc-2022, §3.3.5 for eddsa-jcs-2022): the options are a `DataIntegrityProof` of
 * `cryptosuite`, their `created` (when present) is a dateTimeStamp, and they carry no
 * `proofValue` (Verify Proof removes it before calling Proof Configuration).
 */
export function checkProofConfiguration(proofOptions: ProofOptions, cryptosuite: EddsaCryptosuiteName): void {
  // Step 2.
  if (proofOptions.type !== DATA_INTEGRITY_PROOF || proofOptions.cryptosuite !== cryptosuite) {
    throw new ProofError('CRYPTOSUITE_UNSUPPORTED', `proof must be a ${DATA_INTEGRITY_PROOF} using ${cryptosuite}`);
  }
  // Step 3.
  if (proofOptions.created !== undefined && parseDateTimeStamp(proofOptions.created) === undefined) {
    throw new ProofError('PROOF_MALFORMED', 'proof "created" must be an XML Schema dateTimeStamp');
  }
  if (Object.hasOwn(proofOptions, 'proofValue')) {
    throw new ProofError('PROOF_MALFORMED', 'proof options must not contain "proofValue"');
  }
}

/**
 * §3.3.4 Hashing (eddsa-jcs-2022): SHA-256(canonical proof configuration) ‖
 * SHA-256(transformed document), each over UTF-8 (§3.3.3: "Whenever this algorithm encodes
 * strings, it MUST use UTF-8") — the proof configuration hash comes FIRST. 64 bytes. §3.2.4
 * Hashing (eddsa-rdfc-2022) is the same over the canonical N-Quads.
 */
export function hashData(transformedDocument: string, canonicalProofConfig: string): Uint8Array {
  return concatBytes(sha256Utf8(canonicalProofConfig), sha256Utf8(transformedDocument));
}
