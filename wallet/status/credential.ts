/**
 * The documents of Bitstring Status List v1.0: the `BitstringStatusListEntry` a credential
 * carries in `credentialStatus` (§2.1) and the unsigned `BitstringStatusListCredential` that
 * publishes a list (§2.2), with builders (issuer side), parsers that validate untrusted
 * documents (verifier side), and the status check of the Validate Algorithm (§3.2).
 *
 * Everything here is pure: securing the list credential (§3.1 step 5) and dereferencing
 * `statusListCredential` (§3.2 step 4) belong to the VC and client layers, which must have
 * verified the list credential's proof before handing it to `checkStatus`.
 */
import { formatDateTimeStamp, parseDateTimeStamp } from '../crypto/proof-config.ts';
import { assertStatusSize, getStatus, type StatusBitstring } from './bitstring.ts';
import { ENCODED_LIST_SYNTAX, decodeStatusList, type DecodeStatusListOptions } from './encoded-list.ts';
import { StatusListError, type StatusListErrorCode } from './errors.ts';

export const VC_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';

/** One element of statusMessage (§2.1): `status` is the value in hex with "0x", `message` is for developers. */
export interface StatusMessage {
  readonly status: string;
  readonly message: string;
}

/** A credentialStatus entry (Bitstring Status List §2.1). */
export interface BitstringStatusListEntry {
  readonly id?: string;
  readonly type: 'BitstringStatusListEntry';
  readonly statusPurpose: string;
  /** Base-10 string of an integer ≥ 0 (§2.1). */
  readonly statusListIndex: string;
  readonly statusListCredential: string;
  readonly statusSize?: number;
  readonly statusMessage?: readonly StatusMessage[];
  readonly statusReference?: string | readonly string[];
}

/** The credentialSubject of a list credential (§2.2). */
export interface BitstringStatusList {
  readonly id?: string;
  readonly type: 'BitstringStatusList';
  /** "One or more strings" (§2.2). */
  readonly statusPurpose: string | readonly string[];
  readonly encodedList: string;
  /** Milliseconds before a refresh SHOULD be attempted (§2.2 ttl). */
  readonly ttl?: number;
  readonly statusSize?: number;
  readonly statusMessage?: readonly StatusMessage[];
}

/** An unsigned BitstringStatusListCredential (§2.2), as built here or as parsed from a document. */
export interface BitstringStatusListCredential {
  readonly '@context': readonly string[];
  readonly id?: string;
  readonly type: readonly string[];
  readonly issuer: string | { readonly id: string };
  readonly validFrom?: string;
  readonly validUntil?: string;
  readonly credentialSubject: BitstringStatusList;
}

// ---------------------------------------------------------------------------------------------
// Field checks shared by builders (INVALID_STATUS_ARGUMENT) and parsers (…_MALFORMED): each
// takes the code to raise so the same rule yields the error that fits the caller.

type Code = StatusListErrorCode;

function fail(code: Code, message: string): never {
  throw new StatusListError(code, message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function url(value: unknown, name: string, code: Code): string {
  if (typeof value !== 'string') return fail(code, `${name} must be a URL string`);
  try {
    new URL(value);
  } catch {
    return fail(code, `${name} must be a URL, got ${JSON.stringify(value.slice(0, 100))}`);
  }
  return value;
}

function purpose(value: unknown, code: Code): string {
  if (typeof value !== 'string' || value.length === 0) return fail(code, 'statusPurpose must be a non-empty string');
  return value;
}

// VC 2.0 §4.8 (validity period): xsd:dateTimeStamp, i.e. with a time zone.
/** An XML Schema dateTimeStamp (VC DM 2.0 validFrom/validUntil), read by the same rules as every other date in Mandate. */
function dateTime(value: unknown, name: string, code: Code): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return fail(code, `${name} is an invalid Date`);
    return formatDateTimeStamp(value);
  }
  if (parseDateTimeStamp(value) === undefined)
    return fail(code, `${name} must be an XML Schema dateTimeStamp such as 2025-01-01T00:00:00Z`);
  return value as string;
}

