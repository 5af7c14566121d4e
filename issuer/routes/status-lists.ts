/**
 * Status lists (wallet/contract/status-lists.ts): creating one (admin) and the signed
 * BitstringStatusListCredential (public) by content negotiation, with `ETag` (the list version
 * and a digest) and `Cache-Control: max-age` equal to the list's `ttl` (Bitstring Status List
 * §2.2), so HTTP caches and verifiers agree on freshness; If-None-Match gets 304 from the etag
 * middleware (app.ts).
 */
import { accepts } from 'hono/accepts';
import { LIST_MEDIA_TYPES, statusListEndpoints } from '../../wallet/contract/status-lists.ts';
import type { IssuerContext } from '../context.ts';
import type { HandlersOf } from '../http/mount.ts';
import { createStatusListFor, listStatusLists, publishedStatusList } from '../services/status-lists.ts';

export function statusListHandlers(ctx: IssuerContext): HandlersOf<typeof statusListEndpoints> {
  return {
    listStatusLists: () => listStatusLists(ctx),
    createStatusList: ({ body }, c) => createStatusListFor(ctx, body, c.get('actor')),
    getStatusList: async ({ params }, c) => {
      const published = await publishedStatusList(ctx, params.listId);
      return new Response(published.json, {
        status: 200,
        headers: {
          'content-type': accepts(c, { header: 'Accept', supports: [...LIST_MEDIA_TYPES], default: 'application/vc' }),
          vary: 'Accept',
          etag: published.etag,
          'cache-control': `public, max-age=${Math.floor(published.ttlMs / 1000)}`,
        },
      });
    },
  };
}
