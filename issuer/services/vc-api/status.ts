/**
 * `POST /credentials/status` (W3C-CCG VC-API, UpdateCredentialStatusRequest): sets or clears a
 * status entry of a credential the VC-API issued, found by `credentialId` and the entry's
 * `statusPurpose` (and, when given, its list URL, index or entry id). `status` is true/false, or
 * on a list of statusSize > 1 any value it holds (Bitstring Status List §2.1). The change is
 * audited and the next fetch of the list shows it. Mandate's authority credentials change status
 * through /v1/vcs/{id}/revoke, suspend and reinstate, which follow their chains.
 */
import type { BitstringStatusListEntry } from '../../../wallet/status/credential.ts';
import { clipText } from '../../audit.ts';
import type { IssuerDeps } from '../../deps.ts';
import { refuse } from '../../refusal.ts';
import type { VcApiStatusEntry } from '../../storage/vc-api-credentials-store.ts';
import { setListStatus, statusEntryFor, statusListUrl } from '../status-lists.ts';

export interface StatusUpdate {
  credentialId: string;
  credentialStatus: {
    type: 'BitstringStatusListEntry' | 'BitstringStatusList';
    statusPurpose: string;
    id?: string;
    statusListIndex?: string;
    statusListCredential?: string;
  };
  /** true sets the entry (1), false clears it (0); a number sets that value. */
  status: boolean | number;
}

export interface StatusUpdateResult {
  credentialId: string;
  /** The entry as the credential carries it (a BitstringStatusListEntry). */
  credentialStatus: Record<string, unknown>;
  status: number;
  /** False when the entry already had that value. */
  changed: boolean;
}

/** The credential's entry the update names: same purpose, and the same list, index and id where given. */
function matches(
  deps: Pick<IssuerDeps, 'config'>,
  entry: VcApiStatusEntry,
  asked: StatusUpdate['credentialStatus'],
): boolean {
  const url = statusListUrl(deps, entry.listId);
  return (
    entry.purpose === asked.statusPurpose &&
    (asked.statusListCredential === undefined || asked.statusListCredential === url) &&
    (asked.statusListIndex === undefined || asked.statusListIndex === String(entry.index)) &&
    (asked.id === undefined || asked.id === `${url}#${entry.index}`)
  );
}

export async function updateVcApiStatus(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'audit' | 'now'>,
  update: StatusUpdate,
  actor: string,
): Promise<StatusUpdateResult> {
  const record = await deps.stores.vcApiCredentials.get(update.credentialId);
  if (!record) {
    throw refuse(
      'CREDENTIAL_NOT_FOUND',
      `no credential issued through POST /credentials/issue has the id ${JSON.stringify(clipText(update.credentialId, 100))} (authority credentials change status through POST /v1/vcs/{vcId}/revoke)`,
    );
  }
  const found = record.statusEntries.find((entry) => matches(deps, entry, update.credentialStatus));
  if (!found)
    throw refuse(
      'STATUS_ENTRY_NOT_FOUND',
      `the credential has no ${update.credentialStatus.statusPurpose} status entry like the one named`,
    );
  const value = typeof update.status === 'boolean' ? Number(update.status) : update.status;
  const changed = await deps.stores.transaction(async (tx) => {
    const done = await setListStatus(deps, tx, { listId: found.listId, index: found.index, value });
    const data = {
      id: clipText(record.id, 256),
      purpose: found.purpose,
      url: statusListUrl(deps, found.listId),
      index: found.index,
      status: value,
      changed: done,
    };
    await deps.audit.record({ event: 'VC_API_STATUS_CHANGED', actor, data }, tx);
    return done;
  });
  const list = await deps.stores.statusLists.get(found.listId);
  if (!list) throw refuse('STATUS_LIST_NOT_FOUND', `status list ${found.listId} does not exist`);
  const entry: BitstringStatusListEntry = statusEntryFor(deps, list, found.index);
  return {
    credentialId: record.id,
    credentialStatus: Object.fromEntries(Object.entries(entry)),
    status: value,
    changed,
  };
}
