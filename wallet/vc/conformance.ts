/**
 * VC Data Model 2.0 conformance of a *generic* credential: the structural MUSTs of VC DM 2.0 §4
 * (and §5 for the optional members that need a `type`). Mandate's own credentials go through the
 * stricter profile in `parse.ts`; this is for credentials of any type, such as the ones the
 * issuer's VC-API signs and verifies. VC DM 2.0 §2.1: a conforming issuer produces conforming
 * documents, and a conforming verifier "MUST produce errors when non-conforming documents are
 * consumed" — so both sides run this. Any violation is `MALFORMED`.
 *
 * Not checked here: the proof (VC Data Integrity), what a term means (no JSON-LD processing), and
 * `name`/`description` language maps.
 */
import { parseDateTimeStamp } from '../crypto/data-integrity.ts';
import { isMandateError } from '../crypto/errors.ts';
import { parseStatusListEntry } from '../status/credential.ts';
import { VC_V2_CONTEXT } from './context.ts';
import { VerificationError } from './reasons.ts';

function malformed(message: string): never {
  throw new VerificationError('MALFORMED', message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A URL as VC DM 2.0 §2.2 uses the word: an absolute URL by the WHATWG URL Standard (`urn:`, `did:`, `https:` …). */
function isUrl(value: unknown): value is string {
  return typeof value === 'string' && URL.canParse(value);
}

function requireUrl(value: unknown, what: string): void {
  if (!isUrl(value)) malformed(`${what} must be a URL, got ${JSON.stringify(value)?.slice(0, 100) ?? 'nothing'}`);
}

/** One value or a non-empty array of them (VC DM 2.0 "one or more"). */
function oneOrMore(value: unknown, what: string): unknown[] {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) malformed(`${what} must not be an empty array`);
  return items;
}

/** §4.5: `type` is one or more terms or URLs. */
function types(value: unknown, what: string): string[] {
  const list = oneOrMore(value, `${what}.type`);
  if (list.some((t) => typeof t !== 'string' || t.length === 0)) malformed(`${what}.type must be one or more non-empty strings`);
  return list as string[];
}

/** §4.3: an ordered set whose first item is the v2 context, then URLs and context objects. */
function checkContext(value: unknown): void {
  if (!Array.isArray(value) || value[0] !== VC_V2_CONTEXT) malformed(`@context must be an array starting with ${VC_V2_CONTEXT}`);
  for (const entry of value.slice(1)) {
    if (!isUrl(entry) && !isObject(entry)) malformed('every @context entry after the first must be a URL or a context object');
  }
}

/**
 * Members that are one or more objects, each with a `type` (§4.10 credentialStatus, §4.11
 * credentialSchema, §5.4 refreshService, §5.5 termsOfUse, §5.6 evidence) and, where given or
 * required, a URL `id`.
 */
const TYPED_MEMBERS: ReadonlyArray<{ name: string; idRequired: boolean }> = [
  { name: 'credentialStatus', idRequired: false },
  { name: 'credentialSchema', idRequired: true },
  { name: 'refreshService', idRequired: false },
  { name: 'termsOfUse', idRequired: false },
  { name: 'evidence', idRequired: false },
];

function checkTypedMember(value: unknown, name: string, idRequired: boolean): void {
  for (const item of oneOrMore(value, name)) {
    if (!isObject(item)) malformed(`${name} must be an object or an array of objects`);
    const itemTypes = types(item.type, name);
    if (idRequired || item.id !== undefined) requireUrl(item.id, `${name}.id`);
    if (name === 'credentialStatus' && itemTypes.includes('BitstringStatusListEntry')) checkStatusListEntry(item);
  }
}

/** Bitstring Status List §2.1: the entry rules, with the status module's wording. */
function checkStatusListEntry(entry: Record<string, unknown>): void {
  try {
    parseStatusListEntry(entry);
  } catch (error) {
    malformed(`credentialStatus: ${isMandateError(error) ? error.message : 'not a BitstringStatusListEntry'}`);
  }
}

/**
 * Throws `VerificationError('MALFORMED')` naming the first VC DM 2.0 rule `value` breaks. The
 * `proof` member is not looked at, so a credential can be checked before it is signed.
 */
export function assertConformingCredential(value: unknown): void {
  if (!isObject(value)) malformed('a credential must be a JSON object');
  checkContext(value['@context']);
  if (value.id !== undefined) requireUrl(value.id, 'id'); // §4.4
  if (!types(value.type, 'credential').includes('VerifiableCredential')) malformed('type must include VerifiableCredential');
  // §4.7: a URL, or an object whose id is one.
  requireUrl(isObject(value.issuer) ? value.issuer.id : value.issuer, 'issuer');
  // §4.8: one or more objects, each the subject of one or more claims.
  for (const subject of oneOrMore(value.credentialSubject, 'credentialSubject')) {
    if (!isObject(subject) || Object.keys(subject).length === 0) malformed('credentialSubject must be one or more non-empty objects');
    if (subject.id !== undefined) requireUrl(subject.id, 'credentialSubject.id');
  }
  // §4.9: dateTimeStamps, validFrom not after validUntil.
  const validFrom = value.validFrom === undefined ? undefined : parseDateTimeStamp(value.validFrom);
  const validUntil = value.validUntil === undefined ? undefined : parseDateTimeStamp(value.validUntil);
  if (value.validFrom !== undefined && validFrom === undefined) malformed('validFrom must be an XML Schema dateTimeStamp such as 2025-01-01T00:00:00Z');
  if (value.validUntil !== undefined && validUntil === undefined) malformed('validUntil must be an XML Schema dateTimeStamp such as 2025-01-01T00:00:00Z');
  if (validFrom !== undefined && validUntil !== undefined && validUntil < validFrom) malformed('validUntil is before validFrom');
  for (const { name, idRequired } of TYPED_MEMBERS) {
    if (value[name] !== undefined) checkTypedMember(value[name], name, idRequired);
  }
}
