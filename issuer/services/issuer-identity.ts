/**
 * The issuer's own identity: `did:web:<DID_DOMAIN>` (DID_METHOD=web) or the did:key of its
 * signing key (DID_METHOD=key), signing with SERVICE_SIGNING_KEY. Its document is kept in
 * `hosted_dids` and served at /.well-known/did.json (did:web §3.2: a bare domain resolves there).
 *
 * Key rotation (did:web): the signing key's verification method is `#key-<n>`, numbered in the
 * order keys were first used. When SERVICE_SIGNING_KEY changes, the new key gets the next number
 * and every relationship, and the previous key stays in the document as an `assertionMethod`
 * only, with `expires` (Controlled Identifiers §2.2) set an hour past the latest `validUntil` of
 * the unrevoked credentials issued until then: those verify until they expire, and verifiers
 * refuse the old key after that by themselves. SERVICE_PREVIOUS_SIGNING_KEYS=drop removes previous keys
 * at once (a compromised key), and such a key is refused as SERVICE_SIGNING_KEY ever after: a
 * stale replica, a rolled-back secret or an old `.env` must not put it back. Status lists are
 * signed again with the new key when next served.
 * A did:key issuer cannot overlap keys: its DID is its key.
 */
import { getPublicKey, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { encodePublicKeyMultibase } from '../../wallet/crypto/multikey.ts';
import { formatDateTimeStamp, parseDateTimeStamp } from '../../wallet/crypto/proof-config.ts';
import { didKeyDocument } from '../../wallet/did/key.ts';
import { multikeyDocument } from '../../wallet/did/multikey-document.ts';
import type { DidDocument } from '../../wallet/did/types.ts';
import { didKeyIdentity, type SigningIdentity } from '../../wallet/vc/identity.ts';
import { ConfigError } from '../config/index.ts';
import type { IssuerDeps } from '../deps.ts';

const ISSUER_DID_SETTING = 'issuer.did';
/** The highest `#key-<n>` ever given, so that a dropped key's number is never given again. */
const LAST_KEY_NUMBER_SETTING = 'issuer.lastKeyNumber';
/** The public keys (multibase, JSON array) removed with SERVICE_PREVIOUS_SIGNING_KEYS=drop. */
const RETIRED_KEYS_SETTING = 'issuer.retiredKeys';
/**
 * How long a previous key outlives the last credential it signed: more than any verifier's clock
 * skew (60 s by default), so such a credential is refused as expired, never for its key.
 */
const PREVIOUS_KEY_MARGIN_MS = 60 * 60_000;

/** What the identity is worked out from, before the rest of the context exists. */
export type IssuerIdentityDeps = Pick<IssuerDeps, 'config' | 'stores' | 'audit' | 'log' | 'now'>;

/** One Multikey of the issuer's did:web document. */
interface IssuerKey {
  id: string;
  publicKeyMultibase: string;
  /** Set on previous keys only. */
  expires?: string;
}

function keysOf(document: DidDocument | undefined): IssuerKey[] {
  const keys: IssuerKey[] = [];
  for (const method of document?.verificationMethod ?? []) {
    if (typeof method.id !== 'string' || typeof method.publicKeyMultibase !== 'string') continue;
    keys.push({
      id: method.id,
      publicKeyMultibase: method.publicKeyMultibase,
      ...(typeof method.expires === 'string' ? { expires: method.expires } : {}),
    });
  }
  return keys;
}

/** `#key-<n>` with n one above every number given so far (recorded, and in the document): a method id never names two keys. */
async function nextKeyId(deps: IssuerIdentityDeps, did: string, keys: readonly IssuerKey[]): Promise<string> {
  const used = keys.map((k) => Number(/#key-(\d+)$/.exec(k.id)?.[1] ?? 0));
  const next = Math.max(0, Number((await deps.stores.settings.get(LAST_KEY_NUMBER_SETTING)) ?? 0), ...used) + 1;
  await deps.stores.settings.set(LAST_KEY_NUMBER_SETTING, String(next));
  return `${did}#key-${next}`;
}

/** The signing key in every relationship, then the previous keys, `assertionMethod` only. */
function issuerWebDocument(did: string, current: IssuerKey, previous: readonly IssuerKey[]): DidDocument {
  const document = multikeyDocument(did, current.id, current.publicKeyMultibase);
  if (previous.length === 0) return document;
  return {
    ...document,
    verificationMethod: [
      ...(document.verificationMethod ?? []),
      ...previous.map((k) => ({
        id: k.id,
        type: 'Multikey',
        controller: did,
        publicKeyMultibase: k.publicKeyMultibase,
        expires: k.expires as string,
      })),
    ],
    assertionMethod: [current.id, ...previous.map((k) => k.id)],
  };
}

async function retiredKeys(deps: IssuerIdentityDeps): Promise<string[]> {
  const stored = await deps.stores.settings.get(RETIRED_KEYS_SETTING);
  return stored === undefined ? [] : (JSON.parse(stored) as string[]);
}

/** The keys of the did:web document after this start: which one signs, which ones still verify. */
async function rotate(
  deps: IssuerIdentityDeps,
  did: string,
  existing: DidDocument | undefined,
): Promise<{ current: IssuerKey; previous: IssuerKey[]; changed: boolean }> {
  const keys = keysOf(existing);
  const now = deps.now();
  const multibase = encodePublicKeyMultibase(getPublicKey(deps.config.signingKey));
  const retired = await retiredKeys(deps);
  if (retired.includes(multibase)) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `SERVICE_SIGNING_KEY: this key (${multibase}) was removed with SERVICE_PREVIOUS_SIGNING_KEYS=drop as compromised and is never used again; configure a new key`,
    );
  }
  const live = (k: IssuerKey) => k.expires !== undefined && (parseDateTimeStamp(k.expires) ?? -Infinity) > now;
  const known = keys.find((k) => k.publicKeyMultibase === multibase);
  const changed = known === undefined || known.expires !== undefined; // a new key, or an earlier one back in use
  const current: IssuerKey = { id: known?.id ?? (await nextKeyId(deps, did, keys)), publicKeyMultibase: multibase };
  if (deps.config.previousSigningKeys === 'drop') {
    const dropped = keys.map((k) => k.publicKeyMultibase).filter((k) => k !== multibase && !retired.includes(k));
    if (dropped.length > 0)
      await deps.stores.settings.set(RETIRED_KEYS_SETTING, JSON.stringify([...retired, ...dropped]));
    return { current, previous: [], changed };
  }
  // The key being replaced verifies what it signed until the last of those credentials expires.
  const until = await deps.stores.credentials.latestValidUntil(did, now);
  const previous = keys
    .filter((k) => k.publicKeyMultibase !== multibase)
    .map((k) =>
      k.expires === undefined && until !== undefined
        ? { ...k, expires: formatDateTimeStamp(new Date(until + PREVIOUS_KEY_MARGIN_MS)) }
        : k,
    )
    .filter(live);
  return { current, previous, changed };
}

/** Stores the issuer's DID document, or rewrites (and audits) it when it changed. */
async function storeDocument(
  deps: IssuerIdentityDeps,
  identity: SigningIdentity,
  stored: { document: DidDocument } | undefined,
  next: { document: DidDocument; keyChanged: boolean },
): Promise<void> {
  const { did } = identity;
  const { document, keyChanged } = next;
  const at = deps.now();
  if (!stored) {
    await deps.stores.dids.insert({ did, document, kind: 'issuer', deactivated: false, createdAt: at, updatedAt: at });
    return;
  }
  if (JSON.stringify(stored.document) === JSON.stringify(document)) return;
  await deps.stores.dids.updateDocument(did, document, at);
  const previousKeys = keysOf(document).filter((k) => k.expires !== undefined);
  const data = {
    did,
    verificationMethod: identity.verificationMethod,
    previousKeys: previousKeys.map((k) => ({ id: k.id, expires: k.expires ?? null })),
  };
  await deps.audit.record(
    { event: keyChanged ? 'ISSUER_KEY_CHANGED' : 'ISSUER_DOCUMENT_UPDATED', actor: 'system', data },
    deps.stores,
  );
  if (!keyChanged) return;
  // Lists signed with the previous key would stop verifying when it expires.
  await deps.stores.statusLists.clearSigned();
  const until = previousKeys
    .map((k) => k.expires)
    .sort()
    .at(-1);
  deps.log.warn(
    until === undefined
      ? 'the issuer signing key changed: credentials signed with the previous key no longer verify'
      : `the issuer signing key changed: credentials signed with the previous key verify until they expire (at the latest ${until})`,
    { did, verificationMethod: identity.verificationMethod },
  );
}

/** Records the issuer's DID; a change of DID has every list signed again under the new one. */
async function recordIssuerDid(deps: IssuerIdentityDeps, did: string): Promise<void> {
  const previousDid = await deps.stores.settings.get(ISSUER_DID_SETTING);
  if (previousDid === did) return;
  await deps.stores.settings.set(ISSUER_DID_SETTING, did);
  const data = { did, previousDid: previousDid ?? null };
  await deps.audit.record({ event: 'ISSUER_DID_SET', actor: 'system', data }, deps.stores);
  if (previousDid !== undefined) {
    // A list names its issuer: lists published under the old DID must be signed again.
    await deps.stores.statusLists.clearSigned();
    deps.log.warn('the issuer DID changed', { did, previousDid });
  }
}

/**
 * The issuer's signing identity, with its DID document stored (or rewritten after a key or
 * domain change, audited): run once at start, before anything is signed. One transaction, so
 * instances starting together on one database agree on it.
 */
export async function ensureIssuerIdentity(deps: IssuerIdentityDeps): Promise<SigningIdentity> {
  const signer = seedSigner(deps.config.signingKey);
  return deps.stores.transaction(async (tx) => {
    const inTx: IssuerIdentityDeps = { ...deps, stores: tx };
    const keyIdentity = deps.config.didMethod === 'key' ? didKeyIdentity(signer) : undefined;
    const did = keyIdentity?.did ?? `did:web:${deps.config.didDomain ?? ''}`;
    const stored = await tx.dids.get(did);
    let identity: SigningIdentity;
    let next: { document: DidDocument; keyChanged: boolean };
    if (keyIdentity) {
      identity = keyIdentity;
      next = { document: didKeyDocument(did), keyChanged: false };
    } else {
      const { current, previous, changed } = await rotate(inTx, did, stored?.document);
      identity = { did, verificationMethod: current.id, signer };
      next = { document: issuerWebDocument(did, current, previous), keyChanged: stored !== undefined && changed };
    }
    await storeDocument(inTx, identity, stored, next);
    await recordIssuerDid(inTx, did);
    return identity;
  });
}
