/** Credentials: their view (docs/api.md `Credential`), direct issuance and lifecycle. */
import { z } from 'zod';
import type { AgentCredential, DelegatedAgentCredential } from '../vc/types.ts';
import { endpoint } from './endpoint.ts';
import { DidSchema, DomainSchema, jsonObject, ScopesSchema } from './primitives.ts';

export const CREDENTIAL_STATES = ['active', 'revoked', 'suspended', 'superseded', 'expired'] as const;
export const CredentialStateSchema = z.enum(CREDENTIAL_STATES);
export const CredentialTypeSchema = z.enum(['AgentCredential', 'DelegatedAgentCredential']);

const VALIDITY_SECONDS = z
  .number()
  .int()
  .min(60)
  .max(10 * 365 * 86_400);

export const StatusListRefSchema = z.object({
  purpose: z.string(),
  listId: z.string(),
  index: z.number(),
  url: z.string(),
});

export const CredentialViewSchema = z
  .object({
    vcId: z.string(),
    type: CredentialTypeSchema,
    subjectDid: z.string(),
    issuerDid: z.string(),
    state: CredentialStateSchema,
    issuedAt: z.string(),
    validFrom: z.string(),
    validUntil: z.string().optional(),
    revokedAt: z.string().optional(),
    suspendedAt: z.string().optional(),
    supersededBy: z.string().optional(),
    parentId: z.string().optional(),
    statusLists: z.array(StatusListRefSchema),
    verifiableCredential: jsonObject<AgentCredential | DelegatedAgentCredential>(),
  })
  .meta({ id: 'Credential' });

/**
 * A credential after a revoke, suspend or reinstate, with `changed`: every credential the action
 * reached, the one acted on first (an intersection, published as `allOf` of `Credential`).
 */
export const StatusChangeSchema = z
  .intersection(
    CredentialViewSchema,
    z.object({
      changed: z.array(z.string()).meta({
        description:
          'Every credential this action revoked, suspended or reinstated, the one acted on first: besides the one named, its renewals and predecessors, and for the revocation of an agent current credential, every other live credential of the agent',
      }),
    }),
  )
  .meta({ id: 'CredentialStatusChange' });

export const RenewedCredentialSchema = z.intersection(CredentialViewSchema, z.object({ previousVcId: z.string() }));

export const IssueCredentialSchema = z
  .strictObject({
    subjectDid: DidSchema,
    privilegeScopes: ScopesSchema,
    delegationDepth: z.number().int().min(0).max(16),
    domains: z.array(DomainSchema).min(1).max(64).optional(),
    validitySeconds: VALIDITY_SECONDS.optional(),
  })
  .meta({ id: 'IssueCredential' });

export const ReasonRequestSchema = z.strictObject({ reason: z.string().max(256).optional() });
export const RenewRequestSchema = z.strictObject({ validitySeconds: VALIDITY_SECONDS.optional() });

export const VcIdParamSchema = z.object({
  vcId: z.string().min(1).max(128).meta({ example: 'urn:uuid:0b7d3c7e-5c43-4a53-9d6c-3f1f0f3b1a01' }),
});

export type CredentialState = z.infer<typeof CredentialStateSchema>;
export type CredentialView = z.infer<typeof CredentialViewSchema>;
/** Absent `changed` in the answers of issuers older than this member. */
export type StatusChangeView = CredentialView & { changed?: string[] };
export type RenewedCredential = z.infer<typeof RenewedCredentialSchema>;
export type IssueCredentialRequest = z.infer<typeof IssueCredentialSchema>;
export type ReasonRequest = z.infer<typeof ReasonRequestSchema>;
export type RenewRequest = z.infer<typeof RenewRequestSchema>;

const lifecycleAnswer = {
  200: {
    schema: StatusChangeSchema,
    description: 'The credential after the change, and every credential the change reached',
  },
} as const;

export const credentialEndpoints = {
  issueCredential: endpoint({
    method: 'POST',
    path: '/v1/vcs',
    tag: 'Credentials',
    summary: 'Issue an AgentCredential directly. Admin.',
    auth: 'admin',
    body: { schema: IssueCredentialSchema },
    responses: { 201: { schema: CredentialViewSchema, description: 'Issued' } },
    errors: ['INVALID_DID'],
  }),
  getCredential: endpoint({
    method: 'GET',
    path: '/v1/vcs/{vcId}',
    tag: 'Credentials',
    summary: 'A credential and its state. Public.',
    auth: 'public',
    params: VcIdParamSchema,
    responses: { 200: { schema: CredentialViewSchema, description: 'The credential' } },
    errors: ['CREDENTIAL_NOT_FOUND'],
  }),
  revokeCredential: endpoint({
    method: 'POST',
    path: '/v1/vcs/{vcId}/revoke',
    tag: 'Credentials',
    summary: 'Revoke (final): sets its bit on the revocation list, visible in the next fetch of the list. Admin.',
    auth: 'admin',
    params: VcIdParamSchema,
    body: { schema: ReasonRequestSchema, optional: true },
    responses: lifecycleAnswer,
    errors: ['CREDENTIAL_NOT_FOUND', 'NOT_REVOCABLE', 'CREDENTIAL_ALREADY_REVOKED'],
    // Its end state is final: a repeat whose first attempt landed meets CREDENTIAL_ALREADY_REVOKED.
    repeatable: true,
  }),
  suspendCredential: endpoint({
    method: 'POST',
    path: '/v1/vcs/{vcId}/suspend',
    tag: 'Credentials',
    summary: 'Suspend: sets its bit on the suspension list. Admin.',
    auth: 'admin',
    params: VcIdParamSchema,
    body: { schema: ReasonRequestSchema, optional: true },
    responses: lifecycleAnswer,
    errors: ['CREDENTIAL_NOT_FOUND', 'NOT_REVOCABLE', 'CREDENTIAL_REVOKED', 'CREDENTIAL_SUSPENDED'],
  }),
  reinstateCredential: endpoint({
    method: 'POST',
    path: '/v1/vcs/{vcId}/reinstate',
    tag: 'Credentials',
    summary: 'Lift a suspension. Admin.',
    auth: 'admin',
    params: VcIdParamSchema,
    body: { schema: ReasonRequestSchema, optional: true },
    responses: lifecycleAnswer,
    errors: ['CREDENTIAL_NOT_FOUND', 'NOT_REVOCABLE', 'CREDENTIAL_NOT_SUSPENDED'],
  }),
  renewCredential: endpoint({
    method: 'POST',
    path: '/v1/vcs/{vcId}/renew',
    tag: 'Credentials',
    summary:
      "Renew: a new credential with the same subject and limits and a new validity; the old one is superseded (not revoked) and the agent's current credential becomes the new one. Admin.",
    auth: 'admin',
    params: VcIdParamSchema,
    body: { schema: RenewRequestSchema, optional: true },
    responses: { 201: { schema: RenewedCredentialSchema, description: 'The new credential' } },
    errors: [
      'CREDENTIAL_NOT_FOUND',
      'NOT_REVOCABLE',
      'CREDENTIAL_REVOKED',
      'CREDENTIAL_SUPERSEDED',
      'CREDENTIAL_SUSPENDED',
    ],
  }),
};
