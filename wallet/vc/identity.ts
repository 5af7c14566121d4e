/**
 * Who signs: a DID, the verification method (key id) the proof names, and a Signer that holds
 * the key. Key stores, server custody and in-memory keys all reduce to this.
 */
import type { Signer } from '../crypto/ed25519.ts';
import { didKeyFromPublicKey } from '../did/key.ts';

export interface SigningIdentity {
  did: string;
  /** DID URL of the key, e.g. `did:key:z6Mk…#z6Mk…`; must belong to `did`. */
  verificationMethod: string;
  signer: Signer;
}

/** A fresh `urn:uuid:` identifier (RFC 9562 v4). */
export function newUrnUuid(): string {
  return `urn:uuid:${crypto.randomUUID()}`;
}

/**
 * The did:key identity of a signer: the DID is the key, and its one verification method is
 * `did:key:z6Mk…#z6Mk…` (did:key §3.1.2).
 */
export function didKeyIdentity(signer: Signer): SigningIdentity {
  const did = didKeyFromPublicKey(signer.publicKey);
  return { did, verificationMethod: `${did}#${did.slice('did:key:'.length)}`, signer };
}
