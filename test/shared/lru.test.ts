import { describe, expect, it } from 'vitest';
import { LruCache } from '../../wallet/crypto/lru.ts';

describe('LruCache', () => {
  it('evicts the least recently used entry beyond max', () => {
    const cache = new LruCache<string, number>({ max: 2 });
    cache.set('a', 1).set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now most recent
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('expires entries by their ttl', () => {
    let now = 1000;
    const cache = new LruCache<string, string>({ max: 10, ttlMs: 50, now: () => now });
    cache.set('k', 'v');
    cache.set('long', 'v', 500);
    now += 49;
    expect(cache.get('k')).toBe('v');
    expect(cache.ttlOf('long')).toBe(451);
    now += 1;
    expect(cache.get('k')).toBeUndefined();
    expect(cache.get('long')).toBe('v');
  });

  it('refuses a non-positive bound', () => {
    expect(() => new LruCache({ max: 0 })).toThrow(RangeError);
  });
});
