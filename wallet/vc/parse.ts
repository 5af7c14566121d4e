/**
 * Structural validation of Mandate credentials and presentations (docs/protocol.md). It runs
 * before any signature is checked, so everything later can trust the shapes; any deviation is
 * `MALFORMED`. Scope strings are validated here too (docs/scopes.md grammar).
 */
import { parseDateTimeStamp, type DataIntegrityProof } from '../crypto/data-integrity.ts';
import { isDid } from '../did/parse.ts';
import { MANDATE_CONTEXT_URL, VC_V2_CONTEXT } from './context.ts';
import { VerificationError } from './reasons.ts';
import { parseScopes } from './scopes.ts';
import type {
  ChainCredential,
  DelegationGrantCredential,
  MandateCredential,
  StatusEntry,
  VerifiablePresentation,
} from './types.ts';

export const CREDENTIAL_TYPES = ['AgentCredential', 'DelegatedAgentCredential', 'DelegationGrantCredential'] as const;
export type CredentialKind = (typeof CREDENTIAL_TYPES)[number];

/**
 * Most `domains` a credential may list. A delegation link compares every child domain with
 * every parent domain; bounded lists keep that cheap (scopes have the same bound, MAX_SCOPES).
 */
export const MAX_DOMAINS = 256;

const URN_UUID = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function malformed(message: string): never {
  throw new VerificationError('MALFORMED', message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0) malformed(`${what} must be a non-empty string`);
  return value;
}

function requireDid(value: unknown, what: string): string {
  if (!isDid(value)) malformed(`${what} must be a DID (DID Core §3.1)`);
  return value;
}

function requireStringArray(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.length === 0)) {
    malformed(`${what} must be an array of non-empty strings`);
  }
  return value as string[];
}

function requireScopes(value: unknown, what: string): string[] {
  const scopes = requireStringArray(value, what);
  try {
    parseScopes(scopes);
  } catch (error) {
    malformed(`${what}: ${(error as Error).message}`);
  }
  return scopes;
}

function requireDateTime(value: unknown, what: string): number {
  const ms = parseDateTimeStamp(value);
  if (ms === undefined) malformed(`${what} must be an XML Schema dateTime with a time zone`);
  return ms;
}

/** A proof or a proof set (VC Data Integrity §2.1, §2.1.1): an object, or a non-empty list of them. */
function requireProof(value: unknown, what: string): void {
  if (isObject(value) || (Array.isArray(value) && value.length > 0 && value.every(isObject))) return;
  malformed(`${what} must be a proof object or a non-empty list of them`);
}

/**
 * VC DM 2.0 §4.3 contexts: the v2 context first, then only the Mandate context, once; appended
 * contexts pass an eddsa-jcs-2022 proof (EdDSA §3.3.2 step 4.1), hence this (docs/protocol.md §Common envelope).
 */
function checkContext(value: unknown, what: string): void {
  const contexts = requireStringArray(value, `${what} @context`);
  if (
    contexts[0] !== VC_V2_CONTEXT ||
    contexts.length > 2 ||
    (contexts.length === 2 && contexts[1] !== MANDATE_CONTEXT_URL)
  ) {
    malformed(
      `${what} @context must be ["${VC_V2_CONTEXT}", "${MANDATE_CONTEXT_URL}"] or the v2 context alone (only known contexts are accepted)`,
    );
  }
}

/** The issuer's id: VC DM 2.0 §4.7 allows a URL or an object with `id`. */
export function issuerId(credential: { issuer: unknown }): string {
  const issuer = credential.issuer;
  return isObject(issuer) ? requireDid(issuer.id, 'issuer.id') : requireDid(issuer, 'issuer');
}

export function statusEntries(credential: { credentialStatus?: StatusEntry | StatusEntry[] }): StatusEntry[] {
  const status = credential.credentialStatus;
  if (status === undefined) return [];
  return Array.isArray(status) ? status : [status];
}

/** Most `credentialStatus` entries a Mandate credential may carry (docs/protocol.md). */
export const MAX_STATUS_ENTRIES = 4;

