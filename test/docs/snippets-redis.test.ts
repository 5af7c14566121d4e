// docs/verifier.md's shared Redis replay cache, run as the page shows it against the run's
// Redis. Apart from test/docs/snippets.test.ts (whose inventory lists this block as run) so
// that every other block runs without a Redis (`npm run test:quick`).
import { Hono } from 'hono';
import { describe, expect, inject, it } from 'vitest';
import { didKeyIdentity, generateSeed, seedSigner } from '../../wallet/index.ts';
import { runSnippet, snippet } from '../support/doc-snippets.ts';

describe('docs/verifier.md', () => {
  const platform = didKeyIdentity(seedSigner(generateSeed()));

  it('the shared Redis replay cache records a use once, on a real Redis', async () => {
    process.env.REDIS_URL = inject('redisUrl');
    const app = new Hono();
    const { redis, replayCache } = (await runSnippet(snippet('docs/verifier.md', 'verifier-redis-replay'), {
      app,
      options: { trustedIssuers: [platform.did], target: 'files.example.com' },
    })) as {
      redis: { quit(): Promise<unknown> };
      replayCache: { remember(key: string, expiresAt: number): Promise<boolean> };
    };
    try {
      const key = `docs-${crypto.randomUUID()}`;
      expect(await replayCache.remember(key, Date.now() + 60_000)).toBe(true);
      expect(await replayCache.remember(key, Date.now() + 60_000)).toBe(false);
      expect((await app.request('https://files.example.com/files/1')).status).toBe(401);
    } finally {
      await redis.quit();
    }
  });
});
