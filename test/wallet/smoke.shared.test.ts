import { describe, expect, it, inject } from 'vitest';
import keyPair from '@vectors/w3c-vc-di-eddsa/keyPair.json';
import canonDoc from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/canonDocJCS.txt?raw';

describe('smoke', () => {
  it('reads vectors and reaches the fixture server', async () => {
    expect(keyPair.publicKeyMultibase).toMatch(/^z6Mk/);
    expect(canonDoc.length).toBeGreaterThan(10);
    const base = inject('fixtureBaseUrl');
    await fetch(`${base}/host/x.json`, { method: 'PUT', body: '{"a":1}' });
    const r = await fetch(`${base}/x.json`);
    expect(await r.json()).toEqual({ a: 1 });
    expect(typeof crypto.subtle.verify).toBe('function');
  });
});
