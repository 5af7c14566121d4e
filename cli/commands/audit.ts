/** `mandate audit tail|verify`: the hash-chained audit log (docs/api.md §Audit). */
import { IssuerClientError } from '../../wallet/client/errors.ts';
import type { AuditQuery } from '../../wallet/client/issuer-client.ts';
import type { AuditRecord } from '../../wallet/contract/audit.ts';
import type { CommandContext, CommandSpec } from '../command.ts';
import { integerOption, stringOption } from '../command.ts';
import { CliError, EXIT } from '../errors.ts';
import { table } from '../output.ts';

/** The API's largest page. */
const PAGE = 500;
/**
 * Pages `audit tail` reads at most. The largest --lines (10 000) is 20 full pages; the rest is
 * slack for an issuer that answers shorter ones. A cursor that never ends (a hostile issuer, or
 * a bug) must not keep the command, and the admin key's rate budget, busy.
 */
const MAX_PAGES = 50;
const TIME = /^\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * The option as the API's ISO 8601 time with an offset: it accepts nothing else, and a date
 * alone (midnight UTC) or a time without an offset (local time, as Date reads it) would
 * otherwise reach the issuer and come back as 400 "invalid query".
 */
function timeOption(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (!TIME.test(value) || Number.isNaN(Date.parse(value)))
    throw new CliError('ARGUMENT_INVALID', `--${name} must be an ISO 8601 date or time`);
  return new Date(value).toISOString();
}

type AuditFilter = Pick<AuditQuery, 'agent' | 'event' | 'from' | 'to'>;

function pagingBroken(why: string): IssuerClientError {
  return new IssuerClientError('RESPONSE_INVALID', `the issuer's audit pages ${why}`);
}

/**
 * The newest `lines` records matching `filter`, newest first (GET /v1/audit?order=desc): the
 * cost grows with `lines`, not with the size of the log, which anonymous refusals alone can
 * grow by millions of records a day.
 */
async function newestRecords(ctx: CommandContext, filter: AuditFilter, lines: number): Promise<AuditRecord[]> {
  const newest: AuditRecord[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; newest.length < lines; pages++) {
    if (pages === MAX_PAGES) throw pagingBroken(`did not reach ${lines} records in ${MAX_PAGES} pages`);
    const wanted = lines - newest.length;
    const page = await ctx
      .client()
      .audit({ ...filter, order: 'desc', cursor, limit: Math.min(PAGE, wanted), signal: ctx.signal });
    newest.push(...page.records.slice(0, wanted));
    if (page.nextCursor === undefined) break;
    // Asking again with an empty page's cursor, or one handed out before, would never end.
    if (page.records.length === 0 || seen.has(page.nextCursor))
      throw pagingBroken('do not advance (an empty page or a repeated cursor)');
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
  return newest;
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
      // Read newest first, shown oldest first, like `tail`.
      const kept = (await newestRecords(ctx, { agent, event, from, to }, lines)).reverse();
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
      const verdict = await ctx.client().verifyAuditChain({ signal: ctx.signal });
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
