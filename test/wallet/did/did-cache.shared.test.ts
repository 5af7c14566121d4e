import { describe, expect, inject, it } from 'vitest';
import {
  createCachedResolver,
  createResolver,
  createWebResolver,
  DID_CACHE_DEFAULTS,
  type DidResolutionResult,
  type Resolvable,
} from '../../../wallet/did/index.ts';

const base = inject('fixtureBaseUrl');
const hostId = encodeURIComponent(new URL(base).host);
const run = `c${Math.random().toString(36).slice(2, 10)}`;

/** An inner resolver that counts calls and answers from a table (absent → notFound). */
function countingResolver(table: Record<string, Partial<DidResolutionResult>>): Resolvable & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async resolve(did) {
      calls.push(did);
      const entry = table[did];
      if (!entry) return { didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: { error: 'notFound' } };
      return { didDocument: { id: did }, didDocumentMetadata: {}, didResolutionMetadata: {}, ...entry };
    },
  };
}

function clock(start = Date.UTC(2025, 0, 1)): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('createCachedResolver', () => {
  it('coalesces 100 concurrent resolutions of one did:web into one fetch', async () => {
    const did = `did:web:${hostId}:${run}:popular`;
    await fetch(`${base}/host/${run}/popular/did.json`, {
      method: 'PUT',
      body: JSON.stringify({ id: did }),
      headers: { 'content-type': 'application/json' },
    });
    const cached = createCachedResolver(
      createResolver({ methods: { web: createWebResolver({ allowHttpLoopback: true }) } }),
    );
    const results = await Promise.all(Array.from({ length: 100 }, () => cached.resolve(did)));
    expect(results.every((r) => r.didDocument?.id === did)).toBe(true);
    const again = await cached.resolve(did);
    expect(again.didResolutionMetadata.cached).toBe(true);
    const { hits } = (await (
      await fetch(`${base}/hits?path=${encodeURIComponent(`/${run}/popular/did.json`)}`)
    ).json()) as { hits: number };
    expect(hits).toBe(1);
  });

  it('serves from cache until the TTL passes, and reports when the document was retrieved and its age', async () => {
    const c = clock();
    const inner = countingResolver({ 'did:ex:a': {} });
    const cached = createCachedResolver(inner, { ttlMs: 1000, now: c.now });
    const first = await cached.resolve('did:ex:a');
    expect(first.didResolutionMetadata).toMatchObject({
      cached: false,
      ageMs: 0,
      retrieved: new Date(c.now()).toISOString(),
    });
    c.advance(999);
    const second = await cached.resolve('did:ex:a#key-1'); // DID URLs share their DID's entry
    expect(second.didResolutionMetadata).toMatchObject({
      cached: true,
      ageMs: 999,
      retrieved: first.didResolutionMetadata.retrieved,
    });
    expect(inner.calls).toEqual(['did:ex:a']);
    c.advance(1);
    const third = await cached.resolve('did:ex:a');
    expect(third.didResolutionMetadata).toMatchObject({ cached: false, ageMs: 0 });
    expect(inner.calls).toEqual(['did:ex:a', 'did:ex:a']);
  });

  it('answers resolveCached from memory only: the fresh entry resolve would give, else undefined', async () => {
    const c = clock();
    const inner = countingResolver({ 'did:ex:a': {} });
    const cached = createCachedResolver(inner, { ttlMs: 1000, now: c.now });
    expect(cached.resolveCached?.('did:ex:a')).toBeUndefined(); // nothing cached yet, and no resolution started
    expect(inner.calls).toEqual([]);
    await cached.resolve('did:ex:a');
    c.advance(400);
    const fromMemory = cached.resolveCached?.('did:ex:a#key-1');
    expect(fromMemory).toEqual(await cached.resolve('did:ex:a'));
    expect(fromMemory?.didResolutionMetadata).toMatchObject({ cached: true, ageMs: 400 });
    expect(cached.resolveCached?.('not a did')).toBeUndefined();
    c.advance(600); // expired: resolve would fetch again, so there is nothing to answer from memory
    expect(cached.resolveCached?.('did:ex:a')).toBeUndefined();
    expect(inner.calls).toEqual(['did:ex:a']);
  });

  it('caches failures only for negativeTtlMs', async () => {
    const c = clock();
    const inner = countingResolver({});
    const cached = createCachedResolver(inner, { ttlMs: 60_000, negativeTtlMs: 100, now: c.now });
    expect((await cached.resolve('did:ex:gone')).didResolutionMetadata.error).toBe('notFound');
    c.advance(99);
    expect((await cached.resolve('did:ex:gone')).didResolutionMetadata).toMatchObject({
      error: 'notFound',
      cached: true,
    });
    c.advance(1);
    await cached.resolve('did:ex:gone');
    expect(inner.calls).toHaveLength(2);

    const uncachedFailures = createCachedResolver(inner, { negativeTtlMs: 0, now: c.now });
    await uncachedFailures.resolve('did:ex:gone');
    await uncachedFailures.resolve('did:ex:gone');
    expect(inner.calls).toHaveLength(4);
  });

  it('evicts the least recently used DID beyond max', async () => {
    const inner = countingResolver({ 'did:ex:1': {}, 'did:ex:2': {}, 'did:ex:3': {} });
    const cached = createCachedResolver(inner, { max: 2 });
    await cached.resolve('did:ex:1');
    await cached.resolve('did:ex:2');
    await cached.resolve('did:ex:1'); // 1 is now the most recent
    await cached.resolve('did:ex:3'); // evicts 2
    expect(cached.size).toBe(2);
    expect((await cached.resolve('did:ex:1')).didResolutionMetadata.cached).toBe(true);
    expect((await cached.resolve('did:ex:2')).didResolutionMetadata.cached).toBe(false);
    expect(inner.calls).toEqual(['did:ex:1', 'did:ex:2', 'did:ex:3', 'did:ex:2']);
  });

  it('keeps reporting a deactivated DID as deactivated from the cache', async () => {
    const inner = countingResolver({
      'did:ex:old': { didDocumentMetadata: { deactivated: true, updated: '2025-01-01T00:00:00Z' } },
    });
    const cached = createCachedResolver(inner);
    await cached.resolve('did:ex:old');
    const hit = await cached.resolve('did:ex:old');
    expect(hit.didDocumentMetadata).toEqual({ deactivated: true, updated: '2025-01-01T00:00:00Z' });
    expect(hit.didResolutionMetadata.cached).toBe(true);
    expect(inner.calls).toHaveLength(1);
  });

  it('bypasses the cache read with noCache and refreshes the entry', async () => {
    const inner = countingResolver({ 'did:ex:a': {} });
    const cached = createCachedResolver(inner);
    await cached.resolve('did:ex:a');
    expect((await cached.resolve('did:ex:a', { noCache: true })).didResolutionMetadata.cached).toBe(false);
    expect(inner.calls).toHaveLength(2);
    cached.invalidate('did:ex:a');
    await cached.resolve('did:ex:a');
    cached.invalidate();
    expect(cached.size).toBe(0);
    expect(inner.calls).toHaveLength(3);
  });

  it('hands out frozen documents, so one caller cannot change what the next is told', async () => {
    const inner = countingResolver({
      'did:ex:a': { didDocument: { id: 'did:ex:a', alsoKnownAs: ['https://a.example'] } },
    });
    const cached = createCachedResolver(inner);
    const first = await cached.resolve('did:ex:a');
    expect(() => first.didDocument?.alsoKnownAs?.push('https://evil.example')).toThrow(TypeError);
    first.didResolutionMetadata.cached = 'tampered' as never; // outer objects are per caller
    const second = await cached.resolve('did:ex:a');
    expect(second.didDocument?.alsoKnownAs).toEqual(['https://a.example']);
    expect(second.didResolutionMetadata.cached).toBe(true);
  });

  it('turns an inner resolver that throws or returns junk into internalError', async () => {
    const throwing = createCachedResolver({
      resolve: () => {
        throw new Error('boom');
      },
    });
    expect((await throwing.resolve('did:ex:a')).didResolutionMetadata.error).toBe('internalError');
    const junk = createCachedResolver({ resolve: async () => null as unknown as DidResolutionResult });
    expect((await junk.resolve('did:ex:a')).didResolutionMetadata.error).toBe('internalError');
  });

  it('answers invalid DIDs without calling the inner resolver or using a slot', async () => {
    const inner = countingResolver({});
    const cached = createCachedResolver(inner);
    expect((await cached.resolve('not a did')).didResolutionMetadata.error).toBe('invalidDid');
    expect(inner.calls).toHaveLength(0);
    expect(cached.size).toBe(0);
  });

  it('refresh resolves past the cache, at most once per cooldown', async () => {
    const c = clock();
    const inner = countingResolver({ 'did:ex:r': {} });
    const cached = createCachedResolver(inner, { refreshCooldownMs: 30_000, now: c.now });
    await cached.resolve('did:ex:r');
    c.advance(10_000);
    expect((await cached.refresh('did:ex:r#key-2')).didResolutionMetadata.cached).toBe(true); // 10 s old: inside the cooldown
    expect(inner.calls).toHaveLength(1);
    c.advance(20_000);
    expect((await cached.refresh('did:ex:r#key-2')).didResolutionMetadata.cached).toBe(false);
    expect(await cached.refresh('did:ex:r')).toMatchObject({ didResolutionMetadata: { cached: true, ageMs: 0 } }); // just fetched
    expect(inner.calls).toHaveLength(2);
    expect((await cached.refresh('nonsense')).didResolutionMetadata.error).toBe('invalidDid');
  });

  it('behind another cache: keeps its copy for what is left of the ttl counted from the retrieval', async () => {
    const c = clock();
    let calls = 0;
    const inner: Resolvable = {
      resolve: async (did) => (
        calls++,
        { didDocument: { id: did }, didDocumentMetadata: {}, didResolutionMetadata: { ageMs: 120_000, cached: true } }
      ),
    };
    const cached = createCachedResolver(inner, { now: c.now });
    await cached.resolve('did:ex:aged');
    c.advance(DID_CACHE_DEFAULTS.ttlMs - 120_000 - 1);
    await cached.resolve('did:ex:aged');
    expect(calls).toBe(1);
    c.advance(1);
    await cached.resolve('did:ex:aged');
    expect(calls).toBe(2);
  });

  it('behind another cache: the age it reports is that of the document, and refresh asks past that cache too', async () => {
    const c = clock();
    const options: Array<{ noCache?: boolean }> = [];
    // The inner cache holds a copy fetched 2 minutes ago, and its source has a newer document.
    const inner: Resolvable = {
      async resolve(did, resolveOptions = {}) {
        options.push({ ...resolveOptions });
        if (resolveOptions.noCache === true)
          return {
            didDocument: { id: did, alsoKnownAs: ['newer'] },
            didDocumentMetadata: {},
            didResolutionMetadata: {},
          };
        return {
          didDocument: { id: did },
          didDocumentMetadata: {},
          didResolutionMetadata: { ageMs: 120_000, cached: true },
        };
      },
    };
    const cached = createCachedResolver(inner, { now: c.now });
    const first = await cached.resolve('did:ex:inner');
    // Cached, as its inner cache said: a key it lacks is worth a refresh (isStaleMiss).
    expect(first.didResolutionMetadata).toMatchObject({
      ageMs: 120_000,
      retrieved: new Date(c.now() - 120_000).toISOString(),
      cached: true,
    });
    // Two minutes old is past the 30 s cooldown, although this cache got it just now.
    const refreshed = await cached.refresh('did:ex:inner#key-2');
    expect(refreshed.didDocument?.alsoKnownAs).toEqual(['newer']);
    expect(refreshed.didResolutionMetadata).toMatchObject({ ageMs: 0, cached: false });
    expect(options).toEqual([{}, { noCache: true }]);
    // A nonsensical age from the inner resolver counts as fresh.
    for (const ageMs of [-5, Number.NaN, Number.POSITIVE_INFINITY, 1e16, '60000']) {
      const odd = createCachedResolver(
        {
          resolve: async (did) => ({
            didDocument: { id: did },
            didDocumentMetadata: {},
            didResolutionMetadata: { ageMs } as DidResolutionResult['didResolutionMetadata'],
          }),
        },
        { now: c.now },
      );
      expect((await odd.resolve('did:ex:odd')).didResolutionMetadata.ageMs).toBe(0);
    }
  });

  it('a failed refresh keeps the good copy, and the cooldown counts from it', async () => {
    const c = clock();
    const table: Record<string, Partial<DidResolutionResult>> = { 'did:ex:f': {} };
    const inner = countingResolver(table);
    const cached = createCachedResolver(inner, { now: c.now });
    await cached.resolve('did:ex:f');
    c.advance(31_000);
    table['did:ex:f'] = { didDocument: null, didResolutionMetadata: { error: 'internalError' } }; // the host has a bad moment
    const kept = await cached.refresh('did:ex:f#made-up');
    expect(kept).toMatchObject({ didDocument: { id: 'did:ex:f' }, didResolutionMetadata: { cached: true } });
    expect((await cached.resolve('did:ex:f')).didDocument?.id).toBe('did:ex:f');
    await cached.refresh('did:ex:f#made-up-again'); // inside the cooldown of the failed refresh: no fetch
    expect(inner.calls).toHaveLength(2);
  });

  it('keeps calls of different intent apart while a resolution is under way', async () => {
    const c = clock();
    // An inner resolver whose answers the test releases one at a time, recording what was asked.
    const asked: Array<{ noCache?: boolean; answer: (r: DidResolutionResult) => void }> = [];
    const inner: Resolvable = {
      resolve: (_did, resolveOptions = {}) => new Promise((answer) => asked.push({ ...resolveOptions, answer })),
    };
    const good = (tag: string): DidResolutionResult => ({
      didDocument: { id: 'did:ex:k', alsoKnownAs: [tag] },
      didDocumentMetadata: {},
      didResolutionMetadata: {},
    });
    const down: DidResolutionResult = {
      didDocument: null,
      didDocumentMetadata: {},
      didResolutionMetadata: { error: 'internalError' },
    };
    const settle = async () => {
      for (let i = 0; i < 5; i++) await Promise.resolve();
    };
    const cached = createCachedResolver(inner, { now: c.now, ttlMs: 60_000 });

    // A refresh that starts while a plain resolution is under way asks past every cache itself.
    const plain = cached.resolve('did:ex:k');
    await settle();
    const refresh = cached.refresh('did:ex:k#key-2');
    await settle();
    expect(asked.map((a) => a.noCache === true)).toEqual([false, true]);
    asked[0]?.answer(good('stored'));
    asked[1]?.answer(good('rotated'));
    expect((await plain).didDocument?.alsoKnownAs).toEqual(['stored']);
    expect((await refresh).didDocument?.alsoKnownAs).toEqual(['rotated']);

    // A plain resolution joining a refresh that fails gets the failure, not the good copy the
    // refresh keeps for itself: that copy's ttl ran out meanwhile.
    c.advance(31_000); // past the refresh cooldown, within the ttl
    const failing = cached.refresh('did:ex:k#key-3');
    await settle();
    c.advance(30_000); // the copy expires while the refresh is under way
    const joined = cached.resolve('did:ex:k');
    await settle();
    expect(asked).toHaveLength(3);
    asked[2]?.answer(down);
    expect((await joined).didResolutionMetadata.error).toBe('internalError');
    expect((await failing).didDocument?.alsoKnownAs).toEqual(['rotated']);

    // invalidate() while a resolution is under way: its result is not cached when it lands.
    c.advance(61_000);
    const pending = cached.resolve('did:ex:k');
    await settle();
    cached.invalidate('did:ex:k');
    asked[3]?.answer(good('before-invalidate'));
    expect((await pending).didDocument?.alsoKnownAs).toEqual(['before-invalidate']);
    expect(cached.resolveCached?.('did:ex:k')).toBeUndefined();
    expect(cached.size).toBe(0);
  });

  it('has the documented defaults and throws INVALID_OPTIONS for nonsense', () => {
    expect(DID_CACHE_DEFAULTS).toEqual({ ttlMs: 300_000, max: 1000, negativeTtlMs: 30_000, refreshCooldownMs: 30_000 });
    const inner = countingResolver({});
    for (const options of [
      { ttlMs: 0 },
      { max: 0 },
      { negativeTtlMs: -1 },
      { ttlMs: Number.NaN },
      { max: 1.5 },
      { refreshCooldownMs: -1 },
    ]) {
      expect(() => createCachedResolver(inner, options), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTIONS' }),
      );
    }
  });
});
