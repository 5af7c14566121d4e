#!/usr/bin/env node
// `npm test`: find a Chromium for the browser project, and PostgreSQL and Redis for the node
// project (test/support/global-servers.ts starts throwaway instances of both), then run both
// Vitest projects. Extra arguments go to Vitest (e.g. `npm test -- --project node test/wallet/crypto/jcs.shared.test.ts`).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

function onPath(name) {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, name))
    .find(executable);
}

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findChromium() {
  if (process.env.CHROMIUM_PATH) return executable(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : undefined;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    const found = onPath(name);
    if (found) return found;
  }
  return ['/usr/bin/chromium', '/snap/bin/chromium', '/opt/google/chrome/chrome'].find(executable);
}

/** Debian's /usr/lib/postgresql/<major>/bin/initdb (what test/support/postgres.ts runs). */
function findInitdb() {
  try {
    return readdirSync('/usr/lib/postgresql')
      .map((version) => `/usr/lib/postgresql/${version}/bin/initdb`)
      .find(executable);
  } catch {
    return undefined;
  }
}

// `--quick` (npm run test:quick): the node project without the tests that need PostgreSQL,
// Redis or Chromium (vite.config.ts says which), and without starting those servers.
const quick = process.argv.includes('--quick');
const args = process.argv.slice(2).filter((arg) => arg !== '--quick');
if (quick) args.unshift('--project', 'node');
const project = args.includes('--project') ? args[args.indexOf('--project') + 1] : undefined;
const nodeOnly = project === 'node' || project === 'node-postgres';
const missing = [
  ...(quick || process.env.MANDATE_TEST_DATABASE_URL || findInitdb() ? [] : ['PostgreSQL']),
  ...(quick || process.env.MANDATE_TEST_REDIS_URL || onPath('redis-server') ? [] : ['Redis']),
  // docs/operations.md's pruning and backup commands, which test/docs/snippets.test.ts runs.
  ...(onPath('sqlite3') ? [] : ['the sqlite3 shell']),
];
if (missing.length > 0 && project !== 'browser') {
  console.error(
    `npm test needs ${missing.join(' and ')} for the node project: install ${missing.length > 1 ? 'them' : 'it'} (Debian/Ubuntu: \`sudo apt-get install -y postgresql redis-server sqlite3\`) or set MANDATE_TEST_DATABASE_URL and MANDATE_TEST_REDIS_URL to servers the tests may create databases and keys on.`,
  );
  process.exit(1);
}
const chromium = findChromium();
if (!chromium && !nodeOnly) {
  console.error(
    `npm test needs Chromium for the browser project${process.env.CHROMIUM_PATH ? ` (CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not executable)` : ''}: install it (Debian/Ubuntu: \`sudo apt-get install -y chromium\`) or set CHROMIUM_PATH to a Chrome/Chromium binary.`,
  );
  process.exit(1);
}
const result = spawnSync('npx', ['vitest', 'run', ...args], {
  stdio: 'inherit',
  env: {
    ...process.env,
    ...(chromium ? { CHROMIUM_PATH: chromium } : {}),
    ...(quick ? { MANDATE_TEST_QUICK: '1' } : {}),
  },
});
process.exit(result.status ?? 1);
