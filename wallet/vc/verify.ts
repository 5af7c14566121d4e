/**
 * `verifyPresentation`: decides, in the verifier's own process and without asking the issuer,
 * whether the agent presenting `vp` may act at `expectedDomain` (docs/protocol.md §Verification).
 *
 * The checks run in a fixed order and stop at the first failure, so a refusal always names the
 * first thing wrong: 1 presentation proof, 2 DID resolution, 3 credential proofs and validity,
 * 4 delegation chain and grants, 5 scopes, 6 status lists, 7 replay (with a replay cache).
 * Independent I/O and signature work is started early and in parallel, but results are judged
 * in that order.
 */
import { parseDateTimeStamp, verifyProof, type KeyResolver, type VerifiedProof } from '../crypto/data-integrity.ts';
import { equalBytes } from '../crypto/bytes.ts';
import { isMandateError } from '../crypto/errors.ts';
import {
  type CanonicalMemo,
  canonicalizeJson,
  createCanonicalMemo,
  JsonError,
  parseJson,
  type JsonLimits,
} from '../crypto/jcs.ts';
import { isDid } from '../did/parse.ts';
import type { DidResolutionResult, Resolvable } from '../did/types.ts';
import { isStaleMiss, keyFromResolution } from '../did/verification-method.ts';
import type { StatusCheckResult, StatusListClient } from '../status/client.ts';
import type { ProofKey, VerifiedCredential, VerifiedCredentialCache } from './credential-cache.ts';
import { checkDelegationLink, credentialDigest, validUntilOf } from './delegation.ts';
import { checkGrant } from './grant.ts';
import { issuerId, parsePresentation, statusEntries } from './parse.ts';
import { DEFAULT_PRESENTATION_LIFETIME_MS, MAX_PRESENTATION_LIFETIME_MS } from './presentation.ts';
import { VerificationError, VerifierOptionsError, type ReasonCode } from './reasons.ts';
import type { ReplayCache } from './replay-cache.ts';
import { narrow, parseScopes, uncovered } from './scopes.ts';
import type {
  ChainCredential,
  DelegatedAgentCredential,
  DelegationGrantCredential,
  MandateCredential,
  StatusEntry,
} from './types.ts';

export interface VerifyPresentationOptions {
  /** DIDs whose AgentCredentials are accepted as chain roots. */
  trustedIssuers: readonly string[];
  /** DIDs of service providers whose DelegationGrantCredentials are accepted. */
  trustedGrantIssuers?: readonly string[];
  /** This verifier's service name: the presentation's proof `domain` must equal it. */
  expectedDomain: string;
  /** The nonce this verifier handed out; when set, the proof's `challenge` must equal it. */
  expectedChallenge?: string;
  /** Scopes the request needs; each must be covered by the effective scopes. */
  requiredScopes?: readonly string[];
  /** A DID resolver, ideally cached (`createCachedResolver`): every DID involved is resolved through it. */
  resolver: Resolvable;
  /** Needed as soon as a credential carries credentialStatus; without it such credentials fail closed. */
  statusLists?: StatusListClient;
  replayCache?: ReplayCache;
  credentialCache?: VerifiedCredentialCache;
  now?: Date;
  /** Tolerance for clocks, both ways (default 60 s). */
  clockSkewMs?: number;
  /** Most credentials in the delegation chain (default 8). */
  maxChainLength?: number;
  /**
   * Largest accepted presentation (default 64 KiB): the UTF-8 length of JSON text, checked before
   * parsing; for a parsed value, the canonical UTF-8 form of the presentation without its proof
   * (the proof's configuration is held to the same bound and its proofValue to one signature).
   */
  maxPresentationBytes?: number;
  /**
   * Longest accepted presentation lifetime, proof `expires` − `created` (default 1 hour, the most
   * the issuer signs). A replay cache remembers a presentation until it expires: without a bound
   * one presentation could hold its entry, and stay replayable elsewhere, for years.
   */
  maxPresentationLifetimeMs?: number;
  /**
   * Refuse (STATUS_UNAVAILABLE) an AgentCredential or DelegationGrantCredential that carries no
   * `revocation` or `suspension` status entry: such a credential can never be revoked (an entry
   * of another purpose, say `message`, refuses nothing). Default false (VC DM 2.0 makes
   * status optional; Mandate's issuer always adds it). Delegated credentials are exempt: agents
   * keep no status lists, and revoking any credential above cuts the chain.
   */
  requireCredentialStatus?: boolean;
  /** Accept a self-issued root (issuer = subject). Development only. */
  allowSelfSigned?: boolean;
}

