// The Chromium the browser bench drives with Playwright: Debian's (CHROMIUM_PATH, default
// /usr/bin/chromium), never downloaded, headless, with its background traffic off so that
// nothing but the bench competes with the pages for the shared cores.
import { chromium, type Browser } from 'playwright';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
