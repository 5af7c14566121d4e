/**
 * Choosing what a wallet presents: from its stored credentials, every chain it can present
 * (leaf = a credential for the wallet's DID, then each parent by `parentCredential`, ending in
 * a root AgentCredential), with the grants for it, judged the way the verifier will judge it
 * (docs/protocol.md §Verification, checks 3–5), so a presentation the wallet signs is one the
 * verifier can accept — as far as the wallet can know without asking status lists.
 *
 * A chain qualifies when: every link passes `checkDelegationLink` (ids, digests, narrowing);
 * every credential is valid now (± skew); the leaf's `domains`, when present, cover the
 * target (vc/domains.ts); the root's issuer is trusted (when the caller names trusted issuers); and the
 * effective scopes (the leaf's, narrowed by the grants' when grants are included) cover the
 * requested scopes. Among qualifying chains the newest leaf wins (a renewal replaces the
 * credential it supersedes), then the shortest chain (fewer credentials that can be revoked).
 */
import { parseDateTimeStamp } from '../crypto/data-integrity.ts';
import { checkDelegationLink, validUntilOf } from '../vc/delegation.ts';
import { domainsCover, uncoveredDomains } from '../vc/domains.ts';
import { credentialKind, issuerId } from '../vc/parse.ts';
import { narrow, uncovered } from '../vc/scopes.ts';
import type { ChainCredential, DelegationGrantCredential, MandateCredential } from '../vc/types.ts';

export interface SelectOptions {
  /** The presenting DID: the leaf's subject. */
  holder: string;
  /** The target service (the proof's domain). Undefined: any target (used to choose a delegation parent). */
  target?: string | undefined;
  /** Scopes the presentation must cover. */
  scopes?: readonly string[] | undefined;
  /** Only roots issued by one of these DIDs (default: any). */
  trustedIssuers?: readonly string[] | undefined;
  /**
   * Which grants to include: those issued by one of these DIDs. Default: grants issued by the
   * target itself (a DID target) or by `did:web:<target>` (DID Web §3.1: the target's host).
   * `[]`: no grants.
   */
  grantIssuers?: readonly string[] | undefined;
  /** Least delegation depth the leaf must have (1 to delegate from it). */
  minDelegationDepth?: number | undefined;
  /** Domains the leaf must allow (all of them), for delegation. */
  domains?: readonly string[] | undefined;
  now?: number | undefined;
  /** Clock tolerance in ms, as the verifier's (default 60 s). */
  clockSkewMs?: number | undefined;
  /** Longest chain considered (default 8, the verifier's default). */
  maxChainLength?: number | undefined;
}

export interface Selection {
  /** Leaf first, root last. */
  chain: ChainCredential[];
  grants: DelegationGrantCredential[];
  effectiveScopes: string[];
}

/** DID Web §3.1: a host (with an optional port, percent-encoded colon) as a did:web. */
export function didWebOf(target: string): string {
  return `did:web:${target.replace(/:/g, '%3A')}`;
}

function validNow(credential: MandateCredential, now: number, skew: number): boolean {
  const from = parseDateTimeStamp(credential.validFrom);
  return from !== undefined && from <= now + skew && validUntilOf(credential) >= now - skew;
}

/** The chain from `leaf` up to its root through `byId`, or undefined when a link is missing or wrong. */
export function buildChain(
  leaf: ChainCredential,
  byId: ReadonlyMap<string, MandateCredential>,
  maxChainLength = 8,
): ChainCredential[] | undefined {
  const chain: ChainCredential[] = [leaf];
  let current: ChainCredential = leaf;
  while ('parentCredential' in current) {
    if (chain.length >= maxChainLength) return undefined;
    const parent = byId.get(current.parentCredential.id);
    if (parent === undefined || credentialKind(parent) === 'DelegationGrantCredential') return undefined;
    try {
      checkDelegationLink(parent as ChainCredential, current);
    } catch {
      return undefined;
    }
    chain.push(parent as ChainCredential);
    current = parent as ChainCredential;
  }
  return chain;
}

function compareCandidates(a: Selection, b: Selection): number {
  const fromA = parseDateTimeStamp(a.chain[0]?.validFrom) ?? 0;
  const fromB = parseDateTimeStamp(b.chain[0]?.validFrom) ?? 0;
  return fromB - fromA || a.chain.length - b.chain.length;
}

/** Every qualifying chain with its grants, best first. */
export function selectionsFor(credentials: readonly MandateCredential[], options: SelectOptions): Selection[] {
  const now = options.now ?? Date.now();
  const skew = options.clockSkewMs ?? 60_000;
  const byId = new Map(credentials.map((c) => [c.id, c]));
  const grants = credentials.filter(
    (c): c is DelegationGrantCredential => credentialKind(c) === 'DelegationGrantCredential',
  );
  const grantIssuers =
    options.grantIssuers ?? (options.target === undefined ? [] : [options.target, didWebOf(options.target)]);
  const selections: Selection[] = [];
  for (const leaf of credentials) {
    if (credentialKind(leaf) === 'DelegationGrantCredential' || leaf.credentialSubject.id !== options.holder) continue;
    const chain = buildChain(leaf as ChainCredential, byId, options.maxChainLength ?? 8);
    if (!chain || !chain.every((c) => validNow(c, now, skew))) continue;
    const first = chain[0] as ChainCredential;
    const root = chain[chain.length - 1] as ChainCredential;
    if (options.trustedIssuers !== undefined && !options.trustedIssuers.includes(issuerId(root))) continue;
    const leafDomains = first.credentialSubject.domains;
    if (options.target !== undefined && !domainsCover(leafDomains, options.target)) continue;
    if (
      options.domains !== undefined &&
      leafDomains !== undefined &&
      uncoveredDomains(options.domains, leafDomains).length > 0
    )
      continue;
    if (first.credentialSubject.delegationDepth < (options.minDelegationDepth ?? 0)) continue;
    const subjects = new Set(chain.map((c) => c.credentialSubject.id));
    const included = grants.filter(
      (g) =>
        subjects.has(g.credentialSubject.id) &&
        grantIssuers.includes(issuerId(g)) &&
        validNow(g, now, skew) &&
        uncovered(g.credentialSubject.privilegeScopes, root.credentialSubject.privilegeScopes).length === 0,
    );
    const leafScopes = first.credentialSubject.privilegeScopes;
    const effectiveScopes =
      included.length > 0
        ? narrow(
            leafScopes,
            included.flatMap((g) => g.credentialSubject.privilegeScopes),
          )
        : [...leafScopes];
    if (uncovered(options.scopes ?? [], effectiveScopes).length > 0) continue;
    selections.push({ chain, grants: included, effectiveScopes });
  }
  return selections.sort(compareCandidates);
}