export type CheckName = 'presentation' | 'dids' | 'credentials' | 'chain' | 'scopes' | 'status' | 'replay';

export interface CheckOutcome {
  check: CheckName;
  ok: boolean;
  reason?: ReasonCode;
  message?: string;
}

export interface ChainLink {
  id: string;
  type: 'AgentCredential' | 'DelegatedAgentCredential' | 'DelegationGrantCredential';
  issuer: string;
  subject: string;
  privilegeScopes: string[];
  /** True when the signature check was skipped thanks to the verified-credential cache. */
  cached: boolean;
}

export interface SourceAge {
  /** A DID or a status list URL. */
  id: string;
  /** How old the data relied on was, in ms (0 = fetched for this verification). */
  ageMs: number;
}

export interface VerificationSuccess {
  valid: true;
  agentDid: string;
  /** The leaf credential's scopes. */
  privilegeScopes: string[];
  /** What the agent may do here: the leaf's scopes narrowed by any grants. */
  effectiveScopes: string[];
  vpId: string;
  chain: ChainLink[];
  checks: CheckOutcome[];
  sources: { dids: SourceAge[]; statusLists: SourceAge[] };
}

export interface VerificationFailure {
  valid: false;
  reason: ReasonCode;
  message: string;
  failedCheck: CheckName;
  checks: CheckOutcome[];
}

export type VerificationResult = VerificationSuccess | VerificationFailure;

/** Translation of lower layers' error codes into the verifier's reason codes, per check. */
const PROOF_REASONS: Record<string, ReasonCode> = {
  DID_RESOLUTION_FAILED: 'DID_RESOLUTION_FAILED',
  DID_DEACTIVATED: 'DID_DEACTIVATED',
  KEY_NOT_AUTHORIZED: 'KEY_NOT_AUTHORIZED',
  INVALID_PUBLIC_KEY: 'KEY_NOT_AUTHORIZED',
  PROOF_MALFORMED: 'MALFORMED',
  PROOF_MISSING: 'MALFORMED',
};

function reasonFor(
  error: unknown,
  fallback: ReasonCode,
  overrides: Record<string, ReasonCode> = {},
): VerificationError {
  if (error instanceof VerificationError) return error;
  if (isMandateError(error)) {
    // Input that is not safe JSON (JsonError, any JSON_* code) is malformed wherever it is found.
    const reason =
      overrides[error.code] ?? PROOF_REASONS[error.code] ?? (error instanceof JsonError ? 'MALFORMED' : fallback);
    return new VerificationError(reason, error.message, { cause: error });
  }
  // Unknown failures (bugs, platform errors) fail closed without leaking their text.
  return new VerificationError(fallback, 'verification failed unexpectedly', { cause: error });
}

/**
 * Settles a call's promise into a value-or-error pair so parallel work never leaves a rejection
 * unhandled. A call that throws instead of rejecting (a caller's resolver or status client)
 * settles the same way.
 */
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
function settle<T>(call: () => Promise<T>): Promise<Settled<T>> {
  try {
    return call().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
  } catch (error) {
    return Promise.resolve({ ok: false, error });
  }
}

/** A DID's resolution for this verification: settled at once when the resolver had it in memory. */
type Resolution = Settled<DidResolutionResult> | Promise<Settled<DidResolutionResult>>;

function startResolution(resolver: Resolvable, did: string): Resolution {
  try {
    const cached = resolver.resolveCached?.(did);
    if (cached !== undefined) return { ok: true, value: cached };
  } catch (error) {
    return { ok: false, error };
  }
  return settle(() => resolver.resolve(did));
}

/** This verification's resolutions: one per DID, read by every check. */
interface Resolutions {
  of(did: string): Resolution;
  /**
   * `did` resolved again past the cache (the resolver's `refresh`, which limits how often), now
   * this verification's resolution of it; undefined when the resolver cannot refresh.
   */
  refreshed(did: string): Promise<Settled<DidResolutionResult>> | undefined;
  /** The results refreshes gave, by DID: the documents relied on from then on. */
  readonly fresh: Map<string, DidResolutionResult>;
}

/**
 * A DID's resolution for this verification: those of `dids` all start together at the first
 * request and are each read once; any other DID (a consenting user's key) on its own.
 */
