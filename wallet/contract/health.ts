/**
 * `GET /v1/health` (liveness: the process answers, with the issuer's DID — never tied to the
 * database or Redis) and `GET /v1/ready` (readiness: every dependency answered — the database,
 * and Redis as `cache` when the issuer shares its caches and rate limits there). A load balancer
 * routes by readiness; an orchestrator restarts on liveness.
 */
import { z } from 'zod';
import { endpoint } from './endpoint.ts';
import { ErrorSchema } from './errors.ts';

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

export const healthEndpoints = {
  health: endpoint({
    method: 'GET',
    path: '/v1/health',
    tag: 'Operations',
    summary: 'Liveness and the issuer DID: 200 while the process answers, whatever its database and Redis do. Public.',
    auth: 'public',
    responses: { 200: { schema: HealthSchema, description: 'Alive' } },
    errors: [],
  }),
  ready: endpoint({
    method: 'GET',
    path: '/v1/ready',
    tag: 'Operations',
    summary:
      'Readiness: 200 when the database (and Redis, `cache`, with SERVICE_CACHE_ADAPTER=redis) answers; 503 NOT_READY (details.checks names what failed) or SHUTTING_DOWN (after SIGTERM). Public.',
    auth: 'public',
    responses: {
      200: { schema: ReadySchema, description: 'Ready: every dependency answered' },
      503: { schema: ErrorSchema, description: 'Not ready (NOT_READY, SHUTTING_DOWN), see Retry-After' },
    },
    errors: ['NOT_READY', 'SHUTTING_DOWN'],
  }),
};
