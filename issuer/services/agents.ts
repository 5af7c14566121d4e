/**
 * Enrolled agents: operator views, and what the issuer signs on behalf of SERVER-custody
 * agents — presentations (holder = the agent) and delegations (issuer = the agent). A
 * self-custody agent holds its own key, so both are refused for it (CUSTODY_MISMATCH).
 */
import { isMandateError } from '../../wallet/crypto/errors.ts';
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { randomBytes } from '../../wallet/crypto/bytes.ts';
import { isDid } from '../../wallet/did/parse.ts';
import { delegate } from '../../wallet/vc/delegation.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import { VerificationError } from '../../wallet/vc/reasons.ts';
import type { ChainCredential, VerifiablePresentation } from '../../wallet/vc/types.ts';
import { parseDateTimeStamp } from '../../wallet/crypto/data-integrity.ts';
import type { IssuerDeps } from '../deps.ts';
import { invalidCursor, refuse } from '../refusal.ts';
import type { AgentRecord } from '../storage/agents-store.ts';
import type { CredentialRecord } from '../storage/credentials-store.ts';
import { refuseIfDeactivated, serverSigningIdentity } from './custody.ts';
import { signatureAgentCardUrl } from './key-directory.ts';
import { requireUsableDid } from './dids.ts';
import type { AgentDetail, AgentInfo, AgentPage } from '../../wallet/contract/agents.ts';
import {
  chainCredentialOf,
  credentialState,
  credentialView,
  normalizeVcId,
  storedForm,
  type CredentialView,
} from './credentials.ts';

// The wire types are the contract's (docs/api.md `Agent`, `AgentDetail`): one definition for both ends.
type AgentView = AgentInfo;

/** `hosted`: the agent's hosted DID (read by agentViewOf, or by the console's joined search). */
export function agentView(
  deps: Pick<IssuerDeps, 'config'>,
  agent: AgentRecord,
  hosted: { deactivated: boolean } | undefined,
): AgentView {
  const webPrefix = `did:web:${deps.config.didDomain ?? ''}:agents:`;
  return {
    did: agent.did,
    id: agent.id,
    custody: agent.custody,
    privilegeScopes: agent.privilegeScopes,
    delegationDepth: agent.delegationDepth,
    ...(agent.domains === null ? {} : { domains: agent.domains }),
    ...(agent.currentCredentialId === null ? {} : { currentCredentialId: agent.currentCredentialId }),
    createdAt: new Date(agent.createdAt).toISOString(),
    ...(hosted && agent.did.startsWith(webPrefix)
      ? { didDocumentUrl: `${deps.config.apiBaseUrl}/agents/${encodeURIComponent(agent.id)}/did.json` }
      : {}),
    signatureAgentCardUrl: signatureAgentCardUrl(deps, agent.id),
    ...(hosted?.deactivated ? { deactivated: true } : {}),
  };
}

/** agentView with the agent's hosted DID read from the store. */
export async function agentViewOf(deps: Pick<IssuerDeps, 'config' | 'stores'>, agent: AgentRecord): Promise<AgentView> {
  return agentView(deps, agent, await deps.stores.dids.get(agent.did));
}

export async function requireAgent(deps: Pick<IssuerDeps, 'stores'>, did: string): Promise<AgentRecord> {
  const agent = await deps.stores.agents.get(did);
  if (!agent) throw refuse('AGENT_NOT_FOUND', `no agent ${did.slice(0, 200)} is enrolled here`);
  return agent;
}

export async function listAgents(
  deps: Pick<IssuerDeps, 'config' | 'stores'>,
  page: { cursor?: string; limit: number },
): Promise<AgentPage> {
  const rows = await deps.stores.agents.list({
    ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
    limit: page.limit + 1,
  });
  if (rows === undefined) throw invalidCursor();
  const agents = await Promise.all(rows.slice(0, page.limit).map((a) => agentViewOf(deps, a)));
  const last = agents[agents.length - 1];
  return rows.length > page.limit && last ? { agents, nextCursor: last.did } : { agents };
}

