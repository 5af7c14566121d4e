import { describe, expect, it } from 'vitest';
import vectors from '@vectors/did-key/ed25519-x25519.json';
import { hexToBytes } from '../../../wallet/crypto/bytes.ts';
import { getPublicKey } from '../../../wallet/crypto/ed25519.ts';
import {
  decodeBase58btc,
  decodeBase64url,
  encodeBase58btc,
  encodePublicKeyMultibase,
} from '../../../wallet/crypto/multikey.ts';
import {
  createResolver,
  didKeyDocument,
  didKeyFromPublicKey,
  didKeyFromSeed,
  publicKeyFromDidKey,
  resolveDidKey,
} from '../../../wallet/did/index.ts';

// Four vectors give the key as publicKeyBase58, one as an OKP publicKeyJwk.
type Vector = {
  seed: string;
  verificationKeyPair: { publicKeyBase58?: string; publicKeyJwk?: { x: string } };
  keyAgreementKeyPair: { id: string };
};
const entries = Object.entries(vectors as Record<string, Vector>);

function vectorKey(vector: Vector): Uint8Array {
  const { publicKeyBase58, publicKeyJwk } = vector.verificationKeyPair;
  if (publicKeyBase58) return decodeBase58btc(`z${publicKeyBase58}`);
  return decodeBase64url(`u${publicKeyJwk?.x ?? ''}`);
}
const resolver = createResolver({ methods: { key: resolveDidKey } });

// A 32-byte encoding of the identity point (y = 1): order 1, verifies "anything" under lax rules.
const SMALL_ORDER_KEY = Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0));

describe('did:key (did:key v0.7, Ed25519)', () => {
  it('maps every Ed25519 vector seed → DID → public key exactly', async () => {
    expect(entries.length).toBeGreaterThanOrEqual(5);
    for (const [did, vector] of entries) {
      const seed = hexToBytes(vector.seed, 32);
      const expectedKey = vectorKey(vector);
      expect(didKeyFromSeed(seed)).toBe(did);
      expect(didKeyFromPublicKey(getPublicKey(seed))).toBe(did);
      expect(publicKeyFromDidKey(did)).toEqual(expectedKey);
      expect(publicKeyFromDidKey(`${did}#${did.slice(8)}`)).toEqual(expectedKey);
    }
  });

  it('resolves to a DID Core 1.0 Multikey document with the key in the four signing relationships', async () => {
    for (const [did, vector] of entries) {
      const multibase = did.slice('did:key:'.length);
      const vmId = `${did}#${multibase}`;
      const result = await resolver.resolve(did);
      expect(result.didResolutionMetadata.error).toBeUndefined();
      expect(result.didDocument).toEqual({
        '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
        id: did,
        verificationMethod: [{ id: vmId, type: 'Multikey', controller: did, publicKeyMultibase: multibase }],
        authentication: [vmId],
        assertionMethod: [vmId],
        capabilityInvocation: [vmId],
        capabilityDelegation: [vmId],
      });
      // the multibase value is the vector's key with the 0xed01 header
      expect(multibase).toBe(encodePublicKeyMultibase(vectorKey(vector)));
      expect(didKeyDocument(did)).toEqual(result.didDocument);
    }
  });

  it('resolves a DID URL with the key fragment to the document of its DID', async () => {
    const [did] = entries[0] as [string, Vector];
    const result = await resolver.resolve(`${did}#${did.slice(8)}`);
    expect(result.didDocument?.id).toBe(did);
  });

  it('refuses non-Ed25519 did:keys with invalidPublicKeyType, naming the key type', async () => {
    const x25519 = `did:key:${(entries[0] as [string, Vector])[1].keyAgreementKeyPair.id.split('#')[1]}`;
    expect(x25519).toMatch(/^did:key:z6LS/);
    const secp256k1 = 'did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme';
    const p256 = 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169';
    for (const [did, name] of [
      [x25519, 'x25519-pub'],
      [secp256k1, 'secp256k1-pub'],
      [p256, 'p256-pub'],
    ] as const) {
      const result = await resolver.resolve(did);
      expect(result.didDocument).toBeNull();
      expect(result.didResolutionMetadata.error).toBe('invalidPublicKeyType');
      expect(result.didResolutionMetadata.message).toContain(name);
      expect(() => publicKeyFromDidKey(did)).toThrow(expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }));
    }
  });

  it('refuses a truncated Ed25519 key with invalidPublicKeyLength', async () => {
    const short = `did:key:${encodeBase58btc(Uint8Array.of(0xed, 0x01, ...new Uint8Array(31).fill(7)))}`;
    const result = await resolver.resolve(short);
    expect(result.didResolutionMetadata.error).toBe('invalidPublicKeyLength');
  });

  it('refuses small-order and non-canonical keys with invalidPublicKey (and cannot mint DIDs for them)', async () => {
    const smallOrder = `did:key:${encodePublicKeyMultibase(SMALL_ORDER_KEY)}`;
    const result = await resolver.resolve(smallOrder);
    expect(result.didResolutionMetadata.error).toBe('invalidPublicKey');
    expect(result.didDocument).toBeNull();
    // y = p (2^255 - 19) is a non-canonical encoding of y = 0
    const nonCanonical = Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 0xed : i === 31 ? 0x7f : 0xff));
    expect(
      (await resolver.resolve(`did:key:${encodePublicKeyMultibase(nonCanonical)}`)).didResolutionMetadata.error,
    ).toBe('invalidPublicKey');
    expect(() => didKeyFromPublicKey(SMALL_ORDER_KEY)).toThrow(expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }));
    expect(() => didKeyFromPublicKey(new Uint8Array(31))).toThrow(
      expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }),
    );
  });

  it('reports malformed did:keys as invalidDid, never crashing', async () => {
    for (const did of [
      'did:key:6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
      'did:key:z0OIl',
      'did:key:z',
      'did:key:',
      'did:key:1:z6Mk',
      'not a did',
    ]) {
      const result = await resolver.resolve(did);
      expect(result.didResolutionMetadata.error, did).toBe('invalidDid');
      expect(result.didDocument).toBeNull();
    }
    // the method resolver on its own, called with a foreign DID
    expect(
      (
        await resolveDidKey(
          'did:web:example.com',
          { did: 'did:web:example.com', didUrl: 'did:web:example.com', method: 'web', id: 'example.com' },
          resolver,
          {},
        )
      ).didResolutionMetadata.error,
    ).toBe('invalidDid');
  });

  it('throws INVALID_DID from the helpers for anything that is not a bare did:key', () => {
    const [did] = entries[0] as [string, Vector];
    const invalidDid = expect.objectContaining({ code: 'INVALID_DID' });
    expect(() => publicKeyFromDidKey('did:web:example.com')).toThrow(invalidDid);
    expect(() => publicKeyFromDidKey('did:key:zzz!')).toThrow(invalidDid);
    expect(() => didKeyDocument(`${did}#frag`)).toThrow(invalidDid);
  });
});
