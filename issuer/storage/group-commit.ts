/**
 * Group commit: calls that would each run their own small transaction are queued and run
 * together in one (`flush`), so N concurrent requests pay for one commit instead of N. A
 * caller's promise settles only after the transaction holding its item has committed (or
 * failed: a failing batch rejects every caller in it). Items keep their call order, and one
 * batch runs at a time; calls made meanwhile form the next batch. A batch starts on the next
 * turn of the event loop (setImmediate), which is what gathers the requests of one I/O poll.
 */

/** Items per transaction at most: bounds how long one batch holds the write lock. */
const MAX_BATCH = 256;

interface Queued<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * `run(items)` runs every item in ONE transaction and resolves with one result per item, in
 * order. The returned function queues an item and settles with its result.
 */
export function groupCommit<I, R>(run: (items: I[]) => Promise<R[]>): (item: I) => Promise<R> {
  let queue: Queued<I, R>[] = [];
  let running = false;

  async function flush(): Promise<void> {
    running = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(batch.length);
      try {
        const results = await run(batch.map((queued) => queued.item));
        batch.forEach((queued, i) => queued.resolve(results[i] as R));
      } catch (error) {
        for (const queued of batch) queued.reject(error);
      }
    }
    running = false;
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (queue.length === 1 && !running) setImmediate(() => void flush());
    });
}
