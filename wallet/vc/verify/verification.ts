/**
 * One verification's state, read by every check: the options' values with their defaults, the
 * parsed presentation, and the DID resolutions started for it. Built once before check 1 and
 * never changed; each check returns what it found instead of writing it here.
 */
import { createCanonicalMemo, type CanonicalMemo } from '../../crypto/canonical-memo.ts';
import { parseJson } from '../../crypto/json-parse.ts';
import { type JsonLimits } from '../../crypto/json-value.ts';
import type { VerifiedCredential } from '../credential-cache.ts';
import { issuerId, parseChain, parsePresentation } from '../parse.ts';
import type {
  ChainCredential,
  DelegationGrantCredential,
  MandateCredential,
  VerifiablePresentation,
} from '../types.ts';
import { recallCredentialList, recallCredentials } from './credential-proofs.ts';
import { keysFrom, startedTogether, type KeysOf, type Resolutions } from './resolutions.ts';
import type { VerifyPresentationOptions } from './types.ts';

/** The state of the chain checks (2 to 6): everything but a presentation. */
export interface ChainVerification {
  readonly options: ChainOptions;
  /** The verification's clock (ms) and its tolerance both ways. */
  readonly now: number;
  readonly skew: number;
  readonly limits: JsonLimits;
  /** Canonical forms already computed, shared by every proof and digest. */
  readonly memo: CanonicalMemo;
  /** Presented credentials the verified-credential cache recognized. */
  readonly recalled: ReadonlyMap<unknown, VerifiedCredential> | undefined;
  /** Who acts under the chain: a presentation's holder, or a signed request's leaf subject. */
  readonly holder: string;
  /** Leaf first, root last. */
  readonly chain: readonly ChainCredential[];
  readonly grants: readonly DelegationGrantCredential[];
  /** The chain, then the grants. */
  readonly credentials: readonly MandateCredential[];
  /** Each credential's issuer, parallel to `credentials`. */
  readonly issuers: readonly string[];
  /** Every DID involved, in this order: holder, issuers, consenting users. */
  readonly dids: ReadonlySet<string>;
  readonly resolutions: Resolutions;
  readonly keysOf: KeysOf;
}

export interface Verification extends ChainVerification {
  readonly options: VerifyPresentationOptions;
  readonly presentation: VerifiablePresentation;
}

/** The options the chain checks read: verifyPresentation's, but those of its proof and replay. */
export type ChainOptions = Omit<
  VerifyPresentationOptions,
  'expectedChallenge' | 'replayCache' | 'maxPresentationLifetimeMs'
>;

/**
 * Check 0, shape: anything structurally wrong is MALFORMED before any crypto or I/O. Every DID
 * resolution then starts together at the first key lookup (the resolver caches and coalesces),
 * after the presentation was canonicalized; check 2 judges them.
 */
export function prepareVerification(input: unknown, options: VerifyPresentationOptions): Verification {
  const limits: JsonLimits = { maxBytes: options.maxPresentationBytes ?? 64 * 1024 };
  const value = typeof input === 'string' ? parseJson(input, limits) : input;
  // One memo per verification: each proof and digest serializes only what it adds, and the input
  // must not change meanwhile (docs/crypto.md §JSON and JCS, The memo).
  const memo = createCanonicalMemo();
  // Credentials identical to ones verified before put their known canonical text in the memo:
  // canonicalization then copies it instead of serializing them again.
  const recalled = recallCredentials(value, options.credentialCache, memo);
  const { presentation, chain, grants } = parsePresentation(value, options.maxChainLength ?? 8, recalled);
  return {
    ...chainState({ chain, grants }, presentation.holder, options, { limits, memo, recalled }),
    options,
    presentation,
  };
}

/**
 * Check 0 for a credential chain on its own (a signed request's, docs/protocol.md §Signed
 * requests): the credentials' shapes as a presentation's, the holder being `holder` or, when
 * undefined, the leaf's subject. `credentials` is parsed JSON (its size was bounded when read).
 */
export function prepareChainVerification(
  credentials: unknown,
  holder: string | undefined,
  options: ChainOptions,
): ChainVerification {
  const limits: JsonLimits = { maxBytes: options.maxPresentationBytes ?? 64 * 1024 };
  const memo = createCanonicalMemo();
  const recalled = recallCredentialList(credentials, options.credentialCache, memo);
  const parts = parseChain(credentials, options.maxChainLength ?? 8, recalled);
  const leaf = parts.chain[0] as ChainCredential;
  return chainState(parts, holder ?? leaf.credentialSubject.id, options, { limits, memo, recalled });
}

function chainState(
  parts: { chain: ChainCredential[]; grants: DelegationGrantCredential[] },
  holder: string,
  options: ChainOptions,
  shared: Pick<ChainVerification, 'limits' | 'memo' | 'recalled'>,
): ChainVerification {
  const now = options.now?.getTime() ?? Date.now();
  const { chain, grants } = parts;
  const credentials: MandateCredential[] = [...chain, ...grants];
  const issuers = credentials.map(issuerId); // read once
  const dids = new Set<string>().add(holder);
  for (const issuer of issuers) dids.add(issuer);
  for (const grant of grants) dids.add(grant.credentialSubject.onBehalfOf);
  const resolutions = startedTogether(dids, options.resolver);
  return {
    options,
    now,
    skew: options.clockSkewMs ?? 60_000,
    ...shared,
    holder,
    chain,
    grants,
    credentials,
    issuers,
    dids,
    resolutions,
    keysOf: keysFrom(resolutions, now),
  };
}