function startedTogether(dids: ReadonlySet<string>, resolver: Resolvable): Resolutions {
  let started: Map<string, Resolution> | undefined;
  const startAll = (): Map<string, Resolution> => {
    if (started === undefined) {
      started = new Map();
      for (const each of dids) started.set(each, startResolution(resolver, each));
    }
    return started;
  };
  const fresh = new Map<string, DidResolutionResult>();
  return {
    of: (did) => startAll().get(did) ?? startResolution(resolver, did),
    fresh,
    refreshed(did) {
      if (resolver.refresh === undefined) return undefined;
      const refreshing = resolver as Resolvable & Required<Pick<Resolvable, 'refresh'>>;
      const again = settle(() => refreshing.refresh(did)).then((settled) => {
        if (settled.ok) fresh.set(did, settled.value);
        return settled;
      });
      startAll().set(did, again);
      return again;
    },
  };
}

/** The key resolver for the proofs of one controller (the holder, an issuer, a consenting user). */
type KeysOf = (controller: string) => KeyResolver;

/**
 * Key resolvers reading the resolutions started for this verification: one resolution per DID
 * per verification, and no second cache read that could see a different document. Each insists
 * the method belongs to `controller` (its DID, then nothing or a "#fragment").
 */
function keysFrom(resolutions: Resolutions, now: number): KeysOf {
  return (controller) => async (verificationMethod, purpose) => {
    const after = verificationMethod.charCodeAt(controller.length);
    if (!verificationMethod.startsWith(controller) || !(Number.isNaN(after) || after === 35) /* '#' */) {
      throw new VerificationError('KEY_NOT_AUTHORIZED', `${verificationMethod} is not a key of ${controller}`);
    }
    const resolution = resolutions.of(controller);
    const settled = resolution instanceof Promise ? await resolution : resolution;
    if (!settled.ok)
      throw new VerificationError('DID_RESOLUTION_FAILED', `${controller} could not be resolved (resolver failed)`);
    try {
      return keyFromResolution(settled.value, controller, verificationMethod, purpose, now);
    } catch (error) {
      // A key the cached document lacks may have been rotated in since: look once more.
      const again = isStaleMiss(error, settled.value) ? resolutions.refreshed(controller) : undefined;
      const fresh = again === undefined ? undefined : await again;
      if (!fresh?.ok) throw error;
      return keyFromResolution(fresh.value, controller, verificationMethod, purpose, now);
    }
  };
}

function credentialType(credential: MandateCredential): ChainLink['type'] {
  if (credential.type.includes('DelegationGrantCredential')) return 'DelegationGrantCredential';
  return credential.type.includes('DelegatedAgentCredential') ? 'DelegatedAgentCredential' : 'AgentCredential';
}

export function invalidVerifierOptions(message: string): never {
  throw new VerifierOptionsError('INVALID_VERIFIER_OPTIONS', message);
}

/** A list of DIDs (trusted issuers), each by DID Core §3.1. */
export function isDidList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every(isDid);
}

const isCount = (value: unknown): boolean =>
  value === undefined || (Number.isSafeInteger(value) && (value as number) >= 1);
const isDuration = (value: unknown): boolean =>
  value === undefined || (typeof value === 'number' && value >= 0 && Number.isFinite(value));
const isFlag = (value: unknown): boolean => value === undefined || typeof value === 'boolean';
const hasMethod = (value: unknown, name: string): boolean =>
  value === undefined || typeof (value as Record<string, unknown> | null)?.[name] === 'function';

/**
 * Throws VerifierOptionsError for options verifyPresentation cannot work with: a bad option is
 * the caller's programming error, never the presentation's. verifyPresentation runs it on every
 * call; the middleware at setup, so a bad configuration fails at startup.
 */