export async function getAgentDetail(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'now'>,
  did: string,
): Promise<AgentDetail> {
  const agent = await requireAgent(deps, did);
  const current = await currentCredential(deps, agent);
  const now = deps.now();
  return {
    ...(await agentViewOf(deps, agent)),
    ...(current ? { currentCredential: credentialView(deps, current) } : {}),
    credentials: (await deps.stores.credentials.listBySubject(did, 100)).map((c) => ({
      vcId: c.id,
      type: c.type,
      state: credentialState(c, now),
      issuedAt: new Date(c.issuedAt).toISOString(),
    })),
  };
}

/** The chain to present for `credentialId` (leaf first, parents by parentId, ending at the root). */
async function chainOf(deps: Pick<IssuerDeps, 'stores'>, leaf: CredentialRecord): Promise<ChainCredential[]> {
  const chain: ChainCredential[] = [chainCredentialOf(leaf)];
  let current = leaf;
  while (current.parentId !== null) {
    const parent = await deps.stores.credentials.get(current.parentId);
    if (!parent || chain.length >= 8)
      throw refuse('NO_CURRENT_CREDENTIAL', `the chain of ${leaf.id} is not held here in full`);
    chain.push(chainCredentialOf(parent));
    current = parent;
  }
  return chain;
}

function requireServerCustody(agent: AgentRecord, what: string): void {
  if (agent.custody !== 'server') {
    throw refuse('CUSTODY_MISMATCH', `${agent.did} is a self-custody agent: it signs its own ${what}`, {
      agentDid: agent.did,
    });
  }
}

/** The agent's current credential (the newest it was issued), if it has one. */
export async function currentCredential(
  deps: Pick<IssuerDeps, 'stores'>,
  agent: AgentRecord,
): Promise<CredentialRecord | undefined> {
  return agent.currentCredentialId === null ? undefined : deps.stores.credentials.get(agent.currentCredentialId);
}

export interface PresentationInput {
  targetService: string;
  challenge?: string;
  /** Which of the agent's credentials to present (default: its current AgentCredential). */
  credentialId?: string;
  lifetimeSeconds?: number;
}

/** A presentation signed by the server for a server-custody agent (docs/protocol.md §Presentation). */
export async function presentFor(
  deps: Pick<IssuerDeps, 'stores' | 'keyEncryptionKey' | 'audit' | 'now'>,
  did: string,
  input: PresentationInput,
  actor: string,
): Promise<VerifiablePresentation> {
  const agent = await requireAgent(deps, did);
  requireServerCustody(agent, 'presentations');
  // A credential named but not held here is 404, like a path's {vcId} (which it may be written as).
  const named = input.credentialId === undefined ? undefined : normalizeVcId(input.credentialId);
  const leaf = named === undefined ? await currentCredential(deps, agent) : await deps.stores.credentials.get(named);
  if (!leaf && named !== undefined)
    throw refuse('CREDENTIAL_NOT_FOUND', `no credential ${named.slice(0, 80)}`, { agentDid: did });
  if (!leaf) throw refuse('NO_CURRENT_CREDENTIAL', `${did} has no current credential to present`, { agentDid: did });
  if (leaf.subjectDid !== did)
    throw refuse('CREDENTIAL_NOT_FOUND', `${leaf.id} is not a credential of ${did}`, { agentDid: did });
  const holder = await serverSigningIdentity(deps, did);
  const vp = await signPresentation({
    holder,
    credentials: await chainOf(deps, leaf),
    challenge: input.challenge ?? bytesToBase64url(randomBytes(16)),
    domain: input.targetService,
    created: new Date(deps.now()),
    ...(input.lifetimeSeconds === undefined ? {} : { lifetimeMs: input.lifetimeSeconds * 1000 }),
  });
  await deps.stores.transaction(async (tx) => {
    await refuseIfDeactivated(tx, did);
    const data = { targetService: input.targetService, vcId: leaf.id };
    await deps.audit.record({ event: 'PRESENTATION_SIGNED', actor, agentDid: did, vpId: vp.id, data }, tx);
  });
  return vp;
}

