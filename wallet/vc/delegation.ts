/**
 * Delegation chains (docs/protocol.md §Delegated credential): an agent hands a narrower slice
 * of its authority to another agent by signing a DelegatedAgentCredential with its own DID.
 * `checkDelegationLink` is the one place the narrowing rules live: `delegate` runs it before
 * signing (refusing to sign a child wider than its parent) and the verifier runs it on every
 * link of a presented chain.
 */
import { type CanonicalMemo } from '../crypto/canonical-memo.ts';
import { canonicalizeJson } from '../crypto/jcs.ts';
import { createProof, formatDateTimeStamp, parseDateTimeStamp } from '../crypto/data-integrity.ts';
import { digestMultibaseUtf8 } from '../crypto/hash.ts';
import { MANDATE_CONTEXTS } from './context.ts';
import { uncoveredDomains } from './domains.ts';
import { newUrnUuid, type SigningIdentity } from './identity.ts';
import { issuerId, parseCredential } from './parse.ts';
import { VerificationError } from './reasons.ts';
import { uncovered } from './scopes.ts';
import type { ChainCredential, DelegatedAgentCredential, MandateCredential } from './types.ts';

/**
 * The digest a child names its parent by: SHA-256 multihash over the parent's JCS form, proof
 * included, as base58btc `digestMultibase`. A verifier that has already canonicalized the
 * presentation holding `credential` passes its memo, and the credential is not serialized again.
 */
export function credentialDigest(credential: MandateCredential, memo?: CanonicalMemo): string {
  return digestMultibaseUtf8(canonicalizeJson(credential, undefined, memo));
}

/** A credential's validUntil in ms; Infinity when it has none (VC DM 2.0 §4.9: unbounded). */
export function validUntilOf(credential: { validUntil?: string }): number {
  return credential.validUntil === undefined ? Infinity : (parseDateTimeStamp(credential.validUntil) ?? -Infinity);
}

function fail(
  code: 'CHAIN_BROKEN' | 'SCOPE_ESCALATION' | 'DEPTH_EXCEEDED' | 'DOMAIN_ESCALATION',
  message: string,
): never {
  throw new VerificationError(code, message);
}

/**
 * Checks that `child` is a faithful narrowing of `parent` (docs/protocol.md §Chain rules):
 * it names the parent by id and digest, is issued by the parent's subject, and its scopes,
 * depth, domains and validity all stay inside the parent's. `parentDigest` is passed in
 * because the verifier has already computed it for its cache key.
 */
export function checkDelegationLink(
  parent: ChainCredential,
  child: DelegatedAgentCredential,
  parentDigest = credentialDigest(parent),
): void {
  const ref = child.parentCredential;
  if (ref.id !== parent.id)
    fail('CHAIN_BROKEN', `${child.id} names parent ${ref.id}, but the next credential is ${parent.id}`);
  if (ref.digestMultibase !== parentDigest)
    fail('CHAIN_BROKEN', `${child.id}: parent digest does not match ${parent.id}`);
  if (issuerId(child) !== parent.credentialSubject.id) {
    fail(
      'CHAIN_BROKEN',
      `${child.id} is issued by ${issuerId(child)}, not by the parent's subject ${parent.credentialSubject.id}`,
    );
  }
  const parentUntil = validUntilOf(parent);
  const childUntil = validUntilOf(child);
  if (childUntil > parentUntil) fail('CHAIN_BROKEN', `${child.id} is valid until after its parent ${parent.id}`);

  const wider = uncovered(child.credentialSubject.privilegeScopes, parent.credentialSubject.privilegeScopes);
  if (wider.length > 0) fail('SCOPE_ESCALATION', `${child.id}: ${wider.join(', ')} not within the parent's scopes`);
  if (child.credentialSubject.delegationDepth >= parent.credentialSubject.delegationDepth) {
    fail(
      'DEPTH_EXCEEDED',
      `${child.id}: delegationDepth ${child.credentialSubject.delegationDepth} must be below the parent's ${parent.credentialSubject.delegationDepth}`,
    );
  }
  const parentDomains = parent.credentialSubject.domains;
  const childDomains = child.credentialSubject.domains;
  if (parentDomains !== undefined) {
    if (childDomains === undefined)
      fail('DOMAIN_ESCALATION', `${child.id}: the parent is limited to domains, the child must be too`);
    const extra = uncoveredDomains(childDomains, parentDomains);
    if (extra.length > 0) fail('DOMAIN_ESCALATION', `${child.id}: ${extra.join(', ')} not within the parent's domains`);
  }
}

export interface DelegateOptions {
  /** The delegator: must be the parent's subject. */
  delegator: SigningIdentity;
  delegateeDid: string;
  scopes: string[];
  /** Default: one less than the parent's (the most a child may have). */
  delegationDepth?: number;
  /** Default: the parent's. A child of a parent with domains always has them (chain rule 6), within the parent's. */
  domains?: string[];
  /** Default: now. */
  validFrom?: Date;
  /** Default: the parent's validUntil; never later than it. */
  validUntil?: Date;
  id?: string;
  /** The proof's `created` time (default: now). */
  created?: Date;
}

/**
 * Signs a DelegatedAgentCredential from `parent`'s subject to `delegateeDid`, refusing (with
 * the verifier's own reason codes) anything the verifier would refuse.
 */
export async function delegate(parent: ChainCredential, options: DelegateOptions): Promise<DelegatedAgentCredential> {
  const depth = options.delegationDepth ?? parent.credentialSubject.delegationDepth - 1;
  if (depth < 0) fail('DEPTH_EXCEEDED', `${parent.id} allows no further delegation`);
  const domains = options.domains ?? parent.credentialSubject.domains;
  const validUntil = options.validUntil ? formatDateTimeStamp(options.validUntil) : parent.validUntil;
  const unsigned = {
    '@context': [...MANDATE_CONTEXTS],
    id: options.id ?? newUrnUuid(),
    type: ['VerifiableCredential', 'DelegatedAgentCredential'],
    issuer: options.delegator.did,
    validFrom: formatDateTimeStamp(options.validFrom ?? new Date()),
    ...(validUntil === undefined ? {} : { validUntil }),
    credentialSubject: {
      id: options.delegateeDid,
      privilegeScopes: [...options.scopes],
      delegationDepth: depth,
      ...(domains === undefined ? {} : { domains: [...domains] }),
    },
    parentCredential: { id: parent.id, digestMultibase: credentialDigest(parent) },
  };
  // Same rules as verification, checked on the unsigned child before any key is used.
  const candidate = parseCredential({ ...unsigned, proof: {} }) as DelegatedAgentCredential;
  checkDelegationLink(parent, candidate);
  return createProof(unsigned, {
    signer: options.delegator.signer,
    verificationMethod: options.delegator.verificationMethod,
    proofPurpose: 'assertionMethod',
    ...(options.created ? { created: options.created } : {}),
  });
}