export function assertVerifyPresentationOptions(options: VerifyPresentationOptions): void {
  if (typeof options !== 'object' || options === null) invalidVerifierOptions('options must be an object');
  if (!isDidList(options.trustedIssuers)) invalidVerifierOptions('trustedIssuers must be a list of DIDs');
  if (options.trustedGrantIssuers !== undefined && !isDidList(options.trustedGrantIssuers))
    invalidVerifierOptions('trustedGrantIssuers must be a list of DIDs');
  if (typeof options.expectedDomain !== 'string' || options.expectedDomain.length === 0)
    invalidVerifierOptions('expectedDomain must be a non-empty string');
  if (options.expectedChallenge !== undefined && typeof options.expectedChallenge !== 'string')
    invalidVerifierOptions('expectedChallenge must be a string');
  if (options.requiredScopes !== undefined) {
    try {
      parseScopes(options.requiredScopes);
    } catch (error) {
      invalidVerifierOptions(`requiredScopes: ${(error as Error).message}`);
    }
  }
  // `?? null`: unlike the optional helpers below, a resolver is required.
  if (!hasMethod(options.resolver ?? null, 'resolve'))
    invalidVerifierOptions('resolver must be a DID resolver (createResolver, createCachedResolver)');
  if (!hasMethod(options.statusLists, 'check'))
    invalidVerifierOptions('statusLists must be a status list client (createStatusListClient)');
  if (!hasMethod(options.replayCache, 'remember'))
    invalidVerifierOptions('replayCache must be a replay cache (createReplayCache)');
  if (!hasMethod(options.credentialCache, 'recall'))
    invalidVerifierOptions('credentialCache must be a verified-credential cache (createVerifiedCredentialCache)');
  if (options.now !== undefined && !(options.now instanceof Date && !Number.isNaN(options.now.getTime())))
    invalidVerifierOptions('now must be a valid Date');
  if (!isDuration(options.clockSkewMs) || !isDuration(options.maxPresentationLifetimeMs))
    invalidVerifierOptions('clockSkewMs and maxPresentationLifetimeMs must be non-negative numbers of ms');
  if (!isCount(options.maxChainLength) || !isCount(options.maxPresentationBytes))
    invalidVerifierOptions('maxChainLength and maxPresentationBytes must be positive integers');
  if (!isFlag(options.allowSelfSigned) || !isFlag(options.requireCredentialStatus))
    invalidVerifierOptions('allowSelfSigned and requireCredentialStatus must be booleans');
}

/**
 * Verifies `vp` (a parsed value or JSON text) and reports the outcome; a refusal is a result,
 * never an exception. It rejects only with VerifierOptionsError, for invalid `options`.
 */
export async function verifyPresentation(vp: unknown, options: VerifyPresentationOptions): Promise<VerificationResult> {
  assertVerifyPresentationOptions(options);
  const checks: CheckOutcome[] = [];
  let current: CheckName = 'presentation';
  const pass = (check: CheckName): void => {
    checks.push({ check, ok: true });
  };
  try {
    return await run(vp, options, checks, pass, (c) => (current = c));
  } catch (error) {
    const refusal = reasonFor(error, 'MALFORMED');
    checks.push({ check: current, ok: false, reason: refusal.code, message: refusal.message });
    return { valid: false, reason: refusal.code, message: refusal.message, failedCheck: current, checks };
  }
}

