// The read cache of POST /v1/vp/verify's fast path: each read made once per view, the view's
// generation read before any of them, a failed read not kept, and a dropped view started afresh.
import { describe, expect, it } from 'vitest';
import { createReadCache } from '../../../issuer/services/read-cache.ts';
import { openDatabase } from '../../../issuer/storage/db.ts';
import { createSqliteStores } from '../../../issuer/storage/sqlite-stores.ts';
import type { IssuerStores } from '../../../issuer/storage/stores.ts';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const DOC = { '@context': ['https://www.w3.org/ns/did/v1'], id: 'did:web:x.example:a' };

/** The stores, with a count of the reads that reached them. */
function counted(stores: IssuerStores) {
  const reads: string[] = [];
  return {
    reads,
    stores: {
      ...stores,
      readGeneration: { current: () => (reads.push('generation'), stores.readGeneration.current()) },
      dids: { ...stores.dids, get: (did: string) => (reads.push(`did ${did}`), stores.dids.get(did)) },
      statusLists: {
        ...stores.statusLists,
        version: (id: string) => (reads.push(`list ${id}`), stores.statusLists.version(id)),
      },
    },
  };
}

describe('read cache', () => {
  it('reads the generation first, then each DID and list once per view; a dropped view starts afresh', async () => {
    const stores = createSqliteStores(openDatabase(':memory:'));
    await stores.dids.insert({
      did: DOC.id,
      document: DOC,
      kind: 'managed',
      deactivated: false,
      createdAt: T0,
      updatedAt: T0,
    });
    const { reads, stores: seen } = counted(stores);
    const cache = createReadCache(seen);
    const view = await cache.view();
    expect(view.generation).toBe(await stores.readGeneration.current());
    const [a, b] = await Promise.all([view.dids.get(DOC.id), view.dids.get(DOC.id), view.version('none')]);
    expect(a).toEqual(b);
    expect(a?.document).toEqual(DOC);
    expect(await (await cache.view()).version('none')).toBeUndefined();
    expect(reads).toEqual(['generation', `did ${DOC.id}`, 'list none']);
    // The DID changes: the generation moves; the view still answers what it read, until dropped.
    await stores.dids.deactivate(DOC.id, T0 + 1);
    expect((await view.dids.get(DOC.id))?.deactivated).toBe(false);
    cache.drop(view.generation - 1); // another generation's view: nothing happens
    expect(await cache.view()).toBe(view);
    cache.drop(view.generation);
    const next = await cache.view();
    expect(next.generation).toBeGreaterThan(view.generation);
    expect((await next.dids.get(DOC.id))?.deactivated).toBe(true);
  });

  it('keeps no failed read: the next use reads again', async () => {
    const stores = createSqliteStores(openDatabase(':memory:'));
    let fail = true;
    const flaky = {
      ...stores,
      dids: { ...stores.dids, get: (did: string) => (fail ? Promise.reject(new Error('down')) : stores.dids.get(did)) },
      readGeneration: {
        current: () => (fail ? Promise.reject(new Error('down')) : stores.readGeneration.current()),
      },
    };
    const cache = createReadCache(flaky);
    await expect(cache.view()).rejects.toThrow('down');
    fail = false;
    const view = await cache.view();
    fail = true;
    await expect(view.dids.get(DOC.id)).rejects.toThrow('down');
    fail = false;
    expect(await view.dids.get(DOC.id)).toBeUndefined();
  });
});
