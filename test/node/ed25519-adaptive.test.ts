import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CONTENDED,
  nextBackend,
  readRunDelay,
  SATURATED,
  SPARE,
  startAdaptiveEd25519,
  UNCONTENDED,
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
    const at = (utilization: number) => ({ utilization, waiting: 0 });
    expect(nextBackend('node', at(0.5))).toBe('node');
    expect(nextBackend('node', at(SATURATED))).toBe('webcrypto');
    expect(nextBackend('node', at(1))).toBe('webcrypto');
    expect(nextBackend('node', at((SATURATED + SPARE) / 2))).toBe('node');
    expect(nextBackend('webcrypto', at((SATURATED + SPARE) / 2))).toBe('webcrypto');
    expect(nextBackend('webcrypto', at(SPARE))).toBe('webcrypto');
    expect(nextBackend('webcrypto', at(SPARE - 0.01))).toBe('node');
    expect(nextBackend('webcrypto', at(0))).toBe('node');
  });

  it('keeps a saturated loop on itself while its thread waits for a core, and takes it off the pool then', () => {
    const saturated = (waiting: number | undefined) => ({ utilization: 1, waiting });
    expect(nextBackend('node', saturated(UNCONTENDED - 0.01))).toBe('webcrypto');
    expect(nextBackend('node', saturated(UNCONTENDED))).toBe('node');
    expect(nextBackend('node', saturated(0.6))).toBe('node');
    expect(nextBackend('webcrypto', saturated((UNCONTENDED + CONTENDED) / 2))).toBe('webcrypto');
    expect(nextBackend('webcrypto', saturated(CONTENDED - 0.01))).toBe('webcrypto');
    expect(nextBackend('webcrypto', saturated(CONTENDED))).toBe('node');
    // Where the run delay cannot be read, utilisation alone decides.
    expect(nextBackend('node', saturated(undefined))).toBe('webcrypto');
    expect(nextBackend('webcrypto', saturated(undefined))).toBe('webcrypto');
    expect(nextBackend('webcrypto', { utilization: 0, waiting: undefined })).toBe('node');
  });

  it("reads the run delay from schedstat's second field, and nothing where the file is missing or garbled", () => {
    const dir = mkdtempSync(join(tmpdir(), 'mandate-schedstat-'));
    const file = (text: string) => {
      const path = join(dir, `schedstat-${text.length}`);
      writeFileSync(path, text);
      return path;
    };
    expect(readRunDelay(file('356531526 61161 8\n'))).toBe(61161);
    expect(readRunDelay(file('1 x 8\n'))).toBeUndefined();
    expect(readRunDelay(file('1 -5 8\n'))).toBeUndefined();
    expect(readRunDelay(file(''))).toBeUndefined();
    expect(readRunDelay(join(dir, 'missing'))).toBeUndefined();
  });

  let adaptive: AdaptiveEd25519 | undefined;
  afterEach(() => {
    adaptive?.stop();
    setEd25519Backend('auto');
  });

  it('follows the loop of this process: node while idle, webcrypto after a saturated interval, node again', async () => {
    // No run delay: a core is free whatever else this machine runs meanwhile.
    adaptive = startAdaptiveEd25519({ intervalMs: 50, runDelay: () => 0 });
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

  it('stays on the loop when the run delay says its thread waited for a core half of the time', async () => {
    const started = performance.now();
    // Half of the time since the start spent waiting, in ns.
    adaptive = startAdaptiveEd25519({ intervalMs: 50, runDelay: () => (performance.now() - started) * 0.5e6 });
    spin(200);
    await sleep(1);
    expect(adaptive.backend).toBe('node');
  });

  it('stays on the loop while more busy threads than cores make it wait (the real run delay, Linux)', async () => {
    const spinners: ChildProcess[] = [];
    try {
      // Twice as many busy processes as cores (a shell loop: a megabyte each, where node takes tens).
      for (let i = 0; i < 2 * availableParallelism(); i++)
        spinners.push(spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
      await sleep(100);
      adaptive = startAdaptiveEd25519({ intervalMs: 50 });
      spin(300);
      await sleep(1);
      expect(readRunDelay()).toBeGreaterThan(0);
      expect(adaptive.backend).toBe('node');
    } finally {
      for (const spinner of spinners) spinner.kill('SIGKILL');
    }
  });

  it('stops choosing when stopped: the backend last set stays', async () => {
    adaptive = startAdaptiveEd25519({ intervalMs: 50, runDelay: () => 0 });
    adaptive.stop();
    spin(200);
    await sleep(60);
    expect(adaptive.backend).toBe('node');
  });
});
