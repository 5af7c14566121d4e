/**
 * From a proof's `verificationMethod` and `proofPurpose` to the Ed25519 key that must have
 * signed it — the bridge between Data Integrity (`verifyProof` takes a `KeyResolver`) and
 * DID resolution.
 *
 * A key is returned only when all of these hold, each failure with its own stable code (the
 * verifier's reason codes):
 * 1. the DID of the method resolves (DID_RESOLUTION_FAILED names the resolution error),
 * 2. the DID is not deactivated (DID_DEACTIVATED, DID Core §7.1.3),
 * 3. the method is referenced or embedded in the relationship the proof purpose names, its
 *    controller is the DID, and it is neither revoked nor expired (KEY_NOT_AUTHORIZED;
 *    DID Core §5.3, Controlled Identifiers §2.2 `expires`/`revoked`, VC Data Integrity §4.2
 *    "proof purpose"),
 * 4. it is an Ed25519 `Multikey` with a valid key (INVALID_PUBLIC_KEY).
 */
import type { KeyResolver } from '../crypto/data-integrity.ts';
import { isMandateError } from '../crypto/errors.ts';
import { parseDateTimeStamp } from '../crypto/proof-config.ts';
import { ed25519KeyFromMultibase } from './public-key.ts';
import { DidError } from './errors.ts';
import { materialProperties } from './document.ts';
import { parseDid } from './parse.ts';
import type {
  DidDocument,
  DidResolutionResult,
  Resolvable,
  VerificationMethod,
  VerificationRelationship,
} from './types.ts';

/**
 * Resolves a proof's verification method to a 32-byte Ed25519 public key, throwing when the
 * method may not be used for `proofPurpose` — the type Data Integrity's `verifyProof` takes.
 */
export type { KeyResolver };

export interface KeyResolverOptions {
  /** Clock in ms since the epoch for `expires` / `revoked` checks (default Date.now). */
  now?: () => number;
}

/** Proof purposes a key can serve; keyAgreement is for encryption and never signs proofs. */
const PROOF_PURPOSES: ReadonlySet<string> = /* @__PURE__ */ new Set([
  'assertionMethod',
  'authentication',
  'capabilityInvocation',
  'capabilityDelegation',
]);

function notAuthorized(message: string): never {
  throw new DidError('KEY_NOT_AUTHORIZED', message);
}

/** DID Core §3.2.2: a reference starting with "#" is relative to the document's DID. */
export function absoluteDidUrl(reference: string, did: string): string {
  return reference.startsWith('#') ? did + reference : reference;
}

/**
 * The verification method `vmId` of `doc` if it may act for `relationship` (DID Core §5.3):
 * referenced from (or embedded in) that relationship, declared exactly once, and controlled
 * by the document's DID. Throws DidError KEY_NOT_AUTHORIZED otherwise.
 */
export function findVerificationMethod(
  doc: DidDocument,
  vmId: string,
  relationship: VerificationRelationship,
): VerificationMethod {
  const did = doc.id;
  const declared = (doc.verificationMethod ?? []).filter((vm) => absoluteDidUrl(vm.id, did) === vmId);
  const entries = doc[relationship] ?? [];
  const referenced = entries.some((entry) => typeof entry === 'string' && absoluteDidUrl(entry, did) === vmId);
  const embedded = entries.filter(
    (entry): entry is VerificationMethod => typeof entry !== 'string' && absoluteDidUrl(entry.id, did) === vmId,
  );
  const candidates = [...(referenced ? declared : []), ...embedded];
  if (candidates.length === 0) {
    if (declared.length > 0) notAuthorized(`verification method is not authorized for ${relationship}`);
    notAuthorized('verification method not found in the DID document');
  }
  // Two methods with one id make "which key" a choice an attacker could steer: refuse.
  if (candidates.length > 1 || declared.length > 1) notAuthorized('verification method id is declared more than once');
  const vm = candidates[0] as VerificationMethod;
  if (vm.controller !== did) notAuthorized('verification method controller is not the DID');
  return vm;
}

