/** The one error body of the issuer API (docs/api.md §Errors): `{error: {code, message, details?}}`. */
import { z } from 'zod';

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ example: 'VALIDATION_FAILED' }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof ErrorSchema>;
