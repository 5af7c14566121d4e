/**
 * W3C-CCG VC-API endpoints (services/vc-api/*) at the paths the specification and the W3C test
 * suites use. Issuing and status updates are operator acts (admin key); verifying is public.
 *
 * Verification answers follow VC-API: 200 `{verified: true, checks, warnings, errors: []}`, and
 * 400 when not verified — with the VC-API fields AND the standard `error` member, so VC-API
 * clients and ours read the same response.
 */
import { createRoute } from '@hono/zod-openapi';
import {
  VcApiIssueRequestSchema,
  VcApiIssueResponseSchema,
  VcApiPresentationVerificationSchema,
  VcApiStatusUpdatedSchema,
  VcApiStatusUpdateSchema,
  VcApiVerificationSchema,
  VcApiVerifyCredentialRequestSchema,
  VcApiVerifyPresentationRequestSchema,
} from '../../wallet/contract/vc-api.ts';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import { issueVcApiCredential } from '../services/vc-api/issue.ts';
import { updateVcApiStatus } from '../services/vc-api/status.ts';
import { createVcApiVerifier, type CredentialVerification } from '../services/vc-api/verify.ts';
import { ADMIN_SECURITY, errorResponses, jsonBody, jsonResponse } from './schemas.ts';

/** The VC-API verdict, plus the standard error member when not verified. */
function verdictBody<T extends CredentialVerification>(result: T): T & { error?: { code: string; message: string } } {
  if (result.verified) return result;
  const first = result.errors[0];
  return {
    ...result,
    error: {
      code: 'NOT_VERIFIED',
      message: first ? `${first.check}: ${first.code}: ${first.message}` : 'not verified',
    },
  };
}

/** Only the options given, so absent ones are not passed as undefined. */
function given<T extends object>(options: T | undefined, keys: ReadonlyArray<keyof T>): Partial<T> {
  return Object.fromEntries(
    keys.filter((key) => options?.[key] !== undefined).map((key) => [key, options?.[key]]),
  ) as Partial<T>;
}

type Admin = [ReturnType<typeof adminAuth>];

const issueRoute = (middleware: Admin) =>
  createRoute({
    method: 'post',
    path: '/credentials/issue',
    tags: ['VC-API'],
    summary:
      "Sign a credential as this issuer (eddsa-jcs-2022, or eddsa-rdfc-2022 on request), with a revocation entry on this issuer's list unless options.credentialStatus says otherwise. Mandate authority types are refused (422 CREDENTIAL_TYPE_RESERVED). Admin.",
    security: ADMIN_SECURITY,
    middleware,
    request: { body: jsonBody(VcApiIssueRequestSchema) },
    responses: {
      201: jsonResponse(VcApiIssueResponseSchema, 'The signed credential'),
      ...errorResponses(400, 401, 409, 413, 415, 422, 429),
    },
  });

const statusRoute = (middleware: Admin) =>
  createRoute({
    method: 'post',
    path: '/credentials/status',
    tags: ['VC-API'],
    summary:
      'Set or clear a status entry of a credential issued through POST /credentials/issue (VC-API UpdateCredentialStatus). Audited; the next status-list fetch shows it. Admin.',
    security: ADMIN_SECURITY,
    middleware,
    request: { body: jsonBody(VcApiStatusUpdateSchema) },
    responses: {
      200: jsonResponse(VcApiStatusUpdatedSchema, 'The entry and its value now'),
      ...errorResponses(400, 401, 404, 413, 415, 429),
    },
  });

const verifyCredentialRoute = createRoute({
  method: 'post',
  path: '/credentials/verify',
  tags: ['VC-API'],
  summary:
    "Verify a credential (VC 2.0, or 1.1): its shape and JSON-LD rules, its proof (its issuer's assertionMethod key; eddsa-jcs-2022 or eddsa-rdfc-2022), validity window and status entries. Trust in the issuer is the caller's decision. Public.",
  request: { body: jsonBody(VcApiVerifyCredentialRequestSchema) },
  responses: {
    200: jsonResponse(VcApiVerificationSchema, 'Verified'),
    400: jsonResponse(VcApiVerificationSchema, 'Not verified, or malformed'),
    ...errorResponses(413, 415, 429),
  },
});

const verifyPresentationRoute = createRoute({
  method: 'post',
  path: '/presentations/verify',
  tags: ['VC-API'],
  summary:
    "Verify a presentation's shape, JSON-LD rules and proof (its holder's authentication key, options.challenge and options.domain) and every credential in it. Public.",
  request: { body: jsonBody(VcApiVerifyPresentationRequestSchema) },
  responses: {
    200: jsonResponse(VcApiPresentationVerificationSchema, 'Verified'),
    400: jsonResponse(VcApiPresentationVerificationSchema, 'Not verified, or malformed'),
    ...errorResponses(413, 415, 429),
  },
});

export function vcApiRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin = adminAuth({ adminApiKey: ctx.config.adminApiKey });
  const verifier = createVcApiVerifier(ctx);

  app.openapi(issueRoute([admin]), async (c) => {
    const { credential, options } = c.req.valid('json');
    return c.json(
      { verifiableCredential: await issueVcApiCredential(ctx, credential, options ?? {}, c.get('actor')) },
      201,
    );
  });

  app.openapi(statusRoute([admin]), async (c) =>
    c.json(await updateVcApiStatus(ctx, c.req.valid('json'), c.get('actor')), 200),
  );

  app.openapi(verifyCredentialRoute, async (c) => {
    const { verifiableCredential, options } = c.req.valid('json');
    const result = await verifier.verifyCredential(
      verifiableCredential,
      given(options, ['expectedProofPurpose', 'challenge', 'domain']),
    );
    return c.json(verdictBody(result), result.verified ? 200 : 400);
  });

  app.openapi(verifyPresentationRoute, async (c) => {
    const { verifiablePresentation, options } = c.req.valid('json');
    const result = await verifier.verifyPresentation(verifiablePresentation, given(options, ['challenge', 'domain']));
    return c.json(verdictBody(result), result.verified ? 200 : 400);
  });
  return app;
}
