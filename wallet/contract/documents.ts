/**
 * The public documents the issuer serves at fixed places: its did:web document (did:web §3.2),
 * hosted agents' documents (path form `did:web:<domain>:agents:<id>`) and the Mandate JSON-LD
 * context. Verifiers in any origin read them (`publicDocument`).
 */
import { AgentDocumentParamSchema } from './dids.ts';
import { endpoint } from './endpoint.ts';
import { JsonObjectSchema } from './primitives.ts';

/** DID Core §6.2.1: a DID document as JSON. */
export const DID_JSON = 'application/did+json';

const didDocument = { schema: JsonObjectSchema, description: 'DID document', mediaTypes: [DID_JSON] } as const;

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
