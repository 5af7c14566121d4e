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
  CheckName,
  CheckOutcome,
  SourceAge,
  VerificationResult,
  VerificationSuccess,
  VerifyPresentationOptions,
} from './verify/types.ts';
import { prepareVerification, type Verification } from './verify/verification.ts';

export { assertVerifyPresentationOptions, invalidVerifierOptions, isDidList } from './verify/options.ts';
export type {
  ChainLink,
  CheckName,
  CheckOutcome,
  SourceAge,
  VerificationFailure,
  VerificationResult,
  VerificationSuccess,
  VerifyPresentationOptions,
} from './verify/types.ts';

/** The outcomes recorded so far, and the check under way: the one a failure is charged to. */
interface Progress {
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
    const refusal = reasonFor(error, 'MALFORMED');
    const { checks, current } = progress;
    checks.push({ check: current, ok: false, reason: refusal.code, message: refusal.message });
    return { valid: false, reason: refusal.code, message: refusal.message, failedCheck: current, checks };
  }
}

/** Records the check under way as passed and starts `next`. */
function passed(progress: Progress, next?: CheckName): void {
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
  const replayCache = options.replayCache;
  if (replayCache) {
    progress.current = 'replay';
    await checkReplay(v, replayCache, expiresAt);
    passed(progress);
  }
  for (const add of credentials.toCache) add();
  return success(v, progress.checks, credentials, effectiveScopes, didAges, statusAges);
}

function success(
  v: Verification,
  checks: CheckOutcome[],
  credentials: CheckedCredentials,
  effectiveScopes: readonly string[],
  didAges: SourceAge[],
  statusAges: SourceAge[],
): VerificationSuccess {
  const fresh = v.resolutions.fresh;
  return {
    valid: true,
    agentDid: v.holder,
    privilegeScopes: [...(v.chain[0] as MandateCredential).credentialSubject.privilegeScopes],
    effectiveScopes: [...effectiveScopes],
    vpId: v.presentation.id,
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
