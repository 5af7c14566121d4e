/**
 * Status lists: creating one (admin) and fetching the signed BitstringStatusListCredential
 * (public), with `ETag` (the list version and a digest) and `Cache-Control: max-age` equal to
 * the list's `ttl` (Bitstring Status List §2.2), so HTTP caches and verifiers agree on
 * freshness; If-None-Match gets 304 from the etag middleware.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import { createStatusListRecord, ISSUED_PURPOSES, publishedStatusList, statusListUrl } from '../services/status-lists.ts';
import { ADMIN_SECURITY, errorResponses, jsonBody, JsonObjectSchema, jsonResponse } from './schemas.ts';

const ListId = z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'lowercase letters, digits, _ and -, starting with a letter');

const CreateRequest = z
  .strictObject({
    // Only the purposes this issuer gives its credentials entries on: a `message` list would also
    // need statusSize and statusMessages (Bitstring Status List §2.2), and no entry could use it.
    purpose: z.enum(ISSUED_PURPOSES).openapi({ example: 'revocation', description: 'statusPurpose (§2.1) of the entries this list will hold' }),
    id: ListId.optional().openapi({ description: 'Default <purpose>-<n>' }),
    makeDefault: z.boolean().optional().openapi({ description: 'New credentials get entries on this list (default true)' }),
  })
  .openapi('CreateStatusList');

const ListSchema = z.object({ listId: z.string(), purpose: z.string(), url: z.string(), length: z.number() }).openapi('StatusList');

export function statusListRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const admin = adminAuth({ adminApiKey: ctx.config.adminApiKey });

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/status-list',
      tags: ['Status lists'],
      summary: 'Create (and publish) a status list. Admin.',
      security: ADMIN_SECURITY,
      middleware: [admin] as const,
      request: { body: jsonBody(CreateRequest) },
      responses: { 201: jsonResponse(ListSchema, 'The new list'), ...errorResponses(400, 401, 409, 413, 415, 429) },
    }),
    (c) => {
      const input = c.req.valid('json');
      const list = ctx.db.transaction(() => {
        const created = createStatusListRecord(ctx, input);
        ctx.audit.record({ event: 'STATUS_LIST_CREATED', actor: c.get('actor'), data: { listId: created.id, purpose: created.purpose } });
        return created;
      });
      return c.json({ listId: list.id, purpose: list.purpose, url: statusListUrl(ctx, list.id), length: list.length }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/status-list/{listId}',
      tags: ['Status lists'],
      summary: 'The signed BitstringStatusListCredential, with ETag and Cache-Control matching its ttl. Public.',
      request: { params: z.object({ listId: ListId }) },
      responses: { 200: { description: 'Signed list credential', content: { 'application/vc': { schema: JsonObjectSchema } } }, ...errorResponses(400, 404, 429) },
    }),
    async (c) => {
      const published = await publishedStatusList(ctx, c.req.valid('param').listId);
      return new Response(published.json, {
        status: 200,
        headers: {
          'content-type': 'application/vc',
          etag: published.etag,
          'cache-control': `public, max-age=${Math.floor(published.ttlMs / 1000)}`,
        },
      });
    },
  );
  return app;
}
