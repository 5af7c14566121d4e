/**
 * `POST /v1/vp/verify`: the issuer as a verifier for services that would rather ask than embed
 * the wallet. It runs the wallet's `verifyPresentation` (docs/protocol.md §Verification) with
 * this issuer as the one trusted issuer, its resolver (hosted DIDs read live from the database),
 * its status lists (in-process, so a revocation counts at once) and its replay cache, and
 * optionally hands back a session token (session-tokens.ts).
 *
 * Target: `expectedTarget` is the calling service's own name and should always be sent. When
 * it is absent the presentation's proof `domain` is used, which binds nothing — the answer then
 * says which target it was judged for, and the session token's `aud` is that target.
 *
 * Every decision is audited: VP_VERIFIED, or VP_REJECTED with the reason code; both carry the
 * vpId (when the presentation has one). Without a session token to mint, the verdict is made
 * with the read cache (read-cache.ts) and recorded on condition that nothing it read has changed,
 * an acceptance spending the presentation in the same write (`fastVerdict`, docs/api.md
 * `POST /v1/vp/verify`); a refused record sends the presentation through the live path.
 *
 * A database that did not answer during the verification is a 503, not a verdict
 * (database-watch.ts).
 *
 * The verified-credential cache is on: an agent presents the same credentials again and again,
 * and their signatures need checking once per 5 minutes. A signing-key rotation therefore takes
 * up to 5 minutes to reach credentials already seen (deactivation and status never wait).
 */
import type { JsonObject } from '../../wallet/crypto/json-value.ts';
import { createVerifiedCredentialCache, type VerifiedCredentialCache } from '../../wallet/vc/credential-cache.ts';
import type { ReplayCache } from '../../wallet/vc/replay-cache.ts';
import {
  type VerificationFailure,
  type VerificationSuccess,
  type VerifyPresentationOptions,
} from '../../wallet/vc/verify.ts';
import { clipText, type AuditInput, type AuditRecord, type ReplayKey } from '../audit.ts';
import type { IssuerDeps } from '../deps.ts';
import { refuse } from '../refusal.ts';
import { presentationStatusEntries } from './introspection.ts';
import type { SessionTokenIssuer } from './session-tokens.ts';
import { verifyDeciding } from './database-watch.ts';
import type { VpAcceptedBody, VpDenied } from '../../wallet/contract/vp-verify.ts';

/**
 * The issuer's own trust settings for `verifyPresentation` (POST /v1/vp/verify, the token
 * exchange): its DID as the one trusted issuer, its resolver, status lists, replay cache and clock.
 */
export function issuerTrust(
  deps: Pick<IssuerDeps, 'issuer' | 'resolver' | 'statusLists' | 'replayCache' | 'now'>,
  credentialCache: VerifiedCredentialCache,
): Pick<
  VerifyPresentationOptions,
  'trustedIssuers' | 'resolver' | 'statusLists' | 'replayCache' | 'credentialCache' | 'now'
> {
  return {
    trustedIssuers: [deps.issuer.did],
    resolver: deps.resolver,
    statusLists: deps.statusLists,
    replayCache: deps.replayCache,
    credentialCache,
    now: new Date(deps.now()),
  };
}

export interface VpVerifyInput {
  presentation: unknown;
  expectedTarget?: string;
  challenge?: string;
  requiredScopes?: string[];
  session?: boolean;
}

// The verdict's wire type is the contract's (docs/api.md `POST /v1/vp/verify`), with the session
// token the issuer mints when asked.
export type VpAccepted = VpAcceptedBody;

export type { VpDenied };
export type VpVerdict = VpAccepted | VpDenied;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The presentation's own id, when it has a plausible one (for the audit record of a refusal). */
function vpIdOf(presentation: unknown): string | undefined {
  return isObject(presentation) && typeof presentation.id === 'string' ? clipText(presentation.id, 256) : undefined;
}

/** The proof's `domain` when it is one string: the fallback target. */
function proofDomainOf(presentation: unknown): string | undefined {
  if (!isObject(presentation)) return undefined;
  const proof = presentation.proof;
  return isObject(proof) && typeof proof.domain === 'string' && proof.domain.length > 0 ? proof.domain : undefined;
}

export interface VpVerifier {
  verify(input: VpVerifyInput, actor: string): Promise<VpVerdict>;
}

/** The audit input of a verdict: VP_VERIFIED or VP_REJECTED, with its target and scopes or failed check. */
function verdictInput(verdict: VpVerdict, target: string | undefined, actor: string): AuditInput {
  const data: JsonObject = {
    target: target === undefined ? null : clipText(target, 256),
    ...(verdict.valid
      ? { effectiveScopes: verdict.effectiveScopes, session: verdict.sessionToken !== undefined }
      : { failedCheck: verdict.failedCheck }),
  };
  return {
    event: verdict.valid ? 'VP_VERIFIED' : 'VP_REJECTED',
    actor,
    reason: verdict.valid ? 'VALID' : verdict.reason,
    ...(verdict.valid ? { agentDid: verdict.agentDid } : {}),
    ...(verdict.vpId === undefined ? {} : { vpId: verdict.vpId }),
    data,
  };
}

/** A session token for an accepted presentation, remembered with the status entries it depends on. */
async function mintSession(
  deps: Pick<IssuerDeps, 'stores' | 'now'>,
  sessions: SessionTokenIssuer,
  presentation: unknown,
  result: {
    agentDid: string;
    effectiveScopes: string[];
    vpId: string;
    chain: Parameters<SessionTokenIssuer['issue']>[0]['chain'];
  },
  target: string,
): Promise<{ token: string; expiresAt: Date }> {
  const session = await sessions.issue({
    agentDid: result.agentDid,
    target,
    scopes: result.effectiveScopes,
    vpId: result.vpId,
    chain: result.chain,
  });
  await deps.stores.sessions.record(
    {
      jti: session.jti,
      agentDid: result.agentDid,
      statusEntries: presentationStatusEntries(presentation),
      expiresAt: session.expiresAt.getTime(),
    },
    deps.now(),
  );
  return session;
}

