/**
 * The public documents the issuer serves at fixed places: its did:web document (did:web §3.2),
 * hosted agents' documents (path form `did:web:<domain>:agents:<id>`), the Mandate JSON-LD
 * context, the HTTP Message Signatures Directory of the agents whose keys it holds and each
 * agent's Signature Agent Card (docs/key-directory.md). Verifiers in any origin read them
 * (`publicDocument`).
 */
import { z } from 'zod';
import { AgentDocumentParamSchema } from './dids.ts';
import { endpoint } from './endpoint.ts';
import { GRANT_CLIENT_CREDENTIALS, GRANT_TOKEN_EXCHANGE } from './oauth.ts';
import { DidSchema, Ed25519JwksSchema, JsonObjectSchema } from './primitives.ts';

/** DID Core §6.2.1: a DID document as JSON. */
export const DID_JSON = 'application/did+json';

const didDocument = { schema: JsonObjectSchema, description: 'DID document', mediaTypes: [DID_JSON] } as const;

/** draft-ietf-webbotauth-httpsig-protocol (directory format): the key directory's media type. */
export const SIGNATURE_DIRECTORY_JSON = 'application/http-message-signatures-directory+json';

/**
 * Whether an agent's keys are listed (`active`), or why not: its DID is deactivated, it has no
 * current credential, or that credential is revoked, suspended or expired.
 */
export const AGENT_STATUSES = ['active', 'deactivated', 'no-credential', 'revoked', 'suspended', 'expired'] as const;
export const AgentStatusSchema = z.enum(AGENT_STATUSES);

/**
 * A Signature Agent Card in the OAuth client-metadata shape (RFC 7591 §2 members, as OAuth Client
 * ID Metadata Documents use them): `client_id` is the card's own URL, `jwks` the agent's keys
 * (those of its DID document), `did` the agent's DID (a Mandate member: docs/key-directory.md).
 */
export const SignatureAgentCardSchema = z
  .object({
    client_id: z.url(),
    client_name: z.string(),
    did: DidSchema,
    jwks: Ed25519JwksSchema,
    redirect_uris: z.array(z.url()),
    grant_types: z.array(z.enum([GRANT_CLIENT_CREDENTIALS, GRANT_TOKEN_EXCHANGE])),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.enum(['private_key_jwt', 'none']),
    contacts: z.array(z.string()).optional(),
    agent_status: AgentStatusSchema,
  })
  .meta({ id: 'SignatureAgentCard' });

export const DirectoryQuerySchema = z.object({
  /** The DID of the last agent of the previous page (its `Link: rel="next"`). */
  cursor: z.string().max(512).optional(),
});

export type SignatureAgentCard = z.infer<typeof SignatureAgentCardSchema>;
export type AgentStatus = z.infer<typeof AgentStatusSchema>;

export const documentEndpoints = {
  issuerDidDocument: endpoint({
    method: 'GET',
    path: '/.well-known/did.json',
    publicDocument: true,
    tag: 'DIDs',
    summary: "The issuer's DID document (did:web). Public.",
    auth: 'public',
    responses: { 200: didDocument },
    errors: ['DID_NOT_FOUND'],
  }),
  agentDidDocument: endpoint({
    method: 'GET',
    path: '/agents/{id}/did.json',
    publicDocument: true,
    tag: 'DIDs',
    summary: "A hosted agent's DID document (did:web path form). Public.",
    auth: 'public',
    params: AgentDocumentParamSchema,
    responses: { 200: didDocument },
    errors: ['DID_NOT_FOUND', 'DID_DEACTIVATED'],
  }),
  signatureDirectory: endpoint({
    method: 'GET',
    path: '/.well-known/http-message-signatures-directory',
    publicDocument: true,
    tag: 'Documents',
    summary:
      'The HTTP Message Signatures Directory (Web Bot Auth) of the active server-custody agents, in pages. Public.',
    description:
      'A JWK Set of the Ed25519 keys of the server-custody agents whose DID is active and whose current credential is neither revoked, suspended nor expired, oldest agent first, at most 32 keys an answer (`Link: <…?cursor=…>; rel="next"` names the next page). The answer is signed once per key (RFC 9421, tag `http-message-signatures-directory`, covering `"@authority";req` and `content-digest`): docs/key-directory.md.',
    auth: 'public',
    query: DirectoryQuerySchema,
    responses: {
      200: { schema: Ed25519JwksSchema, description: 'The key directory', mediaTypes: [SIGNATURE_DIRECTORY_JSON] },
    },
    errors: [],
  }),
  signatureAgentCard: endpoint({
    method: 'GET',
    path: '/agents/{id}/signature-agent-card',
    publicDocument: true,
    tag: 'Documents',
    summary:
      "An agent's Signature Agent Card: OAuth client metadata (client_id = this URL) with its DID and its keys. Public.",
    description:
      'Served for every enrolled agent; `jwks` holds its keys only while it is active (`agent_status` says why not): a 200 without a key is what makes a verifier drop a key it cached (draft-ietf-webbotauth-httpsig-protocol, Discovery Failure), where an error answer would not.',
    auth: 'public',
    params: AgentDocumentParamSchema,
    responses: { 200: { schema: SignatureAgentCardSchema, description: 'The Signature Agent Card' } },
    errors: ['AGENT_NOT_FOUND', 'DID_RESOLUTION_FAILED'],
  }),
  mandateContext: endpoint({
    method: 'GET',
    path: '/contexts/mandate/v1',
    publicDocument: true,
    tag: 'Documents',
    summary: 'The Mandate JSON-LD context (https://mandate.dev/contexts/v1). Public.',
    auth: 'public',
    responses: {
      200: { schema: JsonObjectSchema, description: 'JSON-LD context', mediaTypes: ['application/ld+json'] },
    },
    errors: [],
  }),
};
