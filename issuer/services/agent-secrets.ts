/**
 * A server-custody agent's own client secret, so the process that runs the agent can have its
 * presentations signed and delegate within its authority without holding the operator's admin
 * key (docs/api.md §Agent client secrets). The secret is 256 random bits, shown once, kept only
 * as its SHA-256; rotation replaces it and revocation removes it, each audited.
 */
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { bytesToHex, equalBytes, hexToBytes, randomBytes } from '../../wallet/crypto/bytes.ts';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';
import type { AgentClientSecret } from '../../wallet/contract/agents.ts';
import type { IssuerContext } from '../context.ts';
import { refuse } from '../refusal.ts';
import { requireAgent } from './agents.ts';
import { refuseIfDeactivated } from './custody.ts';

/** A recognisable prefix (secret scanners, logs) before the 43 base64url characters. */
export const AGENT_SECRET_PREFIX = 'mandate_cs_';

function secretHash(secret: string): string {
  return bytesToHex(sha256Utf8(secret));
}

/** Issues (or, when the agent has one, rotates) the agent's secret; the answer is the only copy. */
export async function issueAgentSecret(ctx: IssuerContext, did: string, actor: string): Promise<AgentClientSecret> {
  const agent = await requireAgent(ctx, did);
  if (agent.custody !== 'server')
    throw refuse('CUSTODY_MISMATCH', `${did} holds its own key: it signs for itself and needs no client secret`, {
      agentDid: did,
    });
  const clientSecret = AGENT_SECRET_PREFIX + bytesToBase64url(randomBytes(32));
  const createdAt = ctx.now();
  return ctx.stores.transaction(async (tx) => {
    await refuseIfDeactivated(tx, did);
    const { replaced } = await tx.agentSecrets.put({
      agentDid: did,
      secretHash: secretHash(clientSecret),
      createdAt,
    });
    await ctx.audit.record(
      { event: replaced ? 'AGENT_SECRET_ROTATED' : 'AGENT_SECRET_ISSUED', actor, agentDid: did },
      tx,
    );
    return { clientId: did, clientSecret, createdAt: new Date(createdAt).toISOString() };
  });
}

/** Revokes the agent's secret at once: the next request presenting it is refused. */
export async function revokeAgentSecret(ctx: IssuerContext, did: string, actor: string): Promise<void> {
  await requireAgent(ctx, did);
  await ctx.stores.transaction(async (tx) => {
    if (!(await tx.agentSecrets.remove(did)))
      throw refuse('CLIENT_SECRET_NOT_FOUND', `${did} has no client secret`, { agentDid: did });
    await ctx.audit.record({ event: 'AGENT_SECRET_REVOKED', actor, agentDid: did }, tx);
  });
}

/** True when `presented` is `did`'s current secret (hashes compared in constant time). */
export async function isAgentSecret(ctx: IssuerContext, did: string, presented: string | undefined): Promise<boolean> {
  const stored = await ctx.stores.agentSecrets.get(did);
  // Hash even without a stored secret, so an unknown agent costs the same as a wrong secret.
  const presentedHash = sha256Utf8(presented ?? '');
  if (stored === undefined || presented === undefined || !presented.startsWith(AGENT_SECRET_PREFIX)) return false;
  return equalBytes(presentedHash, hexToBytes(stored.secretHash, 32));
}
