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
  buildSignatureDirectory,
  SIGNATURE_DIRECTORY_PATH,
  type AgentKeyStatus,
  type SignatureAgentCard,
  type SignedDirectory,
} from '../../wallet/http-signatures/directory.ts';
import type { Signer } from '../../wallet/crypto/ed25519.ts';
import type { IssuerDeps } from '../deps.ts';
import { invalidCursor, Refusal, refuse } from '../refusal.ts';
import type { AgentRecord } from '../storage/agents-store.ts';
import type { CredentialRecord } from '../storage/credentials-store.ts';
import { credentialState } from './credentials.ts';
import { serverSigningIdentity } from './custody.ts';

/**
 * Keys an answer of the directory holds at most. Each key signs the answer once, and its
 * Signature-Input and Signature members take ~300 bytes of header: 32 keys keep the headers near
 * 10 KiB, under the smallest header limit common clients and proxies apply (16 KiB: Node's
 * fetch, nginx's large buffers).
 */
export const DIRECTORY_PAGE_KEYS = 32;

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
  /** The agents whose keys the page lists, in order (oldest first). */
  agents: { did: string; publicKey: Uint8Array }[];
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
  const found: DirectoryPage['agents'] = [];
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
      if (key !== undefined) found.push({ did: agent.did, publicKey: ed25519KeyFromMultibase(key.publicKeyMultibase) });
    }
    more = rows.length === SCAN_BATCH;
    after = rows[rows.length - 1]?.agent.did;
  }
  const listed = found.slice(0, pageKeys);
  const last = listed[listed.length - 1];
  return { agents: listed, ...(found.length > pageKeys && last ? { nextCursor: last.did } : {}) };
}

/** A page of the directory, signed: what GET /.well-known/http-message-signatures-directory answers. */
export interface DirectoryAnswer extends SignedDirectory {
  nextCursor?: string;
}

/**
 * The page after `cursor`, signed by each listed agent's key through custody
 * (`serverSigningIdentity`: decrypted for the signature, then wiped). A key that cannot sign now —
 * its DID deactivated since the page was read, or its envelope unreadable — is left out of the
 * page rather than listed without its signature, which a verifier would ignore anyway.
 */
export async function signedDirectoryPage(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'keyEncryptionKey' | 'log' | 'now'>,
  cursor: string | undefined,
): Promise<DirectoryAnswer> {
  const page = await directoryPage(deps, cursor);
  const signers: Signer[] = [];
  for (const agent of page.agents) {
    try {
      signers.push((await serverSigningIdentity(deps, agent.did)).signer);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      deps.log.warn('key directory: a key left out', { agentDid: agent.did, code: error.code });
    }
  }
  const signed = await buildSignatureDirectory(signers, deps.config.apiBaseUrl + SIGNATURE_DIRECTORY_PATH, {
    now: deps.now(),
  });
  return { ...signed, ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
}

/**
 * How long a signed page is served again before it is signed anew (ms), when nothing it read has
 * changed: its signatures live 300 s, so every answer has at least four minutes left — more than
 * the `max-age` a verifier may keep it for.
 */
export const DIRECTORY_RESIGN_MS = 60_000;

/** Signed pages kept (one per cursor asked): beyond it the cache starts afresh. */
const MAX_CACHED_PAGES = 64;

export interface KeyDirectory {
  /** The signed page after `cursor` (the first when undefined), from cache while it is current. */
  answer(cursor: string | undefined): Promise<DirectoryAnswer>;
}

/**
 * The directory's signed pages, kept per cursor while the read generation (a change to any hosted
 * DID or status list — an enrollment, a revocation, a suspension, a deactivation) is the one they
 * were built at, and for at most DIRECTORY_RESIGN_MS (an expiry moves no generation). Concurrent
 * requests for a page being built share the build: N keys sign once per page, not per request.
 */
export function createKeyDirectory(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'keyEncryptionKey' | 'log' | 'now'>,
): KeyDirectory {
  const pages = new Map<string, { generation: number; builtAt: number; answer: Promise<DirectoryAnswer> }>();
  return {
    async answer(cursor) {
      const generation = await deps.stores.readGeneration.current();
      const key = cursor ?? '';
      const kept = pages.get(key);
      const now = deps.now();
      if (kept && kept.generation === generation && now - kept.builtAt < DIRECTORY_RESIGN_MS) return kept.answer;
      if (pages.size >= MAX_CACHED_PAGES) pages.clear();
      const answer = signedDirectoryPage(deps, cursor);
      const entry = { generation, builtAt: now, answer };
      pages.set(key, entry);
      // A failed build (a bad cursor, the database down) is not kept.
      answer.catch(() => {
        if (pages.get(key) === entry) pages.delete(key);
      });
      return answer;
    },
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
