/** Enrollment tokens and the two onboarding steps (docs/api.md §Enrollment). */
import { z } from 'zod';
import type { AgentCredential } from '../vc/types.ts';
import { DidSchema, DomainSchema, jsonObject, JsonObjectSchema, PageQuerySchema, ScopesSchema } from './primitives.ts';

export const MintEnrollmentTokenSchema = z
  .strictObject({
    requestedScopes: ScopesSchema,
    maxDelegationDepth: z.number().int().min(0).max(16),
    requestedDomains: z.array(DomainSchema).min(1).max(64),
    ttlSeconds: z
      .number()
      .int()
      .min(10)
      .max(7 * 86_400)
      .optional()
      .meta({ description: 'Token lifetime; default 900 (15 min)' }),
    credentialValiditySeconds: z
      .number()
      .int()
      .min(60)
      .max(10 * 365 * 86_400)
      .optional()
      .meta({ description: 'Validity of the AgentCredential the token yields' }),
  })
  .meta({ id: 'MintEnrollmentToken' });

export const EnrollmentTokenSchema = z
  .object({
    tokenId: z.string(),
    /** The single-use secret, shown once. */
    token: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'EnrollmentToken' });

export const TOKEN_STATES = ['outstanding', 'used', 'expired'] as const;

/** `GET /v1/enrollment-tokens`: a token's record, never its value. */
export const EnrollmentTokenInfoSchema = z
  .object({
    tokenId: z.string(),
    state: z.enum(TOKEN_STATES),
    requestedScopes: z.array(z.string()),
    maxDelegationDepth: z.number(),
    requestedDomains: z.array(z.string()),
    createdAt: z.string(),
    expiresAt: z.string(),
    usedAt: z.string().optional(),
    agentDid: z.string().optional(),
  })
  .meta({ id: 'EnrollmentTokenState' });

export const EnrollmentTokenQuerySchema = PageQuerySchema.extend({ state: z.enum(TOKEN_STATES).optional() });

export const EnrollmentTokenPageSchema = z.object({
  tokens: z.array(EnrollmentTokenInfoSchema),
  nextCursor: z.string().optional(),
});

export const StartOnboardingSchema = z
  .strictObject({
    token: z.string().min(1).max(256),
    custody: z.enum(['server', 'self']),
    did: DidSchema.optional().meta({
      description: 'Self custody only: the DID the agent controls (did:key or did:web)',
    }),
  })
  .meta({ id: 'StartOnboarding' });

export const OnboardingChallengeSchema = z
  .object({
    challengeId: z.string(),
    challenge: z.string(),
    expiresAt: z.string(),
    domain: z.string().meta({ description: "The issuer's DID: the domain of a DID-Auth proof" }),
  })
  .meta({ id: 'OnboardingChallenge' });

export const CompleteOnboardingSchema = z
  .strictObject({
    challengeId: z.string().uuid(),
    proof: JsonObjectSchema.optional().meta({
      description: 'Self custody: DID-Auth presentation (proofPurpose authentication, challenge, domain = issuer DID)',
    }),
    challenge: z.string().min(1).max(256).optional().meta({ description: 'Server custody: the challenge from step 1' }),
  })
  .meta({ id: 'CompleteOnboarding' });

export const EnrolledSchema = z
  .object({
    agentDid: z.string(),
    vcId: z.string(),
    custody: z.enum(['server', 'self']),
    verifiableCredential: jsonObject<AgentCredential>(),
  })
  .meta({ id: 'Enrolled' });

export type MintEnrollmentTokenRequest = z.input<typeof MintEnrollmentTokenSchema>;
export type EnrollmentToken = z.infer<typeof EnrollmentTokenSchema>;
export type EnrollmentTokenInfo = z.infer<typeof EnrollmentTokenInfoSchema>;
export type EnrollmentTokenPage = z.infer<typeof EnrollmentTokenPageSchema>;
export type StartOnboardingRequest = z.infer<typeof StartOnboardingSchema>;
export type OnboardingChallenge = z.infer<typeof OnboardingChallengeSchema>;
export type CompleteOnboardingRequest = z.infer<typeof CompleteOnboardingSchema>;
export type Enrolled = z.infer<typeof EnrolledSchema>;
