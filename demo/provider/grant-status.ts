/**
 * The provider's OWN Bitstring Status List for the grants it signs, published at its own URL and
 * signed with its own key: a grant it issued can be revoked by it alone, without the issuer
 * (docs/protocol.md §Delegation grant).
 */
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { LruCache } from '../../wallet/crypto/lru.ts';
import { allocateIndex } from '../../wallet/status/allocate.ts';
import { createStatusList, setStatus } from '../../wallet/status/bitstring.ts';
import { buildStatusListCredential, buildStatusListEntry } from '../../wallet/status/credential.ts';
import { encodeStatusList } from '../../wallet/status/encoded-list.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';

const MAX_GRANTS = 10_000;

type StatusListCredential = Awaited<ReturnType<typeof signStatusList>>;

export interface GrantStatusList {
  readonly url: string;
  readonly ttlMs: number;
  /** Reserves a fresh index of the list. */
  allocate(): number;
  /** The status entry a grant holding `index` carries. */
  entry(index: number): ReturnType<typeof buildStatusListEntry>;
  /** Remembers which index a signed grant holds, so that it can be revoked by id. */
  remember(grantId: string, index: number): void;
  /** Sets the grant's bit; false for a grant this provider does not know. */
  revoke(grantId: string): boolean;
  /** The signed list credential, signed again only after a change. */
  credential(): Promise<StatusListCredential>;
}

interface ListOptions {
  identity: SigningIdentity;
  url: string;
  /** `ttl` of the published list (Bitstring Status List §2.2). */
  ttlMs: number;
  now: () => number;
}

async function signStatusList(options: ListOptions, list: ReturnType<typeof createStatusList>) {
  const unsigned = buildStatusListCredential({
    id: options.url,
    issuer: options.identity.did,
    validFrom: new Date(options.now()),
    statusPurpose: 'revocation',
    encodedList: await encodeStatusList(list),
    ttl: options.ttlMs,
  });
  return createProof(unsigned, {
    signer: options.identity.signer,
    verificationMethod: options.identity.verificationMethod,
    proofPurpose: 'assertionMethod',
  });
}

export function createGrantStatusList(options: ListOptions): GrantStatusList {
  const list = createStatusList();
  const usedIndexes = new Set<number>();
  const grantIndexes = new LruCache<string, number>({ max: MAX_GRANTS });
  let published: { credential: StatusListCredential; version: number } | undefined;
  let version = 0;
  return {
    url: options.url,
    ttlMs: options.ttlMs,
    allocate() {
      const index = allocateIndex(list.length, usedIndexes);
      usedIndexes.add(index);
      return index;
    },
    entry: (index) =>
      buildStatusListEntry({ statusListCredential: options.url, statusListIndex: index, statusPurpose: 'revocation' }),
    remember: (grantId, index) => grantIndexes.set(grantId, index),
    revoke(grantId) {
      const index = grantIndexes.get(grantId);
      if (index === undefined) return false;
      setStatus(list, index, 1);
      version += 1;
      return true;
    },
    async credential() {
      if (published?.version === version) return published.credential;
      const current = version;
      const credential = await signStatusList(options, list);
      published = { credential, version: current };
      return credential;
    },
  };
}
