/**
 * The console's read-only views (wallet/contract/console.ts `consoleEndpoints`): each handler is
 * one call of issuer/services/console.ts.
 */
import type { consoleEndpoints } from '../../wallet/contract/console.ts';
import type { IssuerContext } from '../boot.ts';
import type { HandlersOf } from '../http/mount.ts';
import { consoleDelegations, latestAudit, searchConsoleAgents, statusListFill } from '../services/console.ts';

export function consoleSupportHandlers(ctx: IssuerContext): HandlersOf<typeof consoleEndpoints> {
  return {
    searchConsoleAgents: ({ query }) => searchConsoleAgents(ctx, query),
    listConsoleDelegations: ({ params }) => consoleDelegations(ctx, params.did),
    listConsoleStatusLists: () => statusListFill(ctx),
    latestConsoleAudit: ({ query }) => latestAudit(ctx, query),
  };
}
