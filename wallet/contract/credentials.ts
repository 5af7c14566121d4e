/** Credentials: their view (docs/api.md `Credential`), direct issuance and lifecycle. */
import { z } from 'zod';
import type { AgentCredential, DelegatedAgentCredential } from '../vc/types.ts';
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