const STATUS_HEX = /^0x[0-9a-fA-F]{1,2}$/;

/**
 * §2.1 statusSize/statusMessage: size defaults to 1; size > 1 requires statusMessage; when present
 * it has exactly 2^size elements, each with a "0x…" status and a string message. We also require
 * every value 0..2^size−1 to appear exactly once, so each status has one message.
 */
function sizeAndMessages(
  size: unknown,
  messages: unknown,
  code: Code,
): { statusSize: number; statusMessage?: StatusMessage[] } {
  const statusSize = size ?? 1;
  assertStatusSize(statusSize, code);
  if (messages === undefined) {
    if (statusSize > 1) fail(code, 'statusMessage is required when statusSize is greater than 1');
    return { statusSize };
  }
  const count = 2 ** statusSize;
  if (!Array.isArray(messages) || messages.length !== count) {
    return fail(code, `statusMessage must be an array of ${count} elements for statusSize ${statusSize}`);
  }
  const seen = new Set<number>();
  const statusMessage = (messages as unknown[]).map((element) => {
    if (
      !isRecord(element) ||
      typeof element.status !== 'string' ||
      typeof element.message !== 'string' ||
      !STATUS_HEX.test(element.status)
    ) {
      return fail(code, 'each statusMessage element needs a "0x…" status and a string message');
    }
    const value = Number.parseInt(element.status.slice(2), 16);
    if (value >= count || seen.has(value))
      return fail(code, `statusMessage must list each status from 0x0 to 0x${(count - 1).toString(16)} once`);
    seen.add(value);
    return { status: element.status, message: element.message };
  });
  return { statusSize, statusMessage };
}

function optionalTtl(value: unknown, code: Code): number | undefined {
  if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)) {
    fail(code, 'ttl must be a non-negative integer number of milliseconds');
  }
  return value;
}

function optionalUrls(value: unknown, name: string, code: Code): string | string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return (value as unknown[]).map((item) => url(item, name, code));
  return url(value, name, code);
}

// Only the properties that are present, so built and parsed documents carry no `undefined` keys
// (JCS canonicalisation would reject them, and they would change the signed bytes).
function defined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

// §2.1 statusListIndex: "an arbitrary size integer greater than or equal to 0, expressed as a
// string in base 10". ASCII digits only: no sign, exponent, spaces, or other scripts' digits.
const DECIMAL = /^[0-9]+$/;

// ---------------------------------------------------------------------------------------------
// Builders (issuer side).

export interface StatusListCredentialInput {
  /** URL the list credential is published at; entries point to it in statusListCredential. */
  id: string;
  issuer: string;
  validFrom: string | Date;
  validUntil?: string | Date;
  statusPurpose: string | readonly string[];
  /** From `encodeStatusList`. */
  encodedList: string;
  ttl?: number;
  statusSize?: number;
  statusMessage?: readonly StatusMessage[];
}

