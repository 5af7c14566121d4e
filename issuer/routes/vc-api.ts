/**
 * W3C VC-API endpoints (services/vc-api.ts) at the paths the CCG specification and its test
 * suites use. Issuing is an operator act (admin key); verifying is public.
 *
 * Verification answers follow VC-API: 200 `{verified: true, checks, warnings, errors: []}`, and
 * 400 when not verified — with the VC-API fields AND the standard `error` member, so VC-API
 * clients and ours read the same response.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import { createVcApi, type CredentialVerification } from '../services/vc-api.ts';
import { ADMIN_SECURITY, errorResponses, jsonBody, JsonObjectSchema, jsonResponse } from './schemas.ts';

const IssueRequest = z
  .object({
    credential: JsonObjectSchema.openapi({ description: 'A VC 2.0 credential without proof; issuer defaults to this issuer' }),
    options: JsonObjectSchema.optional(),
  })
  .openapi('VcApiIssueRequest');

const ProblemSchema = z.object({ check: z.string(), code: z.string(), message: z.string() });
const VerificationSchema = z
  .object({
    verified: z.boolean(),
    checks: z.array(z.string()),
    warnings: z.array(ProblemSchema),
    errors: z.array(ProblemSchema),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  })
  .openapi('VcApiVerification');

const PresentationVerificationSchema = VerificationSchema.extend({
  presentationResult: z.object({ verified: z.boolean() }),
  credentialResults: z.array(VerificationSchema),
}).openapi('VcApiPresentationVerification');

const VerifyCredentialRequest = z
  .object({ verifiableCredential: JsonObjectSchema, options: JsonObjectSchema.optional() })
  .openapi('VcApiVerifyCredentialRequest');

const VerifyPresentationRequest = z
  .object({
    verifiablePresentation: JsonObjectSchema,
    options: z.object({ challenge: z.string().min(1).max(256).optional(), domain: z.string().min(1).max(253).optional() }).passthrough().optional(),
  })
  .openapi('VcApiVerifyPresentationRequest');

/** The VC-API verdict, plus the standard error member when not verified. */
function verdictBody<T extends CredentialVerification>(result: T): T & { error?: { code: string; message: string } } {
  if (result.verified) return result;
  const first = result.errors[0];
  return { ...result, error: { code: 'NOT_VERIFIED', message: first ? `${first.check}: ${first.code}: ${first.message}` : 'not verified' } };
}

export function vcApiRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin = adminAuth({ adminApiKey: ctx.config.adminApiKey });
  const vcApi = createVcApi(ctx);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/credentials/issue',
      tags: ['VC-API'],
      summary: 'Sign a credential as this issuer (eddsa-jcs-2022). Mandate authority types are refused (422 CREDENTIAL_TYPE_RESERVED): use enrollment or POST /v1/vcs. Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { body: jsonBody(IssueRequest) },
      responses: { 201: jsonResponse(z.object({ verifiableCredential: JsonObjectSchema }).openapi('VcApiIssueResponse'), 'The signed credential'), ...errorResponses(400, 401, 413, 415, 422, 429) },
    }),
    async (c) => c.json({ verifiableCredential: await vcApi.issue(c.req.valid('json').credential, c.get('actor')) }, 201),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/credentials/verify',
      tags: ['VC-API'],
      summary: "Verify a credential's proof (its issuer's assertionMethod key), validity window and status entries. Trust in the issuer is the caller's decision. Public.",
      request: { body: jsonBody(VerifyCredentialRequest) },
      responses: { 200: jsonResponse(VerificationSchema, 'Verified'), 400: jsonResponse(VerificationSchema, 'Not verified, or malformed'), ...errorResponses(413, 415, 429) },
    }),
    async (c) => {
      const result = await vcApi.verifyCredential(c.req.valid('json').verifiableCredential);
      return c.json(verdictBody(result), result.verified ? 200 : 400);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/presentations/verify',
      tags: ['VC-API'],
      summary: "Verify a presentation's proof (its holder's authentication key, options.challenge and options.domain) and every credential in it. Public.",
      request: { body: jsonBody(VerifyPresentationRequest) },
      responses: { 200: jsonResponse(PresentationVerificationSchema, 'Verified'), 400: jsonResponse(PresentationVerificationSchema, 'Not verified, or malformed'), ...errorResponses(413, 415, 429) },
    }),
    async (c) => {
      const { verifiablePresentation, options } = c.req.valid('json');
      const result = await vcApi.verifyPresentation(verifiablePresentation, {
        ...(options?.challenge === undefined ? {} : { challenge: options.challenge }),
        ...(options?.domain === undefined ? {} : { domain: options.domain }),
      });
      return c.json(verdictBody(result), result.verified ? 200 : 400);
    },
  );
  return app;
}
