/**
 * W3C-CCG VC-API endpoints (wallet/contract/vc-api.ts `vcApiEndpoints`; services/vc-api/*).
 *
 * Verification answers follow VC-API: 200 `{verified: true, checks, warnings, errors: []}`, and
 * 400 when not verified — with the VC-API fields AND the standard `error` member, so VC-API
 * clients and ours read the same response.
 */
import type { Context } from 'hono';
import type { vcApiEndpoints } from '../../wallet/contract/vc-api.ts';
import type { IssuerContext } from '../boot.ts';
import type { IssuerEnv } from '../http/env.ts';
import type { HandlersOf } from '../http/mount.ts';
import { issueVcApiCredential } from '../services/vc-api/issue.ts';
import { updateVcApiStatus } from '../services/vc-api/status.ts';
import { createVcApiVerifier, type CredentialVerification } from '../services/vc-api/verify.ts';

/** The VC-API verdict, plus the standard error member when not verified. */
function verdictBody<T extends CredentialVerification>(result: T): T & { error?: { code: string; message: string } } {
  if (result.verified) return result;
  const first = result.errors[0];
  return {
    ...result,
    error: {
      code: 'NOT_VERIFIED',
      message: first ? `${first.check}: ${first.code}: ${first.message}` : 'not verified',
    },
  };
}

/** The verdict with its status: 200 verified, 400 not (VC-API). */
function verdict(c: Context<IssuerEnv>, result: CredentialVerification): Response {
  return c.json(verdictBody(result), result.verified ? 200 : 400);
}

/** Only the options given, so absent ones are not passed as undefined. */
function given<T extends object>(options: T | undefined, keys: ReadonlyArray<keyof T>): Partial<T> {
  return Object.fromEntries(
    keys.filter((key) => options?.[key] !== undefined).map((key) => [key, options?.[key]]),
  ) as Partial<T>;
}

export function vcApiHandlers(ctx: IssuerContext): HandlersOf<typeof vcApiEndpoints> {
  const verifier = createVcApiVerifier(ctx);
  return {
    vcApiIssue: async ({ body: { credential, options } }, c) => ({
      verifiableCredential: await issueVcApiCredential(ctx, credential, options ?? {}, c.get('actor')),
    }),
    vcApiUpdateStatus: ({ body }, c) => updateVcApiStatus(ctx, body, c.get('actor')),
    vcApiVerifyCredential: async ({ body: { verifiableCredential, options } }, c) =>
      verdict(
        c,
        await verifier.verifyCredential(
          verifiableCredential,
          given(options, ['expectedProofPurpose', 'challenge', 'domain']),
        ),
      ),
    vcApiVerifyPresentation: async ({ body: { verifiablePresentation, options } }, c) =>
      verdict(c, await verifier.verifyPresentation(verifiablePresentation, given(options, ['challenge', 'domain']))),
  };
}
