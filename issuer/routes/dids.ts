/**
 * DID management (wallet/contract/dids.ts, services/dids.ts): creating, listing, resolving and
 * changing hosted DIDs, and the documents of managed did:web DIDs.
 */
import { didEndpoints } from '../../wallet/contract/dids.ts';
import type { IssuerContext } from '../boot.ts';
import type { HandlersOf } from '../http/mount.ts';
import {
  addService,
  createDid,
  deactivateDid,
  listDids,
  managedWebDocument,
  removeService,
  resolveHostedDid,
} from '../services/dids.ts';

export function didHandlers(ctx: IssuerContext): HandlersOf<typeof didEndpoints> {
  return {
    createDid: ({ body }, c) => createDid(ctx, body, c.get('actor')),
    listDids: ({ query: { cursor, limit, kind } }) =>
      listDids(ctx, {
        limit,
        ...(cursor === undefined ? {} : { cursor }),
        ...(kind === undefined ? {} : { kind }),
      }),
    resolveDid: ({ params }) => resolveHostedDid(ctx, params.did),
    addService: ({ params, body }, c) => addService(ctx, params.did, body, c.get('actor')),
    removeService: ({ params }, c) => removeService(ctx, params.did, params.endpointId, c.get('actor')),
    deactivateDid: ({ params, body }, c) => deactivateDid(ctx, params.did, c.get('actor'), body.reason),
    getManagedDidDocument: async ({ params }, c) =>
      c.json(await managedWebDocument(ctx, params.id), 200, {
        'content-type': 'application/did+json',
        'cache-control': 'no-cache',
      }),
  };
}
