/**
 * Issuing and managing AgentCredentials (docs/protocol.md §Agent credential): every one gets a
 * `revocation` and a `suspension` BitstringStatusListEntry at random indexes of the issuer's
 * default lists, and its whole lifecycle — issue, revoke, suspend, reinstate, renew — is one
 * transaction per step, audited.
 *
 * Renewal issues a NEW credential with the same subject, scopes, depth and domains and a new
 * validity; the old one is marked superseded (and the agent's current credential becomes the
 * new one) but is NOT revoked: it stays valid until its own validUntil, so an agent that renews
 * early is not cut off mid-flight. It carries the same authority, though, so revoking,
 * suspending or reinstating a credential does the same to every live credential it superseded:
 * revoking an agent's current credential must not leave last month's one working.
 */
import { parseDateTimeStamp } from '../../wallet/crypto/data-integrity.ts';
import type { JsonObject } from '../../wallet/crypto/json-value.ts';
import { issueAgentCredential } from '../../wallet/vc/agent-credential.ts';
import { newUrnUuid } from '../../wallet/vc/identity.ts';
import { VerificationError } from '../../wallet/vc/reasons.ts';
import type { CredentialState, CredentialView } from '../../wallet/contract/credentials.ts';
import { isJsonObject } from '../../wallet/contract/primitives.ts';
import type { AgentCredential, ChainCredential } from '../../wallet/vc/types.ts';
import type { IssuerDeps } from '../deps.ts';
import type { IssuerStores } from '../storage/stores.ts';
import { requireUsableDid } from './dids.ts';
import { refuse } from '../refusal.ts';
import type { CredentialRecord, NewCredential } from '../storage/credentials-store.ts';
import type { AgentTerms } from '../storage/agents-store.ts';
import {
  commitReservation,
  IndexTaken,
  ISSUED_PURPOSES,
  reserveIndex,
  setListStatus,
  statusListUrl,
  type IndexReservation,
} from './status-lists.ts';

/** What issuing an agent credential uses of the issuer's dependencies. */
export type IssuingDeps = Pick<IssuerDeps, 'config' | 'stores' | 'issuer' | 'audit' | 'now'>;

export interface AgentCredentialTerms {
  subjectDid: string;
  privilegeScopes: string[];
  delegationDepth: number;
  /** null: usable at any target service. */
  domains: string[] | null;
  validitySeconds: number;
}

export interface PreparedCredential {
  credential: AgentCredential;
  record: NewCredential;
  reservations: IndexReservation[];
}

const MAX_ATTEMPTS = 5;

/** Signs a credential on freshly reserved status indexes; nothing is stored yet. */
export async function prepareAgentCredential(
  deps: IssuingDeps,
  terms: AgentCredentialTerms,
): Promise<PreparedCredential> {
  const reservations: IndexReservation[] = [];
  for (const purpose of ISSUED_PURPOSES) reservations.push(await reserveIndex(deps, purpose));
  const issuedAt = deps.now();
  const validFrom = new Date(issuedAt);
  const validUntil = new Date(issuedAt + terms.validitySeconds * 1000);
  let credential: AgentCredential;
  try {
    credential = await issueAgentCredential({
      issuer: deps.issuer,
      id: newUrnUuid(),
      agentDid: terms.subjectDid,
      privilegeScopes: terms.privilegeScopes,
      delegationDepth: terms.delegationDepth,
      ...(terms.domains === null ? {} : { domains: terms.domains }),
      validFrom,
      validUntil,
      credentialStatus: reservations.map((r) => r.entry),
    });
  } catch (error) {
    if (error instanceof VerificationError)
      throw refuse('VALIDATION_FAILED', `the credential would be malformed: ${error.message}`);
    throw error;
  }
  const position = (purpose: string) => {
    const r = reservations.find((x) => x.purpose === purpose);
    return r ? { listId: r.listId, index: r.index } : null;
  };
  return {
    credential,
    reservations,
    record: {
      id: credential.id,
      type: 'AgentCredential',
      subjectDid: terms.subjectDid,
      issuerDid: deps.issuer.did,
      credential: storedForm(credential),
      parentId: null,
      revocation: position('revocation'),
      suspension: position('suspension'),
      // Stored from the signed text, so the record and the credential can never disagree.
      validFrom: parseDateTimeStamp(credential.validFrom) ?? issuedAt,
      validUntil: credential.validUntil === undefined ? null : (parseDateTimeStamp(credential.validUntil) ?? null),
      issuedAt,
    },
  };
}

