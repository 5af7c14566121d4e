/**
 * User challenges (services/challenges.ts; wallet/contract/challenges.ts): a service provider
 * asks for a single-use nonce for a user, the user signs it, the provider sends the answer here.
 * Public (rate limited): the challenge id is the capability, and answering needs the user's key.
 */
import type { challengeEndpoints } from '../../wallet/contract/challenges.ts';
import type { IssuerContext } from '../boot.ts';
import type { HandlersOf } from '../http/mount.ts';
import { createChallengeService } from '../services/challenges.ts';

export function challengeHandlers(ctx: IssuerContext): HandlersOf<typeof challengeEndpoints> {
  const challenges = createChallengeService(ctx);
  return {
    createUserChallenge: async ({ body }, c) => {
      const issued = await challenges.issue(body.userDid, c.get('actor'));
      return { ...issued, expiresAt: issued.expiresAt.toISOString() };
    },
    verifyUserChallenge: async ({ params, body }, c) => {
      const verdict = await challenges.verify(params.challengeId, body, c.get('actor'));
      return c.json(verdict, verdict.verified ? 200 : 403);
    },
  };
}