async function run(
  input: unknown,
  options: VerifyPresentationOptions,
  checks: CheckOutcome[],
  pass: (check: CheckName) => void,
  enter: (check: CheckName) => void,
): Promise<VerificationSuccess> {
  const now = options.now?.getTime() ?? Date.now();
  const skew = options.clockSkewMs ?? 60_000;
  const limits: JsonLimits = { maxBytes: options.maxPresentationBytes ?? 64 * 1024 };

  // 0. Shape — anything structurally wrong is MALFORMED before any crypto or I/O.
  enter('presentation');
  const value = typeof input === 'string' ? parseJson(input, limits) : input;
  // The memo keeps the canonical form of every nested object, so each proof and digest below
  // serializes only what it adds (its top-level members). The presentation's own proof
  // canonicalizes the presentation first, which validates every value (safe JSON, the size
  // limit) before any DID is resolved. The input is read again across awaits: a caller must
  // not modify it during verification.
  const memo = createCanonicalMemo();
  // Credentials identical to ones verified before put their known canonical text in the memo:
  // canonicalization then copies it instead of serializing them again.
  const recalled = recallCredentials(value, options.credentialCache, memo);
  const { presentation, chain, grants } = parsePresentation(value, options.maxChainLength ?? 8, recalled);
  const credentials: MandateCredential[] = [...chain, ...grants];
  const holder = presentation.holder;

  // Every DID resolution starts together at the first key lookup (the resolver caches and
  // coalesces), after the presentation was canonicalized; step 2 judges them.
  const issuers = credentials.map(issuerId); // parallel to `credentials`, read once
  const dids = new Set<string>().add(holder); // in this order: holder, issuers, consenting users
  for (const issuer of issuers) dids.add(issuer);
  for (const grant of grants) dids.add(grant.credentialSubject.onBehalfOf);
  const resolutions = startedTogether(dids, options.resolver);
  const resolutionOf = resolutions.of;
  const keysOf = keysFrom(resolutions, now);

  // 1. The presentation's own proof: holder's authentication key, time window, challenge, target.
  const proof = presentation.proof;
  let verifiedProof: VerifiedProof | undefined;
  try {
    ({
      proofs: [verifiedProof],
    } = await verifyProof(presentation, {
      resolveKey: keysOf(holder),
      expectedProofPurpose: 'authentication',
      // Without an expected nonce any challenge is accepted (a replay cache then makes each
      // one single-use); Data Integrity insists on naming one for authentication proofs.
      expectedChallenge: options.expectedChallenge ?? challengeOf(proof),
      expectedDomain: options.expectedDomain,
      now: new Date(now),
      clockSkewMs: skew,
      limits,
      memo,
    }));
  } catch (error) {
    throw reasonFor(error, 'VP_SIGNATURE_INVALID', {
      PROOF_SIGNATURE_INVALID: 'VP_SIGNATURE_INVALID',
      CRYPTOSUITE_UNSUPPORTED: 'VP_SIGNATURE_INVALID',
      PROOF_PURPOSE_MISMATCH: 'VP_SIGNATURE_INVALID',
      PROOF_CONTEXT_MISMATCH: 'VP_SIGNATURE_INVALID',
      PROOF_EXPIRED: 'VP_EXPIRED',
      PROOF_NOT_YET_VALID: 'VP_EXPIRED',
      CHALLENGE_MISMATCH: 'CHALLENGE_MISMATCH',
      DOMAIN_MISMATCH: 'TARGET_MISMATCH',
    });
  }
  // A presentation without `expires` lives the default lifetime after `created`.
  const created = verifiedProof?.created?.getTime() ?? NaN;
  const expiresAt = verifiedProof?.expires?.getTime() ?? created + DEFAULT_PRESENTATION_LIFETIME_MS;
  if (!Number.isFinite(expiresAt) || now > expiresAt + skew) {
    throw new VerificationError('VP_EXPIRED', 'the presentation has no valid created/expires time or has expired');
  }
  const maxLifetime = options.maxPresentationLifetimeMs ?? MAX_PRESENTATION_LIFETIME_MS;
  if (!(expiresAt - created <= maxLifetime)) {
    throw new VerificationError(
      'VP_EXPIRED',
      `the presentation has no created time or lives longer than ${maxLifetime / 1000} s`,
    );
  }
  if (expiresAt < created) throw new VerificationError('VP_EXPIRED', 'the presentation expires before it was created');
  pass('presentation');

  // 2. Every DID involved resolves, and none is deactivated.
  enter('dids');
  const didAges: SourceAge[] = [];
  for (const did of dids) {
    const resolution = resolutionOf(did);
    const settled = resolution instanceof Promise ? await resolution : resolution;
    const result = settled.ok ? settled.value : undefined;
    if (!result || !result.didDocument || result.didResolutionMetadata.error) {
      const why = result?.didResolutionMetadata.error ?? 'resolver failed';
      // The resolver's own words say what to fix (a host the network policy refuses, say).
      const detail = result?.didResolutionMetadata.message;
      throw new VerificationError(
        'DID_RESOLUTION_FAILED',
        `${did} could not be resolved (${why}${typeof detail === 'string' ? `: ${detail.slice(0, 200)}` : ''})`,
      );
    }
    if (result.didDocumentMetadata.deactivated === true)
      throw new VerificationError('DID_DEACTIVATED', `${did} is deactivated`);
    didAges.push({ id: did, ageMs: ageOf(result) });
  }
  pass('dids');

  // 3. Each credential's proof (issuer's assertionMethod key) and validity window. Digests are
  //    computed once: parents are named by them (step 4) and the cache records them.
  enter('credentials');
  const cache = options.credentialCache;
  const known = credentials.map((c) => recalled?.get(c));
  //    Only parents and, with a cache, credentials about to be cached need a digest computed.
  const digests = credentials.map(
    (c, i) =>
      known[i]?.digest ?? (cache !== undefined || (i > 0 && i < chain.length) ? credentialDigest(c, memo) : undefined),
  );
  // A cached credential costs no signature work: only its keys are looked up again.
  const proofs = credentials.map((credential, i) => {
    const recalled = known[i];
    const verify = () =>
      settle(() => verifyCredentialProofs(credential, issuers[i] as string, keysOf, now, skew, memo));
    if (recalled === undefined) return verify();
    // A recognized credential's keys, looked up in this verification's resolutions: synchronously
    // when they are all in hand (a cached resolver), since that is the whole cost of a hit.
    const keyResolutions = recalled.keys.map((key) => resolutionOf(key.controller));
    const judge = (settled: Settled<DidResolutionResult>[]) => keysUnchanged(recalled, settled, now) ?? verify();
    return keyResolutions.some((r) => r instanceof Promise)
      ? Promise.all(keyResolutions).then(judge)
      : judge(keyResolutions as Settled<DidResolutionResult>[]);
  });
  const cachedNow: boolean[] = [];
  // Recorded only once the whole presentation passed, like the replay cache: a refused one (a
  // throwaway key presenting self-signed credentials) must not fill the cache or evict entries.
  const toCache: Array<() => void> = [];
  for (const [i, credential] of credentials.entries()) {
    const pending = proofs[i] as Settled<CheckedProofs> | Promise<Settled<CheckedProofs>>; // one per credential
    const settled = pending instanceof Promise ? await pending : pending;
    if (!settled.ok) {
      throw reasonFor(settled.error, 'CREDENTIAL_SIGNATURE_INVALID', {
        PROOF_EXPIRED: 'CREDENTIAL_EXPIRED',
        PROOF_NOT_YET_VALID: 'CREDENTIAL_NOT_YET_VALID',
      });
    }
    const checked = settled.value;
    cachedNow[i] = checked.cached;
    const validFrom = parseDateTimeStamp(credential.validFrom) ?? Infinity;
    const validUntil = validUntilOf(credential);
    if (validFrom > now + skew)
      throw new VerificationError('CREDENTIAL_NOT_YET_VALID', `${credential.id} is valid from ${credential.validFrom}`);
    if (validUntil < now - skew)
      throw new VerificationError('CREDENTIAL_EXPIRED', `${credential.id} expired at ${credential.validUntil}`);
    const digest = digests[i];
    if (cache !== undefined && !checked.cached && digest !== undefined) {
      // Cached no longer than the earliest proof `expires`: a hit does not look at the proofs.
      toCache.push(() =>
        cache.add(
          { canonical: canonicalizeJson(credential, undefined, memo), digest, keys: checked.keys },
          Math.min(validUntil, checked.notAfter),
        ),
      );
    }
  }
  pass('credentials');

  // 4. The chain: each link narrows its parent; the root is trusted; the leaf is the holder.
  enter('chain');
  for (let i = 0; i < chain.length; i++) {
    const child = chain[i] as ChainCredential;
    const parent = chain[i + 1];
    const isDelegated = 'parentCredential' in child;
    if (parent === undefined) {
      if (isDelegated) throw new VerificationError('CHAIN_BROKEN', `${child.id} names a parent that was not presented`);
      break;
    }
    if (!isDelegated)
      throw new VerificationError('CHAIN_BROKEN', `${child.id} is a root credential but more credentials follow it`);
    checkDelegationLink(parent, child as DelegatedAgentCredential, digests[i + 1]);
  }
  const root = chain[chain.length - 1] as ChainCredential;
  const leaf = chain[0] as ChainCredential;
  const rootIssuer = issuers[chain.length - 1] as string;
  const selfSigned = rootIssuer === root.credentialSubject.id;
  if (!options.trustedIssuers.includes(rootIssuer) && !(selfSigned && options.allowSelfSigned === true)) {
    throw new VerificationError(
      'UNTRUSTED_ISSUER',
      `${rootIssuer} is not a trusted issuer${selfSigned ? ' (self-signed root)' : ''}`,
    );
  }
  if (leaf.credentialSubject.id !== holder) {
    throw new VerificationError(
      'HOLDER_MISMATCH',
      `the presentation is signed by ${holder}, but the credential is for ${leaf.credentialSubject.id}`,
    );
  }
  for (const [j, grant] of grants.entries()) {
    const provider = issuers[chain.length + j] as string; // grants follow the chain in `credentials`
    if (!(options.trustedGrantIssuers ?? []).includes(provider)) {
      throw new VerificationError('UNTRUSTED_ISSUER', `${provider} is not a trusted grant issuer`);
    }
    if (!chain.some((c) => c.credentialSubject.id === grant.credentialSubject.id)) {
      throw new VerificationError(
        'HOLDER_MISMATCH',
        `${grant.id} is for ${grant.credentialSubject.id}, who is not in the presented chain`,
      );
    }
    checkGrant(grant, root.credentialSubject.privilegeScopes);
  }
  pass('chain');

  // 5. Scopes: the leaf's, narrowed by grants; the target must be one of the leaf's domains.
  enter('scopes');
  const leafDomains = leaf.credentialSubject.domains;
  if (leafDomains !== undefined && !leafDomains.includes(options.expectedDomain)) {
    throw new VerificationError(
      'TARGET_MISMATCH',
      `this authority is limited to ${leafDomains.join(', ')}, not ${options.expectedDomain}`,
    );
  }
  let effectiveScopes = leaf.credentialSubject.privilegeScopes;
  if (grants.length > 0)
    effectiveScopes = narrow(
      effectiveScopes,
      grants.flatMap((g) => g.credentialSubject.privilegeScopes),
    );
  const missing = uncovered(options.requiredScopes ?? [], effectiveScopes);
  if (missing.length > 0)
    throw new VerificationError('INSUFFICIENT_SCOPE', `not covered by the effective scopes: ${missing.join(', ')}`);
  pass('scopes');

  // 6. Status: revocation and suspension of every credential, through its issuer's status list.
  enter('status');
  const statusAges: SourceAge[] = [];
  const lookups: Array<{
    credential: MandateCredential;
    entry: StatusEntry;
    pending: Promise<Settled<StatusCheckResult>>;
  }> = [];
  const entriesOf = credentials.map(statusEntries);
  // A credential that can never be revoked decides the verdict: judged before any list is fetched.
  if (options.requireCredentialStatus === true) {
    for (const [i, credential] of credentials.entries()) {
      if (
        'parentCredential' in credential ||
        entriesOf[i]?.some((e) => e.statusPurpose === 'revocation' || e.statusPurpose === 'suspension')
      )
        continue;
      throw new VerificationError(
        'STATUS_UNAVAILABLE',
        `${credential.id} carries no revocation or suspension status entry, and this verifier requires one`,
      );
    }
  }
  for (const [i, credential] of credentials.entries()) {
    for (const entry of entriesOf[i] ?? []) {
      const client = options.statusLists;
      const pending = client
        ? settle(() => client.check(entry, issuers[i] as string, now))
        : Promise.resolve({
            ok: false as const,
            error: new VerificationError('STATUS_UNAVAILABLE', 'no status list client is configured'),
          });
      lookups.push({ credential, entry, pending });
    }
  }
  for (const { credential, entry, pending } of lookups) {
    const settled = await pending;
    if (!settled.ok)
      throw reasonFor(settled.error, 'STATUS_UNAVAILABLE', { DID_RESOLUTION_FAILED: 'STATUS_UNAVAILABLE' });
    const { status, ageMs } = settled.value;
    statusAges.push({ id: entry.statusListCredential, ageMs });
    if (status !== 0 && entry.statusPurpose === 'revocation')
      throw new VerificationError('CREDENTIAL_REVOKED', `${credential.id} is revoked`);
    if (status !== 0 && entry.statusPurpose === 'suspension')
      throw new VerificationError('CREDENTIAL_SUSPENDED', `${credential.id} is suspended`);
  }
  pass('status');

  // 7. Replay, last: only a presentation that passed everything else is remembered, so refused
  //    ones (a throwaway key wrapping someone's public credential, say) cannot fill the cache
  //    or use up a verifier's nonce. An in-memory cache records both keys synchronously, after
  //    the last await, so two concurrent verifications of one presentation cannot both get
  //    through; a shared one (Redis `SET NX`) answers with a promise and is atomic itself.
  //    Only `true` accepts: a cache that answers anything else fails closed.
  const replayCache = options.replayCache;
  if (replayCache) {
    enter('replay');
    const until = expiresAt + skew;
    const remember = async (key: string, refusal: string): Promise<void> => {
      const answer = replayCache.remember(key, until);
      if ((typeof answer === 'boolean' ? answer : await answer) !== true)
        throw new VerificationError('REPLAYED', `${refusal}${UNVOUCHED}`);
    };
    // A full cache also refuses presentations about to expire that it could no longer vouch for.
    // The challenge is a nonce of one target: keyed by it, so a verifier serving several targets
    // (the issuer's /v1/vp/verify) does not let an agent of one spend a nonce another handed out.
    // It is taken first: a replayed presentation then fails there and records nothing.
    if (proof?.challenge !== undefined)
      await remember(`challenge:${options.expectedDomain}:${proof.challenge}`, 'this challenge was already answered');
    await remember(`vp:${presentation.id}`, `presentation ${presentation.id} was already presented`);
    pass('replay');
  }
  for (const add of toCache) add();

  return {
    valid: true,
    agentDid: holder,
    privilegeScopes: [...leaf.credentialSubject.privilegeScopes],
    effectiveScopes: [...effectiveScopes],
    vpId: presentation.id,
    chain: credentials.map((c, i) => ({
      id: c.id,
      type: credentialType(c),
      issuer: issuers[i] as string,
      subject: c.credentialSubject.id,
      privilegeScopes: [...c.credentialSubject.privilegeScopes],
      cached: cachedNow[i] === true,
    })),
    checks,
    // A DID resolved again in check 3 was relied on in its fresh form from then on.
    sources: {
      dids: resolutions.fresh.size === 0 ? didAges : didAges.map((a) => freshAge(a, resolutions.fresh.get(a.id))),
      statusLists: statusAges,
    },
  };
}

