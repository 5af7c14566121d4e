/**
 * User challenges (services/challenges.ts): a service provider asks for a single-use nonce for
 * a user, the user signs it, the provider sends the answer here. Public (rate limited): the
 * challenge id is the capability, and answering needs the user's key.
 */
import { createRoute } from '@hono/zod-openapi';
import {
  ChallengeIdParamSchema,
  UserChallengeAnswerSchema,
  UserChallengeRequestSchema,
  UserChallengeSchema,
  UserChallengeVerdictSchema,
} from '../../wallet/contract/challenges.ts';
import type { IssuerContext } from '../boot.ts';
import { createRouter } from '../http/errors.ts';
import { createChallengeService } from '../services/challenges.ts';
import { errorResponses, jsonBody, jsonResponse } from './schemas.ts';

export function challengeRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const challenges = createChallengeService(ctx);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/challenges',
      tags: ['Consent'],
      summary: 'A single-use challenge (5 minutes) for a user to sign. Public.',
      request: { body: jsonBody(UserChallengeRequestSchema) },
      responses: { 201: jsonResponse(UserChallengeSchema, 'The challenge'), ...errorResponses(400, 413, 415, 429) },
    }),
    async (c) => {
      const issued = await challenges.issue(c.req.valid('json').userDid, c.get('actor'));
      return c.json({ ...issued, expiresAt: issued.expiresAt.toISOString() }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/challenges/{challengeId}/verify',
      tags: ['Consent'],
      summary:
        "Check the user's answer (signature or signed proof) and record it as consent evidence. Each challenge is judged once: 200 verified, 403 {verified:false, reason}; 409 CHALLENGE_USED, 403 CHALLENGE_EXPIRED. Public.",
      request: { params: ChallengeIdParamSchema, body: jsonBody(UserChallengeAnswerSchema) },
      responses: {
        200: jsonResponse(UserChallengeVerdictSchema, 'Verified'),
        403: jsonResponse(UserChallengeVerdictSchema, 'Not verified (the challenge is used up)'),
        ...errorResponses(400, 404, 409, 413, 415, 429),
      },
    }),
    async (c) => {
      const verdict = await challenges.verify(c.req.valid('param').challengeId, c.req.valid('json'), c.get('actor'));
      return c.json(verdict, verdict.verified ? 200 : 403);
    },
  );
  return app;
}
