/**
 * Enrollment tokens (operator) and the two onboarding steps (the agent, holding a token)
 * (wallet/contract/enrollment.ts). Who may call: minting and listing tokens — admin (minting is
 * open only with SERVICE_OPEN_ENROLLMENT=true, development); onboarding — anyone holding a valid
 * token.
 */
import type { enrollmentEndpoints } from '../../wallet/contract/enrollment.ts';
import type { IssuerContext } from '../boot.ts';
import type { HandlersOf } from '../http/mount.ts';
import {
  completeOnboarding,
  listEnrollmentTokens,
  mintEnrollmentToken,
  startOnboarding,
} from '../services/enrollment.ts';

export function enrollmentHandlers(ctx: IssuerContext): HandlersOf<typeof enrollmentEndpoints> {
  return {
    mintEnrollmentToken: ({ body }, c) => mintEnrollmentToken(ctx, body, c.get('actor')),
    listEnrollmentTokens: ({ query: { cursor, limit, state } }) =>
      listEnrollmentTokens(ctx, {
        limit,
        ...(cursor === undefined ? {} : { cursor }),
        ...(state === undefined ? {} : { state }),
      }),
    startOnboarding: ({ body }) => startOnboarding(ctx, body),
    completeOnboarding: ({ body }) => completeOnboarding(ctx, body),
  };
}
