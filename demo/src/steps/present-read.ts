/** The sub-agent's ordinary presentation: its chain and the provider's grant, for files:read. */
import type { VerifiablePresentation } from '../../../wallet/vc/types.ts';
import type { Wallet } from '../../../wallet/wallet.ts';
import type { Story } from '../story.ts';

export function presentRead(story: Story, sub: Wallet): (challenge: string) => Promise<VerifiablePresentation> {
  return (challenge) =>
    sub.present({
      target: story.config.target,
      challenge,
      scopes: ['files:read'],
      trustedIssuers: [story.config.issuerDid],
      grantIssuers: [story.config.providerDid],
    });
}
