/**
 * The DID document of a DID controlled by one Ed25519 key: the shape did:key documents have
 * (did:key §3.1.2) and the shape the issuer publishes for the did:web DIDs it hosts. One
 * `Multikey` verification method (Controlled Identifiers §2.2.2) referenced from the four
 * signing relationships (DID Core §5.3), so its key can present (authentication), issue and
 * delegate (assertionMethod) and manage the DID (capabilityInvocation / capabilityDelegation).
 */
import type { DidDocument } from './types.ts';

/** DID Core and Multikey contexts (did:key §3.1.2). */
export const MULTIKEY_DOCUMENT_CONTEXT = Object.freeze([
  'https://www.w3.org/ns/did/v1',
  'https://w3id.org/security/multikey/v1',
]);

/** The single-key document of `did`, the key's method id being `verificationMethod`. */
export function multikeyDocument(did: string, verificationMethod: string, publicKeyMultibase: string): DidDocument {
  return {
    '@context': [...MULTIKEY_DOCUMENT_CONTEXT],
    id: did,
    verificationMethod: [{ id: verificationMethod, type: 'Multikey', controller: did, publicKeyMultibase }],
    authentication: [verificationMethod],
    assertionMethod: [verificationMethod],
    capabilityInvocation: [verificationMethod],
    capabilityDelegation: [verificationMethod],
  };
}
