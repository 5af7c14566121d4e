/**
 * `verifyPresentation`: decides, in the verifier's own process and without asking the issuer,
 * whether the agent presenting `vp` may act at `expectedDomain` (docs/protocol.md §Verification).
 *
 * The checks run in a fixed order and stop at the first failure, so a refusal always names the
 * first thing wrong: 1 presentation proof, 2 DID resolution, 3 credential proofs and validity,
 * 4 delegation chain and grants, 5 scopes, 6 status lists, 7 replay (with a replay cache).
 * Independent I/O and signature work is started early and in parallel, but results are judged
 * in that order. Each check is one function of verify/checks.ts over the verification's state
 * (verify/verification.ts); this module runs them and records their outcomes.
 */
import type { DidResolutionResult } from '../did/types.ts';
import type { MandateCredential } from './types.ts';
import {
  checkChain,
  checkCredentials,
  checkDids,
  checkPresentationProof,
  checkReplay,
  checkScopes,
  checkStatus,
  type CheckedCredentials,
} from './verify/checks.ts';
import { assertVerifyPresentationOptions } from './verify/options.ts';
import { reasonFor } from './verify/refusal.ts';
import { ageOf } from './verify/resolutions.ts';
import type {
  ChainLink,
  ChainVerificationResult,
  ChainVerificationSuccess,
  CheckName,
  CheckOutcome,
  SourceAge,
  VerificationFailure,
  VerificationResult,
  VerificationSuccess,
  VerifyPresentationOptions,
} from './verify/types.ts';
import {
  prepareChainVerification,
  prepareVerification,
  type ChainOptions,
  type ChainVerification,
} from './verify/verification.ts';

export { assertVerifyPresentationOptions, invalidVerifierOptions, isDidList } from './verify/options.ts';
export { prepareChainVerification, type ChainOptions, type ChainVerification } from './verify/verification.ts';
export type {
  ChainLink,
  ChainVerificationResult,
  ChainVerificationSuccess,
  CheckName,
  CheckOutcome,
  SourceAge,
  VerificationFailure,
  VerificationResult,
  VerificationSuccess,
  VerifyPresentationOptions,
} from './verify/types.ts';

/** The outcomes recorded so far, and the check under way: the one a failure is charged to. */
export interface Progress {
  checks: CheckOutcome[];
  current: CheckName;
}

/**
 * Verifies `vp` (a parsed value or JSON text) and reports the outcome; a refusal is a result,
 * never an exception. It rejects only with VerifierOptionsError, for invalid `options`.
 */
export async function verifyPresentation(vp: unknown, options: VerifyPresentationOptions): Promise<VerificationResult> {
  assertVerifyPresentationOptions(options);
  const progress: Progress = { checks: [], current: 'presentation' };
  try {
    return await run(vp, options, progress);
  } catch (error) {
    return refused(error, progress);
  }
}

/** A refusal charged to the check under way: what any error thrown by a check becomes. */
export function refused(error: unknown, progress: Progress): VerificationFailure {
  const refusal = reasonFor(error, 'MALFORMED');
  const { checks, current } = progress;
  checks.push({ check: current, ok: false, reason: refusal.code, message: refusal.message });
  return { valid: false, reason: refusal.code, message: refusal.message, failedCheck: current, checks };
}

/** Records the check under way as passed and starts `next`. */
export function passed(progress: Progress, next?: CheckName): void {
  progress.checks.push({ check: progress.current, ok: true });
  if (next !== undefined) progress.current = next;
}

/** The checks in their order; a pending result is awaited only when a check had to wait. */
async function run(
  input: unknown,
  options: VerifyPresentationOptions,
  progress: Progress,
): Promise<VerificationSuccess> {
  const v = prepareVerification(input, options);
  const expiresAt = await checkPresentationProof(v);
  passed(progress, 'dids');
  const found = await checkCredentialChain(v, progress);
  const replayCache = options.replayCache;
  if (replayCache) {
    progress.current = 'replay';
    await checkReplay(v, replayCache, expiresAt);
    passed(progress);
  }
  for (const add of found.credentials.toCache) add();
  // The members in the order VerificationSuccess always listed them.
  const { valid, agentDid, privilegeScopes, effectiveScopes, ...rest } = chainSuccess(v, progress.checks, found);
  return { valid, agentDid, privilegeScopes, effectiveScopes, vpId: v.presentation.id, ...rest };
}