// Controlled Identifiers §2.2: `revoked` and `expires` are dateTimeStamps; unreadable fails closed.
const LIFETIME_FIELDS = [
  ['revoked', 'was revoked'],
  ['expires', 'expired'],
] as const;

function assertUsableAt(vm: VerificationMethod, nowMs: number): void {
  if (vm.revoked === undefined && vm.expires === undefined) return;
  for (const [field, label] of LIFETIME_FIELDS) {
    const value = vm[field];
    if (value === undefined) continue;
    // Strictly, with a time zone: Date.parse would read a zone-less value in the verifier's own
    // zone (one key, usable in one time zone and expired in another) and take "99999" as a year.
    const at = parseDateTimeStamp(value);
    if (at === undefined) notAuthorized(`verification method ${field} is not a dateTimeStamp`);
    if (at <= nowMs) notAuthorized(`verification method ${label} at ${new Date(at).toISOString()}`);
  }
}

/** The Ed25519 key of a Multikey verification method (Controlled Identifiers §2.2.2). */
export function publicKeyOf(vm: VerificationMethod): Uint8Array {
  if (vm.type !== 'Multikey' || typeof vm.publicKeyMultibase !== 'string') {
    throw new DidError(
      'INVALID_PUBLIC_KEY',
      `verification method must be an Ed25519 Multikey with publicKeyMultibase (got type "${String(vm.type).slice(0, 64)}")`,
    );
  }
  // Documents that did not pass assertDidDocument (did:key's, a caller's own) get the same rule.
  if (materialProperties(vm).length > 1) {
    throw new DidError(
      'INVALID_PUBLIC_KEY',
      'verification method carries more than one verification material (DID Core §5.2.1)',
    );
  }
  return ed25519KeyFromMultibase(vm.publicKeyMultibase);
}

/** A method found for one relationship, with its decoded and validated key. */
interface AuthorizedKey {
  readonly vm: VerificationMethod;
  readonly publicKey: Uint8Array;
}

/**
 * Methods found and keys decoded, per frozen document (a cached resolver hands out the same one);
 * weakly keyed, `expires`/`revoked` still checked per call. Why: docs/dids.md §Key resolution for proofs.
 */
const authorizedKeys = new WeakMap<DidDocument, Map<VerificationRelationship, Map<string, AuthorizedKey>>>();

/**
 * True when everything `findVerificationMethod` reads for `relationship` is frozen, so its
 * answer for this object can never change: the document, its `verificationMethod` and
 * relationship arrays, and every method object in them.
 */
function isSettled(doc: DidDocument, relationship: VerificationRelationship): boolean {
  if (!Object.isFrozen(doc)) return false;
  for (const list of [doc.verificationMethod, doc[relationship]]) {
    if (list === undefined) continue;
    if (!Object.isFrozen(list)) return false;
    for (const entry of list) if (typeof entry === 'object' && !Object.isFrozen(entry)) return false;
  }
  return true;
}

function authorizedKey(doc: DidDocument, vmId: string, relationship: VerificationRelationship): AuthorizedKey {
  // Stored only for settled documents, and frozen objects stay frozen: a hit needs no re-check.
  const known = authorizedKeys.get(doc)?.get(relationship)?.get(vmId);
  if (known) return known;
  const vm = findVerificationMethod(doc, vmId, relationship);
  const found: AuthorizedKey = { vm, publicKey: publicKeyOf(vm) };
  if (isSettled(doc, relationship)) {
    let perDocument = authorizedKeys.get(doc);
    if (perDocument === undefined)
      authorizedKeys.set(doc, (perDocument = new Map<VerificationRelationship, Map<string, AuthorizedKey>>()));
    let perRelationship = perDocument.get(relationship);
    if (perRelationship === undefined)
      perDocument.set(relationship, (perRelationship = new Map<string, AuthorizedKey>()));
    perRelationship.set(vmId, found);
  }
  return found;
}