/**
 * Prepares (signs) a credential, then in ONE transaction runs `before` (e.g. consuming an
 * enrollment token — it throws to abort), records the status indexes and the credential, and
 * runs `after`. A status index taken by a concurrent issuance meanwhile restarts the whole
 * thing with new indexes; any other throw rolls everything back.
 */
export async function issueAtomically<T>(
  deps: IssuingDeps,
  terms: AgentCredentialTerms,
  steps: {
    before?: (prepared: PreparedCredential, tx: IssuerStores) => Promise<void>;
    after: (prepared: PreparedCredential, tx: IssuerStores) => Promise<T>;
  },
): Promise<{ prepared: PreparedCredential; result: T }> {
  for (let attempt = 1; ; attempt++) {
    const prepared = await prepareAgentCredential(deps, terms);
    try {
      const result = await deps.stores.transaction(async (tx) => {
        await steps.before?.(prepared, tx);
        for (const reservation of prepared.reservations) await commitReservation(deps, tx, reservation);
        await tx.credentials.insert(prepared.record);
        return steps.after(prepared, tx);
      });
      return { prepared, result };
    } catch (error) {
      if (!(error instanceof IndexTaken) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

// The wire type is the contract's (docs/api.md `Credential`): one definition for both ends.
export type { CredentialState, CredentialView };

/** A signed credential as the store keeps it: its members, as a JSON object. */
export function storedForm(credential: ChainCredential): Record<string, unknown> {
  return { ...credential };
}

function isChainCredential(value: unknown): value is ChainCredential {
  if (!isJsonObject(value) || !Array.isArray(value.type) || !isJsonObject(value.credentialSubject)) return false;
  return value.type.includes('AgentCredential') || value.type.includes('DelegatedAgentCredential');
}

/** The credential a record holds: the store holds only credentials this issuer signed, of the two kinds it issues. */
export function chainCredentialOf(record: CredentialRecord): ChainCredential {
  if (!isChainCredential(record.credential)) throw new TypeError(`${record.id} does not hold an agent credential`);
  return record.credential;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function credentialState(record: CredentialRecord, now: number): CredentialState {
  if (record.revokedAt !== null) return 'revoked';
  if (record.suspendedAt !== null) return 'suspended';
  if (record.supersededBy !== null) return 'superseded';
  if (record.validUntil !== null && record.validUntil < now) return 'expired';
  return 'active';
}

export function credentialView(deps: Pick<IssuerDeps, 'config' | 'now'>, record: CredentialRecord): CredentialView {
  const lists = [
    ...(record.revocation ? [{ purpose: 'revocation', ...record.revocation }] : []),
    ...(record.suspension ? [{ purpose: 'suspension', ...record.suspension }] : []),
  ];
  return {
    vcId: record.id,
    type: record.type,
    subjectDid: record.subjectDid,
    issuerDid: record.issuerDid,
    state: credentialState(record, deps.now()),
    issuedAt: iso(record.issuedAt),
    validFrom: iso(record.validFrom),
    ...(record.validUntil === null ? {} : { validUntil: iso(record.validUntil) }),
    ...(record.revokedAt === null ? {} : { revokedAt: iso(record.revokedAt) }),
    ...(record.suspendedAt === null ? {} : { suspendedAt: iso(record.suspendedAt) }),
    ...(record.supersededBy === null ? {} : { supersededBy: record.supersededBy }),
    ...(record.parentId === null ? {} : { parentId: record.parentId }),
    statusLists: lists.map((l) => ({ ...l, url: statusListUrl(deps, l.listId) })),
    verifiableCredential: chainCredentialOf(record),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path's vcId: the full `urn:uuid:…`, or just the UUID. */
export function normalizeVcId(value: string): string {
  return UUID.test(value) ? `urn:uuid:${value.toLowerCase()}` : value;
}

/** The credential `vcId` (read through `stores`, the caller's transaction when it is in one). */
export async function getCredential(
  deps: Pick<IssuerDeps, 'stores'>,
  vcId: string,
  stores: Pick<IssuerStores, 'credentials'> = deps.stores,
): Promise<CredentialRecord> {
  const record = await stores.credentials.get(normalizeVcId(vcId));
  if (!record) throw refuse('CREDENTIAL_NOT_FOUND', `no credential ${vcId.slice(0, 80)} was issued here`);
  return record;
}

export interface DirectIssueInput {
  subjectDid: string;
  privilegeScopes: string[];
  delegationDepth: number;
  domains?: string[];
  validitySeconds?: number;
}

/** The authority an AgentCredential gives, as the agent views show it. */
function termsOf(credential: AgentCredential): AgentTerms {
  const subject = credential.credentialSubject;
  return {
    privilegeScopes: [...subject.privilegeScopes],
    delegationDepth: subject.delegationDepth,
    domains: subject.domains === undefined ? null : [...subject.domains],
  };
}

/**
 * POST /v1/vcs: an operator issues directly. For an enrolled subject this becomes the current
 * credential and supersedes the one it replaces when that one is live (neither revoked nor
 * suspended), so that revoking the agent's current credential reaches the older one too (which
 * stays valid until then, even when it was wider).
 */
export async function issueDirect(deps: IssuingDeps, input: DirectIssueInput, actor: string): Promise<CredentialView> {
  const terms: AgentCredentialTerms = {
    subjectDid: requireUsableDid(input.subjectDid),
    privilegeScopes: input.privilegeScopes,
    delegationDepth: input.delegationDepth,
    domains: input.domains ?? null,
    validitySeconds: input.validitySeconds ?? deps.config.credentialTtlSeconds,
  };
  const { prepared } = await issueAtomically(deps, terms, {
    after: async (p, tx) => {
      const agent = await tx.agents.get(input.subjectDid);
      const replaced = agent?.currentCredentialId ? await tx.credentials.get(agent.currentCredentialId) : undefined;
      // Only a live credential is linked: reinstating the new one must never lift a suspension
      // the operator put on the old one (reinstatement reaches every predecessor).
      const linked = replaced !== undefined && replaced.revokedAt === null && replaced.suspendedAt === null;
      if (linked) await tx.credentials.markSuperseded(replaced.id, p.credential.id, false);
      if (agent) await tx.agents.setCurrentCredential(input.subjectDid, p.credential.id, termsOf(p.credential));
      // What it replaced, and whether it took it over: the audit trail must be able to rebuild
      // what a later revoke or suspend reaches.
      const data: JsonObject = { vcId: p.credential.id, via: 'direct' };
      if (replaced) Object.assign(data, { replaces: replaced.id, supersedes: linked });
      await deps.audit.record({ event: 'CREDENTIAL_ISSUED', actor, agentDid: input.subjectDid, data }, tx);
    },
  });
  return credentialView(deps, await getCredential(deps, prepared.credential.id));
}

function requireStatusPosition(record: CredentialRecord, purpose: 'revocation' | 'suspension') {
  const position = record[purpose];
  if (record.type !== 'AgentCredential' || position === null) {
    throw refuse(
      'NOT_REVOCABLE',
      `${record.id} has no ${purpose} entry on this issuer's lists (a delegated credential ends when its parent is revoked)`,
      {
        agentDid: record.subjectDid,
      },
    );
  }
  return position;
}

/** A status action: the list it sets a bit on, the bit, and its audit event. */
interface StatusChange {
  purpose: 'revocation' | 'suspension';
  on: boolean;
  event: 'CREDENTIAL_REVOKED' | 'CREDENTIAL_SUSPENDED' | 'CREDENTIAL_REINSTATED';
}

const REVOKE: StatusChange = { purpose: 'revocation', on: true, event: 'CREDENTIAL_REVOKED' };

/** One status action in progress: who acts, why, and the ids of the credentials it changed so far. */
interface StatusAction {
  actor: string;
  reason: string | undefined;
  changed: string[];
}

/** One status action in progress inside the transaction `tx`. */
interface StatusRun {
  deps: Pick<IssuerDeps, 'stores' | 'audit' | 'now'>;
  tx: IssuerStores;
  action: StatusAction;
}

/**
 * Applies `change` to `record` inside the run's transaction: the store's mark, the list bit,
 * the audit record. `cause` is the credential the operator acted on (`record` itself, or a
 * successor whose change cascades here). False, and nothing changed, when the record has no
 * entry on that list or the mark was already so.
 */
async function applyStatus(
  run: StatusRun,
  record: CredentialRecord,
  change: StatusChange,
  cause: string,
  data: JsonObject,
): Promise<boolean> {
  const { deps, tx, action } = run;
  const { actor, reason } = action;
  const position = record[change.purpose];
  if (position === null) return false;
  const at = deps.now();
  const marked =
    change.purpose === 'revocation'
      ? await tx.credentials.markRevoked(record.id, at)
      : change.on
        ? await tx.credentials.suspend(record.id, at, cause)
        : await tx.credentials.reinstate(record.id);
  if (!marked) return false;
  await setListStatus(deps, tx, { listId: position.listId, index: position.index, value: change.on ? 1 : 0 });
  const audited = { event: change.event, actor, agentDid: record.subjectDid, ...(reason ? { reason } : {}), data };
  await deps.audit.record(audited, tx);
  action.changed.push(record.id);
  return true;
}

/**
 * `change` for every live credential `record` superseded: they carry the same authority. A
 * reinstatement lifts only the suspensions `record`'s own suspension caused: one the operator
 * put on a predecessor by itself stays (suspensions recorded before causes were kept, with no
 * cause, are lifted as they always were).
 */
async function applyToPredecessors(run: StatusRun, record: CredentialRecord, change: StatusChange): Promise<void> {
  const now = run.deps.now();
  for (const old of await run.tx.credentials.predecessorsOf(record.id)) {
    if (old.revokedAt !== null || (old.validUntil !== null && old.validUntil <= now)) continue;
    if (change.purpose === 'suspension' && !change.on && old.suspendedWith !== null && old.suspendedWith !== record.id)
      continue;
    await applyStatus(run, old, change, record.id, { vcId: old.id, with: record.id });
  }
}

/**
 * The newest renewal of `record` (itself when it was not renewed). A renewal is the same
 * credential with a new validity, so revoking, suspending or reinstating any credential of a
 * renewal line acts on its newest one, and from there on every predecessor. Without this, a
 * revoke that lands just after a renewal commits would reach the old copy only, answer success,
 * and leave the agent holding the renewal.
 */
async function newestRenewal(run: StatusRun, record: CredentialRecord): Promise<CredentialRecord> {
  let current = record;
  for (let hops = 0; current.renewed && current.supersededBy !== null && hops < MAX_AGENT_CREDENTIALS; hops++) {
    current = await getCredential(run.deps, current.supersededBy, run.tx);
  }
  return current;
}

/** Most credentials of one agent that revoking its current credential reaches besides its lineage. */
const MAX_AGENT_CREDENTIALS = 10_000;

/**
 * Revoking an agent's current credential revokes the agent's authority: every other live
 * AgentCredential this issuer issued to that DID goes too, not only the ones the current one
 * superseded. Some never were: one issued before the DID enrolled, one left unlinked because it
 * was suspended when its replacement was issued and reinstated since, one whose renewal made an
 * older credential current again.
 */
async function revokeRestOfAgent(run: StatusRun, record: CredentialRecord): Promise<void> {
  if ((await run.tx.agents.get(record.subjectDid))?.currentCredentialId !== record.id) return;
  const now = run.deps.now();
  for (const other of await run.tx.credentials.listBySubject(record.subjectDid, MAX_AGENT_CREDENTIALS)) {
    if (
      other.type !== 'AgentCredential' ||
      other.revokedAt !== null ||
      (other.validUntil !== null && other.validUntil <= now)
    )
      continue;
    await applyStatus(run, other, REVOKE, record.id, { vcId: other.id, with: record.id });
  }
}

/** The audit data of the credential acted on: its id, and the one named when that was an older copy. */
function actedOn(target: CredentialRecord, named: CredentialRecord): JsonObject {
  return target.id === named.id ? { vcId: target.id } : { vcId: target.id, named: named.id };
}

/**
 * The credential named, as it is after a status action, and `changed`: every credential the
 * action revoked, suspended or reinstated, the one acted on first. It can be more than the one
 * named (its renewals, its predecessors, the rest of the agent's): the operator must see that.
 */
export type StatusActionView = CredentialView & { changed: string[] };

/** Sets the revocation bit: visible in the next fetch of the list. Revocation is final. */
export async function revokeCredential(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'audit' | 'now'>,
  vcId: string,
  reason: string | undefined,
  actor: string,
): Promise<StatusActionView> {
  requireStatusPosition(await getCredential(deps, vcId), 'revocation');
  const action: StatusAction = { actor, reason, changed: [] };
  await deps.stores.transaction(async (tx) => {
    const run: StatusRun = { deps, tx, action };
    // Read inside the transaction: a renewal that committed a moment ago is followed.
    const named = await getCredential(deps, vcId, tx);
    const record = await newestRenewal(run, named);
    await applyStatus(run, record, REVOKE, record.id, actedOn(record, named));
    // Also when it was revoked already: a revocation made by an issuer older than these rules
    // may have left what it superseded, or the rest of the agent's, working. Asking again
    // completes it; only a revocation that reaches nothing new is refused.
    await applyToPredecessors(run, record, REVOKE);
    await revokeRestOfAgent(run, record);
    if (action.changed.length === 0)
      throw refuse('CREDENTIAL_ALREADY_REVOKED', `${record.id} is already revoked`, {
        agentDid: record.subjectDid,
        // Clients treat a repeat as success (IssuerClient.revoke: alreadyRevoked): not a refusal.
        auditEvent: 'CREDENTIAL_REVOKE_REPEATED',
      });
  });
  return { ...credentialView(deps, await getCredential(deps, vcId)), changed: action.changed };
}

/**
 * Completes, on a file an older issuer wrote (storage/upgrade.ts), the revocations it made before
 * a revocation reached what the credential superseded and, for an agent's current credential,
 * the rest of the agent's: each credential reached now gets its list bit and its own audit
 * record (actor `system`, `data.with` = the revoked credential). Returns their ids. A revocation
 * of an old copy is not carried forward to its renewals: the older issuer may have meant that
 * copy only, and revoking it again now does follow the line.
 */
export async function completeLegacyRevocations(deps: Pick<IssuerDeps, 'stores' | 'audit' | 'now'>): Promise<string[]> {
  const action: StatusAction = {
    actor: 'system',
    reason: 'upgrade: completes a revocation an older issuer left partial',
    changed: [],
  };
  await deps.stores.transaction(async (tx) => {
    const run: StatusRun = { deps, tx, action };
    for (const record of await tx.credentials.partialRevocations(deps.now())) {
      await applyToPredecessors(run, record, REVOKE);
      await revokeRestOfAgent(run, record);
    }
  });
  return action.changed;
}

/** Suspends (on = true) or reinstates (on = false) through the suspension list. */
export async function setSuspension(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'audit' | 'now'>,
  vcId: string,
  on: boolean,
  reason: string | undefined,
  actor: string,
): Promise<StatusActionView> {
  requireStatusPosition(await getCredential(deps, vcId), 'suspension');
  const change: StatusChange = {
    purpose: 'suspension',
    on,
    event: on ? 'CREDENTIAL_SUSPENDED' : 'CREDENTIAL_REINSTATED',
  };
  const action: StatusAction = { actor, reason, changed: [] };
  await deps.stores.transaction(async (tx) => {
    const run: StatusRun = { deps, tx, action };
    const named = await getCredential(deps, vcId, tx);
    const record = await newestRenewal(run, named);
    if (on && record.revokedAt !== null)
      throw refuse('CREDENTIAL_REVOKED', `${record.id} is revoked`, { agentDid: record.subjectDid });
    const applied = await applyStatus(run, record, change, record.id, actedOn(record, named));
    if (!applied && !on)
      throw refuse('CREDENTIAL_NOT_SUSPENDED', `${record.id} is not suspended`, { agentDid: record.subjectDid });
    // A suspension asked again reaches predecessors left working (by an older issuer, or
    // reinstated by name since); one that reaches nothing new is refused.
    await applyToPredecessors(run, record, change);
    if (action.changed.length === 0)
      throw refuse('CREDENTIAL_SUSPENDED', `${record.id} is already suspended`, { agentDid: record.subjectDid });
  });
  return { ...credentialView(deps, await getCredential(deps, vcId)), changed: action.changed };
}

/** A new credential with the same terms and a new validity; the old one is superseded (not revoked). */
export async function renewCredential(
  deps: IssuingDeps,
  vcId: string,
  validitySeconds: number | undefined,
  actor: string,
): Promise<CredentialView & { previousVcId: string }> {
  const old = await getCredential(deps, vcId);
  const refuseRenewal = (problem: string | null) => {
    if (problem === 'revoked')
      throw refuse('CREDENTIAL_REVOKED', `${old.id} is revoked and cannot be renewed`, { agentDid: old.subjectDid });
    if (problem === 'superseded')
      throw refuse('CREDENTIAL_SUPERSEDED', `${old.id} was already renewed; renew the newest credential`, {
        agentDid: old.subjectDid,
      });
    if (problem === 'suspended')
      throw refuse('CREDENTIAL_SUSPENDED', `${old.id} is suspended; reinstate it first`, {
        agentDid: old.subjectDid,
      });
  };
  const problemOf = (r: CredentialRecord) =>
    r.revokedAt !== null
      ? 'revoked'
      : r.supersededBy !== null
        ? 'superseded'
        : r.suspendedAt !== null
          ? 'suspended'
          : null;
  if (old.type !== 'AgentCredential')
    throw refuse('NOT_REVOCABLE', `${old.id} is a delegated credential; ask its delegator for a new one`, {
      agentDid: old.subjectDid,
    });
  refuseRenewal(problemOf(old));
  const subject = chainCredentialOf(old).credentialSubject;
  const originalSeconds =
    old.validUntil === null
      ? deps.config.credentialTtlSeconds
      : Math.max(60, Math.round((old.validUntil - old.validFrom) / 1000));
  const { prepared } = await issueAtomically(
    deps,
    {
      subjectDid: subject.id,
      privilegeScopes: subject.privilegeScopes,
      delegationDepth: subject.delegationDepth,
      domains: subject.domains ?? null,
      validitySeconds: validitySeconds ?? originalSeconds,
    },
    {
      before: async (p, tx) => {
        // Re-checked inside the transaction: a concurrent renewal or revocation wins.
        refuseRenewal(problemOf(await getCredential(deps, old.id, tx)));
        await tx.credentials.markSuperseded(old.id, p.credential.id, true);
      },
      after: async (p, tx) => {
        if (await tx.agents.get(subject.id))
          await tx.agents.setCurrentCredential(subject.id, p.credential.id, termsOf(p.credential));
        const data = { vcId: p.credential.id, previousVcId: old.id };
        await deps.audit.record({ event: 'CREDENTIAL_RENEWED', actor, agentDid: subject.id, data }, tx);
      },
    },
  );
  return { ...credentialView(deps, await getCredential(deps, prepared.credential.id)), previousVcId: old.id };
}
