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
import type { IssuerDeps } from '../deps.ts';
import { refuse } from '../refusal.ts';
import { requireAgent } from './agents.ts';
import { refuseIfDeactivated } from './custody.ts';

/** A recognisable prefix (secret scanners, logs) before the 43 base64url characters. */
export const AGENT_SECRET_PREFIX = 'mandate_cs_';

function secretHash(secret: string): string {
  return bytesToHex(sha256Utf8(secret));
}

/** Issues (or, when the agent has one, rotates) the agent's secret; the answer is the only copy. */
export async function issueAgentSecret(
  deps: Pick<IssuerDeps, 'stores' | 'audit' | 'now'>,
  did: string,
  actor: string,
): Promise<AgentClientSecret> {
  const agent = await requireAgent(deps, did);
  if (agent.custody !== 'server')
    throw refuse('CUSTODY_MISMATCH', `${did} holds its own key: it signs for itself and needs no client secret`, {
      agentDid: did,
    });
  const clientSecret = AGENT_SECRET_PREFIX + bytesToBase64url(randomBytes(32));
  const createdAt = deps.now();
  return deps.stores.transaction(async (tx) => {
    await refuseIfDeactivated(tx, did);
    const { replaced } = await tx.agentSecrets.put({
      agentDid: did,
      secretHash: secretHash(clientSecret),
      createdAt,
    });
    await deps.audit.record(
      { event: replaced ? 'AGENT_SECRET_ROTATED' : 'AGENT_SECRET_ISSUED', actor, agentDid: did },
      tx,
    );
    return { clientId: did, clientSecret, createdAt: new Date(createdAt).toISOString() };
  });
}

/** Revokes the agent's secret at once: the next request presenting it is refused. */
export async function revokeAgentSecret(
  deps: Pick<IssuerDeps, 'stores' | 'audit'>,
  did: string,
  actor: string,
): Promise<void> {
  await requireAgent(deps, did);
  await deps.stores.transaction(async (tx) => {
    if (!(await tx.agentSecrets.remove(did)))
      throw refuse('CLIENT_SECRET_NOT_FOUND', `${did} has no client secret`, { agentDid: did });
    await deps.audit.record({ event: 'AGENT_SECRET_REVOKED', actor, agentDid: did }, tx);
  });
}

/** True when `presented` is `did`'s current secret (hashes compared in constant time). */
export async function isAgentSecret(
  deps: Pick<IssuerDeps, 'stores'>,
  did: string,
  presented: string | undefined,
): Promise<boolean> {
  const stored = await deps.stores.agentSecrets.get(did);
  // Hash even without a stored secret, so an unknown agent costs the same as a wrong secret.
  const presentedHash = sha256Utf8(presented ?? '');
  if (stored === undefined || presented === undefined || !presented.startsWith(AGENT_SECRET_PREFIX)) return false;
  return equalBytes(presentedHash, hexToBytes(stored.secretHash, 32));
}
