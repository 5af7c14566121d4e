import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CONTENDED,
  nextBackend,
  readRunDelay,
  SATURATED,
  SPARE,
  startAdaptiveEd25519,
  UNCONTENDED,
  type AdaptiveEd25519,
} from '../../../issuer/services/ed25519-adaptive.ts';
import { getEd25519Backend, setEd25519Backend, verify } from '../../../wallet/crypto/ed25519.ts';
import { RFC8032_TEST1 } from '../../../wallet/crypto/ed25519-spec.ts';

const INTERVAL = 50;

/**
 * A loop whose readings the test writes: its time so far (idle and active ms) and its thread's
 * run delay (ns), given to startAdaptiveEd25519 as `loopTime` and `runDelay`. `interval` records
 * one interval of INTERVAL ms — busy for `utilization` of it, waiting for a core for `waiting`
 * of it — then lets the backend's timer fire once.
 */
function scriptedLoop() {
  const time = { idle: 0, active: 0 };
  let delayNs = 0;
  return {
    loopTime: () => ({ ...time }),
    runDelay: () => delayNs,
    interval({ utilization, waiting = 0 }: { utilization: number; waiting?: number }) {
      time.active += INTERVAL * utilization;
      time.idle += INTERVAL * (1 - utilization);
      delayNs += INTERVAL * waiting * 1e6;
      vi.advanceTimersByTime(INTERVAL);
    },
  };
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
  // The interval is the only clock the backend has: fake timers let each test run it interval
  // by interval, and a scripted loop says what each interval was (no spinning, no sleeping).
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    adaptive?.stop();
    vi.useRealTimers();
    setEd25519Backend('auto');
  });

  it('follows the loop it reads: node while it idles, webcrypto after a saturated interval, node again', async () => {
    const loop = scriptedLoop();
    adaptive = startAdaptiveEd25519({ intervalMs: INTERVAL, ...loop });
    expect(adaptive.backend).toBe('node');
    expect(await getEd25519Backend()).toBe('node');
    loop.interval({ utilization: 0.5 });
    expect(adaptive.backend).toBe('node');
    loop.interval({ utilization: 1 });
    expect(adaptive.backend).toBe('webcrypto');
    expect(await getEd25519Backend()).toBe('webcrypto');
    const { publicKey, message, signature } = RFC8032_TEST1;
    expect(await verify(signature, message, publicKey)).toBe(true);
    loop.interval({ utilization: 0.5 });
    expect(adaptive.backend).toBe('node');
    expect(await getEd25519Backend()).toBe('node');
  });

  it('stays on the loop when the run delay says its thread waited for a core half of the time, and comes back to it then', () => {
    const loop = scriptedLoop();
    adaptive = startAdaptiveEd25519({ intervalMs: INTERVAL, ...loop });
    loop.interval({ utilization: 1, waiting: 0.5 });
    expect(adaptive.backend).toBe('node');
    loop.interval({ utilization: 1, waiting: 0 });
    expect(adaptive.backend).toBe('webcrypto');
    loop.interval({ utilization: 1, waiting: 0.5 });
    expect(adaptive.backend).toBe('node');
  });

  it("by default reads this process's loop: an interval it spent without idling once is a saturated one", () => {
    // Start and tick run in one synchronous stretch: the loop never waits for I/O in between,
    // so its utilisation over that interval is 1 whatever the machine does meanwhile.
    adaptive = startAdaptiveEd25519({ intervalMs: INTERVAL, runDelay: () => 0 });
    vi.advanceTimersByTime(INTERVAL);
    expect(adaptive.backend).toBe('webcrypto');
  });

  it("by default reads this thread's run delay (Linux schedstat): a count of ns that does not go back", () => {
    const first = readRunDelay();
    expect(Number.isSafeInteger(first)).toBe(true);
    expect(readRunDelay()).toBeGreaterThanOrEqual(first as number);
  });

  it('stops choosing when stopped: the backend last set stays', () => {
    const loop = scriptedLoop();
    adaptive = startAdaptiveEd25519({ intervalMs: INTERVAL, ...loop });
    adaptive.stop();
    loop.interval({ utilization: 1 });
    loop.interval({ utilization: 1 });
    expect(adaptive.backend).toBe('node');
  });
});
