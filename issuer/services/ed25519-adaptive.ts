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
 * The loop's utilisation over each interval (perf_hooks `eventLoopUtilization`: the share of the
 * time it was not waiting for I/O) decides the next interval's backend. The two thresholds leave
 * a gap, so a loop hovering near one does not flip on every interval; a flip costs nothing but
 * the first use of the other backend's key cache.
 */
import { performance } from 'node:perf_hooks';
import { setEd25519Backend } from '../../wallet/crypto/ed25519.ts';
import type { Ed25519BackendChoice } from '../config.ts';

export type AdaptiveBackend = 'node' | 'webcrypto';

/** Utilisation from which checks go to the pool: the loop has no time left for them. */
export const SATURATED = 0.97;
/** Utilisation under which they come back to the loop. */
export const SPARE = 0.9;
/** How often the loop's utilisation is read and the backend chosen again. */
const INTERVAL_MS = 250;

/** The backend for the next interval, from this interval's backend and loop utilisation (0–1). */
export function nextBackend(current: AdaptiveBackend, utilization: number): AdaptiveBackend {
  if (current === 'node') return utilization >= SATURATED ? 'webcrypto' : 'node';
  return utilization < SPARE ? 'node' : 'webcrypto';
}

export interface AdaptiveEd25519 {
  /** The backend set now. */
  readonly backend: AdaptiveBackend;
  /** Stops choosing (the backend last set stays). */
  stop(): void;
}

/** Sets `node` and from then on chooses every `intervalMs`, for this process. */
export function startAdaptiveEd25519(intervalMs = INTERVAL_MS): AdaptiveEd25519 {
  let backend: AdaptiveBackend = 'node';
  setEd25519Backend(backend);
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const next = nextBackend(backend, performance.eventLoopUtilization(now, last).utilization);
    last = now;
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
