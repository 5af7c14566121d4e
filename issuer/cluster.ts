/**
 * SERVICE_WORKERS=N: N issuer processes sharing one port through Node's cluster module, over the
 * same storage. The primary serves nothing itself: it forks the workers, hands them connections
 * (round-robin), restarts one that dies (with backoff) and, on SIGTERM or SIGINT, forwards the
 * signal so each worker shuts down gracefully (server.ts), then exits.
 *
 * What makes N processes one issuer: every piece of state a guarantee rests on is in the database
 * (single-use tokens and challenges, the replay cache, status-list allocation, the audit chain,
 * the issuer's DID document, the session-token key — first writer wins), and the SQLite adapter
 * takes its write lock at the start of each transaction and waits for it (db.ts: `BEGIN
 * IMMEDIATE`, `busy_timeout`). Per process: rate-limit windows (a client gets up to N× the
 * limit) and the caches of other issuers' DID documents and status lists (docs/operations.md).
 */
import cluster, { type Worker } from 'node:cluster';
import type { IssuerConfig } from './config/index.ts';
import type { Logger } from './log.ts';

/** What a worker tells the primary once it serves. */
export interface WorkerReady {
  type: 'mandate:worker-ready';
  url: string;
  issuerDid: string;
}

export function isWorkerReady(message: unknown): message is WorkerReady {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { type?: unknown }).type === 'mandate:worker-ready' &&
    typeof (message as { url?: unknown }).url === 'string' &&
    typeof (message as { issuerDid?: unknown }).issuerDid === 'string'
  );
}

/** Restart delays: doubled after each crash in a row, from 250 ms up to 16 s. */
export const RESTART_BASE_MS = 250;
export const RESTART_MAX_MS = 16_000;
/** A worker that served this long before dying resets the backoff: the crash is not a loop. */
export const STABLE_AFTER_MS = 30_000;
/** After the workers' own shutdown deadline, how long the primary waits before killing them. */
const KILL_GRACE_MS = 5000;

export function restartDelay(crashesInRow: number): number {
  return Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** Math.max(0, crashesInRow - 1));
}

export interface PrimaryOptions {
  config: Pick<IssuerConfig, 'workers' | 'shutdownTimeoutMs'>;
  log: Logger;
  /** Called once, when the first worker serves (the banner). */
  onFirstReady?: (ready: WorkerReady) => void;
}

interface WorkerState {
  startedAt: number;
  ready: boolean;
}

/**
 * Runs the primary until it has shut down; resolves with the exit code: 0 when every worker
 * finished its requests, 1 when one had to be killed or no worker ever started.
 */
export function runPrimary(options: PrimaryOptions): Promise<number> {
  const { config, log } = options;
  const workers = new Map<Worker, WorkerState>();
  const pendingRestarts = new Set<ReturnType<typeof setTimeout>>();
  let anyReady = false;
  let crashesInRow = 0;
  let stopping: string | undefined;
  let failed = false;
  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (finish = resolve));

  const fork = () => {
    const worker = cluster.fork();
    workers.set(worker, { startedAt: Date.now(), ready: false });
    worker.on('message', (message: unknown) => {
      if (!isWorkerReady(message)) return;
      const state = workers.get(worker);
      if (state) state.ready = true;
      if (!anyReady) options.onFirstReady?.(message);
      anyReady = true;
    });
  };

  const stop = (signal: string) => {
    if (stopping !== undefined) return;
    stopping = signal;
    for (const timer of pendingRestarts) clearTimeout(timer);
    pendingRestarts.clear();
    log.info('shutting down', { signal, workers: workers.size, timeoutMs: config.shutdownTimeoutMs });
    for (const worker of workers.keys()) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of workers.keys()) {
        log.error('worker did not stop in time: killed', { worker: worker.id, workerPid: worker.process.pid ?? null });
        failed = true;
        worker.process.kill('SIGKILL');
      }
    }, config.shutdownTimeoutMs + KILL_GRACE_MS).unref();
    if (workers.size === 0) finish(failed ? 1 : 0);
  };

  cluster.on('exit', (worker, code, signal) => {
    const state = workers.get(worker);
    workers.delete(worker);
    const fields = { worker: worker.id, workerPid: worker.process.pid ?? null, code, signal };
    if (stopping !== undefined) {
      // One still starting has no handler yet and ends by the signal itself: it served nothing.
      if (code !== 0 && state?.ready === true) failed = true;
      log.info('worker stopped', fields);
      if (workers.size === 0) {
        log.info('stopped', { signal: stopping });
        finish(failed ? 1 : 0);
      }
      return;
    }
    if (!anyReady) {
      // Not one worker ever served: a restart would fail the same way.
      log.error('worker failed to start: stopping', fields);
      failed = true;
      stop('startup failure');
      return;
    }
    const lived = Date.now() - (state?.startedAt ?? 0);
    crashesInRow = state?.ready === true && lived >= STABLE_AFTER_MS ? 1 : crashesInRow + 1;
    const delayMs = restartDelay(crashesInRow);
    log.error('worker exited: restarting', { ...fields, delayMs });
    const timer = setTimeout(() => {
      pendingRestarts.delete(timer);
      fork();
    }, delayMs);
    pendingRestarts.add(timer);
  });

  // A repeated signal (the terminal's process group, then the primary's forward) changes nothing.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  for (let i = 0; i < config.workers; i++) fork();
  log.info('primary started', { workers: config.workers, pid: process.pid });
  return done;
}

/** In a worker: tells the primary this process serves. */
export function announceReady(ready: Omit<WorkerReady, 'type'>): void {
  const message: WorkerReady = { type: 'mandate:worker-ready', ...ready };
  process.send?.(message);
}
