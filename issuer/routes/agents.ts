/**
 * Agents (wallet/contract/agents.ts), admin: listing, detail, client secrets, and what the
 * issuer signs for SERVER-custody agents — presentations and delegations, which the agent may
 * also ask for itself with its own client secret. The `did` path parameter is the DID
 * URL-encoded (encodeURIComponent), since a did:web may itself contain "%3A".
 */
import type { agentEndpoints } from '../../wallet/contract/agents.ts';
import type { IssuerContext } from '../boot.ts';
import type { HandlersOf } from '../http/mount.ts';
import { issueAgentSecret, revokeAgentSecret } from '../services/agent-secrets.ts';
import { delegateFor, getAgentDetail, listAgents, presentFor } from '../services/agents.ts';

export function agentHandlers(ctx: IssuerContext): HandlersOf<typeof agentEndpoints> {
  return {
    listAgents: ({ query: { cursor, limit } }) =>
      listAgents(ctx, { limit, ...(cursor === undefined ? {} : { cursor }) }),
    getAgent: ({ params }) => getAgentDetail(ctx, params.did),
    issueAgentClientSecret: ({ params }, c) => issueAgentSecret(ctx, params.did, c.get('actor')),
    revokeAgentClientSecret: async ({ params }, c) => {
      await revokeAgentSecret(ctx, params.did, c.get('actor'));
      return { clientId: params.did, revoked: true as const };
    },
    requestVp: ({ params, body }, c) => presentFor(ctx, params.did, body, c.get('actor')),
    delegate: ({ params, body }, c) => delegateFor(ctx, params.did, body, c.get('actor')),
  };
}
