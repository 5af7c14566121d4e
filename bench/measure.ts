// How the benches time an operation: back to back for a fixed wall-clock budget after a
// warm-up, with the process's CPU time beside the wall time (on a shared machine the two
// differ). A helper module (no `run`), so bench/run.ts skips it.
import { loadavg } from 'node:os';

export interface Measure {
  opsPerSec: number;
  msPerOp: number;
  /**
   * CPU time of this process (user + system, all threads) over wall time: ~1 = one core busy;
   * well above 1 = GC / JIT threads working too; below 1 = the process waited (I/O, or other
   * processes on a shared machine took the core).
   */
  coresUsed: number;
  /** Operations per CPU-second of this process: roughly the rate on an otherwise idle machine. */
  opsPerCpuSec: number;
}

export interface MeasureOptions {
  durationMs: number;
  warmupMs: number;
  /** Callers running `op` concurrently, each awaiting one operation at a time (default 1). */
  inFlight?: number;
}

export const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** How a load bench ran (the head of its JSON): connections, rounds, and the machine's load at the end. */
export function loadRun(connections: number, roundSeconds: number, rounds: number) {
  return { connections, roundSeconds, rounds, loadAverage: round(loadavg()[0] ?? 0, 2) };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export function measured(ops: number, wallMs: number, cpuMs: number): Measure {
  return {
    opsPerSec: Math.round((ops * 1000) / wallMs),
    msPerOp: round(wallMs / ops, 4),
    coresUsed: round(cpuMs / wallMs),
    opsPerCpuSec: Math.round((ops * 1000) / cpuMs),
  };
}

/**
 * Runs `op` until `until` (a performance.now() time); returns how many completed. A promise
 * `op` returns is awaited; a synchronous `op` (a raw signature check) runs in a plain loop,
 * with no await between calls.
 */
async function loop(op: () => unknown, until: number): Promise<number> {
  let count = 0;
  for (let now = performance.now(); now < until; now = performance.now()) {
    const pending = op();
    if (pending instanceof Promise) await pending;
    count++;
  }
  return count;
}

/** `op` back to back (or `inFlight` callers at once) for `durationMs`, after `warmupMs`. */
export async function measure(
  op: () => unknown,
  { durationMs, warmupMs, inFlight = 1 }: MeasureOptions,
): Promise<Measure> {
  const callers = (until: number) => Promise.all(Array.from({ length: inFlight }, () => loop(op, until)));
  await callers(performance.now() + warmupMs);
  const cpu = process.cpuUsage();
  const start = performance.now();
  const counts = await callers(start + durationMs);
  return measured(
    counts.reduce((a, b) => a + b, 0),
    performance.now() - start,
    cpuMsSince(cpu),
  );
}

export interface Paired {
  /** The case. */
  m: Measure;
  /** Raw Ed25519 verification, measured in slices interleaved with the case's. */
  raw: Measure;
  /**
   * Median over slices of (case rate ÷ the raw rate of the raw slice just before it). The
   * shared machine's speed shifts within seconds; a slice pair that straddles a shift skews
   * a ratio of totals, while the median sets such pairs aside.
   */
  medianRatio: number;
}

export interface PairedOptions {
  durationMs: number;
  warmupMs: number;
  /** Slice pairs; each raw slice is a third as long as the case's. */
  slices: number;
}

/** `op` run sequentially with raw verification interleaved: ratios to `raw` are then free of load drift. */
export async function pairedBench(
  op: () => Promise<void>,
  rawOp: () => void,
  { durationMs, warmupMs, slices }: PairedOptions,
): Promise<Paired> {
  for (let until = performance.now() + warmupMs; performance.now() < until;) await op();
  const sliceMs = durationMs / slices;
  const totals = { case: { ops: 0, wallMs: 0, cpuMs: 0 }, raw: { ops: 0, wallMs: 0, cpuMs: 0 } };
  const ratios: number[] = [];
  for (let slice = 0; slice < slices; slice++) {
    let cpu = process.cpuUsage();
    let start = performance.now();
    let now = start;
    let ops = 0;
    for (const end = start + sliceMs / 3; now < end; now = performance.now()) {
      rawOp();
      ops++;
    }
    const rawRate = ops / (now - start);
    totals.raw.ops += ops;
    totals.raw.wallMs += now - start;
    totals.raw.cpuMs += cpuMsSince(cpu);
    cpu = process.cpuUsage();
    start = performance.now();
    now = start;
    ops = 0;
    for (const end = start + sliceMs; now < end; now = performance.now()) {
      await op();
      ops++;
    }
    ratios.push(ops / (now - start) / rawRate);
    totals.case.ops += ops;
    totals.case.wallMs += now - start;
    totals.case.cpuMs += cpuMsSince(cpu);
  }
  return {
    m: measured(totals.case.ops, totals.case.wallMs, totals.case.cpuMs),
    raw: measured(totals.raw.ops, totals.raw.wallMs, totals.raw.cpuMs),
    medianRatio: median(ratios),
  };
}
