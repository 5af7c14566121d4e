/**
 * Web Bot Auth key discovery for the agents this issuer hosts (docs/key-directory.md):
 *
 * - the HTTP Message Signatures Directory at `/.well-known/http-message-signatures-directory`:
 *   the Ed25519 keys of the SERVER-custody agents (the keys this issuer holds, so the only ones
 *   it can prove possession of in the directory's signatures) whose agent is active — DID not
 *   deactivated, current credential neither revoked, suspended nor expired — oldest agent first,
 *   at most DIRECTORY_PAGE_KEYS keys an answer;
 * - each enrolled agent's Signature Agent Card (`/agents/{id}/signature-agent-card`), with the
 *   keys of its DID document while it is active, for either custody.
 */
import { isMandateError } from '../../wallet/crypto/errors.ts';
import { ed25519KeyFromMultibase } from '../../wallet/did/public-key.ts';
import { absoluteDidUrl, keyFromResolution } from '../../wallet/did/verification-method.ts';
import type { DidResolutionResult } from '../../wallet/did/types.ts';
import { pathOf } from '../../wallet/contract/endpoint.ts';
import { documentEndpoints } from '../../wallet/contract/documents.ts';
import {
  buildSignatureAgentCard,
  signatureDirectoryDocument,
  type AgentKeyStatus,
  type SignatureAgentCard,
  type SignatureDirectory,
} from '../../wallet/httpsig/directory.ts';
import type { IssuerDeps } from '../deps.ts';
import { invalidCursor, refuse } from '../refusal.ts';
import type { AgentRecord } from '../storage/agents-store.ts';
import type { CredentialRecord } from '../storage/credentials-store.ts';
import { credentialState } from './credentials.ts';

/**
 * Keys an answer of the directory holds at most. Each key signs the answer once, and its
 * Signature-Input and Signature members take ~250 bytes of header: 64 keys keep the headers near
 * 16 KiB, the smallest header limit common servers and proxies apply (Node's default).
 */
export const DIRECTORY_PAGE_KEYS = 64;

/** Agents read per store page while a directory page is gathered. */
const SCAN_BATCH = 200;

/** Whether an agent's keys are published, or why not (DID Core §7.1.3 deactivation, then its credential). */
export function agentKeyStatus(
  deactivated: boolean,
  current: CredentialRecord | undefined,
  now: number,
): AgentKeyStatus {
  if (deactivated) return 'deactivated';
  if (current === undefined) return 'no-credential';
  const state = credentialState(current, now);
  return state === 'superseded' ? 'no-credential' : state;
}

export interface DirectoryPage {
  document: SignatureDirectory;
  /** The DIDs of the agents whose keys `document` lists, in its order. */
  agents: string[];
  /** The cursor of the next page, when there is one. */
  nextCursor?: string;
}

/**
 * One page of the directory: the active server-custody agents after `cursor` (an agent's DID,
 * the previous page's `nextCursor`), at most `pageKeys` of them. VALIDATION_FAILED for a cursor
 * that is no agent's DID.
 */
export async function directoryPage(
  deps: Pick<IssuerDeps, 'stores' | 'now'>,
  cursor: string | undefined,
  pageKeys = DIRECTORY_PAGE_KEYS,
): Promise<DirectoryPage> {
  const found: { did: string; publicKeyMultibase: string }[] = [];
  let after = cursor;
  let more = true;
  while (more && found.length <= pageKeys) {
    const rows = await deps.stores.agents.listWithState({
      ...(after === undefined ? {} : { cursor: after }),
      limit: SCAN_BATCH,
    });
    if (rows === undefined) throw invalidCursor();
    const now = deps.now();
    for (const { agent, hosted, current } of rows) {
      if (found.length > pageKeys) break;
      if (agent.custody !== 'server' || agentKeyStatus(hosted?.deactivated === true, current, now) !== 'active')
        continue;
      const key = await deps.stores.agents.getKey(agent.did);
      if (key !== undefined) found.push({ did: agent.did, publicKeyMultibase: key.publicKeyMultibase });
    }
    more = rows.length === SCAN_BATCH;
    after = rows[rows.length - 1]?.agent.did;
  }
  const listed = found.slice(0, pageKeys);
  const document = await signatureDirectoryDocument(listed.map((a) => ed25519KeyFromMultibase(a.publicKeyMultibase)));
  const last = listed[listed.length - 1];
  return {
    document,
    agents: listed.map((a) => a.did),
    ...(found.length > pageKeys && last ? { nextCursor: last.did } : {}),
  };
}

/** The card's URL, its `client_id`: the API base URL and the entry's path, as clients will fetch it. */
export function signatureAgentCardUrl(deps: Pick<IssuerDeps, 'config'>, agentId: string): string {
  return deps.config.apiBaseUrl + pathOf(documentEndpoints.signatureAgentCard, { id: agentId });
}

/** The Ed25519 keys of the `authentication` methods of a resolved document (others are not listed). */
function authenticationKeys(result: DidResolutionResult, did: string, now: number): Uint8Array[] {
  const doc = result.didDocument;
  if (!doc) return [];
  const keys: Uint8Array[] = [];
  for (const entry of doc.authentication ?? []) {
    const id = absoluteDidUrl(typeof entry === 'string' ? entry : entry.id, did);
    try {
      keys.push(keyFromResolution(result, did, id, 'authentication', now));
    } catch (error) {
      // A method that is not a usable Ed25519 Multikey signs no Web Bot Auth request: left out.
      if (!isMandateError(error)) throw error;
    }
  }
  return keys;
}

async function resolveAgentDid(deps: Pick<IssuerDeps, 'resolver'>, agent: AgentRecord): Promise<DidResolutionResult> {
  const result = await deps.resolver.resolve(agent.did);
  const error = result.didResolutionMetadata.error;
  if (error !== undefined)
    throw refuse('DID_RESOLUTION_FAILED', `${agent.did} does not resolve: ${String(error)}`, { agentDid: agent.did });
  return result;
}

/**
 * GET /agents/{id}/signature-agent-card: the card of the agent whose id is `id` (AGENT_NOT_FOUND
 * when none is enrolled here), its keys those of its DID document — resolved as every verifier
 * of this issuer resolves it — listed only while the agent is active.
 */
export async function signatureAgentCard(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'resolver' | 'now'>,
  id: string,
): Promise<SignatureAgentCard> {
  const agent = await deps.stores.agents.getById(id);
  if (!agent) throw refuse('AGENT_NOT_FOUND', `no agent ${id} is enrolled here`);
  const resolution = await resolveAgentDid(deps, agent);
  const current =
    agent.currentCredentialId === null ? undefined : await deps.stores.credentials.get(agent.currentCredentialId);
  const now = deps.now();
  const status = agentKeyStatus(resolution.didDocumentMetadata.deactivated === true, current, now);
  return buildSignatureAgentCard({
    url: signatureAgentCardUrl(deps, agent.id),
    did: agent.did,
    publicKeys: status === 'active' ? authenticationKeys(resolution, agent.did, now) : [],
    tokenEndpointAuthMethod: agent.custody === 'self' ? 'private_key_jwt' : 'none',
    status,
  });
}
