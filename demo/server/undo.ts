/**
 * The demo's cleanup: each start step registers how to undo itself, so a failed start leaves
 * nothing behind (the data directory holds the issuer's secrets), and close() undoes them all,
 * in reverse.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface UndoStack {
  push(step: () => Promise<unknown>): void;
  /** Runs every registered step, the last registered first. */
  release(): Promise<void>;
  /** A fresh temp directory, removed on release. */
  tempDir(prefix: string): Promise<string>;
}

export function createUndoStack(): UndoStack {
  const steps: Array<() => Promise<unknown>> = [];
  return {
    push: (step) => void steps.push(step),
    async release() {
      for (const step of [...steps].reverse()) await step();
    },
    async tempDir(prefix) {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      steps.push(() => rm(dir, { recursive: true, force: true }));
      return dir;
    },
  };
}