/** What step 3 learned of a credential's proofs. */
interface CheckedProofs {
  /** True when the verified-credential cache vouched for the signatures. */
  cached: boolean;
  /** The keys that verified them. */
  keys: readonly ProofKey[];
  /** The earliest proof `expires` (ms), or Infinity. */
  notAfter: number;
}

/**
 * A cached credential's keys, each looked up in its controller's resolution (`settled`, in the
 * same order): cached when every one is still authorized and the same key, a failure when a
 * lookup refuses (a key revoked or expired since), undefined — verify the signatures again —
 * when a resolution failed or a key changed.
 */
function keysUnchanged(
  known: VerifiedCredential,
  settled: Settled<DidResolutionResult>[],
  now: number,
): Settled<CheckedProofs> | undefined {
  try {
    for (const [i, { controller, verificationMethod, purpose, publicKey }] of known.keys.entries()) {
      const resolution = settled[i] as Settled<DidResolutionResult>;
      if (
        !resolution.ok ||
        !equalBytes(keyFromResolution(resolution.value, controller, verificationMethod, purpose, now), publicKey)
      )
        return undefined;
    }
  } catch (error) {
    return { ok: false, error };
  }
  return { ok: true, value: { cached: true, keys: known.keys, notAfter: Infinity } };
}

