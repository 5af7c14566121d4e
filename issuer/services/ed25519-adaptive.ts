/**
 * `SERVICE_ED25519_BACKEND=adaptive`: signature checks run on the event loop (`node`: OpenSSL,
 * synchronous) while the loop has time to spare, and on libuv's thread pool (`webcrypto`) while
 * the loop is saturated — the one case where the pool adds a core the loop cannot use. Both run
 * the same OpenSSL verification and give the same verdicts (wallet/crypto/ed25519.ts); the
 * hand-off costs CPU of its own — a job, its promise, a pool thread woken and the loop woken for
 * the answer: paced at 1,000 verifications/s one SQLite issuer spent 738 µs of CPU per request
 * with `webcrypto` and 519 µs with `node`, while at saturation `webcrypto` serves more
 * (docs/operations.md §Choosing the Ed25519 backend).
 *
 * Two readings over each interval decide the next interval's backend: the loop's utilisation
 * (perf_hooks `eventLoopUtilization`: the share of the time it was not waiting for I/O), and the
 * share of the time the loop's thread was ready to run but waited for a core (its run delay,
 * Linux /proc/thread-self/schedstat). A saturated loop whose thread waits for a core is one of
 * more busy threads than cores — several instances on one host, SERVICE_WORKERS at the number of
 * cores — and the pool's threads would wait for a core too: the hand-off then buys no core, only
 * its cost. Where the run delay cannot be read, utilisation alone decides. Each pair of
 * thresholds leaves a gap, so a reading hovering near one does not flip on every interval; a
 * flip costs nothing but the first use of the other backend's key cache.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setEd25519Backend } from '../../wallet/crypto/ed25519.ts';
import type { Ed25519BackendChoice } from '../config/index.ts';

export type AdaptiveBackend = 'node' | 'webcrypto';

/** Utilisation from which checks go to the pool: the loop has no time left for them. */
export const SATURATED = 0.97;
/** Utilisation under which they come back to the loop. */
export const SPARE = 0.9;
/** Waiting share (of an interval, for a core) from which checks come back to the loop: no core is free. */
export const CONTENDED = 0.2;
/** Waiting share under which a saturated loop may hand checks to the pool: a core is free for it. */
export const UNCONTENDED = 0.1;
/** How often the readings are taken and the backend chosen again. */
const INTERVAL_MS = 250;

/** One interval of the loop: its utilisation, and the share it waited for a core (undefined: not known). */
export interface LoopReading {
  utilization: number;
  waiting: number | undefined;
}

/** The backend for the next interval, from this interval's backend and its reading (shares 0–1). */
export function nextBackend(current: AdaptiveBackend, { utilization, waiting }: LoopReading): AdaptiveBackend {
  if (current === 'node') {
    const coreFree = waiting === undefined || waiting < UNCONTENDED;
    return utilization >= SATURATED && coreFree ? 'webcrypto' : 'node';
  }
  const noCoreFree = waiting !== undefined && waiting >= CONTENDED;
  return utilization < SPARE || noCoreFree ? 'node' : 'webcrypto';
}

/**
 * The calling thread's run delay so far, in nanoseconds — the second field of schedstat, the
 * time it spent runnable on a run queue (Linux Documentation/scheduler/sched-stats.rst) — or
 * undefined where there is no such file. Read on the loop's thread, so it is the loop's.
 */
export function readRunDelay(path = '/proc/thread-self/schedstat'): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const delay = Number(text.split(' ')[1]);
  return Number.isSafeInteger(delay) && delay >= 0 ? delay : undefined;
}

export interface AdaptiveEd25519 {
  /** The backend set now. */
  readonly backend: AdaptiveBackend;
  /** Stops choosing (the backend last set stays). */
  stop(): void;
}

/** The loop's time so far, in ms: `idle` waiting for I/O, `active` running callbacks. */
export interface LoopTime {
  idle: number;
  active: number;
}

export interface AdaptiveOptions {
  /** How often to choose (default 250 ms). */
  intervalMs?: number;
  /** The loop's time so far (default: this process's, perf_hooks `eventLoopUtilization`). */
  loopTime?: () => LoopTime;
  /** The loop thread's run delay so far in ns, or undefined when unknown (default: readRunDelay). */
  runDelay?: () => number | undefined;
}

const thisLoop = (): LoopTime => performance.eventLoopUtilization();

/** The reading of the interval between two samples of the loop's time and run delay (none if no time passed). */
function intervalReading(
  from: { time: LoopTime; delay: number | undefined },
  to: { time: LoopTime; delay: number | undefined },
): LoopReading | undefined {
  const idle = to.time.idle - from.time.idle;
  const active = to.time.active - from.time.active;
  const elapsed = idle + active;
  if (!(elapsed > 0)) return undefined;
  // Both readings cover the same interval: idle + active ms of the loop since the last sample.
  const waiting =
    to.delay === undefined || from.delay === undefined ? undefined : (to.delay - from.delay) / (elapsed * 1e6);
  return { utilization: active / elapsed, waiting };
}

/** Sets `node` and from then on chooses every `intervalMs`, for this process. */
export function startAdaptiveEd25519({
  intervalMs = INTERVAL_MS,
  loopTime = thisLoop,
  runDelay = readRunDelay,
}: AdaptiveOptions = {}): AdaptiveEd25519 {
  let backend: AdaptiveBackend = 'node';
  setEd25519Backend(backend);
  const sample = () => ({ time: loopTime(), delay: runDelay() });
  let last = sample();
  const timer = setInterval(() => {
    const now = sample();
    const reading = intervalReading(last, now);
    last = now;
    const next = reading === undefined ? backend : nextBackend(backend, reading);
    if (next !== backend) setEd25519Backend((backend = next));
  }, intervalMs);
  // A timer of its own must not keep a process alive that has nothing else to do.
  timer.unref();
  return {
    get backend() {
      return backend;
    },
    stop: () => clearInterval(timer),
  };
}

/** Applies SERVICE_ED25519_BACKEND to this process; `stop` ends the adaptive choice (a no-op otherwise). */
export function useEd25519Backend(choice: Ed25519BackendChoice): Pick<AdaptiveEd25519, 'stop'> {
  if (choice === 'adaptive') return startAdaptiveEd25519();
  setEd25519Backend(choice);
  return { stop: () => undefined };
}
