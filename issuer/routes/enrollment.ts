/**
 * Enrollment tokens (operator) and the two onboarding steps (the agent, holding a token).
 * Who may call: minting and listing tokens — admin (minting is open only with
 * SERVICE_OPEN_ENROLLMENT=true, development); onboarding — anyone holding a valid token.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import {
  completeOnboarding,
  listEnrollmentTokens,
  mintEnrollmentToken,
  startOnboarding,
} from '../services/enrollment.ts';
import {
  ADMIN_SECURITY,
  DidSchema,
  DomainSchema,
  errorResponses,
  jsonBody,
  JsonObjectSchema,
  jsonResponse,
  PageQuerySchema,
  ScopesSchema,
} from './schemas.ts';

const MintRequest = z
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
      .openapi({ description: 'Token lifetime; default 900 (15 min)' }),
    credentialValiditySeconds: z
      .number()
      .int()
      .min(60)
      .max(10 * 365 * 86_400)
      .optional()
      .openapi({ description: 'Validity of the AgentCredential the token yields' }),
  })
  .openapi('MintEnrollmentToken');

const MintResponse = z
  .object({ tokenId: z.string(), token: z.string(), expiresAt: z.string() })
  .openapi('EnrollmentToken');

const TokenView = z
  .object({
    tokenId: z.string(),
    state: z.enum(['outstanding', 'used', 'expired']),
    requestedScopes: z.array(z.string()),
    maxDelegationDepth: z.number(),
    requestedDomains: z.array(z.string()),
    createdAt: z.string(),
    expiresAt: z.string(),
    usedAt: z.string().optional(),
    agentDid: z.string().optional(),
  })
  .openapi('EnrollmentTokenState');

const StartRequest = z
  .strictObject({
    token: z.string().min(1).max(256),
    custody: z.enum(['server', 'self']),
    did: DidSchema.optional().openapi({
      description: 'Self custody only: the DID the agent controls (did:key or did:web)',
    }),
  })
  .openapi('StartOnboarding');

const StartResponse = z
  .object({
    challengeId: z.string(),
    challenge: z.string(),
    expiresAt: z.string(),
    domain: z.string().openapi({ description: "The issuer's DID: the domain of a DID-Auth proof" }),
  })
  .openapi('OnboardingChallenge');

const CompleteRequest = z
  .strictObject({
    challengeId: z.string().uuid(),
    proof: JsonObjectSchema.optional().openapi({
      description: 'Self custody: DID-Auth presentation (proofPurpose authentication, challenge, domain = issuer DID)',
    }),
    challenge: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .openapi({ description: 'Server custody: the challenge from step 1' }),
  })
  .openapi('CompleteOnboarding');

const CompleteResponse = z
  .object({
    agentDid: z.string(),
    vcId: z.string(),
    custody: z.enum(['server', 'self']),
    verifiableCredential: JsonObjectSchema,
  })
  .openapi('Enrolled');

export function enrollmentRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin = adminAuth({ adminApiKey: ctx.config.adminApiKey });
  const minter = adminAuth({ adminApiKey: ctx.config.adminApiKey, openWhen: () => ctx.config.openEnrollment });

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/enrollment-tokens',
      tags: ['Enrollment'],
      summary: 'Mint a single-use enrollment token. Admin (open only with SERVICE_OPEN_ENROLLMENT=true).',
      security: ADMIN_SECURITY,
      middleware: [minter] as const,
      request: { body: jsonBody(MintRequest) },
      responses: {
        201: jsonResponse(MintResponse, 'The token (shown once; stored only as a hash)'),
        ...errorResponses(400, 401, 413, 415, 429),
      },
    }),
    (c) => c.json(mintEnrollmentToken(ctx, c.req.valid('json'), c.get('actor')), 201),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/enrollment-tokens',
      tags: ['Enrollment'],
      summary: 'List enrollment tokens (never their values). Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { query: PageQuerySchema.extend({ state: z.enum(['outstanding', 'used', 'expired']).optional() }) },
      responses: {
        200: jsonResponse(
          z.object({ tokens: z.array(TokenView), nextCursor: z.string().optional() }),
          'Tokens, newest first',
        ),
        ...errorResponses(400, 401, 429),
      },
    }),
    (c) => {
      const { cursor, limit, state } = c.req.valid('query');
      return c.json(
        listEnrollmentTokens(ctx, {
          limit,
          ...(cursor === undefined ? {} : { cursor }),
          ...(state === undefined ? {} : { state }),
        }),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/onboard',
      tags: ['Enrollment'],
      summary: 'Onboarding step 1: a challenge for a valid token (the token is not consumed). Anyone holding a token.',
      request: { body: jsonBody(StartRequest) },
      responses: {
        201: jsonResponse(StartResponse, 'Challenge'),
        ...errorResponses(400, 403, 409, 413, 415, 422, 429),
      },
    }),
    (c) => c.json(startOnboarding(ctx, c.req.valid('json')), 201),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/onboard/verify',
      tags: ['Enrollment'],
      summary:
        'Onboarding step 2: prove possession (self) or echo the challenge (server); consumes the token atomically. Anyone holding a challenge.',
      request: { body: jsonBody(CompleteRequest) },
      responses: {
        201: jsonResponse(CompleteResponse, 'The agent and its AgentCredential'),
        ...errorResponses(400, 403, 404, 409, 413, 415, 429),
      },
    }),
    async (c) => c.json((await completeOnboarding(ctx, c.req.valid('json'))) as z.infer<typeof CompleteResponse>, 201),
  );
  return app;
}