/** What checks 2 to 6 found. */
export interface ChainFound {
  credentials: CheckedCredentials;
  effectiveScopes: readonly string[];
  didAges: SourceAge[];
  statusAges: SourceAge[];
}

/**
 * Checks 2 to 6 — DIDs, credentials, chain, scopes, status — over a chain whose holder proved
 * possession already (a presentation's proof, a signed request's signature): the one chain
 * verification every proof of possession shares. `progress.current` must be 'dids'. The
 * verified-credential cache records (`credentials.toCache`) are the caller's to add once the
 * whole verification passed.
 */
export async function checkCredentialChain(v: ChainVerification, progress: Progress): Promise<ChainFound> {
  const dids = checkDids(v);
  const didAges = dids instanceof Promise ? await dids : dids;
  passed(progress, 'credentials');
  const pendingCredentials = checkCredentials(v);
  const credentials = pendingCredentials instanceof Promise ? await pendingCredentials : pendingCredentials;
  passed(progress, 'chain');
  checkChain(v, credentials.digests);
  passed(progress, 'scopes');
  const effectiveScopes = checkScopes(v);
  passed(progress, 'status');
  const status = checkStatus(v);
  const statusAges = status instanceof Promise ? await status : status;
  passed(progress);
  return { credentials, effectiveScopes, didAges, statusAges };
}

/**
 * `verifyPresentation`'s chain checks (2 to 6) for credentials on their own, held by `holder`
 * (default: the leaf's subject), whose possession the caller established itself. Every refusal
 * is a result; it rejects only with VerifierOptionsError. A malformed chain is MALFORMED in
 * check `chain`.
 */
export async function verifyCredentialChain(
  credentials: unknown,
  options: ChainOptions & { holder?: string },
): Promise<ChainVerificationResult> {
  const { holder, ...chainOptions } = options;
  assertVerifyPresentationOptions(chainOptions);
  // A malformed chain is charged to `chain`; its checks then start with the DIDs.
  const progress: Progress = { checks: [], current: 'chain' };
  try {
    const v = prepareChainVerification(credentials, holder, chainOptions);
    progress.current = 'dids';
    const found = await checkCredentialChain(v, progress);
    for (const add of found.credentials.toCache) add();
    return chainSuccess(v, progress.checks, found);
  } catch (error) {
    return refused(error, progress);
  }
}

/** What a successful verification reports of the chain: all of VerificationSuccess but the vpId. */
export function chainSuccess(
  v: ChainVerification,
  checks: CheckOutcome[],
  { credentials, effectiveScopes, didAges, statusAges }: ChainFound,
): ChainVerificationSuccess {
  const fresh = v.resolutions.fresh;
  return {
    valid: true,
    agentDid: v.holder,
    privilegeScopes: [...(v.chain[0] as MandateCredential).credentialSubject.privilegeScopes],
    effectiveScopes: [...effectiveScopes],
    chain: v.credentials.map((c, i) => ({
      id: c.id,
      type: credentialType(c),
      issuer: v.issuers[i] as string,
      subject: c.credentialSubject.id,
      privilegeScopes: [...c.credentialSubject.privilegeScopes],
      cached: credentials.cached[i] === true,
    })),
    checks,
    // A DID resolved again in check 3 was relied on in its fresh form from then on.
    sources: {
      dids: fresh.size === 0 ? didAges : didAges.map((a) => freshAge(a, fresh.get(a.id))),
      statusLists: statusAges,
    },
  };
}

function credentialType(credential: MandateCredential): ChainLink['type'] {
  if (credential.type.includes('DelegationGrantCredential')) return 'DelegationGrantCredential';
  return credential.type.includes('DelegatedAgentCredential') ? 'DelegatedAgentCredential' : 'AgentCredential';
}

/** The cache reports how old a resolution result is; an uncached result is fresh. */
function freshAge(age: SourceAge, refreshed: DidResolutionResult | undefined): SourceAge {
  return refreshed === undefined ? age : { id: age.id, ageMs: ageOf(refreshed) };
}