/** A delegation is refused from a revoked parent, and while the parent is suspended (every chain through it is). */
function refuseUnusableParent(parent: CredentialRecord): void {
  const did = parent.subjectDid;
  if (parent.revokedAt !== null)
    throw refuse('CREDENTIAL_REVOKED', `${did}'s credential ${parent.id} is revoked`, { agentDid: did });
  if (parent.suspendedAt !== null)
    throw refuse('CREDENTIAL_SUSPENDED', `${did}'s credential ${parent.id} is suspended; reinstate it first`, {
      agentDid: did,
    });
}

export interface DelegationInput {
  delegateeDid: string;
  scopes: string[];
  lifetimeSeconds: number;
  domains?: string[];
  delegationDepth?: number;
}

/**
 * A DelegatedAgentCredential signed by the server for a server-custody delegator, from its
 * current credential. Narrowing is enforced before signing by the wallet's `delegate` (the
 * verifier's own rules): wider scopes, depth or domains, or a lifetime beyond the parent's,
 * are refused with the verifier's reason code (422).
 */
export async function delegateFor(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'keyEncryptionKey' | 'audit' | 'now'>,
  did: string,
  input: DelegationInput,
  actor: string,
): Promise<CredentialView> {
  const agent = await requireAgent(deps, did);
  requireServerCustody(agent, 'delegations');
  if (!isDid(input.delegateeDid)) {
    throw refuse('VALIDATION_FAILED', 'delegateeDid must be a DID', {
      details: [{ path: 'json.delegateeDid', message: 'not a DID' }],
    });
  }
  requireUsableDid(input.delegateeDid);
  const parentRecord = await currentCredential(deps, agent);
  if (!parentRecord)
    throw refuse('NO_CURRENT_CREDENTIAL', `${did} has no current credential to delegate from`, { agentDid: did });
  refuseUnusableParent(parentRecord);
  const delegator = await serverSigningIdentity(deps, did);
  const now = deps.now();
  let child;
  try {
    child = await delegate(chainCredentialOf(parentRecord), {
      delegator,
      delegateeDid: input.delegateeDid,
      scopes: input.scopes,
      ...(input.domains === undefined ? {} : { domains: input.domains }),
      ...(input.delegationDepth === undefined ? {} : { delegationDepth: input.delegationDepth }),
      validFrom: new Date(now),
      validUntil: new Date(now + input.lifetimeSeconds * 1000),
    });
  } catch (error) {
    if (
      error instanceof VerificationError &&
      ['SCOPE_ESCALATION', 'DEPTH_EXCEEDED', 'DOMAIN_ESCALATION', 'CHAIN_BROKEN'].includes(error.code)
    ) {
      throw refuse(error.code as 'SCOPE_ESCALATION', error.message, { agentDid: did });
    }
    if (isMandateError(error, 'MALFORMED'))
      throw refuse('VALIDATION_FAILED', `the delegation would be malformed: ${error.message}`, { agentDid: did });
    throw error;
  }
  const record = {
    id: child.id,
    type: 'DelegatedAgentCredential' as const,
    subjectDid: input.delegateeDid,
    issuerDid: did,
    credential: storedForm(child),
    parentId: parentRecord.id,
    revocation: null,
    suspension: null,
    validFrom: parseDateTimeStamp(child.validFrom) ?? now,
    validUntil: child.validUntil === undefined ? null : (parseDateTimeStamp(child.validUntil) ?? null),
    issuedAt: now,
  };
  await deps.stores.transaction(async (tx) => {
    // Again, as it is now: a revoke, suspend or deactivation may have committed while signing.
    refuseUnusableParent((await tx.credentials.get(parentRecord.id)) as CredentialRecord);
    await refuseIfDeactivated(tx, did);
    await tx.credentials.insert(record);
    const data = { vcId: child.id, delegateeDid: input.delegateeDid, parentId: parentRecord.id, scopes: input.scopes };
    await deps.audit.record({ event: 'DELEGATION_ISSUED', actor, agentDid: did, data }, tx);
  });
  return credentialView(deps, (await deps.stores.credentials.get(child.id)) as CredentialRecord);
}
