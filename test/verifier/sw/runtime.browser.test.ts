// The worker's life around the guard (runtime.ts): where its configuration comes from (a
// same-origin file, or the page), what it does without one, and how it fails closed when the
// file is broken. Also the IndexedDB store everything persistent goes through, in real
// Chromium IndexedDB.
import { beforeEach, describe, expect, it } from 'vitest';
import type { GuardStores } from '../../../verifier-worker/sw/guard.ts';
import { createRuntime, type Runtime, type StoredConfig } from '../../../verifier-worker/sw/runtime.ts';
import { createIndexedDbStore, createMemoryStore, type KeyValueStore } from '../../../verifier-worker/sw/store.ts';

const ORIGIN = 'https://app.example';
const SCOPE = `${ORIGIN}/`;
const CONFIG_URL = `${ORIGIN}/verifier.json`;

const CONFIG = {
  target: 'orders.example.com',
  trustedIssuers: ['did:web:issuer.example'],
  routes: [{ path: '/api/*', scopes: ['orders:read'] }],
};

type ConfigAnswer = () => Response | Promise<Response>;

interface Setup {
  runtime: Runtime;
  upstream: Request[];
}

function memoryStores(): GuardStores {
  return {
    dids: createMemoryStore(),
    statusLists: createMemoryStore(),
    replay: createMemoryStore(),
    challenges: createMemoryStore(),
  };
}

function setup(
  options: { configUrl?: string; answer?: ConfigAnswer; configStore?: KeyValueStore<StoredConfig> } = {},
): Setup {
  const upstream: Request[] = [];
  const runtime = createRuntime({
    origin: ORIGIN,
    scope: SCOPE,
    ...(options.configUrl ? { configUrl: options.configUrl } : {}),
    configStore: options.configStore ?? createMemoryStore(),
    fetch: async (request) => {
      if (request.url === options.configUrl && options.answer) return options.answer();
      upstream.push(request);
      return new Response('upstream', { status: 200 });
    },
    guard: { stores: memoryStores(), report: () => undefined },
  });
  return { runtime, upstream };
}

const json =
  (value: unknown, status = 200): ConfigAnswer =>
  () =>
    new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });

async function outcome(runtime: Runtime, path: string, headers: Record<string, string> = {}): Promise<string> {
  const request = new Request(ORIGIN + path, { headers });
  if (!runtime.handles(request)) return 'not handled';
  const response = await runtime.respond(request);
  if (response.status === 200) return `200 ${await response.text()}`;
  const body = (await response.json()) as { reason: string };
  return `${response.status} ${body.reason}`;
}

