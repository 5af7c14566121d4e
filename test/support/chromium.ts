// The Chromium that tests and benches drive: Debian's (CHROMIUM_PATH, default /usr/bin/chromium;
// test/run.mjs finds one and sets CHROMIUM_PATH), never downloaded, headless, and with the flags
// a closed network needs: without the background-networking ones Chromium keeps trying to reach
// Google hosts and floods the log with refused connections. One list for the Vitest browser
// project (vite.config.ts), the end-to-end tests and the browser bench.

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