/** The unsigned BitstringStatusListCredential (§2.2, §3.1 steps 2–4), ready to be secured. */
export function buildStatusListCredential(input: StatusListCredentialInput): BitstringStatusListCredential {
  const code = 'INVALID_STATUS_ARGUMENT';
  const id = url(input.id, 'id', code);
  // The subject is `<id>#list`, so the credential id itself must not carry a fragment.
  if (id.includes('#')) fail(code, 'the list credential id must not contain a fragment');
  const purposes =
    typeof input.statusPurpose === 'string'
      ? purpose(input.statusPurpose, code)
      : [...input.statusPurpose].map((p) => purpose(p, code));
  if (Array.isArray(purposes) && purposes.length === 0) fail(code, 'statusPurpose must name at least one purpose');
  if (typeof input.encodedList !== 'string' || !ENCODED_LIST_SYNTAX.test(input.encodedList)) {
    fail(code, 'encodedList must come from encodeStatusList');
  }
  const sized = input.statusSize !== undefined || input.statusMessage !== undefined;
  const { statusSize, statusMessage } = sizeAndMessages(input.statusSize, input.statusMessage, code);
  return defined({
    '@context': [VC_V2_CONTEXT],
    id,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    issuer: url(input.issuer, 'issuer', code),
    validFrom: dateTime(input.validFrom, 'validFrom', code),
    validUntil: input.validUntil === undefined ? undefined : dateTime(input.validUntil, 'validUntil', code),
    credentialSubject: defined({
      id: `${id}#list`,
      type: 'BitstringStatusList' as const,
      statusPurpose: purposes,
      encodedList: input.encodedList,
      ttl: optionalTtl(input.ttl, code),
      statusSize: sized ? statusSize : undefined,
      statusMessage,
    }),
  });
}

export interface StatusListEntryInput {
  /** URL of the list credential (its `id`). */
  statusListCredential: string;
  /** From `allocateIndex`. */
  statusListIndex: number;
  statusPurpose: string;
  /** Default `<statusListCredential>#<index>`, as in the spec's examples; never the list's own URL. */
  id?: string;
  statusSize?: number;
  statusMessage?: readonly StatusMessage[];
  statusReference?: string | readonly string[];
}

/** The credentialStatus entry (§2.1) for one index of a list. */
export function buildStatusListEntry(input: StatusListEntryInput): BitstringStatusListEntry {
  const code = 'INVALID_STATUS_ARGUMENT';
  const statusListCredential = url(input.statusListCredential, 'statusListCredential', code);
  const index = input.statusListIndex;
  if (!Number.isSafeInteger(index) || index < 0) fail(code, 'statusListIndex must be a non-negative integer');
  const id = url(input.id ?? `${statusListCredential}#${index}`, 'id', code);
  if (id === statusListCredential) fail(code, 'the entry id must not be the URL of the status list (§2.1)');
  const { statusSize, statusMessage } = sizeAndMessages(input.statusSize, input.statusMessage, code);
  return defined({
    id,
    type: 'BitstringStatusListEntry' as const,
    statusPurpose: purpose(input.statusPurpose, code),
    statusListIndex: String(index),
    statusListCredential,
    statusSize: input.statusSize === undefined ? undefined : statusSize,
    statusMessage,
    statusReference: optionalUrls(input.statusReference, 'statusReference', code),
  });
}

// ---------------------------------------------------------------------------------------------
// Parsers (verifier side): validate an untrusted document and return a fresh copy of the
// status-relevant properties, so later changes to the document cannot alter what was checked.

/** Validates a credentialStatus entry (§2.1); STATUS_ENTRY_MALFORMED when it is not one. */
export function parseStatusListEntry(value: unknown): BitstringStatusListEntry {
  const code = 'STATUS_ENTRY_MALFORMED';
  if (!isRecord(value)) return fail(code, 'a credentialStatus entry must be an object');
  if (value.type !== 'BitstringStatusListEntry') fail(code, 'credentialStatus.type must be "BitstringStatusListEntry"');
  const statusListCredential = url(value.statusListCredential, 'statusListCredential', code);
  if (typeof value.statusListIndex !== 'string' || !DECIMAL.test(value.statusListIndex)) {
    fail(code, 'statusListIndex must be a base-10 string of digits');
  }
  const id = value.id === undefined ? undefined : url(value.id, 'id', code);
  if (id === statusListCredential) fail(code, 'the entry id must not be the URL of the status list (§2.1)');
  const { statusMessage } = sizeAndMessages(value.statusSize, value.statusMessage, code);
  return defined({
    id,
    type: 'BitstringStatusListEntry' as const,
    statusPurpose: purpose(value.statusPurpose, code),
    statusListIndex: value.statusListIndex,
    statusListCredential,
    statusSize: value.statusSize as number | undefined,
    statusMessage,
    statusReference: optionalUrls(value.statusReference, 'statusReference', code),
  });
}