function checkStatus(value: unknown, what: string): void {
  if (value === undefined) return;
  const entries = Array.isArray(value) ? value : [value];
  if (entries.length === 0 || entries.length > MAX_STATUS_ENTRIES)
    malformed(`${what} must hold one to ${MAX_STATUS_ENTRIES} entries`);
  for (const entry of entries) {
    if (!isObject(entry) || entry.type !== 'BitstringStatusListEntry')
      malformed(`${what} entries must be BitstringStatusListEntry objects`);
    requireString(entry.statusPurpose, `${what}.statusPurpose`);
    if (typeof entry.statusListIndex !== 'string' || !/^(0|[1-9][0-9]{0,9})$/.test(entry.statusListIndex)) {
      malformed(`${what}.statusListIndex must be a decimal string`);
    }
    requireString(entry.statusListCredential, `${what}.statusListCredential`);
  }
}

/** Which Mandate credential this is, from its `type`; MALFORMED when none or several. */
export function credentialKind(credential: { type: unknown }): CredentialKind {
  const types = requireStringArray(credential.type, 'credential type');
  if (!types.includes('VerifiableCredential')) malformed('credential type must include VerifiableCredential');
  const kinds = CREDENTIAL_TYPES.filter((t) => types.includes(t));
  if (kinds.length !== 1) malformed(`credential type must include exactly one of ${CREDENTIAL_TYPES.join(', ')}`);
  return kinds[0] as CredentialKind;
}

/** Validates one Mandate credential's structure (VC DM 2.0 §4 + docs/protocol.md). */
export function parseCredential(value: unknown): MandateCredential {
  checkCredential(value);
  return value;
}

/** parseCredential's checks: MALFORMED unless `value` is a Mandate credential of one kind. */
function checkCredential(value: unknown): asserts value is MandateCredential {
  if (!isObject(value)) malformed('credential must be a JSON object');
  checkContext(value['@context'], 'credential');
  if (typeof value.id !== 'string' || !URN_UUID.test(value.id)) malformed('credential id must be a urn:uuid');
  const kind = credentialKind(value as { type: unknown });
  issuerId(value as { issuer: unknown });
  const validFrom = requireDateTime(value.validFrom, 'validFrom');
  if (value.validUntil !== undefined && requireDateTime(value.validUntil, 'validUntil') < validFrom) {
    malformed('validUntil is before validFrom');
  }
  checkStatus(value.credentialStatus, 'credentialStatus');
  requireProof(value.proof, 'credential proof');
  const subject = value.credentialSubject;
  if (!isObject(subject)) malformed('credentialSubject must be an object');
  requireDid(subject.id, 'credentialSubject.id');
  requireScopes(subject.privilegeScopes, 'credentialSubject.privilegeScopes');

  // Only a delegated credential names a parent (and so stands in a chain, not at its root).
  if (kind !== 'DelegatedAgentCredential' && value.parentCredential !== undefined)
    malformed(`a ${kind} has no parentCredential`);
  if (kind === 'DelegationGrantCredential') {
    requireDid(subject.onBehalfOf, 'credentialSubject.onBehalfOf');
    const consent = subject.consent;
    if (!isObject(consent) || consent.type !== 'UserConsent')
      malformed('credentialSubject.consent must be a UserConsent object');
    requireDid(consent.user, 'consent.user');
    requireDid(consent.agent, 'consent.agent');
    requireDid(consent.provider, 'consent.provider');
    requireScopes(consent.privilegeScopes, 'consent.privilegeScopes');
    if (!isObject(consent.proof)) malformed("consent must carry the user's proof");
    return;
  }

  const depth = subject.delegationDepth;
  if (typeof depth !== 'number' || !Number.isSafeInteger(depth) || depth < 0) {
    malformed('credentialSubject.delegationDepth must be an integer ≥ 0');
  }
  if (
    subject.domains !== undefined &&
    requireStringArray(subject.domains, 'credentialSubject.domains').length > MAX_DOMAINS
  ) {
    malformed(`credentialSubject.domains may list at most ${MAX_DOMAINS} domains`);
  }
  if (kind === 'DelegatedAgentCredential') {
    const parent = value.parentCredential;
    if (!isObject(parent)) malformed('parentCredential must be an object');
    if (typeof parent.id !== 'string' || !URN_UUID.test(parent.id)) malformed('parentCredential.id must be a urn:uuid');
    requireString(parent.digestMultibase, 'parentCredential.digestMultibase');
  }
}

