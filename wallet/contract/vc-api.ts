/**
 * W3C-CCG VC-API bodies (docs/api.md §VC-API): issuing, status updates, and the verification
 * answers (`{verified, checks, warnings, errors}`, plus the standard `error` member when not verified).
 */
import { z } from 'zod';
import { endpoint } from './endpoint.ts';
import { JsonObjectSchema } from './primitives.ts';
import { LIST_PURPOSES } from './status-lists.ts';

/** The Data Integrity cryptosuites the VC-API signs and verifies with. */
export const VC_API_CRYPTOSUITE_NAMES = ['eddsa-jcs-2022', 'eddsa-rdfc-2022'] as const;

export const VcApiStatusRequestSchema = z
  .strictObject({ type: z.literal('BitstringStatusListEntry'), statusPurpose: z.enum(LIST_PURPOSES) })
  .meta({
    id: 'VcApiStatusRequest',
    description: "A status entry to give the credential, on this issuer's default list for the purpose",
  });

export const VcApiIssueOptionsSchema = z
  .strictObject({
    credentialId: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .meta({ description: 'The id status updates name the credential by (default: its id)' }),
    credentialStatus: z
      .union([VcApiStatusRequestSchema, z.array(VcApiStatusRequestSchema).max(4)])
      .optional()
      .refine((asked) => !Array.isArray(asked) || new Set(asked.map((a) => a.statusPurpose)).size === asked.length, {
        message: 'one entry per purpose',
      })
      .meta({ description: 'Status entries to add (default: one revocation entry; [] for none)' }),
    cryptosuite: z.enum(VC_API_CRYPTOSUITE_NAMES).optional().meta({ description: 'Default eddsa-jcs-2022' }),
    type: z.literal('DataIntegrityProof').optional(),
  })
  .meta({ id: 'VcApiIssueOptions' });

export const VcApiIssueRequestSchema = z
  .object({
    credential: JsonObjectSchema.meta({
      description: 'A VC 2.0 (or VC 1.1) credential without proof; its issuer is this issuer',
    }),
    options: VcApiIssueOptionsSchema.optional(),
  })
  .meta({ id: 'VcApiIssueRequest' });

export const VcApiProblemSchema = z.object({
  check: z.string(),
  code: z.string(),
  message: z.string(),
  type: z.string().optional(),
  rule: z.string().optional(),
});
export const VcApiVerificationSchema = z
  .object({
    verified: z.boolean(),
    checks: z.array(z.string()),
    warnings: z.array(VcApiProblemSchema),
    errors: z.array(VcApiProblemSchema),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  })
  .meta({ id: 'VcApiVerification' });

/** A presentation's verdict: the presentation's, and each credential's (`allOf` of `VcApiVerification`). */
export const VcApiPresentationVerificationSchema = z
  .intersection(
    VcApiVerificationSchema,
    z.object({
      presentationResult: z.object({ verified: z.boolean() }),
      credentialResults: z.array(VcApiVerificationSchema),
    }),
  )
  .meta({ id: 'VcApiPresentationVerification' });

export const VcApiVerifyCredentialRequestSchema = z
  .object({
    verifiableCredential: JsonObjectSchema,
    options: z
      .object({
        checks: z
          .array(z.string().max(64))
          .max(16)
          .optional()
          .meta({ description: 'Accepted and ignored: every check runs' }),
        expectedProofPurpose: z.string().min(1).max(64).optional(),
        challenge: z.string().min(1).max(256).optional(),
        domain: z.string().min(1).max(253).optional(),
      })
      .passthrough()
      .optional(),
  })
  .meta({ id: 'VcApiVerifyCredentialRequest' });

export const VcApiVerifyPresentationRequestSchema = z
  .object({
    verifiablePresentation: JsonObjectSchema,
    options: z
      .object({ challenge: z.string().min(1).max(256).optional(), domain: z.string().min(1).max(253).optional() })
      .passthrough()
      .optional(),
  })
  .meta({ id: 'VcApiVerifyPresentationRequest' });

export const VcApiStatusUpdateSchema = z
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
      .meta({ description: 'true sets, false clears; a number sets that value on a list of statusSize > 1' }),
  })
  .meta({ id: 'VcApiStatusUpdate' });

