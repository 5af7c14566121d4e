// Builders for tests of the credential layer: did:key identities, a resolver that knows
// did:key plus hand-made documents (for deactivated DIDs and odd key relationships), and a
// raw signer that skips the builders' narrowing checks so tests can craft what honest
// builders refuse to produce.
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import type { JsonLimits } from '../../wallet/crypto/json-value.ts';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { encodePublicKeyMultibase } from '../../wallet/crypto/multikey.ts';
import { resolveDidKey } from '../../wallet/did/key.ts';
import { multikeyDocument } from '../../wallet/did/multikey-document.ts';
import { createResolver } from '../../wallet/did/registry.ts';
import type { DidDocument, DidResolutionResult } from '../../wallet/did/types.ts';
import { didKeyIdentity, type SigningIdentity } from '../../wallet/vc/identity.ts';

export function newIdentity(): SigningIdentity {
  return didKeyIdentity(seedSigner(generateSeed()));
}

/** A `did:test:<name>` identity whose document the test controls through `documents`. */
export function testIdentity(name: string): SigningIdentity & { document: DidDocument } {
  const signer = seedSigner(generateSeed());
  const did = `did:test:${name}`;
  const verificationMethod = `${did}#key-1`;
  const document = multikeyDocument(did, verificationMethod, encodePublicKeyMultibase(signer.publicKey));
  return { did, verificationMethod, signer, document };
}

export interface TestResolver {
  resolve(did: string): Promise<DidResolutionResult>;
  documents: Map<string, { document: DidDocument; deactivated?: boolean }>;
}

export function testResolver(): TestResolver {
  const documents = new Map<string, { document: DidDocument; deactivated?: boolean }>();
  const registry = createResolver({
    methods: {
      key: resolveDidKey,
      test: async (did) => {
        const entry = documents.get(did);
        if (!entry) return { didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: { error: 'notFound' } };
        return {
          didDocument: entry.document,
          didDocumentMetadata: entry.deactivated ? { deactivated: true } : {},
          didResolutionMetadata: {},
        };
      },
    },
  });
  return { resolve: (did) => registry.resolve(did), documents };
}

/** Signs `unsigned` as an assertion of `identity` with no checks at all. */
export async function signRaw<T extends object>(
  unsigned: T,
  identity: SigningIdentity,
  proofPurpose = 'assertionMethod',
  limits?: JsonLimits,
): Promise<T> {
  return await createProof(unsigned as never, {
    signer: identity.signer,
    verificationMethod: identity.verificationMethod,
    proofPurpose,
    ...(limits === undefined ? {} : { limits }),
  });
}
