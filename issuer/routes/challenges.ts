/**
 * User challenges (services/challenges.ts): a service provider asks for a single-use nonce for
 * a user, the user signs it, the provider sends the answer here. Public (rate limited): the
 * challenge id is the capability, and answering needs the user's key.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { createRouter } from '../http/errors.ts';
import { createChallengeService } from '../services/challenges.ts';
import { DidSchema, errorResponses, jsonBody, JsonObjectSchema, jsonResponse } from './schemas.ts';

const ChallengeRequest = z.strictObject({ userDid: DidSchema }).openapi('UserChallengeRequest');

const ChallengeSchema = z
  .object({ challengeId: z.string(), challenge: z.string(), userDid: z.string(), expiresAt: z.string() })
  .openapi('UserChallenge');

const AnswerRequest = z
  .strictObject({
    signature: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .openapi({ description: 'Ed25519 signature of the UTF-8 challenge: base58btc multibase ("z…") or hex' }),
    verificationMethod: z
      .string()
      .min(1)
      .max(2200)
      .optional()
      .openapi({ description: 'Which authentication key signed (default: each is tried)' }),
    proof: JsonObjectSchema.optional().openapi({
      description:
        'A signed UserConsent or DID-Auth VerifiablePresentation with this challenge (proofPurpose authentication)',
    }),
  })
  .openapi('UserChallengeAnswer');

const VerdictSchema = z
  .object({
    verified: z.boolean(),
    userDid: z.string(),
    challengeId: z.string(),
    evidence: z.enum(['signature', 'UserConsent', 'VerifiablePresentation']).optional(),
    verificationMethod: z.string().optional(),
    consent: JsonObjectSchema.optional().openapi({ description: 'What the user approved (UserConsent answers)' }),
    reason: z
      .string()
      .optional()
      .openapi({
        description:
          'Why not verified: SIGNATURE_INVALID, KEY_NOT_AUTHORIZED, DID_RESOLUTION_FAILED, DID_DEACTIVATED, CHALLENGE_MISMATCH, USER_MISMATCH, PROOF_INVALID',
      }),
    message: z.string().optional(),
  })
  .openapi('UserChallengeVerdict');

export function challengeRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const challenges = createChallengeService(ctx);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/challenges',
      tags: ['Consent'],
      summary: 'A single-use challenge (5 minutes) for a user to sign. Public.',
      request: { body: jsonBody(ChallengeRequest) },
      responses: { 201: jsonResponse(ChallengeSchema, 'The challenge'), ...errorResponses(400, 413, 415, 429) },
    }),
    (c) => {
      const issued = challenges.issue(c.req.valid('json').userDid, c.get('actor'));
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
      request: { params: z.object({ challengeId: z.string().min(1).max(64) }), body: jsonBody(AnswerRequest) },
      responses: {
        200: jsonResponse(VerdictSchema, 'Verified'),
        403: jsonResponse(VerdictSchema, 'Not verified (the challenge is used up)'),
        ...errorResponses(400, 404, 409, 413, 415, 429),
      },
    }),
    async (c) => {
      const verdict = await challenges.verify(c.req.valid('param').challengeId, c.req.valid('json'), c.get('actor'));
      return c.json(verdict as z.infer<typeof VerdictSchema>, verdict.verified ? 200 : 403);
    },
  );
  return app;
}
