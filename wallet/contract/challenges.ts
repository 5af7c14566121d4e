/** User challenges (docs/api.md §Consent): a nonce for a user to sign, and the verdict on the answer. */
import { z } from 'zod';
import { endpoint } from './endpoint.ts';
import { DidSchema, JsonObjectSchema } from './primitives.ts';

export const UserChallengeRequestSchema = z.strictObject({ userDid: DidSchema }).meta({ id: 'UserChallengeRequest' });

export const UserChallengeSchema = z
  .object({ challengeId: z.string(), challenge: z.string(), userDid: z.string(), expiresAt: z.string() })
  .meta({ id: 'UserChallenge' });

export const ChallengeIdParamSchema = z.object({ challengeId: z.string().min(1).max(64) });

export const UserChallengeAnswerSchema = z
  .strictObject({
    signature: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .meta({ description: 'Ed25519 signature of the UTF-8 challenge: base58btc multibase ("z…") or hex' }),
    verificationMethod: z
      .string()
      .min(1)
      .max(2200)
      .optional()
      .meta({ description: 'Which authentication key signed (default: each is tried)' }),
    proof: JsonObjectSchema.optional().meta({
      description:
        'A signed UserConsent or DID-Auth VerifiablePresentation with this challenge (proofPurpose authentication)',
    }),
  })
  .meta({ id: 'UserChallengeAnswer' });

export const UserChallengeVerdictSchema = z
  .object({
    verified: z.boolean(),
    userDid: z.string(),
    challengeId: z.string(),
    evidence: z.enum(['signature', 'UserConsent', 'VerifiablePresentation']).optional(),
    verificationMethod: z.string().optional(),
    consent: JsonObjectSchema.optional().meta({ description: 'What the user approved (UserConsent answers)' }),
    reason: z.string().optional().meta({
      description:
        'Why not verified: SIGNATURE_INVALID, KEY_NOT_AUTHORIZED, DID_RESOLUTION_FAILED, DID_DEACTIVATED, CHALLENGE_MISMATCH, USER_MISMATCH, PROOF_INVALID',
    }),
    message: z.string().optional(),
  })
  .meta({ id: 'UserChallengeVerdict' });

export type UserChallengeRequest = z.infer<typeof UserChallengeRequestSchema>;
export type UserChallenge = z.infer<typeof UserChallengeSchema>;
export type UserChallengeAnswer = z.infer<typeof UserChallengeAnswerSchema>;
export type UserChallengeVerdict = z.infer<typeof UserChallengeVerdictSchema>;

export const challengeEndpoints = {
  createUserChallenge: endpoint({
    method: 'POST',
    path: '/v1/challenges',
    tag: 'Consent',
    summary: 'A single-use challenge (5 minutes) for a user to sign. Public.',
    auth: 'public',
    body: { schema: UserChallengeRequestSchema },
    responses: { 201: { schema: UserChallengeSchema, description: 'The challenge' } },
    errors: [],
  }),
  verifyUserChallenge: endpoint({
    method: 'POST',
    path: '/v1/challenges/{challengeId}/verify',
    tag: 'Consent',
    summary:
      "Check the user's answer (signature or signed proof) and record it as consent evidence. Each challenge is judged once: 200 verified, 403 {verified:false, reason}; 409 CHALLENGE_USED, 403 CHALLENGE_EXPIRED. Public.",
    auth: 'public',
    params: ChallengeIdParamSchema,
    body: { schema: UserChallengeAnswerSchema },
    responses: {
      200: { schema: UserChallengeVerdictSchema, description: 'Verified' },
      403: { schema: UserChallengeVerdictSchema, description: 'Not verified (the challenge is used up)' },
    },
    errors: ['CHALLENGE_NOT_FOUND', 'CHALLENGE_USED', 'CHALLENGE_EXPIRED', 'SIGNATURE_ENCODING_INVALID'],
  }),
};
