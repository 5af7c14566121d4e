/**
 * `GET /v1/health` (liveness: the process answers, with the issuer's DID — never tied to the
 * database or Redis) and `GET /v1/ready` (readiness: every dependency answered — the database,
 * and Redis as `cache` when the issuer shares its caches and rate limits there). A load balancer
 * routes by readiness; an orchestrator restarts on liveness.
 */
import { z } from 'zod';

export const HealthSchema = z.object({ ok: z.literal(true), issuer: z.string() });

export type Health = z.infer<typeof HealthSchema>;

/** What one dependency answered: `ok`, or why it did not. */
export const ReadinessCheckStateSchema = z.enum(['ok', 'failed', 'timeout']);

export const ReadySchema = z
  .object({
    ok: z.literal(true),
    /** Each dependency checked, by name (`database`, `cache`), all `ok`. */
    checks: z.record(z.string(), z.literal('ok')),
  })
  .meta({ id: 'Ready' });

export type Ready = z.infer<typeof ReadySchema>;

/** `details` of a 503 NOT_READY: each dependency's state, the failing ones named. */
export const NotReadyDetailsSchema = z.object({ checks: z.record(z.string(), ReadinessCheckStateSchema) });

export type ReadinessCheckState = z.infer<typeof ReadinessCheckStateSchema>;
