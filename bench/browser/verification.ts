// Verification rates (issue 41 §5, first half): the two cases of bench/browser/cases.ts in this
// Node process, and in a page and inside a service worker of Chromium, each of these two with
// the wallet's WebCrypto Ed25519 backend and with its noble fallback. One round runs every
// place once, in a fixed order; the bench alternates rounds so each place sees the shared
// machine's load of the moment, and reports medians over rounds with every round's rates.
import type { Page } from 'playwright';
import type { CaseTimes } from './cases.ts';
import { median, round } from '../measure.ts';

/** Where the cases run: Node, then Chromium's page and service worker, each with both backends. */
export const PLACES = [
  'node',
  'chromiumWebcrypto',
  'chromiumNoble',
  'serviceWorkerWebcrypto',
  'serviceWorkerNoble',
] as const;
export type Place = (typeof PLACES)[number];
export type VerificationRounds = Record<Place, CaseTimes[]>;

export interface Counts {
  /** Verifications a case with a native backend (Node, WebCrypto). */
  native: number;
  /** With noble (pure JavaScript, several times slower). */
  noble: number;
}

type PageGlobals = {
  mandateBench(backend: string, count: number): Promise<CaseTimes>;
  mandateBenchInWorker(backend: string, count: number): Promise<CaseTimes>;
};

/** The cases in `page` itself or in its bench worker, with `backend`. */
function inBrowser(page: Page, where: 'page' | 'worker', backend: 'webcrypto' | 'noble', count: number) {
  return page.evaluate(
    ([w, b, n]) => {
      const g = globalThis as unknown as PageGlobals;
      return w === 'page' ? g.mandateBench(b, n) : g.mandateBenchInWorker(b, n);
    },
    [where, backend, count] as const,
  );
}

/** One round: every place once, appended to `rounds`. */
export async function verificationRound(
  page: Page,
  node: () => Promise<CaseTimes>,
  counts: Counts,
  rounds: VerificationRounds,
): Promise<void> {
  rounds.node.push(await node());
  rounds.chromiumWebcrypto.push(await inBrowser(page, 'page', 'webcrypto', counts.native));
  rounds.chromiumNoble.push(await inBrowser(page, 'page', 'noble', counts.noble));
  rounds.serviceWorkerWebcrypto.push(await inBrowser(page, 'worker', 'webcrypto', counts.native));
  rounds.serviceWorkerNoble.push(await inBrowser(page, 'worker', 'noble', counts.noble));
}

export function emptyRounds(): VerificationRounds {
  return Object.fromEntries(PLACES.map((place) => [place, []])) as unknown as VerificationRounds;
}

type Rates = { presentation: number; cachedChain: number };

function rates(runs: CaseTimes[]): Rates {
  return {
    presentation: median(runs.map((c) => c.presentation.opsPerSec)),
    cachedChain: median(runs.map((c) => c.cachedChain.opsPerSec)),
  };
}

function ratio(a: Rates, b: Rates): Rates {
  return { presentation: round(a.presentation / b.presentation), cachedChain: round(a.cachedChain / b.cachedChain) };
}

/** Median rates by place, every round's [presentation, cachedChain], and the ratios that matter. */
export function verificationSummary(rounds: VerificationRounds) {
  const by = Object.fromEntries(PLACES.map((place) => [place, rates(rounds[place])])) as Record<Place, Rates>;
  const browserPlaces = PLACES.filter((place) => place !== 'node');
  return {
    opsPerSec: by,
    /** Every round's [presentation, cachedChain] rates: the spread shows the machine's load. */
    byRound: Object.fromEntries(
      PLACES.map((place) => [place, rounds[place].map((c) => [c.presentation.opsPerSec, c.cachedChain.opsPerSec])]),
    ),
    ratios: {
      ...Object.fromEntries(browserPlaces.map((place) => [`${place}_over_node`, ratio(by[place], by.node)])),
      serviceWorkerWebcrypto_over_page: ratio(by.serviceWorkerWebcrypto, by.chromiumWebcrypto),
      serviceWorkerNoble_over_page: ratio(by.serviceWorkerNoble, by.chromiumNoble),
    },
  };
}
