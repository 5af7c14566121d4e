// Page side of the in-worker verification bench: registers the bench's service worker
// (bench/browser/worker.ts, served at /bench-sw.js) once, then hands it one run of the cases
// at a time over a MessageChannel and waits for its timings.
import type { CaseTimes } from './cases.ts';
import type { WorkerBenchRequest } from './worker.ts';

export const BENCH_WORKER_URL = '/bench-sw.js';

type Reply = { ok: true; cases: CaseTimes } | { ok: false; error: string };

let active: Promise<ServiceWorker> | undefined;

/** The bench worker once activated (registered on the first call). */
function benchWorker(): Promise<ServiceWorker> {
  active ??= navigator.serviceWorker.register(BENCH_WORKER_URL).then(async (registration) => {
    const worker = registration.installing ?? registration.waiting ?? registration.active;
    if (!worker) throw new Error('the bench worker did not install');
    while (worker.state !== 'activated') {
      if (worker.state === 'redundant') throw new Error('the bench worker failed to install');
      await new Promise((resolve) => worker.addEventListener('statechange', resolve, { once: true }));
    }
    return worker;
  });
  return active;
}

/** The cases run inside the service worker with `backend`, `count` verifications each. */
export async function verifyInWorker(backend: WorkerBenchRequest['backend'], count: number): Promise<CaseTimes> {
  const worker = await benchWorker();
  const channel = new MessageChannel();
  const reply = new Promise<Reply>((resolve) => {
    channel.port1.onmessage = (event: MessageEvent<Reply>) => resolve(event.data);
  });
  worker.postMessage({ backend, count } satisfies WorkerBenchRequest, [channel.port2]);
  const answer = await reply.finally(() => channel.port1.close());
  if (!answer.ok) throw new Error(`in the service worker: ${answer.error}`);
  return answer.cases;
}
