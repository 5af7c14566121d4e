/** Enrollment tokens and the two onboarding steps (docs/api.md §Enrollment). */
import { z } from 'zod';
import type { AgentCredential } from '../vc/types.ts';
import { endpoint } from './endpoint.ts';
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

export const enrollmentEndpoints = {
  mintEnrollmentToken: endpoint({
    method: 'POST',
    path: '/v1/enrollment-tokens',
    tag: 'Enrollment',
    summary: 'Mint a single-use enrollment token. Admin (open only with SERVICE_OPEN_ENROLLMENT=true).',
    auth: 'admin-or-open',
    body: { schema: MintEnrollmentTokenSchema },
    responses: { 201: { schema: EnrollmentTokenSchema, description: 'The token (shown once; stored only as a hash)' } },
    errors: [],
  }),
  listEnrollmentTokens: endpoint({
    method: 'GET',
    path: '/v1/enrollment-tokens',
    tag: 'Enrollment',
    summary: 'List enrollment tokens (never their values). Admin.',
    auth: 'admin',
    query: EnrollmentTokenQuerySchema,
    responses: { 200: { schema: EnrollmentTokenPageSchema, description: 'Tokens, newest first' } },
    errors: [],
  }),
  startOnboarding: endpoint({
    method: 'POST',
    path: '/v1/onboard',
    tag: 'Enrollment',
    summary: 'Onboarding step 1: a challenge for a valid token (the token is not consumed). Anyone holding a token.',
    auth: 'public',
    body: { schema: StartOnboardingSchema },
    responses: { 201: { schema: OnboardingChallengeSchema, description: 'Challenge' } },
    errors: ['TOKEN_INVALID', 'TOKEN_USED', 'TOKEN_EXPIRED', 'DID_METHOD_UNSUPPORTED', 'AGENT_EXISTS'],
  }),
  completeOnboarding: endpoint({
    method: 'POST',
    path: '/v1/onboard/verify',
    tag: 'Enrollment',
    summary:
      'Onboarding step 2: prove possession (self) or echo the challenge (server); consumes the token atomically. Anyone holding a challenge.',
    auth: 'public',
    body: { schema: CompleteOnboardingSchema },
    responses: { 201: { schema: EnrolledSchema, description: 'The agent and its AgentCredential' } },
    errors: [
      'CHALLENGE_NOT_FOUND',
      'CHALLENGE_USED',
      'CHALLENGE_EXPIRED',
      'CHALLENGE_MISMATCH',
      'PROOF_INVALID',
      'TOKEN_INVALID',
      'TOKEN_USED',
      'TOKEN_EXPIRED',
      'AGENT_EXISTS',
    ],
  }),
};
