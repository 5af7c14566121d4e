// What the latency bench reports: for each concurrency and kind, the medians over rounds of each
// batch's median and p95 per request (every round's beside them), and the worker's added
// milliseconds: a kind's median minus the unprotected fetch's in the same round, then the
// median of those differences. A kind the worker refused is named, with the worker's answer
// and the commit it was built from, instead of a figure.
import { median, round } from '../measure.ts';
import { CONCURRENCY, KINDS, type BatchStats, type Kind, type LatencyRounds } from './latency.ts';

/** Kinds compared with the unprotected fetch (the challenge is a GET answered by the worker alone). */
const ADDED: readonly Kind[] = ['passThrough', 'presentation', 'signedRequest'];

function ofKind(batches: BatchStats[]) {
  const verifyMs = batches.flatMap((b) => (b.workerVerifyMs === undefined ? [] : [b.workerVerifyMs]));
  return {
    medianMs: round(median(batches.map((b) => b.medianMs)), 3),
    p95Ms: round(median(batches.map((b) => b.p95Ms)), 3),
    perSec: median(batches.map((b) => b.perSec)),
    /** The worker's own verifyRequest time (its reports), median of the rounds' medians. */
    ...(verifyMs.length > 0 ? { workerVerifyMs: round(median(verifyMs), 3) } : {}),
    /** Every round's [median, p95] ms. */
    byRound: batches.map((b) => [b.medianMs, b.p95Ms]),
  };
}

function added(kind: BatchStats[], base: BatchStats[]) {
  const byRound = kind.map((b, i) => round(b.medianMs - (base[i]?.medianMs ?? Number.NaN), 3));
  return { medianMs: round(median(byRound), 3), byRound };
}

export function latencySummary(rounds: LatencyRounds, workerCommit: string) {
  const refusal = (kind: Kind) =>
    rounds.refused[kind] === undefined
      ? undefined
      : { notSupported: `not supported by the worker build at ${workerCommit}`, answer: rounds.refused[kind] };
  const at = (concurrency: number) => {
    const batches = (kind: Kind) => rounds.batches[`${kind}@${concurrency}`] ?? [];
    const base = batches('unprotected');
    return {
      perRequest: Object.fromEntries(KINDS.map((kind) => [kind, refusal(kind) ?? ofKind(batches(kind))])),
      addedMs: Object.fromEntries(ADDED.map((kind) => [kind, refusal(kind) ?? added(batches(kind), base)])),
    };
  };
  return Object.fromEntries(CONCURRENCY.map((c) => [`concurrency${c}`, at(c)]));
}