describe('configuration from a file', () => {
  it('guards the paths the file names once it is loaded, and leaves the others alone', async () => {
    const { runtime } = setup({ configUrl: CONFIG_URL, answer: json(CONFIG) });
    await runtime.ready();
    expect(await outcome(runtime, '/api/orders')).toBe('401 MALFORMED');
    expect(await outcome(runtime, '/index.html')).toBe('not handled');
    expect(await outcome(runtime, '/index.html', { 'x-mandate-scopes': 'orders' })).toBe('200 upstream');
  });

  it('takes every same-origin request while loading, and decides it once loaded', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { runtime, upstream } = setup({ configUrl: CONFIG_URL, answer: async () => (await gate, json(CONFIG)()) });
    const request = new Request(`${ORIGIN}/index.html`);
    expect(runtime.handles(request)).toBe(true);
    expect(runtime.handles(new Request('https://cdn.example/lib.js'))).toBe(false);
    const pending = runtime.respond(request);
    release();
    expect((await pending).status).toBe(200);
    expect(upstream.map((r) => r.url)).toEqual([`${ORIGIN}/index.html`]);
  });

  it('CONFIG_UNAVAILABLE when the file cannot be fetched and no copy is stored: same-origin requests get 503', async () => {
    const { runtime, upstream } = setup({ configUrl: CONFIG_URL, answer: () => new Response('gone', { status: 404 }) });
    await expect(runtime.ready()).rejects.toMatchObject({ code: 'CONFIG_UNAVAILABLE' });
    expect(await outcome(runtime, '/api/orders')).toBe('503 CONFIG_UNAVAILABLE');
    expect(await outcome(runtime, '/index.html')).toBe('503 CONFIG_UNAVAILABLE');
    expect(upstream).toHaveLength(0);
    const offline = setup({ configUrl: CONFIG_URL, answer: () => Promise.reject(new TypeError('offline')) });
    await expect(offline.runtime.ready()).rejects.toMatchObject({ code: 'CONFIG_UNAVAILABLE' });
  });

  it('uses the last good copy when the file cannot be fetched', async () => {
    const configStore = createMemoryStore<StoredConfig>();
    await setup({ configUrl: CONFIG_URL, answer: json(CONFIG), configStore }).runtime.ready();
    const { runtime } = setup({
      configUrl: CONFIG_URL,
      answer: () => new Response('down', { status: 503 }),
      configStore,
    });
    await runtime.ready();
    expect(await outcome(runtime, '/api/orders')).toBe('401 MALFORMED');
  });

  it('CONFIG_INVALID for a file that is not JSON, not a valid configuration, or on another origin — never replaced by an old copy', async () => {
    const configStore = createMemoryStore<StoredConfig>();
    await setup({ configUrl: CONFIG_URL, answer: json(CONFIG), configStore }).runtime.ready();
    const notJson = setup({
      configUrl: CONFIG_URL,
      answer: () => new Response('{target:', { status: 200 }),
      configStore,
    });
    await expect(notJson.runtime.ready()).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    expect(await outcome(notJson.runtime, '/api/orders')).toBe('503 CONFIG_INVALID');
    const invalid = setup({
      configUrl: CONFIG_URL,
      answer: json({ ...CONFIG, routes: [{ path: '/api/*' }] }),
      configStore,
    });
    await expect(invalid.runtime.ready()).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    const foreign = setup({ configUrl: 'https://evil.example/verifier.json', answer: json(CONFIG) });
    await expect(foreign.runtime.ready()).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('refuses a configuration posted by a page (CONFIG_INVALID): the file is the only source', async () => {
    const { runtime } = setup({ configUrl: CONFIG_URL, answer: json(CONFIG) });
    await expect(runtime.configure({ ...CONFIG, routes: [] })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    expect(await outcome(runtime, '/api/orders')).toBe('401 MALFORMED');
  });
});

describe('configuration from the page', () => {
  it('guards nothing before it is configured, then what the page configured, and again after a restart', async () => {
    const configStore = createMemoryStore<StoredConfig>();
    const { runtime } = setup({ configStore });
    await runtime.ready();
    expect(await outcome(runtime, '/api/orders')).toBe('not handled');
    expect(await outcome(runtime, '/api/orders', { 'x-mandate-agent-did': 'did:key:z6Mk' })).toBe('200 upstream');
    expect(await runtime.configure(CONFIG)).toMatchObject({ target: CONFIG.target, challenge: 'endpoint' });
    expect(await outcome(runtime, '/api/orders')).toBe('401 MALFORMED');

    const restarted = setup({ configStore });
    await restarted.runtime.ready();
    expect(await outcome(restarted.runtime, '/api/orders')).toBe('401 MALFORMED');
  });

  it('CONFIG_INVALID for a configuration it does not accept; the one it had stays in force', async () => {
    const { runtime } = setup();
    await runtime.configure(CONFIG);
    await expect(
      runtime.configure({ ...CONFIG, routes: [{ path: '/api/*', scopes: ['orders:read'], methods: ['GET'] }] }),
    ).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    expect(await outcome(runtime, '/api/orders')).toBe('401 MALFORMED');
  });

  it('keeps the guard in force (and its warm caches) when the same configuration is posted again, as every page load does', async () => {
    const { runtime } = setup();
    const first = await runtime.configure(CONFIG);
    expect(await runtime.configure(structuredClone(CONFIG))).toBe(first);
    const changed = await runtime.configure({ ...CONFIG, didTtlMs: 60_000 });
    expect(changed).not.toBe(first);
    expect(changed.didTtlMs).toBe(60_000);
  });
});

describe('the IndexedDB store', () => {
  beforeEach(async () => {
    await new Promise<void>((resolve) => {
      const request = indexedDB.deleteDatabase('mandate-verifier-replay');
      request.onsuccess = request.onerror = request.onblocked = () => resolve();
    });
  });

  it('writes, reads back, lists and deletes entries, across two handles on the same database', async () => {
    const store = createIndexedDbStore<number>('replay');
    await store.set('vp:a', 1);
    await store.set('vp:b', 2);
    await store.set('vp:c', 3);
    const reopened = createIndexedDbStore<number>('replay');
    expect(await reopened.get('vp:b')).toBe(2);
    expect(await reopened.get('vp:missing')).toBeUndefined();
    await reopened.delete(['vp:a', 'vp:c']);
    await reopened.delete('vp:none');
    expect(await store.entries()).toEqual([['vp:b', 2]]);
  });

  it('holds structured values (stored DID documents and status lists) as they were written', async () => {
    const store = createIndexedDbStore<{ body: string; fetchedAt: number; nested: { list: string[] } }>('replay');
    const value = { body: '{"a":1}', fetchedAt: 1_700_000_000_000, nested: { list: ['x', 'y'] } };
    await store.set('k', value);
    expect(await store.get('k')).toEqual(value);
  });
});
