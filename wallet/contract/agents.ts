/** Agents (docs/api.md `Agent`, `AgentDetail`) and what the issuer signs for server-custody agents. */
import { z } from 'zod';
import { CredentialStateSchema, CredentialTypeSchema, CredentialViewSchema } from './credentials.ts';
import { DidSchema, DomainSchema, ScopesSchema } from './primitives.ts';

export const AgentSchema = z
  .object({
    did: z.string(),
    id: z.string(),
    custody: z.enum(['server', 'self']),
    privilegeScopes: z.array(z.string()),
    delegationDepth: z.number(),
    domains: z.array(z.string()).optional(),
    currentCredentialId: z.string().optional(),
    createdAt: z.string(),
    /** Hosted did:web document URL (server custody, DID_METHOD=web). */
    didDocumentUrl: z.string().optional(),
    deactivated: z.boolean().optional(),
  })
  .meta({ id: 'Agent' });

/** The agent with its current credential and every credential issued to it (`allOf` of `Agent`). */
export const AgentDetailSchema = z
  .intersection(
    AgentSchema,
    z.object({
      currentCredential: CredentialViewSchema.optional(),
      credentials: z.array(
        z.object({ vcId: z.string(), type: CredentialTypeSchema, state: CredentialStateSchema, issuedAt: z.string() }),
      ),
    }),
  )
  .meta({ id: 'AgentDetail' });

export const AgentPageSchema = z.object({ agents: z.array(AgentSchema), nextCursor: z.string().optional() });

export const AgentDidParamSchema = z.object({ did: DidSchema.meta({ description: 'The agent DID, URL-encoded' }) });

export const PresentRequestSchema = z
  .strictObject({
    targetService: DomainSchema.meta({ description: "The verifier's service name: the proof's domain" }),
    challenge: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .meta({ description: "The verifier's nonce (default: a random one)" }),
    credentialId: z
      .string()
      .max(128)
      .optional()
      .meta({ description: "Which of the agent's credentials to present (default: its current one)" }),
    lifetimeSeconds: z.number().int().min(10).max(3600).optional(),
  })
  .meta({ id: 'PresentRequest' });

export const DelegateRequestSchema = z
  .strictObject({
    delegateeDid: DidSchema,
    scopes: ScopesSchema,
    lifetimeSeconds: z
      .number()
      .int()
      .min(60)
      .max(10 * 365 * 86_400),
    domains: z.array(DomainSchema).min(1).max(64).optional(),
    delegationDepth: z.number().int().min(0).max(16).optional(),
  })
  .meta({ id: 'DelegateRequest' });

export type AgentInfo = z.infer<typeof AgentSchema>;
export type AgentDetail = z.infer<typeof AgentDetailSchema>;
export type AgentPage = z.infer<typeof AgentPageSchema>;
export type PresentRequest = z.infer<typeof PresentRequestSchema>;
export type DelegateRequest = z.infer<typeof DelegateRequestSchema>;

/** `POST /v1/agents/{did}/client-secret`: the only time the secret is shown. */
export const AgentClientSecretSchema = z
  .object({
    /** The agent's DID: the secret is accepted for this agent only. */
    clientId: z.string(),
    clientSecret: z.string().meta({ description: 'Shown once; the issuer keeps only its SHA-256' }),
    createdAt: z.string(),
  })
  .meta({ id: 'AgentClientSecret' });

/** `DELETE /v1/agents/{did}/client-secret`. */
export const AgentClientSecretRevokedSchema = z.object({ clientId: z.string(), revoked: z.literal(true) });

export type AgentClientSecret = z.infer<typeof AgentClientSecretSchema>;
