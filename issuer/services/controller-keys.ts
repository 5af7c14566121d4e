/**
 * A key resolver for proofs that must be made by ONE DID: the verification method has to belong
 * to `controller` (checked before any resolution, so a proof naming another DID costs no lookup)
 * and be authorized for the proof's purpose in that DID's document (createKeyResolver: DID Core
 * §5.3, deactivation, revoked/expired methods). A valid proof by some other DID proves nothing.
 */
import type { KeyResolver } from '../../wallet/crypto/data-integrity.ts';
import { createKeyResolver } from '../../wallet/did/verification-method.ts';
import type { IssuerContext } from '../context.ts';

export function controllerKeyResolver(
  ctx: Pick<IssuerContext, 'resolver' | 'now'>,
  controller: string,
  refuse: (verificationMethod: string) => Error,
): KeyResolver {
  const resolveKey = createKeyResolver(ctx.resolver, { now: () => ctx.now() });
  return (verificationMethod, purpose) =>
    verificationMethod.split('#')[0] === controller
      ? resolveKey(verificationMethod, purpose)
      : Promise.reject(refuse(verificationMethod.slice(0, 200)));
}
