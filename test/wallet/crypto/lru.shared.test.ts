import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruCache } from '../../../wallet/crypto/lru.ts';

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

  it('keeps exact least-recently-used order under any sequence of get, set and delete', () => {
    const keys = [0, 1, 2, 3, 4, 5, 6];
    const op = fc.tuple(fc.constantFrom('get', 'set', 'delete', 'clear'), fc.constantFrom(...keys));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 100 }), (ops) => {
        const cache = new LruCache<number, number>({ max: 3 });
        let order: number[] = []; // the model: least recent first
        for (const [kind, key] of ops) {
          const present = order.includes(key);
          if (kind === 'get') {
            expect(cache.get(key)).toBe(present ? key : undefined);
            if (present) order = [...order.filter((k) => k !== key), key];
          } else if (kind === 'set') {
            cache.set(key, key);
            order = [...order.filter((k) => k !== key), key].slice(-3);
          } else if (kind === 'delete') {
            expect(cache.delete(key)).toBe(present);
            order = order.filter((k) => k !== key);
          } else {
            cache.clear();
            order = [];
          }
          // ttlOf reads without refreshing: what is held must be exactly the model's keys.
          expect(keys.filter((k) => cache.ttlOf(k) !== undefined)).toEqual([...order].sort());
          expect(cache.size).toBe(order.length);
        }
      }),
      { numRuns: 500 },
    );
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

  it('drops an expired entry from anywhere in the order and keeps the order of the rest', () => {
    let now = 0;
    const cache = new LruCache<string, number>({ max: 3, now: () => now });
    cache.set('a', 1).set('b', 2, 10).set('c', 3); // b, in the middle, lives 10 ms
    now = 10;
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(2);
    cache.set('d', 4).set('e', 5); // full again at d; e evicts the least recently used: a
    expect([cache.get('a'), cache.get('c'), cache.get('d'), cache.get('e')]).toEqual([undefined, 3, 4, 5]);
  });

  it('refuses a non-positive bound', () => {
    expect(() => new LruCache({ max: 0 })).toThrow(RangeError);
    expect(() => new LruCache<string, string>({ max: 1, maxSize: 0, sizeOf: (v) => v.length })).toThrow(RangeError);
    expect(() => new LruCache<string, string>({ max: 1, maxSize: 10 })).toThrow(RangeError);
  });

  it('keeps the total size within maxSize, evicting the least recently used', () => {
    const cache = new LruCache<string, string>({ max: 100, maxSize: 10, sizeOf: (v) => v.length });
    cache.set('a', 'alfa').set('b', 'beta');
    expect(cache.get('a')).toBe('alfa'); // b is now the least recently used
    cache.set('c', 'coda'); // 12 > 10: b goes
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c')]).toEqual(['alfa', 'coda']);
    cache.set('a', 'x'); // replacing frees the old size: 1 + 4
    cache.set('d', 'wwww'); // 9
    expect(cache.size).toBe(3);
    cache.delete('c');
    cache.set('e', 'vvvvv'); // 1 + 4 + 5 = 10 fits exactly
    expect(cache.size).toBe(3);
  });

  it('does not store a value larger than the whole budget, and keeps the rest', () => {
    const cache = new LruCache<string, string>({ max: 100, maxSize: 10, sizeOf: (v) => v.length });
    cache.set('a', 'xx');
    cache.set('huge', 'y'.repeat(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('a')).toBe('xx');
  });
});