/** The DID of a verification method id; DID_RESOLUTION_FAILED when it is not a DID URL. */
function didOfMethod(verificationMethodId: string): string {
  try {
    return parseDid(verificationMethodId).did;
  } catch {
    throw new DidError(
      'DID_RESOLUTION_FAILED',
      'DID resolution failed: invalidDid (verification method is not a DID URL)',
    );
  }
}

function relationshipFor(proofPurpose: string): VerificationRelationship {
  if (!PROOF_PURPOSES.has(proofPurpose))
    notAuthorized(`"${String(proofPurpose).slice(0, 64)}" is not a proof purpose a key can serve`);
  return proofPurpose as VerificationRelationship;
}

function keyIn(
  result: DidResolutionResult,
  did: string,
  verificationMethodId: string,
  relationship: VerificationRelationship,
  nowMs: number,
): Uint8Array {
  const { error, message } = result.didResolutionMetadata;
  if (error !== undefined) {
    throw new DidError(
      'DID_RESOLUTION_FAILED',
      `DID resolution failed: ${String(error)}${message ? ` (${String(message).slice(0, 200)})` : ''}`,
    );
  }
  if (result.didDocumentMetadata.deactivated === true)
    throw new DidError('DID_DEACTIVATED', 'the DID has been deactivated');
  const doc = result.didDocument;
  if (!doc) throw new DidError('DID_RESOLUTION_FAILED', 'DID resolution failed: notFound (no document)');
  if (doc.id !== did)
    throw new DidError('DID_RESOLUTION_FAILED', 'DID resolution failed: invalidDidDocument (id does not match)');
  const { vm, publicKey } = authorizedKey(doc, verificationMethodId, relationship);
  assertUsableAt(vm, nowMs);
  // A copy: the cached bytes must not be writable by whoever receives the key.
  return publicKey.slice();
}

/**
 * The key `verificationMethodId` may use for `proofPurpose`, read from `result`, the resolution
 * of `did`: the synchronous core of `createKeyResolver`, for a caller that already holds the
 * resolution (a verifier resolves every DID of a presentation up front) and has checked that
 * the method id is `did` or `did#fragment`, so it need not be parsed again.
 */
export function keyFromResolution(
  result: DidResolutionResult,
  did: string,
  verificationMethodId: string,
  proofPurpose: string,
  nowMs: number,
): Uint8Array {
  return keyIn(result, did, verificationMethodId, relationshipFor(proofPurpose), nowMs);
}

/**
 * A KeyResolver over `resolver` (typically a cached one). Beyond what `resolver` caches, it
 * remembers the method and key it found in each frozen document (the cached resolver's), so a
 * repeated lookup skips the search and the key decoding; to record which documents a
 * verification relied on, wrap `resolver.resolve`.
 */
export function createKeyResolver(resolver: Resolvable, options: KeyResolverOptions = {}): KeyResolver {
  const now = options.now ?? Date.now;
  return async (verificationMethodId, proofPurpose) => {
    const relationship = relationshipFor(proofPurpose);
    const did = didOfMethod(verificationMethodId);
    const lookUp = async (fresh: boolean) => {
      try {
        return await (fresh && resolver.refresh ? resolver.refresh(did) : resolver.resolve(did));
      } catch {
        throw new DidError('DID_RESOLUTION_FAILED', 'DID resolution failed: internalError');
      }
    };
    const result = await lookUp(false);
    try {
      return keyIn(result, did, verificationMethodId, relationship, now());
    } catch (error) {
      if (!isStaleMiss(error, result) || !resolver.refresh) throw error;
      return keyIn(await lookUp(true), did, verificationMethodId, relationship, now());
    }
  };
}

/**
 * True when `error` is a key that `result`, a cached resolution, does not authorize: the key may
 * have been rotated in since the document was cached, so it is worth resolving again (once: a
 * cached resolver's `refresh` limits how often).
 */
export function isStaleMiss(error: unknown, result: DidResolutionResult): boolean {
  return isMandateError(error, 'KEY_NOT_AUTHORIZED') && result.didResolutionMetadata.cached === true;
}
