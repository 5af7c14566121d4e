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
 * vpId (when the presentation has one).
 *
 * The verified-credential cache is on: an agent presents the same credentials again and again,
 * and their signatures need checking once per 5 minutes. A signing-key rotation therefore takes
 * up to 5 minutes to reach credentials already seen (deactivation and status never wait).
 */
import type { JsonObject } from '../../wallet/crypto/json-value.ts';
import { createVerifiedCredentialCache, type VerifiedCredentialCache } from '../../wallet/vc/credential-cache.ts';
import { verifyPresentation, type VerifyPresentationOptions } from '../../wallet/vc/verify.ts';
import { clipText, type AuditRecord } from '../audit.ts';
import type { IssuerContext } from '../context.ts';
import { apiError } from '../http/errors.ts';
import { presentationStatusEntries } from './introspection.ts';
import type { SessionTokenIssuer } from './session-tokens.ts';
import type { VpAcceptedBody, VpDenied } from '../../wallet/contract/vp-verify.ts';

/**
 * The issuer's own trust settings for `verifyPresentation` (POST /v1/vp/verify, the token
 * exchange): its DID as the one trusted issuer, its resolver, status lists, replay cache and clock.
 */
export function issuerTrust(
  ctx: IssuerContext,
  credentialCache: VerifiedCredentialCache,
): Pick<
  VerifyPresentationOptions,
  'trustedIssuers' | 'resolver' | 'statusLists' | 'replayCache' | 'credentialCache' | 'now'
> {
  return {
    trustedIssuers: [ctx.issuer.did],
    resolver: ctx.resolver,
    statusLists: ctx.statusLists,
    replayCache: ctx.replayCache,
    credentialCache,
    now: new Date(ctx.now()),
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

/** The audit record of a verdict: VP_VERIFIED or VP_REJECTED, with its target and scopes or failed check. */
function recordVerdict(
  ctx: IssuerContext,
  verdict: VpVerdict,
  target: string | undefined,
  actor: string,
): Promise<AuditRecord> {
  const data: JsonObject = {
    target: target === undefined ? null : clipText(target, 256),
    ...(verdict.valid
      ? { effectiveScopes: verdict.effectiveScopes, session: verdict.sessionToken !== undefined }
      : { failedCheck: verdict.failedCheck }),
  };
  return ctx.audit.record({
    event: verdict.valid ? 'VP_VERIFIED' : 'VP_REJECTED',
    actor,
    reason: verdict.valid ? 'VALID' : verdict.reason,
    ...(verdict.valid ? { agentDid: verdict.agentDid } : {}),
    ...(verdict.vpId === undefined ? {} : { vpId: verdict.vpId }),
    data,
  });
}

/** A session token for an accepted presentation, remembered with the status entries it depends on. */
async function mintSession(
  ctx: IssuerContext,
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
  await ctx.stores.sessions.record(
    {
      jti: session.jti,
      agentDid: result.agentDid,
      statusEntries: presentationStatusEntries(presentation),
      expiresAt: session.expiresAt.getTime(),
    },
    ctx.now(),
  );
  return session;
}

export function createVpVerifier(ctx: IssuerContext, sessions: SessionTokenIssuer): VpVerifier {
  const record = (verdict: VpVerdict, target: string | undefined, actor: string): Promise<AuditRecord> =>
    recordVerdict(ctx, verdict, target, actor);
  // A credential presented again (same bytes) skips its signature check for 5 minutes
  // (docs/protocol.md §Caches); validity, chain, DIDs and status are still checked every time.
  const credentialCache = createVerifiedCredentialCache({ ttlMs: 5 * 60_000, now: () => ctx.now() });
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
        throw apiError('MALFORMED', denied.message, { audit: false });
      }
      const result = await verifyPresentation(input.presentation, {
        ...issuerTrust(ctx, credentialCache),
        expectedDomain: target,
        ...(input.challenge === undefined ? {} : { expectedChallenge: input.challenge }),
        ...(input.requiredScopes === undefined ? {} : { requiredScopes: input.requiredScopes }),
      });
      if (!result.valid) {
        const denied: VpDenied = {
          valid: false,
          reason: result.reason,
          message: result.message,
          failedCheck: result.failedCheck,
          ...(vpId ? { vpId } : {}),
        };
        await record(denied, target, actor);
        // Unreadable input is a bad request, not a decision about an agent (the refusal is already audited).
        if (result.reason === 'MALFORMED')
          throw apiError('MALFORMED', result.message, { audit: false, details: { failedCheck: result.failedCheck } });
        return denied;
      }
      const accepted: VpAccepted = {
        valid: true,
        agentDid: result.agentDid,
        privilegeScopes: result.privilegeScopes,
        effectiveScopes: result.effectiveScopes,
        vpId: result.vpId,
        target,
      };
      if (input.session === true) {
        const session = await mintSession(ctx, sessions, input.presentation, result, target);
        accepted.sessionToken = session.token;
        accepted.sessionExpiresAt = session.expiresAt.toISOString();
      }
      await record(accepted, target, actor);
      return accepted;
    },
  };
}
