/** Bitstring Status List lists (docs/api.md §Status lists): creating one and its description. */
import { z } from 'zod';

/** Bitstring Status List §2.1 statusPurpose values this issuer keeps lists for. */
export const LIST_PURPOSES = ['revocation', 'suspension', 'message', 'refresh'] as const;
/** Bitstring Status List §2.1 statusSize bound (wallet/status/bitstring.ts MAX_STATUS_SIZE). */
export const MAX_LIST_STATUS_SIZE = 8;

export const ListIdSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,63}$/, 'lowercase letters, digits, _ and -, starting with a letter');

export const StatusMessageSchema = z.strictObject({
  status: z
    .string()
    .regex(/^0x[0-9a-fA-F]{1,2}$/)
    .meta({ example: '0x1' }),
  message: z.string().min(1).max(256),
});

export const CreateStatusListSchema = z
  .strictObject({
    purpose: z
      .enum(LIST_PURPOSES)
      .meta({ example: 'revocation', description: 'statusPurpose (§2.1) of the entries this list will hold' }),
    id: ListIdSchema.optional().meta({ description: 'Default <purpose>-<n>' }),
    makeDefault: z
      .boolean()
      .optional()
      .meta({ description: 'New credentials with an entry for this purpose get it on this list (default true)' }),
    statusSize: z
      .number()
      .int()
      .min(1)
      .max(MAX_LIST_STATUS_SIZE)
      .optional()
      .meta({ description: 'Bits per entry (§2.1 statusSize, default 1)' }),
    statusMessages: z
      .array(StatusMessageSchema)
      .max(2 ** MAX_LIST_STATUS_SIZE)
      .optional()
      .meta({
        description: 'What each value means (§2.1 statusMessage): required above statusSize 1, one per value',
      }),
  })
  .meta({ id: 'CreateStatusList' });

export const StatusListSchema = z
  .object({
    listId: z.string(),
    purpose: z.string(),
    url: z.string(),
    length: z.number(),
    statusSize: z.number(),
    statusMessages: z.array(StatusMessageSchema).optional(),
  })
  .meta({ id: 'StatusList' });

export const ListIdParamSchema = z.object({ listId: ListIdSchema });

export type StatusMessage = z.infer<typeof StatusMessageSchema>;
export type CreateStatusListRequest = z.input<typeof CreateStatusListSchema>;
export type StatusListInfo = z.infer<typeof StatusListSchema>;
