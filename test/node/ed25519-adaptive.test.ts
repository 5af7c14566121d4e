import { afterEach, describe, expect, it } from 'vitest';
import {
  nextBackend,
  SATURATED,
  SPARE,
  startAdaptiveEd25519,
  type AdaptiveEd25519,
} from '../../issuer/services/ed25519-adaptive.ts';
import { getEd25519Backend, setEd25519Backend, verify } from '../../wallet/crypto/ed25519.ts';
import { RFC8032_TEST1 } from '../../wallet/crypto/ed25519-spec.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps the event loop busy for `ms` (a saturated loop, as under load). */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('the adaptive Ed25519 backend: the loop when it has time, the pool when it has none', () => {
  it('moves to the pool at a saturated loop, back under the spare mark, and stays put between the two', () => {
    expect(nextBackend('node', 0.5)).toBe('node');
    expect(nextBackend('node', SATURATED)).toBe('webcrypto');
    expect(nextBackend('node', 1)).toBe('webcrypto');
    expect(nextBackend('node', (SATURATED + SPARE) / 2)).toBe('node');
    expect(nextBackend('webcrypto', (SATURATED + SPARE) / 2)).toBe('webcrypto');
    expect(nextBackend('webcrypto', SPARE)).toBe('webcrypto');
    expect(nextBackend('webcrypto', SPARE - 0.01)).toBe('node');
    expect(nextBackend('webcrypto', 0)).toBe('node');
  });

  let adaptive: AdaptiveEd25519 | undefined;
  afterEach(() => {
    adaptive?.stop();
    setEd25519Backend('auto');
  });

  it('follows the loop of this process: node while idle, webcrypto after a saturated interval, node again', async () => {
    adaptive = startAdaptiveEd25519(50);
    expect(adaptive.backend).toBe('node');
    expect(await getEd25519Backend()).toBe('node');
    spin(200);
    // The interval timer, due during the spin, runs before this later one.
    await sleep(1);
    expect(adaptive.backend).toBe('webcrypto');
    expect(await getEd25519Backend()).toBe('webcrypto');
    const { publicKey, message, signature } = RFC8032_TEST1;
    expect(await verify(signature, message, publicKey)).toBe(true);
    await sleep(200);
    expect(adaptive.backend).toBe('node');
    expect(await getEd25519Backend()).toBe('node');
  });

  it('stops choosing when stopped: the backend last set stays', async () => {
    adaptive = startAdaptiveEd25519(50);
    adaptive.stop();
    spin(200);
    await sleep(60);
    expect(adaptive.backend).toBe('node');
  });
});
