/** Agents (docs/api.md `Agent`, `AgentDetail`) and what the issuer signs for server-custody agents. */
import { z } from 'zod';
import type { VerifiablePresentation } from '../vc/types.ts';
import { CredentialStateSchema, CredentialTypeSchema, CredentialViewSchema } from './credentials.ts';
import { endpoint } from './endpoint.ts';
import { DidSchema, DomainSchema, jsonObject, PageQuerySchema, ScopesSchema } from './primitives.ts';

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
    /** Its Signature Agent Card (docs/key-directory.md): a Web Bot Auth `Signature-Agent` of `type=cimd` names it. */
    signatureAgentCardUrl: z.string().optional(),
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

/** A presentation the issuer signs for a server-custody agent, handed on as received. */
export const SignedPresentationSchema = jsonObject<VerifiablePresentation>();

export const agentEndpoints = {
  listAgents: endpoint({
    method: 'GET',
    path: '/v1/agents',
    tag: 'Agents',
    summary: 'List enrolled agents. Admin.',
    auth: 'admin',
    query: PageQuerySchema,
    responses: { 200: { schema: AgentPageSchema, description: 'Agents, oldest first' } },
    errors: [],
  }),
  getAgent: endpoint({
    method: 'GET',
    path: '/v1/agents/{did}',
    tag: 'Agents',
    summary: 'One agent, its current credential and its credential history. Admin.',
    auth: 'admin',
    params: AgentDidParamSchema,
    responses: { 200: { schema: AgentDetailSchema, description: 'The agent' } },
    errors: ['AGENT_NOT_FOUND'],
  }),
  issueAgentClientSecret: endpoint({
    method: 'POST',
    path: '/v1/agents/{did}/client-secret',
    tag: 'Agents',
    summary:
      'Issue a server-custody agent its own client secret, or rotate it (the old one stops working at once); shown once. Admin.',
    auth: 'admin',
    params: AgentDidParamSchema,
    responses: { 201: { schema: AgentClientSecretSchema, description: 'The secret, shown this once' } },
    errors: ['AGENT_NOT_FOUND', 'CUSTODY_MISMATCH', 'DID_DEACTIVATED'],
  }),
  revokeAgentClientSecret: endpoint({
    method: 'DELETE',
    path: '/v1/agents/{did}/client-secret',
    tag: 'Agents',
    summary: "Revoke the agent's client secret: the next request presenting it is refused. Admin.",
    auth: 'admin',
    params: AgentDidParamSchema,
    responses: { 200: { schema: AgentClientSecretRevokedSchema, description: 'Revoked' } },
    errors: ['AGENT_NOT_FOUND', 'CLIENT_SECRET_NOT_FOUND'],
    // The end state (no secret) holds however often it is asked for.
    repeatable: true,
  }),
  requestVp: endpoint({
    method: 'POST',
    path: '/v1/agents/{did}/vp',
    tag: 'Agents',
    summary:
      "A presentation signed by the server for a server-custody agent (refused for self custody). Admin, or the agent's own client secret.",
    auth: 'agent',
    params: AgentDidParamSchema,
    body: { schema: PresentRequestSchema },
    responses: { 200: { schema: SignedPresentationSchema, description: 'The VerifiablePresentation' } },
    errors: [
      'AGENT_NOT_FOUND',
      'CUSTODY_MISMATCH',
      'CREDENTIAL_NOT_FOUND',
      'NO_CURRENT_CREDENTIAL',
      'DID_DEACTIVATED',
      'CUSTODY_KEY_UNREADABLE',
    ],
    // Each call signs a fresh presentation and changes nothing else (one more audit record).
    repeatable: true,
  }),
  delegate: endpoint({
    method: 'POST',
    path: '/v1/agents/{did}/delegations',
    tag: 'Agents',
    summary:
      "A DelegatedAgentCredential signed by the server for a server-custody delegator; narrowing enforced (422 SCOPE_ESCALATION, DEPTH_EXCEEDED, DOMAIN_ESCALATION, CHAIN_BROKEN). Admin, or the delegator's own client secret.",
    auth: 'agent',
    params: AgentDidParamSchema,
    body: { schema: DelegateRequestSchema },
    responses: { 201: { schema: CredentialViewSchema, description: 'The delegated credential' } },
    errors: [
      'AGENT_NOT_FOUND',
      'CUSTODY_MISMATCH',
      'INVALID_DID',
      'NO_CURRENT_CREDENTIAL',
      'CREDENTIAL_REVOKED',
      'CREDENTIAL_SUSPENDED',
      'DID_DEACTIVATED',
      'CUSTODY_KEY_UNREADABLE',
      'SCOPE_ESCALATION',
      'DEPTH_EXCEEDED',
      'DOMAIN_ESCALATION',
      'CHAIN_BROKEN',
    ],
  }),
};
