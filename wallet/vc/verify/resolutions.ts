/**
 * The DID resolutions of one verification: every DID involved is resolved once, all together,
 * and every check and key lookup reads that one resolution (a refresh replaces it).
 */
import type { KeyResolver } from '../../crypto/data-integrity.ts';
import type { DidResolutionResult, Resolvable } from '../../did/types.ts';
import { isStaleMiss, keyFromResolution } from '../../did/verification-method.ts';
import { VerificationError } from '../reasons.ts';
import { settle, type Pending, type Settled } from './settled.ts';

/** A DID's resolution for this verification: settled at once when the resolver had it in memory. */
export type Resolution = Pending<Settled<DidResolutionResult>>;

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
export interface Resolutions {
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
export function startedTogether(dids: ReadonlySet<string>, resolver: Resolvable): Resolutions {
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
export type KeysOf = (controller: string) => KeyResolver;

/**
 * Key resolvers reading the resolutions started for this verification: one resolution per DID
 * per verification, and no second cache read that could see a different document. Each insists
 * the method belongs to `controller` (its DID, then nothing or a "#fragment").
 */
export function keysFrom(resolutions: Resolutions, now: number): KeysOf {
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

export function ageOf(result: DidResolutionResult): number {
  const age = result.didResolutionMetadata.ageMs;
  return typeof age === 'number' && age > 0 ? age : 0;
}
