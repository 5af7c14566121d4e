/** Bitstring Status List lists (docs/api.md §Status lists): creating one and its description. */
import { z } from 'zod';
import { endpoint } from './endpoint.ts';
import { JsonValueObjectSchema } from './primitives.ts';

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

export const StatusListsSchema = z.object({ statusLists: z.array(StatusListSchema) }).meta({ id: 'StatusLists' });

export const ListIdParamSchema = z.object({ listId: ListIdSchema });

export type StatusMessage = z.infer<typeof StatusMessageSchema>;
export type CreateStatusListRequest = z.input<typeof CreateStatusListSchema>;
export type StatusListInfo = z.infer<typeof StatusListSchema>;

/** The signed list credential is served as any of these (VC DM 2.0 §6.3; generic JSON-LD loaders read only json types). */
export const LIST_MEDIA_TYPES = ['application/vc', 'application/ld+json', 'application/json'] as const;

export const statusListEndpoints = {
  listStatusLists: endpoint({
    method: 'GET',
    path: '/v1/status-lists',
    tag: 'Status lists',
    summary: 'Every status list this issuer keeps, oldest first: purpose, URL, length, statusSize and messages. Admin.',
    auth: 'admin',
    responses: { 200: { schema: StatusListsSchema, description: 'The lists' } },
    errors: [],
  }),
  createStatusList: endpoint({
    method: 'POST',
    path: '/v1/status-list',
    tag: 'Status lists',
    summary: 'Create (and publish) a status list. Admin.',
    auth: 'admin',
    body: { schema: CreateStatusListSchema },
    responses: { 201: { schema: StatusListSchema, description: 'The new list' } },
    errors: ['STATUS_LIST_EXISTS'],
  }),
  getStatusList: endpoint({
    method: 'GET',
    path: '/v1/status-list/{listId}',
    publicDocument: true,
    tag: 'Status lists',
    summary:
      'The signed BitstringStatusListCredential, with ETag and Cache-Control matching its ttl: application/vc, or application/ld+json or application/json when Accept prefers them (same bytes, same ETag). Public.',
    auth: 'public',
    params: ListIdParamSchema,
    responses: {
      200: { schema: JsonValueObjectSchema, description: 'Signed list credential', mediaTypes: LIST_MEDIA_TYPES },
    },
    errors: ['STATUS_LIST_NOT_FOUND'],
  }),
};
