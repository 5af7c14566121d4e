/**
 * The published description of the API: `GET /v1/openapi.json` (OpenAPI 3.1, generated from this
 * route table) and `GET /docs` (the same document rendered into one HTML page). Both public, and
 * `hidden`: they describe the document rather than belong to it, and it has never listed them.
 */
import { z } from 'zod';
import { endpoint } from './endpoint.ts';
import { JsonValueObjectSchema } from './primitives.ts';

export const apiDocsEndpoints = {
  openApiDocument: endpoint({
    method: 'GET',
    path: '/v1/openapi.json',
    tag: 'Operations',
    summary: 'The OpenAPI 3.1 document of this API, generated from its route table. Public.',
    auth: 'public',
    responses: { 200: { schema: JsonValueObjectSchema, description: 'The OpenAPI document' } },
    errors: [],
    hidden: true,
  }),
  apiReference: endpoint({
    method: 'GET',
    path: '/docs',
    tag: 'Operations',
    summary: 'The OpenAPI document as one HTML page, without script or external assets. Public.',
    auth: 'public',
    responses: { 200: { schema: z.string(), description: 'The reference', mediaTypes: ['text/html'] } },
    errors: [],
    hidden: true,
  }),
};