/**
 * Validates the shape of a list credential (§2.2) and its subject; STATUS_LIST_MALFORMED when it
 * is not one. The proof is not checked here, and `encodedList` is only checked to be base64url
 * text: `decodeStatusList` expands it under size limits.
 */
export function parseStatusListCredential(value: unknown): BitstringStatusListCredential {
  const code = 'STATUS_LIST_MALFORMED';
  if (!isRecord(value)) return fail(code, 'a status list credential must be an object');
  const context = value['@context'];
  // VC 2.0 §4.3: @context is an ordered set whose first item is the v2 context.
  if (!Array.isArray(context) || context[0] !== VC_V2_CONTEXT || !context.every((c) => typeof c === 'string')) {
    fail(code, `@context must be an array of strings starting with ${VC_V2_CONTEXT}`);
  }
  const type = value.type;
  if (
    !Array.isArray(type) ||
    !type.every((t) => typeof t === 'string') ||
    !type.includes('VerifiableCredential') ||
    !type.includes('BitstringStatusListCredential')
  ) {
    fail(code, 'type must include "VerifiableCredential" and "BitstringStatusListCredential"');
  }
  const issuer = isRecord(value.issuer)
    ? { id: url(value.issuer.id, 'issuer.id', code) }
    : url(value.issuer, 'issuer', code);
  const subject = value.credentialSubject;
  if (!isRecord(subject)) return fail(code, 'credentialSubject must be one object');
  if (subject.type !== 'BitstringStatusList') fail(code, 'credentialSubject.type must be "BitstringStatusList"');
  const purposes = subject.statusPurpose;
  const statusPurpose = Array.isArray(purposes)
    ? (purposes as unknown[]).map((p) => purpose(p, code))
    : purpose(purposes, code);
  if (Array.isArray(statusPurpose) && statusPurpose.length === 0)
    fail(code, 'statusPurpose must name at least one purpose');
  if (typeof subject.encodedList !== 'string' || !ENCODED_LIST_SYNTAX.test(subject.encodedList)) {
    fail(code, 'encodedList must be multibase base64url without padding ("u" prefix)');
  }
  const { statusMessage } = sizeAndMessages(subject.statusSize, subject.statusMessage, code);
  return defined({
    '@context': [...context],
    id: value.id === undefined ? undefined : url(value.id, 'id', code),
    type: [...type],
    issuer,
    validFrom: value.validFrom === undefined ? undefined : dateTime(value.validFrom, 'validFrom', code),
    validUntil: value.validUntil === undefined ? undefined : dateTime(value.validUntil, 'validUntil', code),
    credentialSubject: defined({
      id: subject.id === undefined ? undefined : url(subject.id, 'credentialSubject.id', code),
      type: 'BitstringStatusList' as const,
      statusPurpose,
      encodedList: subject.encodedList,
      ttl: optionalTtl(subject.ttl, code),
      statusSize: subject.statusSize as number | undefined,
      statusMessage,
    }),
  });
}

// ---------------------------------------------------------------------------------------------
// The status check (§3.2).

/** The result map of §3.2 steps 11–15. */
export interface StatusResult {
  /** The entry's value; 0 means valid. */
  readonly status: number;
  readonly purpose: string;
  readonly valid: boolean;
  /** From statusMessage when defined; "set"/"unset" for purpose "message" without one (§2.1). */
  readonly message?: string;
}

/**
 * §3.2 step 5 and the link between entry and list, checked before any decompression:
 * the entry's purpose must be one of the list's (STATUS_PURPOSE_MISMATCH); the list's id must be
 * the URL the entry names, and the two must agree on statusSize (STATUS_LIST_MISMATCH).
 * The id check matters for lists a holder staples: otherwise another list by the same issuer, on
 * which the holder's index happens to be 0, would pass.
 */
