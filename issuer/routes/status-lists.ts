/**
 * Status lists: creating one (admin; any §2.1 purpose, statusSize and statusMessage) and fetching
 * the signed BitstringStatusListCredential (public, by content negotiation), with `ETag` (the list version and a digest) and `Cache-Control: max-age` equal to
 * the list's `ttl` (Bitstring Status List §2.2), so HTTP caches and verifiers agree on
 * freshness; If-None-Match gets 304 from the etag middleware.
 */
import { createRoute } from '@hono/zod-openapi';
import { CreateStatusListSchema, ListIdParamSchema, StatusListSchema } from '../../wallet/contract/status-lists.ts';
import type { IssuerContext } from '../context.ts';
import { adminAuth } from '../http/admin-auth.ts';
import { createRouter } from '../http/errors.ts';
import { accepts } from 'hono/accepts';
import { createStatusListRecord, publishedStatusList, statusListUrl } from '../services/status-lists.ts';
import { ADMIN_SECURITY, errorResponses, jsonBody, JsonObjectSchema, jsonResponse } from './schemas.ts';

/** VC DM 2.0 §6.3: a secured credential is application/vc; generic JSON-LD loaders read only json types, so they may ask for one. */
const LIST_MEDIA_TYPES = ['application/vc', 'application/ld+json', 'application/json'];

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
      request: { body: jsonBody(CreateStatusListSchema) },
      responses: {
        201: jsonResponse(StatusListSchema, 'The new list'),
        ...errorResponses(400, 401, 409, 413, 415, 429),
      },
    }),
    async (c) => {
      const input = c.req.valid('json');
      const list = await ctx.stores.transaction(async (tx) => {
        const statusMessages = input.statusMessages ?? null;
        const created = await createStatusListRecord(ctx, tx, { ...input, statusMessages });
        const data = { listId: created.id, purpose: created.purpose };
        await ctx.audit.record({ event: 'STATUS_LIST_CREATED', actor: c.get('actor'), data }, tx);
        return created;
      });
      return c.json(
        {
          listId: list.id,
          purpose: list.purpose,
          url: statusListUrl(ctx, list.id),
          length: list.length,
          statusSize: list.statusSize,
          ...(list.statusMessages ? { statusMessages: list.statusMessages } : {}),
        },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/status-list/{listId}',
      tags: ['Status lists'],
      summary:
        'The signed BitstringStatusListCredential, with ETag and Cache-Control matching its ttl: application/vc, or application/ld+json or application/json when Accept prefers them (same bytes, same ETag). Public.',
      request: { params: ListIdParamSchema },
      responses: {
        200: {
          description: 'Signed list credential',
          content: Object.fromEntries(LIST_MEDIA_TYPES.map((type) => [type, { schema: JsonObjectSchema }])),
        },
        ...errorResponses(400, 404, 429),
      },
    }),
    async (c) => {
      const published = await publishedStatusList(ctx, c.req.valid('param').listId);
      return new Response(published.json, {
        status: 200,
        headers: {
          'content-type': accepts(c, { header: 'Accept', supports: LIST_MEDIA_TYPES, default: 'application/vc' }),
          vary: 'Accept',
          etag: published.etag,
          'cache-control': `public, max-age=${Math.floor(published.ttlMs / 1000)}`,
        },
      });
    },
  );
  return app;
}