export const VcApiStatusUpdatedSchema = z
  .object({ credentialId: z.string(), credentialStatus: JsonObjectSchema, status: z.number(), changed: z.boolean() })
  .meta({ id: 'VcApiStatusUpdated' });

export const VcApiIssueResponseSchema = z
  .object({ verifiableCredential: JsonObjectSchema })
  .meta({ id: 'VcApiIssueResponse' });

export type VcApiIssueRequest = z.infer<typeof VcApiIssueRequestSchema>;
export type VcApiIssueOptions = z.infer<typeof VcApiIssueOptionsSchema>;
export type VcApiProblem = z.infer<typeof VcApiProblemSchema>;
export type VcApiVerification = z.infer<typeof VcApiVerificationSchema>;
export type VcApiPresentationVerification = z.infer<typeof VcApiPresentationVerificationSchema>;
export type VcApiStatusUpdate = z.infer<typeof VcApiStatusUpdateSchema>;
export type VcApiStatusUpdated = z.infer<typeof VcApiStatusUpdatedSchema>;

/**
 * W3C-CCG VC-API endpoints at the paths the specification and the W3C test suites use. Issuing
 * and status updates are operator acts (admin key); verifying is public. A verdict of "not
 * verified" is an answer (400 with the VC-API fields and the standard `error` member), so VC-API
 * clients and ours read the same response.
 */
export const vcApiEndpoints = {
  vcApiIssue: endpoint({
    method: 'POST',
    path: '/credentials/issue',
    tag: 'VC-API',
    summary:
      "Sign a credential as this issuer (eddsa-jcs-2022, or eddsa-rdfc-2022 on request), with a revocation entry on this issuer's list unless options.credentialStatus says otherwise. Mandate authority types are refused (422 CREDENTIAL_TYPE_RESERVED). Admin.",
    auth: 'admin',
    body: { schema: VcApiIssueRequestSchema },
    responses: { 201: { schema: VcApiIssueResponseSchema, description: 'The signed credential' } },
    errors: ['CREDENTIAL_INVALID', 'CREDENTIAL_EXISTS', 'CREDENTIAL_TYPE_RESERVED', 'STATUS_LIST_UNAVAILABLE'],
  }),
  vcApiUpdateStatus: endpoint({
    method: 'POST',
    path: '/credentials/status',
    tag: 'VC-API',
    summary:
      'Set or clear a status entry of a credential issued through POST /credentials/issue (VC-API UpdateCredentialStatus). Audited; the next status-list fetch shows it. Admin.',
    auth: 'admin',
    body: { schema: VcApiStatusUpdateSchema },
    responses: { 200: { schema: VcApiStatusUpdatedSchema, description: 'The entry and its value now' } },
    errors: ['CREDENTIAL_NOT_FOUND', 'STATUS_ENTRY_NOT_FOUND', 'STATUS_LIST_NOT_FOUND'],
  }),
  vcApiVerifyCredential: endpoint({
    method: 'POST',
    path: '/credentials/verify',
    tag: 'VC-API',
    summary:
      "Verify a credential (VC 2.0, or 1.1): its shape and JSON-LD rules, its proof (its issuer's assertionMethod key; eddsa-jcs-2022 or eddsa-rdfc-2022), validity window and status entries. Trust in the issuer is the caller's decision. Public.",
    auth: 'public',
    body: { schema: VcApiVerifyCredentialRequestSchema },
    responses: {
      200: { schema: VcApiVerificationSchema, description: 'Verified' },
      400: { schema: VcApiVerificationSchema, description: 'Not verified, or malformed' },
    },
    errors: [],
  }),
  vcApiVerifyPresentation: endpoint({
    method: 'POST',
    path: '/presentations/verify',
    tag: 'VC-API',
    summary:
      "Verify a presentation's shape, JSON-LD rules and proof (its holder's authentication key, options.challenge and options.domain) and every credential in it. Public.",
    auth: 'public',
    body: { schema: VcApiVerifyPresentationRequestSchema },
    responses: {
      200: { schema: VcApiPresentationVerificationSchema, description: 'Verified' },
      400: { schema: VcApiPresentationVerificationSchema, description: 'Not verified, or malformed' },
    },
    errors: [],
  }),
};