export interface ParsedPresentation {
  presentation: VerifiablePresentation;
  /** Leaf first, root last. */
  chain: ChainCredential[];
  grants: DelegationGrantCredential[];
}

/**
 * Validates a presentation's structure and splits its credentials into the chain (leaf first,
 * then each parent, ending in the root AgentCredential) and the grants that follow it.
 * `validated` names credentials known to be identical to ones that passed `parseCredential`
 * before (the verified-credential cache's): their structure is not checked again.
 */
export function parsePresentation(
  value: unknown,
  maxChainLength: number,
  validated?: ReadonlyMap<unknown, unknown>,
): ParsedPresentation {
  const credentials: Omit<ParsedPresentation, 'presentation'> = { chain: [], grants: [] };
  checkPresentation(value, maxChainLength, validated, credentials);
  return { presentation: value, chain: credentials.chain, grants: credentials.grants };
}

/** parsePresentation's checks, which sort the credentials into `into` as they are checked. */
function checkPresentation(
  value: unknown,
  maxChainLength: number,
  validated: ReadonlyMap<unknown, unknown> | undefined,
  into: Omit<ParsedPresentation, 'presentation'>,
): asserts value is VerifiablePresentation {
  if (!isObject(value)) malformed('presentation must be a JSON object');
  checkContext(value['@context'], 'presentation');
  if (typeof value.id !== 'string' || !URN_UUID.test(value.id)) malformed('presentation id must be a urn:uuid');
  const types = requireStringArray(value.type, 'presentation type');
  if (!types.includes('VerifiablePresentation')) malformed('presentation type must include VerifiablePresentation');
  requireDid(value.holder, 'holder');
  // One proof: a set would leave open whose created/expires bound the presentation's life.
  if (!isObject(value.proof)) malformed('presentation proof must be one proof object');
  const list = value.verifiableCredential;
  if (!Array.isArray(list) || list.length === 0) malformed('verifiableCredential must be a non-empty array');
  sortCredentials(list, maxChainLength, validated, into);
}

/**
 * A credential chain as a signed request names it (docs/protocol.md §Signed requests): the
 * credentials of a presentation's `verifiableCredential`, under the same rules.
 */
export function parseChain(
  list: unknown,
  maxChainLength: number,
  validated?: ReadonlyMap<unknown, unknown>,
): Omit<ParsedPresentation, 'presentation'> {
  if (!Array.isArray(list) || list.length === 0) malformed('the credential chain must be a non-empty array');
  const into: Omit<ParsedPresentation, 'presentation'> = { chain: [], grants: [] };
  sortCredentials(list, maxChainLength, validated, into);
  return into;
}

/** Each credential checked, in order: the chain (leaf first), then the grants. */
function sortCredentials(
  list: readonly unknown[],
  maxChainLength: number,
  validated: ReadonlyMap<unknown, unknown> | undefined,
  into: Omit<ParsedPresentation, 'presentation'>,
): void {
  const { chain, grants } = into;
  for (const item of list) {
    const credential = validated?.has(item) === true ? (item as MandateCredential) : parseCredential(item);
    if (credentialKind(credential) === 'DelegationGrantCredential') {
      grants.push(credential as DelegationGrantCredential);
      continue;
    }
    if (grants.length > 0) malformed('grants must follow the delegation chain');
    chain.push(credential as ChainCredential);
  }
  if (chain.length === 0) malformed('presentation holds no agent credential');
  if (chain.length > maxChainLength) malformed(`delegation chain is longer than ${maxChainLength}`);
  if (grants.length > maxChainLength) malformed(`more than ${maxChainLength} grants`);
}

/**
 * A document `createProof` signed, with its one proof: createProof makes a proof set only of a
 * document that had proofs already, which a presentation or a consent about to be signed never has.
 */
export function withOneProof<T extends { proof: DataIntegrityProof | DataIntegrityProof[] }>(
  signed: T,
): Omit<T, 'proof'> & { proof: DataIntegrityProof } {
  const { proof } = signed;
  if (Array.isArray(proof)) malformed('a presentation or consent carries one proof, not a proof set');
  return { ...signed, proof };
}
