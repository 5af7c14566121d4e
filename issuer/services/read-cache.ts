/**
 * What verifications read from the database — hosted DIDs and the versions of this issuer's
 * status lists — kept in this process while the read generation
 * (storage/read-generation-store.ts) stays the one they were read at.
 *
 * The fast path of POST /v1/vp/verify (vp-verify.ts) verifies with these reads and records its
 * verdict on condition that the generation is still that one (AuditLog.recordIf): if a DID or a
 * list version changed in between, on any instance, the database refuses the record and the
 * presentation is verified again with live reads. So a verdict rests on what the database holds
 * when it is recorded — a moment after its request began, as with live reads — and while
 * nothing changes, a verification costs no read statement.
 */
import type { DidStore } from '../storage/dids-store.ts';
import type { StatusListStore } from '../storage/status-lists-store.ts';
import type { IssuerStores } from '../storage/stores.ts';

export interface ReadView {
  /** The read generation the reads below are valid at (read before any of them). */
  generation: number;
  dids: Pick<DidStore, 'get'>;
  version: StatusListStore['version'];
}

export interface ReadCache {
  /** The current view: one generation's reads, each made once (on first use) and then kept. */
  view(): Promise<ReadView>;
  /** Forgets the view of `generation` (a record made at it was refused): the next view starts afresh. */
  drop(generation: number): void;
}

/** Reads kept per view at most (distinct DIDs and lists): beyond it they are read again. */
const MAX_ENTRIES = 10_000;

/** `read` once per key, sharing a read in flight; a failed read is not kept. */
function memo<V>(read: (key: string) => Promise<V>): (key: string) => Promise<V> {
  const kept = new Map<string, Promise<V>>();
  return (key) => {
    let value = kept.get(key);
    if (value === undefined) {
      if (kept.size >= MAX_ENTRIES) kept.clear();
      value = read(key);
      kept.set(key, value);
      value.catch(() => kept.delete(key));
    }
    return value;
  };
}

export function createReadCache(stores: Pick<IssuerStores, 'dids' | 'statusLists' | 'readGeneration'>): ReadCache {
  let current: Promise<ReadView> | undefined;
  let opened: ReadView | undefined;
  const open = async (): Promise<ReadView> => {
    // The generation before the reads: a change between the two moves the generation past the
    // view's, so a verdict made with such a read is refused and made again.
    const generation = await stores.readGeneration.current();
    opened = {
      generation,
      dids: { get: memo((did) => stores.dids.get(did)) },
      version: memo((listId) => stores.statusLists.version(listId)),
    };
    return opened;
  };
  return {
    view() {
      if (current === undefined) {
        const opening = open();
        current = opening;
        opening.catch(() => {
          if (current === opening) current = undefined;
        });
      }
      return current;
    },
    drop(generation) {
      if (opened?.generation !== generation) return;
      opened = undefined;
      current = undefined;
    },
  };
}