export function assertEntryMatchesList(
  entry: BitstringStatusListEntry,
  credential: BitstringStatusListCredential,
): void {
  const subject = credential.credentialSubject;
  const purposes: readonly string[] =
    typeof subject.statusPurpose === 'string' ? [subject.statusPurpose] : subject.statusPurpose;
  if (!purposes.includes(entry.statusPurpose)) {
    fail(
      'STATUS_PURPOSE_MISMATCH',
      `the entry's statusPurpose "${entry.statusPurpose}" is not a purpose of the status list`,
    );
  }
  // Exact string comparison: the entry's URL is what was dereferenced and what the issuer signed.
  // A list without an id could be any list of its issuer, so it matches no entry.
  if (credential.id !== entry.statusListCredential) {
    fail('STATUS_LIST_MISMATCH', 'the status list credential is not the one the entry refers to');
  }
  if (subject.statusSize !== undefined && subject.statusSize !== (entry.statusSize ?? 1)) {
    fail('STATUS_LIST_MISMATCH', 'the entry and the status list disagree on statusSize');
  }
}

/**
 * The status of `entry` in an already decoded `list` (§3.2 steps 10–15), for verifiers that cache
 * decoded lists. Run `assertEntryMatchesList` first. STATUS_INDEX_OUT_OF_RANGE when the index
 * falls outside the list; STATUS_LIST_MISMATCH when the list was decoded with another statusSize.
 */
export function readEntryStatus(
  entry: BitstringStatusListEntry,
  list: StatusBitstring,
  listMessages?: readonly StatusMessage[],
): StatusResult {
  const statusSize = entry.statusSize ?? 1;
  if (list.statusSize !== statusSize)
    fail('STATUS_LIST_MISMATCH', 'the list was decoded with another statusSize than the entry states');
  // Number() of a digit string is exact up to 2^53 and only grows beyond it, so every index
  // that does not fit in a list Mandate can hold stays out of range.
  const index = Number(entry.statusListIndex);
  if (!Number.isSafeInteger(index) || index >= list.length) {
    fail(
      'STATUS_INDEX_OUT_OF_RANGE',
      `statusListIndex ${entry.statusListIndex.slice(0, 20)} is outside the list of ${list.length} entries`,
    );
  }
  const status = getStatus(list, index);
  // The entry's messages are what the issuer committed to at issuance (§2.1), so they win.
  const messages = entry.statusMessage ?? listMessages;
  const listed = messages?.find((m) => Number.parseInt(m.status.slice(2), 16) === status)?.message;
  const message =
    listed ?? (entry.statusPurpose === 'message' && statusSize === 1 ? (status ? 'set' : 'unset') : undefined);
  return defined({ status, purpose: entry.statusPurpose, valid: status === 0, message });
}

/**
 * Bitstring Status List §3.2 on an entry and its list credential, both untrusted documents; the
 * caller has dereferenced the list and verified its proof (steps 4). Checks shapes, purpose and
 * link (step 5), expands the list under `options`' limits (steps 6–9) and reads the status
 * (steps 10–15). Throws StatusListError with the code of the first failing step.
 */
export async function checkStatus(
  entry: unknown,
  listCredential: unknown,
  options: Omit<DecodeStatusListOptions, 'statusSize'> = {},
): Promise<StatusResult> {
  const parsedEntry = parseStatusListEntry(entry);
  const credential = parseStatusListCredential(listCredential);
  assertEntryMatchesList(parsedEntry, credential);
  const list = await decodeStatusList(credential.credentialSubject.encodedList, {
    ...options,
    statusSize: parsedEntry.statusSize ?? 1,
  });
  return readEntryStatus(parsedEntry, list, credential.credentialSubject.statusMessage);
}