/** The verdict for a refusal by `verifyPresentation`. */
function deniedVerdict(result: VerificationFailure, vpId: string | undefined): VpDenied {
  return {
    valid: false,
    reason: result.reason,
    message: result.message,
    failedCheck: result.failedCheck,
    ...(vpId ? { vpId } : {}),
  };
}

/** The verdict for an acceptance by `verifyPresentation`. */
function acceptedVerdict(result: VerificationSuccess, target: string): VpAccepted {
  return {
    valid: true,
    agentDid: result.agentDid,
    privilegeScopes: result.privilegeScopes,
    effectiveScopes: result.effectiveScopes,
    vpId: result.vpId,
    target,
  };
}

/** Unreadable input is a bad request, not a decision about an agent (its refusal is audited already). */
function throwIfMalformed(result: VerificationFailure): void {
  if (result.reason === 'MALFORMED')
    throw refuse('MALFORMED', result.message, { audit: false, details: { failedCheck: result.failedCheck } });
}

/** A replay cache that notes the keys check 7 asks for and says yes: they are taken with the verdict's record. */
function deferredReplayCache(keys: ReplayKey[]): ReplayCache {
  return {
    remember(key, expiresAt) {
      keys.push({ key, expiresAt });
      return true;
    },
  };
}

/**
 * The verdict made with this process's read cache and a replay cache that notes check 7's keys
 * and says yes (replay being the last check, any refusal is the one the live cache would lead
 * to), recorded on condition that the read generation has not moved and — for an acceptance —
 * taking those keys, all in one write. Undefined when the record was refused (something read
 * changed, or a key is taken): the caller verifies again with live reads and the live cache,
 * which refuses a replay REPLAYED with the library's own message.
 */
async function fastVerdict(
  deps: Pick<IssuerDeps, 'resolver' | 'statusLists' | 'readCache' | 'audit'>,
  presentation: unknown,
  options: VerifyPresentationOptions,
  vpId: string | undefined,
  target: string,
  actor: string,
): Promise<VpVerdict | undefined> {
  const view = await deps.readCache.view();
  const keys: ReplayKey[] = [];
  const result = await verifyDeciding(presentation, {
    ...options,
    resolver: deps.resolver.over(view.dids),
    statusLists: deps.statusLists.over(view.version),
    replayCache: deferredReplayCache(keys),
  });
  const verdict = result.valid ? acceptedVerdict(result, target) : deniedVerdict(result, vpId);
  const conditions = { generation: view.generation, ...(result.valid ? { keys } : {}) };
  if (!(await deps.audit.recordIf(verdictInput(verdict, target, actor), conditions))) {
    deps.readCache.drop(view.generation);
    return undefined;
  }
  if (!result.valid) throwIfMalformed(result);
  return verdict;
}

export function createVpVerifier(
  deps: Pick<
    IssuerDeps,
    'stores' | 'issuer' | 'resolver' | 'statusLists' | 'readCache' | 'replayCache' | 'audit' | 'now'
  >,
  sessions: SessionTokenIssuer,
): VpVerifier {
  const record = (verdict: VpVerdict, target: string | undefined, actor: string): Promise<AuditRecord> =>
    deps.audit.record(verdictInput(verdict, target, actor));
  // A credential presented again (same bytes) skips its signature check for 5 minutes
  // (docs/protocol.md §Caches); validity, chain, DIDs and status are still checked every time.
  const credentialCache = createVerifiedCredentialCache({ ttlMs: 5 * 60_000, now: () => deps.now() });

  /** A refusal, audited. */
  const deny = async (result: VerificationFailure, vpId: string | undefined, target: string, actor: string) => {
    const denied = deniedVerdict(result, vpId);
    await record(denied, target, actor);
    throwIfMalformed(result);
    return denied;
  };

  return {
    async verify(input, actor) {
      const target = input.expectedTarget ?? proofDomainOf(input.presentation);
      const vpId = vpIdOf(input.presentation);
      if (target === undefined) {
        const denied: VpDenied = {
          valid: false,
          reason: 'MALFORMED',
          message: 'no expectedTarget and the presentation proof names no domain',
          failedCheck: 'presentation',
          ...(vpId ? { vpId } : {}),
        };
        await record(denied, undefined, actor);
        throw refuse('MALFORMED', denied.message, { audit: false });
      }
      const options: VerifyPresentationOptions = {
        ...issuerTrust(deps, credentialCache),
        expectedDomain: target,
        ...(input.challenge === undefined ? {} : { expectedChallenge: input.challenge }),
        ...(input.requiredScopes === undefined ? {} : { requiredScopes: input.requiredScopes }),
      };
      // Without a session token to mint (and store) before the record: the fast path.
      if (input.session !== true) {
        const verdict = await fastVerdict(deps, input.presentation, options, vpId, target, actor);
        if (verdict) return verdict;
      }
      const result = await verifyDeciding(input.presentation, options);
      if (!result.valid) return deny(result, vpId, target, actor);
      const accepted = acceptedVerdict(result, target);
      if (input.session === true) {
        const session = await mintSession(deps, sessions, input.presentation, result, target);
        accepted.sessionToken = session.token;
        accepted.sessionExpiresAt = session.expiresAt.toISOString();
      }
      await record(accepted, target, actor);
      return accepted;
    },
  };
}