/** A credential's proofs with its issuer's assertionMethod keys; a grant's consent with the user's authentication key. */
async function verifyCredentialProofs(
  credential: MandateCredential,
  issuer: string,
  keysOf: KeysOf,
  now: number,
  skew: number,
  memo: CanonicalMemo,
): Promise<CheckedProofs> {
  const at = new Date(now);
  const keys: ProofKey[] = [];
  let notAfter = Infinity;
  const record = (proofs: readonly VerifiedProof[], controller: string, purpose: string): void => {
    for (const { proof, publicKey, expires } of proofs) {
      keys.push({ controller, verificationMethod: proof.verificationMethod, purpose, publicKey });
      if (expires !== undefined) notAfter = Math.min(notAfter, expires.getTime());
    }
  };
  record(
    (
      await verifyProof(credential, {
        resolveKey: keysOf(issuer),
        expectedProofPurpose: 'assertionMethod',
        now: at,
        clockSkewMs: skew,
        memo,
      })
    ).proofs,
    issuer,
    'assertionMethod',
  );
  if (credential.type.includes('DelegationGrantCredential')) {
    const consent = (credential as DelegationGrantCredential).credentialSubject.consent;
    const { proofs } = await verifyProof(consent, {
      resolveKey: keysOf(consent.user),
      expectedProofPurpose: 'authentication',
      // The provider checked its single-use challenge when the user signed; we check the signature.
      expectedChallenge: challengeOf(consent.proof),
      expectedDomain: consent.provider,
      now: at,
      clockSkewMs: skew,
      memo,
    });
    record(proofs, consent.user, 'authentication');
  }
  return { cached: false, keys, notAfter };
}

