// The production worker's added latency per intercepted request (issue 41 §5, second half).
// Two origins on 127.0.0.1 serve the same page and stand-in API: on one the real Mandate worker
// (dist/verifier-sw.js as `npm run build` makes it) is registered by its page helper, the other
// has no worker. A page on each sends batches of prepared requests (latency-requests.ts), first
// one at a time and then CONCURRENCY at a time, timing each fetch to the end of its body:
// - unprotected: no worker at all;
// - passThrough: through the worker, on a path it does not guard (its fetch handler declines);
// - presentation / signedRequest: on a guarded path, verified by the worker and forwarded;
// - challenge: a GET of the worker's nonce endpoint, which the worker answers itself.
// Added milliseconds = a kind's median minus unprotected's median in the same round.
import type { Page } from 'playwright';
import { median } from '../measure.ts';
import type { FetchTimes, PreparedFetch } from './fetch-times.ts';
import { CHALLENGE_PATH, GUARDED, UNGUARDED, type Requests } from './latency-requests.ts';
import { clearReports, reportedVerifyMs } from './pages.ts';

export const KINDS = ['unprotected', 'passThrough', 'presentation', 'signedRequest', 'challenge'] as const;
export type Kind = (typeof KINDS)[number];
export const CONCURRENCY = [1, 4] as const;

export interface LatencyPages {
  /** A page the Mandate worker controls, and its origin. */
  guarded: Page;
  guardedOrigin: string;
  /** A page of another origin, where no worker is registered. */
  bare: Page;
}

/** One batch: per-request median and p95, and requests a second over the batch. */
export interface BatchStats {
  medianMs: number;
  p95Ms: number;
  perSec: number;
  /** Guarded kinds: the median of the worker's own timing of verifyRequest (its reports' durationMs). */
  workerVerifyMs?: number;
}

export interface LatencyRounds {
  batches: Record<string, BatchStats[]>;
  /** Kinds the worker refused outright, with its first answer (never timed as if it had passed). */
  refused: Partial<Record<Kind, string>>;
}

type PageGlobals = {
  mandateFetchTimes(requests: PreparedFetch[], concurrency: number): Promise<FetchTimes>;
  mandateChallenges(path: string, count: number): Promise<string[]>;
};

function fetchTimes(page: Page, requests: PreparedFetch[], concurrency: number): Promise<FetchTimes> {
  return page.evaluate(([r, c]) => (globalThis as unknown as PageGlobals).mandateFetchTimes(r, c), [
    requests,
    concurrency,
  ] as const);
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

function stats(times: FetchTimes, verifyMs: number[]): BatchStats {
  const sorted = [...times.ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return {
    medianMs: r3(at(0.5)),
    p95Ms: r3(at(0.95)),
    perSec: Math.round((sorted.length * 1000) / times.wallMs),
    ...(verifyMs.length > 0 ? { workerVerifyMs: r3(median(verifyMs)) } : {}),
  };
}

/** The `count` (+ `warm`) requests of `kind`, prepared in Node (nonces fetched by the page first). */
async function prepare(kind: Kind, pages: LatencyPages, requests: Requests, count: number): Promise<PreparedFetch[]> {
  if (kind === 'unprotected') return requests.plain(GUARDED, count);
  if (kind === 'passThrough') return requests.plain(UNGUARDED, count);
  if (kind === 'signedRequest') return requests.signed(pages.guardedOrigin, count);
  if (kind === 'challenge')
    return Array.from({ length: count }, () => ({ path: CHALLENGE_PATH, method: 'GET', headers: {} }));
  const nonces = await pages.guarded.evaluate(
    ([p, n]) => (globalThis as unknown as PageGlobals).mandateChallenges(p, n),
    [CHALLENGE_PATH, count] as const,
  );
  return requests.presentations(nonces);
}

/**
 * One batch of `kind`: `warm` requests one at a time (untimed; for signed requests the first
 * names the chain in full), then `count` timed at `concurrency`. Undefined, and the refusal
 * recorded, when the worker refuses the warm-up of a signed request; any other refusal throws.
 */
async function batch(
  kind: Kind,
  pages: LatencyPages,
  requests: Requests,
  sizes: { count: number; warm: number; concurrency: number },
  rounds: LatencyRounds,
): Promise<BatchStats | undefined> {
  const page = kind === 'unprotected' ? pages.bare : pages.guarded;
  const prepared = await prepare(kind, pages, requests, sizes.warm + sizes.count);
  const warm = prepared.length - sizes.count;
  const guarded = kind === 'presentation' || kind === 'signedRequest';
  if (guarded) await clearReports(page);
  const warmed = await fetchTimes(page, prepared.slice(0, warm), 1);
  // The warm-up's reports arrive, and are dropped, before the timed batch's are counted.
  if (guarded) await reportedVerifyMs(page, warmed.failures === 0 ? warm : 0).then(() => clearReports(page));
  const timed = warmed.failures === 0 ? await fetchTimes(page, prepared.slice(warm), sizes.concurrency) : warmed;
  if (timed.failures === 0) return stats(timed, guarded ? await reportedVerifyMs(page, sizes.count) : []);
  const answer = `${timed.firstFailure?.status} ${timed.firstFailure?.body}`;
  if (kind !== 'signedRequest' || warmed.failures === 0) throw new Error(`latency bench, ${kind}: ${answer}`);
  rounds.refused[kind] = answer;
  return undefined;
}

/** One round: every kind at every concurrency, appended to `rounds`. */
export async function latencyRound(
  pages: LatencyPages,
  requests: Requests,
  count: number,
  rounds: LatencyRounds,
): Promise<void> {
  for (const concurrency of CONCURRENCY) {
    for (const kind of KINDS) {
      if (rounds.refused[kind] !== undefined) continue;
      const warm = Math.max(5, Math.ceil(count / 10));
      const result = await batch(kind, pages, requests, { count, warm, concurrency }, rounds);
      if (result) (rounds.batches[`${kind}@${concurrency}`] ??= []).push(result);
    }
  }
}
