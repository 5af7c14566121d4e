/** `mandate agents list|show` (docs/api.md §Agents). */
import type { CommandSpec } from '../command.ts';
import { integerOption, stringOption } from '../command.ts';
import { EXIT } from '../errors.ts';
import { keyValues, nextPageHint, table } from '../output.ts';
import { pageOptions } from './tokens.ts';
import { credentialText } from './vcs.ts';

export const agentCommands: readonly CommandSpec[] = [
  {
    path: ['agents', 'list'],
    summary: 'List enrolled agents',
    needs: 'admin',
    options: pageOptions,
    async run(ctx) {
      const limit = integerOption(ctx.options, 'limit', 1, 500);
      const cursor = stringOption(ctx.options, 'cursor');
      const result = await ctx
        .client()
        .listAgents({ ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}), signal: ctx.signal });
      ctx.print(
        table(
          ['did', 'custody', 'scopes', 'depth', 'domains', 'credential', 'created'],
          result.agents.map((a) => [
            a.deactivated ? `${a.did} (deactivated)` : a.did,
            a.custody,
            a.privilegeScopes,
            a.delegationDepth,
            a.domains,
            a.currentCredentialId,
            a.createdAt,
          ]),
        ) + nextPageHint(result.nextCursor),
        result,
      );
      return EXIT.OK;
    },
  },
  {
    path: ['agents', 'show'],
    summary: 'Show an agent, its current credential and its credential history',
    needs: 'admin',
    args: [{ name: 'did', description: "the agent's DID" }],
    async run(ctx) {
      const agent = await ctx.client().getAgent(ctx.args[0] as string, { signal: ctx.signal });
      const human =
        keyValues([
          ['did', agent.did],
          ['custody', agent.custody],
          ['scopes', agent.privilegeScopes],
          ['depth', agent.delegationDepth],
          ['domains', agent.domains ?? []],
          ['created', agent.createdAt],
          ['did document', agent.didDocumentUrl],
          ['deactivated', agent.deactivated ? 'yes' : undefined],
        ]) +
        (agent.currentCredential
          ? `\nCurrent credential:\n${credentialText(agent.currentCredential)}`
          : '\nNo current credential.\n') +
        `\nCredentials:\n${table(
          ['vc id', 'type', 'state', 'issued'],
          agent.credentials.map((c) => [c.vcId, c.type, c.state, c.issuedAt]),
        )}`;
      ctx.print(human, agent);
      return EXIT.OK;
    },
  },
];
