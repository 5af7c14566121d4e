// The replay cache on its own: it remembers keys until they expire, and when full it never
// forgets a live key without also refusing everything that key could have been (its horizon).
import { describe, expect, it } from 'vitest';
import { createReplayCache } from '../../../wallet/vc/replay-cache.ts';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('ReplayCache', () => {
  it('refuses a key while it lives and accepts it again once it has expired', () => {
    const c = clock();
    const cache = createReplayCache({ now: c.now });
    expect(cache.remember('vp:a', c.now() + 1000)).toBe(true);
    expect(cache.remember('vp:a', c.now() + 1000)).toBe(false);
    c.advance(999);
    expect(cache.remember('vp:a', c.now() + 1000)).toBe(false);
    c.advance(1);
    expect(cache.remember('vp:a', c.now() + 1000)).toBe(true);
    expect(cache.remember('vp:a', c.now() + 1000)).toBe(false);
  });

  it('refuses a key that has already expired by its clock, even one it just forgot', () => {
    const c = clock();
    const cache = createReplayCache({ now: c.now });
    expect(cache.remember('vp:a', c.now() + 1000)).toBe(true);
    c.advance(1000); // exactly at the expiry: a replay whose verification ran up to this instant
    expect(cache.remember('vp:a', c.now())).toBe(false);
    expect(cache.remember('vp:new-but-expired', c.now() - 1)).toBe(false);
  });

  it('when full, forgets the earliest-recorded key but refuses it, and anything expiring no later, from then on', () => {
    const c = clock();
    const cache = createReplayCache({ max: 2, now: c.now });
    const at = c.now();
    expect(cache.remember('a', at + 100)).toBe(true);
    expect(cache.remember('b', at + 200)).toBe(true);
    expect(cache.remember('c', at + 300)).toBe(true); // `a` is forgotten: the horizon is at + 100
    expect(cache.remember('a', at + 100)).toBe(false); // the replay of a forgotten key
    expect(cache.remember('fresh-but-old', at + 100)).toBe(false); // cannot be told apart from one
    expect(cache.remember('b', at + 200)).toBe(false); // still remembered
    expect(cache.remember('d', at + 400)).toBe(true); // `b` forgotten: horizon at + 200
    expect(cache.remember('b', at + 200)).toBe(false);
    expect(cache.remember('e', at + 150)).toBe(false);
    expect(cache.remember('f', at + 500)).toBe(true);
  });

  it('refuses a key that making room would itself put behind the horizon', () => {
    const c = clock();
    const cache = createReplayCache({ max: 1, now: c.now });
    expect(cache.remember('long', c.now() + 1000)).toBe(true);
    expect(cache.remember('short', c.now() + 10)).toBe(false); // room meant forgetting `long` (horizon + 1000)
    expect(cache.remember('long', c.now() + 1000)).toBe(false);
  });

  it('forgetting an expired key does not move the horizon', () => {
    const c = clock();
    const cache = createReplayCache({ max: 2, now: c.now });
    expect(cache.remember('a', c.now() + 100)).toBe(true);
    expect(cache.remember('b', c.now() + 100)).toBe(true);
    c.advance(100); // both expired
    expect(cache.remember('c', c.now() + 5)).toBe(true);
    expect(cache.remember('d', c.now() + 5)).toBe(true);
  });

  it('stays sound however many keys it is given: every forgotten key is refused, the newest are remembered', () => {
    const c = clock();
    const cache = createReplayCache({ max: 1000, now: c.now });
    for (let i = 0; i < 10_000; i++) {
      c.advance(1);
      expect(cache.remember(`k${i}`, c.now() + 60_000)).toBe(true);
    }
    // The 9,000 earliest are forgotten, so all of them are refused; the latest 1,000 are remembered.
    expect(cache.remember('k0', c.now())).toBe(false);
    expect(cache.remember('k8999', 1_000_000 + 9000 + 60_000)).toBe(false);
    expect(cache.remember('k9999', 1_000_000 + 10_000 + 60_000)).toBe(false);
    expect(cache.remember('new', c.now() + 60_001)).toBe(true);
  });

  it('refuses a max that is not a positive integer', () => {
    for (const max of [0, -1, 1.5, Number.NaN]) expect(() => createReplayCache({ max })).toThrow(RangeError);
  });
});
