// The production worker's added latency per intercepted request (issue 41 §5, second half).
// Two origins on 127.0.0.1 serve the same page and stand-in API: on one the real Mandate worker
// (dist/verifier-sw.js as `npm run build` makes it) is registered by its page helper, the other
// has no worker. A page on each sends prepared requests (latency-requests.ts), first one at a
// time and then CONCURRENCY at a time, in slices of each kind in turn, timing each fetch to the
// end of its body:
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
/** Slices a kind's requests are sent in, taking turns with the other kinds'. */
const SLICES = 10;

export interface LatencyPages {
  /** A page the Mandate worker controls, and its origin. */
  guarded: Page;
  guardedOrigin: string;
  /** A page of another origin, where no worker is registered. */
  bare: Page;
}

/** A kind's requests in one round: per-request median and p95, and requests a second. */
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

/** What a round gathered for one kind at one concurrency, over its slices. */
interface Gathered {
  ms: number[];
  wallMs: number;
  verifyMs: number[];
}

function stats({ ms, wallMs, verifyMs }: Gathered): BatchStats {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return {
    medianMs: r3(at(0.5)),
    p95Ms: r3(at(0.95)),
    perSec: Math.round((sorted.length * 1000) / wallMs),
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
 * One slice of `kind`: `warm` requests one at a time (untimed; a signed request's slice always
 * starts with one naming the chain in full), then `count` timed at `concurrency`, added to
 * `into`. False, and the refusal recorded, when the worker refuses the warm-up of a signed
 * request; any other refusal throws.
 */
async function slice(
  kind: Kind,
  pages: LatencyPages,
  requests: Requests,
  sizes: { count: number; warm: number; concurrency: number },
  into: { gathered: Gathered; rounds: LatencyRounds },
): Promise<boolean> {
  const page = kind === 'unprotected' ? pages.bare : pages.guarded;
  const prepared = await prepare(kind, pages, requests, sizes.warm + sizes.count);
  const warm = prepared.length - sizes.count;
  const guarded = kind === 'presentation' || kind === 'signedRequest';
  if (guarded) await clearReports(page);
  const warmed = await fetchTimes(page, prepared.slice(0, warm), 1);
  // The warm-up's reports arrive, and are dropped, before the timed requests' are counted.
  if (guarded) await reportedVerifyMs(page, warmed.failures === 0 ? warm : 0).then(() => clearReports(page));
  const timed = warmed.failures === 0 ? await fetchTimes(page, prepared.slice(warm), sizes.concurrency) : warmed;
  if (timed.failures === 0) {
    into.gathered.ms.push(...timed.ms);
    into.gathered.wallMs += timed.wallMs;
    if (guarded) into.gathered.verifyMs.push(...(await reportedVerifyMs(page, sizes.count)));
    return true;
  }
  const answer = `${timed.firstFailure?.status} ${timed.firstFailure?.body}`;
  if (kind !== 'signedRequest' || warmed.failures === 0) throw new Error(`latency bench, ${kind}: ${answer}`);
  into.rounds.refused[kind] = answer;
  return false;
}

/**
 * One round: at each concurrency, `count` requests of every kind, sent in SLICES slices that
 * take turns (a slice of each kind, then the next), so that the machine's load drifts over all
 * kinds alike; each kind's figures are over all its slices. Appended to `rounds`.
 */
export async function latencyRound(
  pages: LatencyPages,
  requests: Requests,
  count: number,
  rounds: LatencyRounds,
): Promise<void> {
  const size = Math.ceil(count / SLICES);
  for (const concurrency of CONCURRENCY) {
    const gathered = new Map(KINDS.map((kind): [Kind, Gathered] => [kind, { ms: [], wallMs: 0, verifyMs: [] }]));
    for (let sent = 0; sent < count; sent += size) {
      for (const kind of KINDS) {
        if (rounds.refused[kind] !== undefined) continue;
        // A warm-up of a tenth before a kind's first slice.
        const sizes = {
          count: Math.min(size, count - sent),
          warm: sent === 0 ? Math.ceil(count / 10) : 0,
          concurrency,
        };
        await slice(kind, pages, requests, sizes, { gathered: gathered.get(kind) as Gathered, rounds });
      }
    }
    for (const [kind, g] of gathered) {
      if (rounds.refused[kind] === undefined) (rounds.batches[`${kind}@${concurrency}`] ??= []).push(stats(g));
    }
  }
}
