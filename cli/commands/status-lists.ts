/** `mandate status-list create|show` (docs/api.md §Status lists; Bitstring Status List v1.0). */
import { IssuerClientError } from '../../wallet/client/errors.ts';
import type { CommandSpec } from '../command.ts';
import { choiceOption, stringOption, usage } from '../command.ts';
import { EXIT } from '../errors.ts';
import { keyValues } from '../output.ts';

const PURPOSES = ['revocation', 'suspension'] as const;

export interface StatusListSummary {
  listId: string;
  url: string;
  issuer: string;
  purpose: string;
  validFrom?: string;
  validUntil?: string;
  ttlMs?: number;
  statusSize: number;
  /** Entries in the bitstring (§2.2 minimum 131,072). */
  entries: number;
  /** Entries whose status is not 0 (revoked or suspended ones). */
  set: number;
}

export const statusListCommands: readonly CommandSpec[] = [
  {
    path: ['status-list', 'create'],
    summary: 'Create and publish a status list',
    needs: 'admin',
    options: {
      purpose: { type: 'string', value: PURPOSES.join('|'), description: 'statusPurpose (required)' },
      id: { type: 'string', value: 'listId', description: 'list id (default <purpose>-<n>)' },
      'no-default': { type: 'boolean', description: 'do not make it the list new credentials are put on' },
    },
    async run(ctx) {
      const purpose = choiceOption(ctx.options, 'purpose', PURPOSES);
      if (purpose === undefined) throw usage('--purpose is required');
      const id = stringOption(ctx.options, 'id');
      const list = await ctx
        .client()
        .createStatusList(
          { purpose, ...(id === undefined ? {} : { id }), makeDefault: ctx.options['no-default'] !== true },
          { signal: ctx.signal },
        );
      ctx.print(
        `Created.\n${keyValues([
          ['list id', list.listId],
          ['purpose', list.purpose],
          ['url', list.url],
          ['entries', list.length],
        ])}`,
        list,
      );
      return EXIT.OK;
    },
  },
  {
    path: ['status-list', 'show'],
    summary: 'Fetch a published status list and show how full it is (public)',
    needs: 'issuer',
    args: [{ name: 'listId', description: 'the list id (e.g. revocation-1)' }],
    async run(ctx) {
      const listId = ctx.args[0] as string;
      const json = await ctx.client().getStatusListCredential(listId, { signal: ctx.signal });
      // Loaded here, not at start-up: only this command decodes lists.
      const [{ getStatus }, { parseStatusListCredential }, { decodeStatusList }] = await Promise.all([
        import('../../wallet/status/bitstring.ts'),
        import('../../wallet/status/credential.ts'),
        import('../../wallet/status/encoded-list.ts'),
      ]);
      let summary: StatusListSummary;
      try {
        const credential = parseStatusListCredential(json);
        const subject = credential.credentialSubject;
        const statusSize = subject.statusSize ?? 1;
        const bits = await decodeStatusList(subject.encodedList, { statusSize });
        let set = 0;
        for (let i = 0; i < bits.length; i++) if (getStatus(bits, i) !== 0) set++;
        summary = {
          listId,
          url: credential.id ?? `${ctx.client().baseUrl}/v1/status-list/${listId}`,
          issuer: typeof credential.issuer === 'string' ? credential.issuer : credential.issuer.id,
          purpose: Array.isArray(subject.statusPurpose)
            ? subject.statusPurpose.join(',')
            : String(subject.statusPurpose),
          ...(credential.validFrom ? { validFrom: credential.validFrom } : {}),
          ...(credential.validUntil ? { validUntil: credential.validUntil } : {}),
          ...(subject.ttl === undefined ? {} : { ttlMs: subject.ttl }),
          statusSize,
          entries: bits.length,
          set,
        };
      } catch (error) {
        throw new IssuerClientError(
          'RESPONSE_INVALID',
          `the status list is not a readable BitstringStatusListCredential: ${error instanceof Error ? error.message : 'unknown'}`,
        );
      }
      const fill = `${summary.set} of ${summary.entries} (${((summary.set / summary.entries) * 100).toFixed(3)}%)`;
      ctx.print(
        keyValues([
          ['list id', summary.listId],
          ['url', summary.url],
          ['issuer', summary.issuer],
          ['purpose', summary.purpose],
          ['valid from', summary.validFrom],
          ['valid until', summary.validUntil],
          ['ttl', summary.ttlMs === undefined ? undefined : `${summary.ttlMs / 1000} s`],
          ['entries set', fill],
        ]),
        summary,
      );
      return EXIT.OK;
    },
  },
];
