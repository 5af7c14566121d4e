/**
 * Readiness (GET /v1/ready): whether this process can serve requests now — every dependency it
 * needs answered within a bound. Distinct from liveness (GET /v1/health, the process answers):
 * a load balancer stops routing to an instance that is not ready; an orchestrator restarts one
 * that is not alive. The checks run on every probe, with nothing cached, so a database that went
 * away is reported on the next probe.
 *
 * Liveness depends on neither the database nor Redis: when a shared dependency fails, every
 * instance fails it at once, and an orchestrator restarting them all would only add an outage.
 */
import type { ReadinessCheckState } from '../../wallet/contract/health.ts';
import type { IssuerStores } from '../storage/stores.ts';

/** One dependency: its name on the wire and a probe that rejects when it does not answer. */
export interface ReadinessCheck {
  name: string;
  probe(): Promise<void>;
}

export type Readiness =
  | { ready: true; checks: Record<string, 'ok'> }
  | { ready: false; checks: Record<string, ReadinessCheckState>; failed: string[] };

/** How long one dependency may take to answer a probe: far above a healthy answer, below a balancer's probe timeout. */
export const READINESS_TIMEOUT_MS = 2000;

/** What the cache check asks of the issuer's Redis connection. */
export interface CachePing {
  ping(): Promise<unknown>;
}

/**
 * The issuer's dependencies: the database, and Redis as `cache` when SERVICE_CACHE_ADAPTER=redis
 * (a PING on the issuer's connection, which fails at once while it is down).
 */
export function issuerReadinessChecks(stores: Pick<IssuerStores, 'ping'>, cache?: CachePing): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [{ name: 'database', probe: () => stores.ping() }];
  if (cache !== undefined) checks.push({ name: 'cache', probe: async () => void (await cache.ping()) });
  return checks;
}

async function probeOne(check: ReadinessCheck, timeoutMs: number): Promise<ReadinessCheckState> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ReadinessCheckState>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    return await Promise.race([
      check.probe().then(
        (): ReadinessCheckState => 'ok',
        (): ReadinessCheckState => 'failed',
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Probes every dependency at once; ready when all answered `ok`. */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<Readiness> {
  const states = await Promise.all(checks.map((check) => probeOne(check, timeoutMs)));
  const entries = checks.map((check, i) => [check.name, states[i] ?? 'failed'] as const);
  const failed = entries.filter(([, state]) => state !== 'ok').map(([name]) => name);
  if (failed.length > 0) return { ready: false, checks: Object.fromEntries(entries), failed };
  return { ready: true, checks: Object.fromEntries(entries.map(([name]) => [name, 'ok' as const])) };
}
