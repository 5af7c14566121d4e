/**
 * Structural validation of DID documents that arrive from outside (a did:web host, a ledger
 * message). A document that passes has the types `DidDocument` promises, so code downstream
 * can trust its fields; anything else fails closed with INVALID_DID_DOCUMENT. Only the
 * properties Mandate reads are checked deeply (DID Core §5); unknown properties are kept.
 */
import { DidError } from './errors.ts';
import { VERIFICATION_RELATIONSHIPS, type DidDocument } from './types.ts';

/** Caps on array lengths: a real document has a handful of keys and services. */
const MAX_ENTRIES = 256;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(message: string): never {
  throw new DidError('INVALID_DID_DOCUMENT', message);
}

function checkStringOrStrings(value: unknown, name: string): void {
  if (value === undefined || typeof value === 'string') return;
  if (!Array.isArray(value) || value.length > MAX_ENTRIES || !value.every((v) => typeof v === 'string')) {
    fail(`${name} must be a string or an array of strings`);
  }
}

function checkArray(value: unknown, name: string): unknown[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) fail(`${name} must be an array`);
  if (value.length > MAX_ENTRIES) fail(`${name} has more than ${MAX_ENTRIES} entries`);
  return value as unknown[];
}

/** Verification material properties (DID Core §5.2.1; `publicKeyBase58` from the older suites). */
const MATERIALS = ['publicKeyMultibase', 'publicKeyJwk', 'publicKeyBase58'] as const;

/**
 * DID Core §5.2.1 (and Controlled Identifiers §2.2): "A verification method MUST NOT contain
 * multiple verification material properties for the same material." With two, verifiers that
 * read different properties would disagree about which key the document authorizes.
 */
export function materialProperties(vm: object): string[] {
  return MATERIALS.filter((key) => (vm as Record<string, unknown>)[key] !== undefined);
}

// DID Core §5.2: id, type and controller are required strings; key material is typed.
function checkVerificationMethod(value: unknown, name: string): void {
  if (!isObject(value)) fail(`${name} must be an object`);
  for (const key of ['id', 'type', 'controller'] as const) {
    if (typeof value[key] !== 'string' || value[key] === '') fail(`${name}.${key} must be a non-empty string`);
  }
  if (value.publicKeyMultibase !== undefined && typeof value.publicKeyMultibase !== 'string') {
    fail(`${name}.publicKeyMultibase must be a string`);
  }
  if (
    value.publicKeyJwk !== undefined &&
    (!isObject(value.publicKeyJwk) || typeof value.publicKeyJwk.kty !== 'string')
  ) {
    fail(`${name}.publicKeyJwk must be a JWK object`);
  }
  const materials = materialProperties(value);
  if (materials.length > 1)
    fail(`${name} carries more than one verification material (${materials.join(', ')}); DID Core §5.2.1 forbids it`);
  for (const key of ['expires', 'revoked'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') fail(`${name}.${key} must be a dateTime string`);
  }
}

/**
 * Asserts `value` is a DID document whose `id` is `expectedId` (DID Core §5.1.1: the document
 * describes exactly the DID that was resolved) and returns it typed.
 */
export function assertDidDocument(value: unknown, expectedId: string): DidDocument {
  checkDidDocument(value, expectedId);
  return value;
}

/** The checks of assertDidDocument, as a TypeScript assertion. */
function checkDidDocument(value: unknown, expectedId: string): asserts value is DidDocument {
  if (!isObject(value)) fail('DID document must be a JSON object');
  if (value.id !== expectedId) fail('DID document id does not match the DID that was resolved');
  const context = value['@context'];
  if (context !== undefined && typeof context !== 'string') {
    const entries = checkArray(context, '@context') ?? [];
    if (!entries.every((c) => typeof c === 'string' || isObject(c)))
      fail('@context entries must be strings or objects');
  }
  checkStringOrStrings(value.controller, 'controller');
  checkStringOrStrings(value.alsoKnownAs, 'alsoKnownAs');
  checkArray(value.verificationMethod, 'verificationMethod')?.forEach((vm, i) =>
    checkVerificationMethod(vm, `verificationMethod[${i}]`),
  );
  for (const relationship of VERIFICATION_RELATIONSHIPS) {
    checkArray(value[relationship], relationship)?.forEach((entry, i) => {
      if (typeof entry !== 'string') checkVerificationMethod(entry, `${relationship}[${i}]`);
    });
  }
  // DID Core §5.4: id and serviceEndpoint required; type a string or a set of strings.
  checkArray(value.service, 'service')?.forEach((service, i) => {
    if (!isObject(service) || typeof service.id !== 'string') fail(`service[${i}] must be an object with a string id`);
    checkStringOrStrings(service.type, `service[${i}].type`);
    if (service.type === undefined || service.serviceEndpoint === undefined)
      fail(`service[${i}] needs type and serviceEndpoint`);
  });
}

/** Freezes a JSON value in place, all the way down, so a cached document cannot be altered by a caller. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
