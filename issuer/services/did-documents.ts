/**
 * DID documents of the DIDs this issuer hosts: one Ed25519 Multikey (Controlled Identifiers
 * §2.2.2) usable for authentication and assertions, as did:key documents have (did:key §3.1.2),
 * so a server-custody agent can both present (authentication) and delegate (assertionMethod).
 */
import { encodePublicKeyMultibase } from '../../wallet/crypto/multikey.ts';
import { didKeyDocument } from '../../wallet/did/key.ts';
import { multikeyDocument } from '../../wallet/did/multikey-document.ts';
import type { DidDocument } from '../../wallet/did/types.ts';

/** The did:web path form of a hosted agent (did:web §3.2): `did:web:<domain>:agents:<id>` ↔ `/agents/<id>/did.json`. */
export function agentWebDid(didDomain: string, agentId: string): string {
  return `did:web:${didDomain}:agents:${agentId}`;
}

/** A single-key Multikey document for `did`, the key's id being `verificationMethod`. */
export function multikeyDidDocument(did: string, verificationMethod: string, publicKey: Uint8Array): DidDocument {
  if (did.startsWith('did:key:')) return didKeyDocument(did);
  return multikeyDocument(did, verificationMethod, encodePublicKeyMultibase(publicKey));
}
