/** `mandate audit tail|verify`: the hash-chained audit log (docs/api.md §Audit). */
import type { AuditRecord } from '../../wallet/client/issuer-client.ts';
import type { CommandSpec } from '../command.ts';
import { integerOption, stringOption } from '../command.ts';
import { CliError, EXIT } from '../errors.ts';
import { table } from '../output.ts';

const PAGE = 500;
const TIME = /^\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?)?$/;

function timeOption(value: string | undefined, name: string): string | undefined {
  if (value !== undefined && (!TIME.test(value) || Number.isNaN(Date.parse(value)))) throw new CliError('ARGUMENT_INVALID', `--${name} must be an ISO 8601 date or time`);
  return value;
}

export const auditCommands: readonly CommandSpec[] = [
  {
    path: ['audit', 'tail'],
    summary: 'The newest audit records, oldest first, refusals with their reason codes',
    needs: 'admin',
    options: {
      lines: { type: 'string', value: 'n', description: 'how many records (1–10000, default 20)' },
      agent: { type: 'string', value: 'did', description: 'only records about this agent' },
      event: { type: 'string', value: 'EVENT', description: 'only this event (e.g. REQUEST_REFUSED, VP_REJECTED)' },
      from: { type: 'string', value: 'time', description: 'from this ISO 8601 time (inclusive)' },
      to: { type: 'string', value: 'time', description: 'up to this ISO 8601 time (inclusive)' },
    },
    async run(ctx) {
      const lines = integerOption(ctx.options, 'lines', 1, 10_000) ?? 20;
      const agent = stringOption(ctx.options, 'agent');
      const event = stringOption(ctx.options, 'event');
      const from = timeOption(stringOption(ctx.options, 'from'), 'from');
      const to = timeOption(stringOption(ctx.options, 'to'), 'to');
      // The API pages forward from the oldest record; only the last `lines` are kept in memory.
      const kept: AuditRecord[] = [];
      let cursor: string | undefined;
      do {
        const page = await ctx.client().audit({ agent, event, from, to, cursor, limit: PAGE });
        kept.push(...page.records);
        if (kept.length > lines) kept.splice(0, kept.length - lines);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      ctx.print(
        table(
          ['seq', 'time', 'event', 'agent', 'actor', 'reason'],
          kept.map((r) => [r.seq, r.at, r.event, r.agentDid, r.actor, r.reason]),
        ),
        { records: kept },
      );
      return EXIT.OK;
    },
  },
  {
    path: ['audit', 'verify'],
    summary: 'Re-check the whole hash chain; exit 3 when it is broken',
    needs: 'admin',
    async run(ctx) {
      const verdict = await ctx.client().verifyAuditChain();
      ctx.print(
        verdict.intact
          ? `audit chain intact: ${verdict.count} records, head ${verdict.headHash}\n`
          : `audit chain BROKEN at record ${verdict.brokenAt} (of ${verdict.count})\n`,
        verdict,
      );
      return verdict.intact ? EXIT.OK : EXIT.DENIED;
    },
  },
];
