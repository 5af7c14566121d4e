/**
 * W3C-CCG VC-API endpoints (services/vc-api/*) at the paths the specification and the W3C test
 * suites use. Issuing and status updates are operator acts (admin key); verifying is public.
 *
 * Verification answers follow VC-API: 200 `{verified: true, checks, warnings, errors: []}`, and
 * 400 when not verified — with the VC-API fields AND the standard `error` member, so VC-API
 * clients and ours read the same response.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import { issueVcApiCredential } from '../services/vc-api/issue.ts';
import { VC_API_CRYPTOSUITE_NAMES } from '../services/vc-api/jsonld.ts';
import { updateVcApiStatus } from '../services/vc-api/status.ts';
import { createVcApiVerifier, type CredentialVerification } from '../services/vc-api/verify.ts';
import { LIST_PURPOSES } from '../services/status-lists.ts';
import { ADMIN_SECURITY, errorResponses, jsonBody, JsonObjectSchema, jsonResponse } from './schemas.ts';

const StatusRequest = z
  .strictObject({ type: z.literal('BitstringStatusListEntry'), statusPurpose: z.enum(LIST_PURPOSES) })
  .openapi('VcApiStatusRequest', {
    description: "A status entry to give the credential, on this issuer's default list for the purpose",
  });

const IssueOptions = z
  .strictObject({
    credentialId: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .openapi({ description: 'The id status updates name the credential by (default: its id)' }),
    credentialStatus: z
      .union([StatusRequest, z.array(StatusRequest).max(4)])
      .optional()
      .refine((asked) => !Array.isArray(asked) || new Set(asked.map((a) => a.statusPurpose)).size === asked.length, {
        message: 'one entry per purpose',
      })
      .openapi({ description: 'Status entries to add (default: one revocation entry; [] for none)' }),
    cryptosuite: z.enum(VC_API_CRYPTOSUITE_NAMES).optional().openapi({ description: 'Default eddsa-jcs-2022' }),
    type: z.literal('DataIntegrityProof').optional(),
  })
  .openapi('VcApiIssueOptions');

const IssueRequest = z
  .object({
    credential: JsonObjectSchema.openapi({
      description: 'A VC 2.0 credential without proof; its issuer is this issuer',
    }),
    options: IssueOptions.optional(),
  })
  .openapi('VcApiIssueRequest');

const ProblemSchema = z.object({
  check: z.string(),
  code: z.string(),
  message: z.string(),
  type: z.string().optional(),
  rule: z.string().optional(),
});
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
  .object({
    verifiableCredential: JsonObjectSchema,
    options: z
      .object({
        checks: z
          .array(z.string().max(64))
          .max(16)
          .optional()
          .openapi({ description: 'Accepted and ignored: every check runs' }),
        expectedProofPurpose: z.string().min(1).max(64).optional(),
        challenge: z.string().min(1).max(256).optional(),
        domain: z.string().min(1).max(253).optional(),
      })
      .passthrough()
      .optional(),
  })
  .openapi('VcApiVerifyCredentialRequest');

const VerifyPresentationRequest = z
  .object({
    verifiablePresentation: JsonObjectSchema,
    options: z
      .object({ challenge: z.string().min(1).max(256).optional(), domain: z.string().min(1).max(253).optional() })
      .passthrough()
      .optional(),
  })
  .openapi('VcApiVerifyPresentationRequest');

const StatusUpdateRequest = z
  .strictObject({
    credentialId: z.string().min(1).max(256),
    credentialStatus: z.strictObject({
      // The CCG example says BitstringStatusList; the entry's own type is BitstringStatusListEntry.
      type: z.enum(['BitstringStatusListEntry', 'BitstringStatusList']),
      statusPurpose: z.string().min(1).max(64),
      id: z.string().max(2048).optional(),
      statusListIndex: z
        .string()
        .regex(/^[0-9]{1,12}$/)
        .optional(),
      statusListCredential: z.string().max(2048).optional(),
    }),
    status: z
      .union([z.boolean(), z.number().int().min(0).max(255)])
      .openapi({ description: 'true sets, false clears; a number sets that value on a list of statusSize > 1' }),
  })
  .openapi('VcApiStatusUpdate');

const StatusUpdateResponse = z
  .object({ credentialId: z.string(), credentialStatus: JsonObjectSchema, status: z.number(), changed: z.boolean() })
  .openapi('VcApiStatusUpdated');

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

export function vcApiRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin = adminAuth({ adminApiKey: ctx.config.adminApiKey });
  const verifier = createVcApiVerifier(ctx);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/credentials/issue',
      tags: ['VC-API'],
      summary:
        "Sign a credential as this issuer (eddsa-jcs-2022, or eddsa-rdfc-2022 on request), with a revocation entry on this issuer's list unless options.credentialStatus says otherwise. Mandate authority types are refused (422 CREDENTIAL_TYPE_RESERVED). Admin.",
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { body: jsonBody(IssueRequest) },
      responses: {
        201: jsonResponse(
          z.object({ verifiableCredential: JsonObjectSchema }).openapi('VcApiIssueResponse'),
          'The signed credential',
        ),
        ...errorResponses(400, 401, 409, 413, 415, 422, 429),
      },
    }),
    async (c) => {
      const { credential, options } = c.req.valid('json');
      return c.json(
        { verifiableCredential: await issueVcApiCredential(ctx, credential, options ?? {}, c.get('actor')) },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/credentials/status',
      tags: ['VC-API'],
      summary:
        'Set or clear a status entry of a credential issued through POST /credentials/issue (VC-API UpdateCredentialStatus). Audited; the next status-list fetch shows it. Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { body: jsonBody(StatusUpdateRequest) },
      responses: {
        200: jsonResponse(StatusUpdateResponse, 'The entry and its value now'),
        ...errorResponses(400, 401, 404, 413, 415, 429),
      },
    }),
    (c) => c.json(updateVcApiStatus(ctx, c.req.valid('json'), c.get('actor')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/credentials/verify',
      tags: ['VC-API'],
      summary:
        "Verify a credential (VC 2.0, or 1.1): its shape and JSON-LD rules, its proof (its issuer's assertionMethod key; eddsa-jcs-2022 or eddsa-rdfc-2022), validity window and status entries. Trust in the issuer is the caller's decision. Public.",
      request: { body: jsonBody(VerifyCredentialRequest) },
      responses: {
        200: jsonResponse(VerificationSchema, 'Verified'),
        400: jsonResponse(VerificationSchema, 'Not verified, or malformed'),
        ...errorResponses(413, 415, 429),
      },
    }),
    async (c) => {
      const { verifiableCredential, options } = c.req.valid('json');
      const result = await verifier.verifyCredential(
        verifiableCredential,
        given(options, ['expectedProofPurpose', 'challenge', 'domain']),
      );
      return c.json(verdictBody(result), result.verified ? 200 : 400);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/presentations/verify',
      tags: ['VC-API'],
      summary:
        "Verify a presentation's shape, JSON-LD rules and proof (its holder's authentication key, options.challenge and options.domain) and every credential in it. Public.",
      request: { body: jsonBody(VerifyPresentationRequest) },
      responses: {
        200: jsonResponse(PresentationVerificationSchema, 'Verified'),
        400: jsonResponse(PresentationVerificationSchema, 'Not verified, or malformed'),
        ...errorResponses(413, 415, 429),
      },
    }),
    async (c) => {
      const { verifiablePresentation, options } = c.req.valid('json');
      const result = await verifier.verifyPresentation(verifiablePresentation, given(options, ['challenge', 'domain']));
      return c.json(verdictBody(result), result.verified ? 200 : 400);
    },
  );
  return app;
}
