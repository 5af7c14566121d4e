/**
 * Enrollment tokens (operator) and the two onboarding steps (the agent, holding a token).
 * Who may call: minting and listing tokens — admin (minting is open only with
 * SERVICE_OPEN_ENROLLMENT=true, development); onboarding — anyone holding a valid token.
 */
import { createRoute } from '@hono/zod-openapi';
import {
  CompleteOnboardingSchema,
  EnrolledSchema,
  EnrollmentTokenPageSchema,
  EnrollmentTokenQuerySchema,
  EnrollmentTokenSchema,
  MintEnrollmentTokenSchema,
  OnboardingChallengeSchema,
  StartOnboardingSchema,
} from '../../wallet/contract/enrollment.ts';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import {
  completeOnboarding,
  listEnrollmentTokens,
  mintEnrollmentToken,
  startOnboarding,
} from '../services/enrollment.ts';
import { ADMIN_SECURITY, errorResponses, jsonBody, jsonResponse } from './schemas.ts';

type Admin = [ReturnType<typeof adminAuth>];

const mintRoute = (middleware: Admin) =>
  createRoute({
    method: 'post',
    path: '/v1/enrollment-tokens',
    tags: ['Enrollment'],
    summary: 'Mint a single-use enrollment token. Admin (open only with SERVICE_OPEN_ENROLLMENT=true).',
    security: ADMIN_SECURITY,
    middleware,
    request: { body: jsonBody(MintEnrollmentTokenSchema) },
    responses: {
      201: jsonResponse(EnrollmentTokenSchema, 'The token (shown once; stored only as a hash)'),
      ...errorResponses(400, 401, 413, 415, 429),
    },
  });

const listRoute = (middleware: Admin) =>
  createRoute({
    method: 'get',
    path: '/v1/enrollment-tokens',
    tags: ['Enrollment'],
    summary: 'List enrollment tokens (never their values). Admin.',
    security: ADMIN_SECURITY,
    middleware,
    request: { query: EnrollmentTokenQuerySchema },
    responses: {
      200: jsonResponse(EnrollmentTokenPageSchema, 'Tokens, newest first'),
      ...errorResponses(400, 401, 429),
    },
  });

const startRoute = createRoute({
  method: 'post',
  path: '/v1/onboard',
  tags: ['Enrollment'],
  summary: 'Onboarding step 1: a challenge for a valid token (the token is not consumed). Anyone holding a token.',
  request: { body: jsonBody(StartOnboardingSchema) },
  responses: {
    201: jsonResponse(OnboardingChallengeSchema, 'Challenge'),
    ...errorResponses(400, 403, 409, 413, 415, 422, 429),
  },
});

const completeRoute = createRoute({
  method: 'post',
  path: '/v1/onboard/verify',
  tags: ['Enrollment'],
  summary:
    'Onboarding step 2: prove possession (self) or echo the challenge (server); consumes the token atomically. Anyone holding a challenge.',
  request: { body: jsonBody(CompleteOnboardingSchema) },
  responses: {
    201: jsonResponse(EnrolledSchema, 'The agent and its AgentCredential'),
    ...errorResponses(400, 403, 404, 409, 413, 415, 429),
  },
});

export function enrollmentRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin: Admin = [adminAuth({ adminApiKey: ctx.config.adminApiKey })];
  const minter: Admin = [adminAuth({ adminApiKey: ctx.config.adminApiKey, openWhen: () => ctx.config.openEnrollment })];

  app.openapi(mintRoute(minter), async (c) =>
    c.json(await mintEnrollmentToken(ctx, c.req.valid('json'), c.get('actor')), 201),
  );
  app.openapi(listRoute(admin), async (c) => {
    const { cursor, limit, state } = c.req.valid('query');
    const page = await listEnrollmentTokens(ctx, {
      limit,
      ...(cursor === undefined ? {} : { cursor }),
      ...(state === undefined ? {} : { state }),
    });
    return c.json(page, 200);
  });
  app.openapi(startRoute, async (c) => c.json(await startOnboarding(ctx, c.req.valid('json')), 201));
  app.openapi(completeRoute, async (c) => c.json(await completeOnboarding(ctx, c.req.valid('json')), 201));
  return app;
}
