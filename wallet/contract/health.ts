/** `GET /v1/health`: liveness and the issuer's DID. */
import { z } from 'zod';

export const HealthSchema = z.object({ ok: z.literal(true), issuer: z.string() });

export type Health = z.infer<typeof HealthSchema>;