/** The presented credentials the cache recognizes, before anything else looks at them. */
function recallCredentials(
  vp: unknown,
  cache: VerifiedCredentialCache | undefined,
  memo: CanonicalMemo,
): Map<unknown, VerifiedCredential> | undefined {
  const list =
    cache !== undefined && typeof vp === 'object' && vp !== null
      ? (vp as { verifiableCredential?: unknown }).verifiableCredential
      : undefined;
  if (!Array.isArray(list)) return undefined;
  const recalled = new Map<unknown, VerifiedCredential>();
  for (const item of list) {
    const verified = cache?.recall(item, memo);
    if (verified !== undefined) recalled.set(item, verified);
  }
  return recalled;
}

/** The other reason a replay cache refuses: a full one cannot vouch for keys about to expire. */
const UNVOUCHED = ' (or expires too soon to be vouched for)';

function challengeOf(proof: { challenge?: unknown } | undefined): string {
  return typeof proof?.challenge === 'string' ? proof.challenge : '';
}

/** The cache reports how old a resolution result is; an uncached result is fresh. */
function freshAge(age: SourceAge, refreshed: DidResolutionResult | undefined): SourceAge {
  return refreshed === undefined ? age : { id: age.id, ageMs: ageOf(refreshed) };
}

function ageOf(result: DidResolutionResult): number {
  const age = result.didResolutionMetadata.ageMs;
  return typeof age === 'number' && age > 0 ? age : 0;
}
