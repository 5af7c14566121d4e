/** The operator console's own reads (`GET /v1/console/*`, issuer/routes/console-support.ts). */
import { z } from 'zod';
import { AgentSchema } from './agents.ts';
import { CREDENTIAL_STATES } from './credentials.ts';

/** An agent with its current credential's state (`none` without one). */
export const ConsoleAgentSchema = AgentSchema.omit({ didDocumentUrl: true })
  .extend({ credentialState: z.enum([...CREDENTIAL_STATES, 'none']) })
  .meta({ id: 'ConsoleAgent' });

export const StatusListFillSchema = z
  .object({
    listId: z.string(),
    purpose: z.string(),
    url: z.string(),
    length: z.number().meta({ description: 'Entries in the list' }),
    allocated: z.number().meta({ description: 'Entries handed out to credentials' }),
    set: z.number().meta({ description: 'Entries whose status bit is 1 (revoked / suspended)' }),
    fill: z.number().meta({ description: 'allocated / length, 0–1' }),
  })
  .meta({ id: 'StatusListFill' });

export type ConsoleAgent = z.infer<typeof ConsoleAgentSchema>;
export type StatusListFill = z.infer<typeof StatusListFillSchema>;
