/**
 * Telling "this issuer's database did not answer" from a refusal, where the wallet cannot.
 *
 * The wallet's verifier fails closed: a dependency that throws — a DID that cannot be resolved, a
 * status list that cannot be read, a replay cache that cannot record — becomes a refusal
 * (DID_RESOLUTION_FAILED, STATUS_UNAVAILABLE, …), and its key resolver keeps no cause. Right for
 * a list on someone else's server; but when the dependency is this issuer's own database and it
 * did not answer, the issuer decided nothing, and a 403 would tell the caller its agent was
 * refused. So the issuer watches what it hands the wallet: a DatabaseUnavailableError thrown
 * through a watched dependency is noted, and a refusal that followed one is thrown as that error
 * instead — 503 DATABASE_UNAVAILABLE with Retry-After at the HTTP edge (docs/operations.md
 * §When PostgreSQL goes away).
 */
import type { Resolvable } from '../../wallet/did/types.ts';
import type { StatusListClient } from '../../wallet/status/client.ts';
import type { ReplayCache } from '../../wallet/vc/replay-cache.ts';
import { verifyPresentation, type VerificationResult, type VerifyPresentationOptions } from '../../wallet/vc/verify.ts';
import { databaseUnavailable, type DatabaseUnavailableError } from '../storage/unavailable.ts';

export interface DatabaseWatch {
  /** The first DatabaseUnavailableError noted. */
  readonly failure: DatabaseUnavailableError | undefined;
  /** Notes `error` when it is (or was caused by) a DatabaseUnavailableError. */
  note(error: unknown): void;
  /** Throws the failure noted, if any. */
  throwIfFailed(): void;
  resolver(resolver: Resolvable): Resolvable;
  statusLists(client: StatusListClient): StatusListClient;
  replayCache(cache: ReplayCache): ReplayCache;
}

export function watchDatabase(): DatabaseWatch {
  let failure: DatabaseUnavailableError | undefined;
  const note = (error: unknown): void => {
    failure ??= databaseUnavailable(error);
  };
  const noting = async <T>(work: () => T | Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      note(error);
      throw error;
    }
  };
  return {
    get failure() {
      return failure;
    },
    note,
    throwIfFailed() {
      if (failure) throw failure;
    },
    resolver(resolver) {
      const refresh = resolver.refresh?.bind(resolver);
      const resolveCached = resolver.resolveCached?.bind(resolver);
      return {
        resolve: (didUrl, options) => noting(() => resolver.resolve(didUrl, options)),
        ...(resolveCached && { resolveCached }),
        ...(refresh && { refresh: (didUrl: string) => noting(() => refresh(didUrl)) }),
      };
    },
    statusLists: (client) => ({ check: (entry, issuer, at) => noting(() => client.check(entry, issuer, at)) }),
    replayCache: (cache) => ({
      remember(key, expiresAt) {
        const answer = cache.remember(key, expiresAt);
        return typeof answer === 'boolean' ? answer : noting(() => answer);
      },
    }),
  };
}

/**
 * `verifyPresentation(presentation, options)` for the issuer's own endpoints (POST /v1/vp/verify,
 * the token exchange); throws the DatabaseUnavailableError behind a refusal instead of returning
 * that refusal.
 */
export async function verifyDeciding(
  presentation: unknown,
  options: VerifyPresentationOptions,
): Promise<VerificationResult> {
  const watch = watchDatabase();
  const result = await verifyPresentation(presentation, {
    ...options,
    resolver: watch.resolver(options.resolver),
    ...(options.statusLists && { statusLists: watch.statusLists(options.statusLists) }),
    ...(options.replayCache && { replayCache: watch.replayCache(options.replayCache) }),
  });
  if (!result.valid) watch.throwIfFailed();
  return result;
}
