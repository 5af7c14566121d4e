/**
 * Promises settled into values, and judged in order without waiting when they are already in
 * hand: a verification whose DIDs and credentials are all cached awaits nothing for them.
 */

/**
 * Settles a call's promise into a value-or-error pair so parallel work never leaves a rejection
 * unhandled. A call that throws instead of rejecting (a caller's resolver or status client)
 * settles the same way.
 */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
export function settle<T>(call: () => Promise<T>): Promise<Settled<T>> {
  try {
    return call().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
  } catch (error) {
    return Promise.resolve({ ok: false, error });
  }
}

/** A value now, or its promise. */
export type Pending<T> = T | Promise<T>;

/**
 * Calls `judge` on each of `items` in order, each once it has settled: synchronously as long as
 * they are values, so it returns a promise only when it had to wait. `judge` throwing stops it,
 * as a throw or a rejection, like a loop awaiting each in turn.
 */
export function judgeInOrder<T>(
  items: readonly Pending<T>[],
  judge: (item: T, index: number) => void,
  from = 0,
): Promise<void> | undefined {
  for (let i = from; i < items.length; i++) {
    const item = items[i] as Pending<T>;
    if (item instanceof Promise) {
      return item.then((value) => {
        judge(value, i);
        return judgeInOrder(items, judge, i + 1);
      });
    }
    judge(item, i);
  }
  return undefined;
}
