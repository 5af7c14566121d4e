/** User challenges (docs/api.md §Consent): a nonce for a user to sign, and the verdict on the answer. */
import { z } from 'zod';
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
