/**
 * A key resolver for proofs that must be made by ONE DID: the verification method has to belong
 * to `controller` (checked before any resolution, so a proof naming another DID costs no lookup)
 * and be authorized for the proof's purpose in that DID's document (createKeyResolver: DID Core
 * §5.3, deactivation, revoked/expired methods). A valid proof by some other DID proves nothing.
 */
import type { KeyResolver } from '../../wallet/crypto/data-integrity.ts';
import { createKeyResolver } from '../../wallet/did/verification-method.ts';
import type { IssuerDeps } from '../deps.ts';
import { watchDatabase } from './database-watch.ts';

export function controllerKeyResolver(
  deps: Pick<IssuerDeps, 'resolver' | 'now'>,
  controller: string,
  refuse: (verificationMethod: string) => Error,
): KeyResolver {
  return async (verificationMethod, purpose) => {
    if (verificationMethod.split('#')[0] !== controller) throw refuse(verificationMethod.slice(0, 200));
    // The wallet's key resolver answers any resolver failure DID_RESOLUTION_FAILED: one this
    // issuer's database caused is no verdict on the key, and is thrown as itself (503).
    const watch = watchDatabase();
    try {
      return await createKeyResolver(watch.resolver(deps.resolver), { now: () => deps.now() })(
        verificationMethod,
        purpose,
      );
    } catch (error) {
      watch.throwIfFailed();
      throw error;
    }
  };
}
