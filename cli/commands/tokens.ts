/** `mandate tokens mint|list`: enrollment tokens (docs/api.md §Enrollment). */
import type { CommandSpec } from '../command.ts';
import { choiceOption, integerOption, listOption, stringOption, usage } from '../command.ts';
import { EXIT } from '../errors.ts';
import { keyValues, nextPageHint, table } from '../output.ts';

const STATES = ['outstanding', 'used', 'expired'] as const;

const page = {
  limit: { type: 'string', value: 'n', description: 'page size (1–500)' },
  cursor: { type: 'string', value: 'cursor', description: 'the nextCursor of the previous page' },
} as const;

export const tokenCommands: readonly CommandSpec[] = [
  {
    path: ['tokens', 'mint'],
    summary: 'Mint a single-use enrollment token (shown once)',
    needs: 'admin',
    options: {
      scope: {
        type: 'string',
        multiple: true,
        value: 'scope',
        description: 'a scope the agent will hold; at least one',
      },
      domain: {
        type: 'string',
        multiple: true,
        value: 'domain',
        description:
          'where the credential applies: a host (every https URI at exactly that host and port) or one resource URI; at least one',
      },
      'max-depth': { type: 'string', value: 'n', description: 'how deep the agent may delegate (0–16, default 0)' },
      ttl: { type: 'string', value: 'seconds', description: 'token lifetime (10–604800, default 900)' },
      validity: { type: 'string', value: 'seconds', description: "the credential's validity once onboarded" },
    },
    examples: ['mandate tokens mint --scope files:read --scope files:write --domain files.example.com --max-depth 1'],
    async run(ctx) {
      const requestedScopes = listOption(ctx.options, 'scope');
      const requestedDomains = listOption(ctx.options, 'domain');
      if (requestedScopes.length === 0) throw usage('at least one --scope is required');
      if (requestedDomains.length === 0) throw usage('at least one --domain is required');
      const maxDelegationDepth = integerOption(ctx.options, 'max-depth', 0, 16) ?? 0;
      const ttlSeconds = integerOption(ctx.options, 'ttl', 10, 604_800);
      const credentialValiditySeconds = integerOption(ctx.options, 'validity', 1, 10 * 365 * 86_400);
      const minted = await ctx.client().mintEnrollmentToken(
        {
          requestedScopes,
          requestedDomains,
          maxDelegationDepth,
          ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
          ...(credentialValiditySeconds === undefined ? {} : { credentialValiditySeconds }),
        },
        { signal: ctx.signal },
      );
      ctx.print(
        `Enrollment token (shown once: hand it to the agent now):\n\n  ${minted.token}\n\n` +
          keyValues([
            ['token id', minted.tokenId],
            ['expires', minted.expiresAt],
            ['scopes', requestedScopes],
            ['domains', requestedDomains],
            ['max depth', maxDelegationDepth],
          ]),
        minted,
      );
      return EXIT.OK;
    },
  },
  {
    path: ['tokens', 'list'],
    summary: 'List enrollment tokens (never their values)',
    needs: 'admin',
    options: { state: { type: 'string', value: STATES.join('|'), description: 'only tokens in this state' }, ...page },
    async run(ctx) {
      const state = choiceOption(ctx.options, 'state', STATES);
      const limit = integerOption(ctx.options, 'limit', 1, 500);
      const cursor = stringOption(ctx.options, 'cursor');
      const result = await ctx.client().listEnrollmentTokens({
        ...(state ? { state } : {}),
        ...(limit ? { limit } : {}),
        ...(cursor ? { cursor } : {}),
        signal: ctx.signal,
      });
      ctx.print(
        table(
          ['token id', 'state', 'scopes', 'depth', 'domains', 'expires', 'agent'],
          result.tokens.map((t) => [
            t.tokenId,
            t.state,
            t.requestedScopes,
            t.maxDelegationDepth,
            t.requestedDomains,
            t.expiresAt,
            t.agentDid,
          ]),
        ) + nextPageHint(result.nextCursor),
        result,
      );
      return EXIT.OK;
    },
  },
];

export { page as pageOptions };
