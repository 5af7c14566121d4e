// The Chromium the browser bench drives with Playwright: the tests' (test/support/chromium.ts),
// with its background traffic off so that nothing but the bench competes with the pages for
// the shared cores.
import { chromium, type Browser } from 'playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/chromium.ts';

export const CHROMIUM = CHROMIUM_PATH;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
}
