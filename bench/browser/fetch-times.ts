// Page side of the latency bench: sends prepared requests with fetch(), `concurrency` at a time,
// and times each from the call to the end of its body with the page's performance.now(). What
// the requests pass through (the registered Mandate worker, or nothing) is the origin's doing.

/** A request as Node prepared it (a signed request's headers must reach the worker unchanged). */
export interface PreparedFetch {
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FetchTimes {
  /** Per request, in the order sent: milliseconds from fetch() to the end of the body. */
  ms: number[];
  /** Wall time of the whole batch. */
  wallMs: number;
  /** Statuses other than 200, with the first such body (a refusal's reason). */
  failures: number;
  firstFailure?: { status: number; body: string };
}

/** Sends `requests` in order, `concurrency` in flight at once, and times each. */
export async function timeFetches(requests: PreparedFetch[], concurrency: number): Promise<FetchTimes> {
  const ms = new Array<number>(requests.length).fill(0);
  const times: FetchTimes = { ms, wallMs: 0, failures: 0 };
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < requests.length; i = next++) {
      const { path, ...init } = requests[i] as PreparedFetch;
      const started = performance.now();
      const response = await fetch(path, { ...init, cache: 'no-store' });
      const body = await response.text();
      ms[i] = performance.now() - started;
      if (response.status === 200) continue;
      times.failures++;
      times.firstFailure ??= { status: response.status, body: body.slice(0, 300) };
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, lane));
  times.wallMs = performance.now() - started;
  return times;
}

/** `count` fresh nonces from the worker's challenge endpoint (docs/verifier.md §Wire format). */
export async function challenges(path: string, count: number): Promise<string[]> {
  const nonces: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(path, { cache: 'no-store' });
    nonces.push(((await response.json()) as { challenge: string }).challenge);
  }
  return nonces;
}
