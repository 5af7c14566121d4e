/** Small helpers for the server processes the tests start: a free port, readiness, exit. */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A TCP port free on 127.0.0.1 right now (the OS picks it; the caller binds it next). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP port was assigned');
  return address.port;
}

/** Resolves when `child` has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Polls `ready` until it answers true; fails with `describe()` when `child` exits first or
 * after `timeoutMs` (a server that cannot start must fail the run, not hang it).
 */
export async function waitFor(
  child: ChildProcess,
  ready: () => Promise<boolean>,
  describe: () => string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 100)) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${describe()} (exited with ${child.exitCode ?? child.signalCode})`);
    if (await ready()) return;
    if (Date.now() > deadline) throw new Error(`${describe()} (not ready after ${timeoutMs} ms)`);
    await sleep(delay);
  }
}
