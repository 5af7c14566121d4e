/**
 * VC Data Model 2.0 conformance of a *generic* credential: the structural MUSTs of VC DM 2.0 §4
 * (and §5 for the optional members that need a `type`). Mandate's own credentials go through the
 * stricter profile in `parse.ts`; this is for credentials of any type, such as the ones the
 * issuer's VC-API signs and verifies. VC DM 2.0 §2.1: a conforming issuer produces conforming
 * documents, and a conforming verifier "MUST produce errors when non-conforming documents are
 * consumed" — so both sides run this. Any violation is `MALFORMED`.
 *
 * Not checked here: the proof (VC Data Integrity), what a term means (no JSON-LD processing:
 * wallet/jsonld/rules.ts does that in Node), and whether a related resource's digest matches it.
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
  if (list.some((t) => typeof t !== 'string' || t.length === 0))
    malformed(`${what}.type must be one or more non-empty strings`);
  return list as string[];
}

/** §4.3: an ordered set whose first item is the v2 context, then URLs and context objects. */
function checkContext(value: unknown): void {
  if (!Array.isArray(value) || value[0] !== VC_V2_CONTEXT)
    malformed(`@context must be an array starting with ${VC_V2_CONTEXT}`);
  for (const entry of value.slice(1)) {
    if (!isUrl(entry) && !isObject(entry))
      malformed('every @context entry after the first must be a URL or a context object');
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
 * Members VC DM 2.0 defines on a credential. One that is present must have a value: JSON-LD reads
 * `null` as absent, so `"id": null` would otherwise pass as "no id" (and an issuer fill it in).
 */
const DEFINED_MEMBERS = [
  'id',
  'type',
  'issuer',
  'credentialSubject',
  'validFrom',
  'validUntil',
  'credentialStatus',
  'credentialSchema',
  'refreshService',
  'termsOfUse',
  'evidence',
  'relatedResource',
  'name',
  'description',
  'renderMethod',
  'confidenceMethod',
] as const;

function checkPresentMembers(value: Record<string, unknown>, what: string, members: readonly string[]): void {
  for (const member of members) {
    if (Object.hasOwn(value, member) && value[member] === null)
      malformed(`${what}${member} is null: a member that is present must have a value (VC DM 2.0 §4)`);
  }
}

const VALUE_OBJECT_MEMBERS: ReadonlySet<string> = new Set(['@value', '@language', '@direction']);

/**
 * §4.6 name and description: a string, a language value object (§11.1: `@value`, and optionally
 * `@language` and `@direction`, nothing else), or several of them.
 */
function checkLanguageValue(value: unknown, what: string): void {
  for (const item of oneOrMore(value, what)) {
    if (typeof item === 'string') continue;
    if (!isObject(item) || typeof item['@value'] !== 'string')
      malformed(
        `${what} must be a string or a language value object ({"@value", "@language"?, "@direction"?}) (§4.6, §11.1)`,
      );
    const extra = Object.keys(item).find((key) => !VALUE_OBJECT_MEMBERS.has(key));
    if (extra !== undefined)
      malformed(
        `${what} is a language value object with a member other than @value, @language and @direction: ${JSON.stringify(extra.slice(0, 64))} (§11.1)`,
      );
    if (
      item['@language'] !== undefined &&
      (typeof item['@language'] !== 'string' || !/^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(item['@language']))
    ) {
      malformed(`${what}["@language"] must be a BCP 47 language tag (§11.1)`);
    }
    if (item['@direction'] !== undefined && item['@direction'] !== 'ltr' && item['@direction'] !== 'rtl')
      malformed(`${what}["@direction"] must be "ltr" or "rtl" (§11.1)`);
  }
}

function checkNamesOf(value: Record<string, unknown>, what: string): void {
  for (const member of ['name', 'description']) {
    if (value[member] !== undefined) checkLanguageValue(value[member], `${what}${member}`);
  }
}

// SRI §3.5 hash-expression: an algorithm, "-", base64 (RFC 4648 §4, not base64url) of the digest.
const DIGEST_SRI = /^sha(?:256|384|512)-[A-Za-z0-9+/]+={0,2}$/;
// Multibase base64url ("u") or base58btc ("z") text (Controlled Identifiers 1.0 §2.4).
const DIGEST_MULTIBASE = /^(?:u[A-Za-z0-9_-]+|z[1-9A-HJ-NP-Za-km-z]+)$/;

/**
 * §5.3 relatedResource: one or more objects, each with a URL `id` no other has, and a
 * `digestSRI` or `digestMultibase` (whether the digest matches the resource is checked where the
 * resource's bytes are known: wallet/jsonld/rules.ts).
 */
function checkRelatedResources(value: unknown): void {
  const ids = new Set<string>();
  for (const resource of oneOrMore(value, 'relatedResource')) {
    if (!isObject(resource)) malformed('relatedResource must be an object or an array of objects (§5.3)');
    requireUrl(resource.id, 'relatedResource.id');
    if (ids.has(resource.id as string))
      malformed(`relatedResource.id ${JSON.stringify(resource.id)} appears twice: each id must be unique (§5.3)`);
    ids.add(resource.id as string);
    if (resource.digestSRI === undefined && resource.digestMultibase === undefined)
      malformed('each relatedResource needs a digestSRI or a digestMultibase (§5.3)');
    if (
      resource.digestSRI !== undefined &&
      (typeof resource.digestSRI !== 'string' || !DIGEST_SRI.test(resource.digestSRI))
    )
      malformed('relatedResource.digestSRI must be an SRI hash expression such as sha384-<base64> (§5.3)');
    if (
      resource.digestMultibase !== undefined &&
      (typeof resource.digestMultibase !== 'string' || !DIGEST_MULTIBASE.test(resource.digestMultibase))
    ) {
      malformed('relatedResource.digestMultibase must be multibase text, base64url ("u…") or base58btc ("z…") (§5.3)');
    }
    if (resource.mediaType !== undefined && typeof resource.mediaType !== 'string')
      malformed('relatedResource.mediaType must be a string (§5.3)');
  }
}

/**
 * Throws `VerificationError('MALFORMED')` naming the first VC DM 2.0 rule `value` breaks. The
 * `proof` member is not looked at, so a credential can be checked before it is signed.
 */
export function assertConformingCredential(value: unknown): void {
  if (!isObject(value)) malformed('a credential must be a JSON object');
  checkPresentMembers(value, '', DEFINED_MEMBERS);
  checkContext(value['@context']);
  if (value.id !== undefined) requireUrl(value.id, 'id'); // §4.4
  if (!types(value.type, 'credential').includes('VerifiableCredential'))
    malformed('type must include VerifiableCredential');
  // §4.7: a URL, or an object whose id is one.
  requireUrl(isObject(value.issuer) ? value.issuer.id : value.issuer, 'issuer');
  checkNamesOf(value, '');
  if (isObject(value.issuer)) checkNamesOf(value.issuer, 'issuer.');
  // §4.8: one or more objects, each the subject of one or more claims.
  for (const subject of oneOrMore(value.credentialSubject, 'credentialSubject')) {
    if (!isObject(subject) || Object.keys(subject).length === 0)
      malformed('credentialSubject must be one or more non-empty objects');
    if (subject.id !== undefined) requireUrl(subject.id, 'credentialSubject.id');
  }
  // §4.9: dateTimeStamps, validFrom not after validUntil.
  const validFrom = value.validFrom === undefined ? undefined : parseDateTimeStamp(value.validFrom);
  const validUntil = value.validUntil === undefined ? undefined : parseDateTimeStamp(value.validUntil);
  if (value.validFrom !== undefined && validFrom === undefined)
    malformed('validFrom must be an XML Schema dateTimeStamp such as 2025-01-01T00:00:00Z');
  if (value.validUntil !== undefined && validUntil === undefined)
    malformed('validUntil must be an XML Schema dateTimeStamp such as 2025-01-01T00:00:00Z');
  if (validFrom !== undefined && validUntil !== undefined && validUntil < validFrom)
    malformed('validUntil is before validFrom');
  for (const { name, idRequired } of TYPED_MEMBERS) {
    if (value[name] !== undefined) checkTypedMember(value[name], name, idRequired);
  }
  if (value.relatedResource !== undefined) checkRelatedResources(value.relatedResource);
}

export const VC_V1_CONTEXT = 'https://www.w3.org/2018/credentials/v1';

/**
 * VC Data Model 1.1 §4, for credentials other implementations still send (secured with Data
 * Integrity): the v1 context first, `VerifiableCredential`, a URL issuer, a subject,
 * `issuanceDate` (required) and `expirationDate` as dateTimes, status and schema entries with
 * an `id` and a `type`. Verified, never issued: Mandate issues VC 2.0.
 */
export function assertConformingCredentialV1(value: unknown): void {
  if (!isObject(value)) malformed('a credential must be a JSON object');
  checkPresentMembers(value, '', [...DEFINED_MEMBERS, 'issuanceDate', 'expirationDate']);
  const context = value['@context'];
  if (!Array.isArray(context) || context[0] !== VC_V1_CONTEXT)
    malformed(`a VC 1.1 @context must be an array starting with ${VC_V1_CONTEXT}`);
  if (value.id !== undefined) requireUrl(value.id, 'id');
  if (!types(value.type, 'credential').includes('VerifiableCredential'))
    malformed('type must include VerifiableCredential');
  requireUrl(isObject(value.issuer) ? value.issuer.id : value.issuer, 'issuer');
  for (const subject of oneOrMore(value.credentialSubject, 'credentialSubject')) {
    if (!isObject(subject) || Object.keys(subject).length === 0)
      malformed('credentialSubject must be one or more non-empty objects');
  }
  if (parseDateTimeStamp(value.issuanceDate) === undefined)
    malformed('issuanceDate is required in VC 1.1, as an XML Schema dateTime with a time zone');
  if (value.expirationDate !== undefined && parseDateTimeStamp(value.expirationDate) === undefined)
    malformed('expirationDate must be an XML Schema dateTime with a time zone');
  for (const name of ['credentialStatus', 'credentialSchema']) {
    if (value[name] !== undefined) checkTypedMember(value[name], name, true);
  }
}

/** Which data model a credential claims by its first context: 2 (VC DM 2.0), 1 (VC DM 1.1), or undefined. */
export function credentialDataModel(value: unknown): 1 | 2 | undefined {
  const contexts = isObject(value) ? value['@context'] : undefined;
  const first: unknown = Array.isArray(contexts) ? contexts[0] : undefined;
  return first === VC_V2_CONTEXT ? 2 : first === VC_V1_CONTEXT ? 1 : undefined;
}
