/**
 * Server custody of Ed25519 keys: the issuer generates the seed, stores it only as an
 * AES-256-GCM envelope under the key-encryption key (wallet/crypto/aead.ts) with the DID as
 * additional authenticated data — so an envelope copied onto another DID's row does not
 * decrypt — and decrypts it for each signature it makes on the DID's behalf.
 */
import { decrypt, encrypt } from '../../wallet/crypto/aead.ts';
import { utf8ToBytes } from '../../wallet/crypto/bytes.ts';
import { generateSeed, getPublicKey, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { encodePublicKeyMultibase } from '../../wallet/crypto/multikey.ts';
import { didKeyFromPublicKey } from '../../wallet/did/key.ts';
import type { DidDocument } from '../../wallet/did/types.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import type { IssuerDeps } from '../deps.ts';
import type { IssuerStores } from '../storage/stores.ts';
import { refuse } from '../refusal.ts';
import { ConfigError } from '../config/index.ts';
import type { AgentStore, ServerKeyRecord } from '../storage/agents-store.ts';
import { agentWebDid, multikeyDidDocument } from './did-documents.ts';

export interface NewServerKey {
  did: string;
  verificationMethod: string;
  publicKey: Uint8Array;
  document: DidDocument;
  /** To insert (agents store `insertKey`) in the same transaction as whatever owns the DID. */
  record: ServerKeyRecord;
}

/**
 * A fresh key and its DID: `did:web:<DID_DOMAIN>:agents:<pathId>` with `#key-1` under
 * DID_METHOD=web, the key's did:key under DID_METHOD=key. Nothing is stored yet.
 */
export async function createServerKey(
  deps: Pick<IssuerDeps, 'config' | 'keyEncryptionKey' | 'now'>,
  pathId: string,
): Promise<NewServerKey> {
  const seed = generateSeed();
  try {
    const publicKey = getPublicKey(seed);
    let did: string;
    let verificationMethod: string;
    if (deps.config.didMethod === 'web') {
      did = agentWebDid(deps.config.didDomain ?? '', pathId);
      verificationMethod = `${did}#key-1`;
    } else {
      did = didKeyFromPublicKey(publicKey);
      verificationMethod = `${did}#${did.slice('did:key:'.length)}`;
    }
    const envelope = await encrypt(deps.keyEncryptionKey, seed, utf8ToBytes(did));
    return {
      did,
      verificationMethod,
      publicKey,
      document: multikeyDidDocument(did, verificationMethod, publicKey),
      record: {
        did,
        verificationMethod,
        publicKeyMultibase: encodePublicKeyMultibase(publicKey),
        envelope,
        createdAt: deps.now(),
      },
    };
  } finally {
    seed.fill(0);
  }
}

/**
 * A deactivated DID's keys sign nothing more (DID Core §7.1.3): the operator retired this agent.
 * Checked before its key is opened, and again inside the transaction that records what was
 * signed, since a deactivation can commit while the signature is being made.
 */
export async function refuseIfDeactivated(stores: Pick<IssuerStores, 'dids'>, did: string): Promise<void> {
  if ((await stores.dids.get(did))?.deactivated === true)
    throw refuse('DID_DEACTIVATED', `${did} is deactivated: the issuer no longer signs for it`, { agentDid: did });
}

/**
 * The signing identity of a server-held DID (its seed decrypted for this use, then wiped).
 * CUSTODY_MISMATCH when the key is not held here; CUSTODY_KEY_UNREADABLE when it does not
 * decrypt, or decrypts to another key than the one on record.
 */
export async function serverSigningIdentity(
  deps: Pick<IssuerDeps, 'stores' | 'keyEncryptionKey'>,
  did: string,
): Promise<SigningIdentity> {
  const key = await deps.stores.agents.getKey(did);
  if (!key)
    throw refuse(
      'CUSTODY_MISMATCH',
      `the issuer does not hold a key for ${did} (self-custody agents sign their own documents)`,
      { agentDid: did },
    );
  await refuseIfDeactivated(deps.stores, did);
  const unreadable = (why: string) =>
    refuse('CUSTODY_KEY_UNREADABLE', `the key the issuer holds for ${did} ${why}`, { agentDid: did });
  const seed = await decrypt(deps.keyEncryptionKey, key.envelope, utf8ToBytes(did)).catch(() => {
    throw unreadable('does not decrypt under SERVICE_KEY_ENCRYPTION_KEY');
  });
  try {
    const signer = seedSigner(seed); // keeps its own copy
    if (encodePublicKeyMultibase(signer.publicKey) !== key.publicKeyMultibase)
      throw unreadable('is not the key on record');
    return { did, verificationMethod: key.verificationMethod, signer };
  } finally {
    seed.fill(0);
  }
}

/**
 * Refuses to start when the key-encryption key does not open the keys this database holds (a
 * mistyped SERVICE_KEY_ENCRYPTION_KEY, or one replaced without re-encrypting them), instead of
 * starting healthy and failing every custody call.
 */
export async function assertKeyEncryptionKeyOpens(agents: AgentStore, keyEncryptionKey: Uint8Array): Promise<void> {
  const key = await agents.anyKey();
  if (key === undefined) return;
  try {
    (await decrypt(keyEncryptionKey, key.envelope, utf8ToBytes(key.did))).fill(0);
  } catch {
    throw new ConfigError(
      'CONFIG_INVALID',
      'SERVICE_KEY_ENCRYPTION_KEY: does not decrypt the server-held keys in this database (it is not the key they were encrypted with)',
    );
  }
}
