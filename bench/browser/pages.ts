// The bench's pages: one per origin, loaded with the bench's page bundle and the production
// worker's page helper (server.ts PAGE), and the registration of the real Mandate worker.
import type { BrowserContext, Page } from 'playwright';

/** A page of `origin` once its scripts have put the bench's functions on globalThis. */
export async function openBenchPage(context: BrowserContext, origin: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => 'mandateBench' in globalThis && 'mandateRegister' in globalThis);
  return page;
}

type Report = { durationMs: number };
type Register = (options: { scriptUrl: string; config: unknown; onReport: (r: Report) => void }) => Promise<unknown>;
type Globals = { mandateRegister: Register; mandateReports: Report[] };

/**
 * Registers dist/verifier-sw.js with `config` through its page helper (registerVerifier, which
 * resolves once the worker controls the page), as a site would (docs/verifier.md). The worker's
 * reports (with its own timing of verifyRequest, `durationMs`) are kept in `mandateReports`.
 */
export async function registerMandateWorker(page: Page, config: unknown): Promise<void> {
  const controlled = await page.evaluate(async (c) => {
    const g = globalThis as unknown as Globals;
    g.mandateReports = [];
    // A bound push, not an arrow: tsx would wrap a named function in a helper the page lacks.
    const onReport = Array.prototype.push.bind(g.mandateReports) as (r: Report) => void;
    await g.mandateRegister({ scriptUrl: '/verifier-sw.js', config: c, onReport });
    return navigator.serviceWorker.controller?.scriptURL ?? null;
  }, config);
  if (!controlled?.endsWith('/verifier-sw.js'))
    throw new Error(`the Mandate worker does not control the page (${controlled})`);
}

/** Forgets the reports received so far. */
export async function clearReports(page: Page): Promise<void> {
  await page.evaluate(() => void ((globalThis as unknown as Globals).mandateReports.length = 0));
}

/**
 * The worker's verifyRequest times reported since clearReports; waits (at most 5 s) for `count`
 * of them, as reports cross a BroadcastChannel after the responses they describe.
 */
export async function reportedVerifyMs(page: Page, count: number): Promise<number[]> {
  await page
    .waitForFunction((n) => (globalThis as unknown as Globals).mandateReports.length >= n, count, { timeout: 5000 })
    .catch(() => undefined);
  return page.evaluate(() => (globalThis as unknown as Globals).mandateReports.map((r) => r.durationMs));
}
