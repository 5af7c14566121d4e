/** `mandate agents list|show|secret|revoke-secret` (docs/api.md §Agents, §Agent client secrets). */
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
  {
    path: ['agents', 'secret'],
    summary: 'Issue a server-custody agent its own client secret, or rotate it (shown once)',
    needs: 'admin',
    args: [{ name: 'did', description: "the agent's DID" }],
    async run(ctx) {
      const secret = await ctx.client().issueAgentClientSecret(ctx.args[0] as string, { signal: ctx.signal });
      ctx.print(
        keyValues([
          ['client id', secret.clientId],
          ['client secret', secret.clientSecret],
          ['created', secret.createdAt],
        ]) +
          '\nShown once: the issuer keeps only its hash. Give it to the agent process (IssuerClient clientSecret).\n',
        secret,
      );
      return EXIT.OK;
    },
  },
  {
    path: ['agents', 'revoke-secret'],
    summary: "Revoke a server-custody agent's client secret (refused from the next request on)",
    needs: 'admin',
    args: [{ name: 'did', description: "the agent's DID" }],
    async run(ctx) {
      const did = ctx.args[0] as string;
      await ctx.client().revokeAgentClientSecret(did, { signal: ctx.signal });
      ctx.print(`Client secret of ${did} revoked.\n`, { revoked: true, clientId: did });
      return EXIT.OK;
    },
  },
];
