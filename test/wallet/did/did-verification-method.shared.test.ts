import { describe, expect, it } from 'vitest';
import { hexToBytes } from '../../../wallet/crypto/bytes.ts';
import { isMandateError } from '../../../wallet/crypto/errors.ts';
import { getPublicKey } from '../../../wallet/crypto/ed25519.ts';
import { encodePublicKeyMultibase } from '../../../wallet/crypto/multikey.ts';
import {
  createCachedResolver,
  createKeyResolver,
  createResolver,
  didKeyFromSeed,
  findVerificationMethod,
  resolveDidKey,
  type DidDocument,
  type DidResolutionResult,
  type VerificationMethod,
} from '../../../wallet/did/index.ts';

const seed = hexToBytes('9b937b81322d816cfab9d5a3baacc9b2a5febe4b149f126b3630f93a29527017', 32);
const publicKey = getPublicKey(seed);
const multibase = encodePublicKeyMultibase(publicKey);
const otherKey = encodePublicKeyMultibase(getPublicKey(hexToBytes('11'.repeat(32), 32)));
const DID = 'did:test:alice';

const vm = (id: string, extra: Partial<VerificationMethod> = {}): VerificationMethod => ({
  id,
  type: 'Multikey',
  controller: DID,
  publicKeyMultibase: multibase,
  ...extra,
});

/** A resolver whose did:test method serves crafted documents and metadata by DID. */
function testResolver(docs: Record<string, Partial<DidResolutionResult> & { doc?: DidDocument }>) {
  return createResolver({
    methods: {
      key: resolveDidKey,
      test: async (did) => {
        const entry = docs[did];
        if (!entry)
          return {
            didDocument: null,
            didDocumentMetadata: {},
            didResolutionMetadata: { error: 'notFound', message: 'no such agent' },
          };
        return {
          didDocument: entry.doc ?? null,
          didDocumentMetadata: entry.didDocumentMetadata ?? {},
          didResolutionMetadata: {},
        };
      },
    },
  });
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return isMandateError(error) ? `${error.code}: ${error.message}` : `not a MandateError: ${String(error)}`;
  }
  return undefined;
}

describe('createKeyResolver with did:key', () => {
  const did = didKeyFromSeed(seed);
  const vmId = `${did}#${multibase}`;
  const resolveKey = createKeyResolver(testResolver({}));

  it('returns the Ed25519 key for each of the four signing proof purposes', async () => {
    for (const purpose of ['assertionMethod', 'authentication', 'capabilityInvocation', 'capabilityDelegation']) {
      expect(await resolveKey(vmId, purpose)).toEqual(publicKey);
    }
  });

  it('refuses keyAgreement and unknown proof purposes with KEY_NOT_AUTHORIZED', async () => {
    expect(await codeOf(resolveKey(vmId, 'keyAgreement'))).toMatch(/^KEY_NOT_AUTHORIZED/);
    expect(await codeOf(resolveKey(vmId, 'toString'))).toMatch(/^KEY_NOT_AUTHORIZED/);
  });

  it('refuses a fragment that names no method of the document with KEY_NOT_AUTHORIZED', async () => {
    expect(await codeOf(resolveKey(`${did}#${otherKey}`, 'assertionMethod'))).toMatch(
      /^KEY_NOT_AUTHORIZED: verification method not found/,
    );
  });
});

describe('createKeyResolver with crafted documents', () => {
  const docs = {
    'did:test:alice': {
      doc: {
        id: DID,
        verificationMethod: [
          vm(`${DID}#auth`),
          vm('#relative'),
          vm(`${DID}#foreign`, { controller: 'did:test:mallory' }),
        ],
        authentication: [`${DID}#auth`],
        assertionMethod: ['#relative', vm(`${DID}#embedded`), `${DID}#foreign`],
        capabilityInvocation: [
          vm(`${DID}#ed2020`, { type: 'Ed25519VerificationKey2020' }),
          vm(`${DID}#x25519`, { publicKeyMultibase: 'z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc' }),
        ],
        capabilityDelegation: [
          vm(`${DID}#jwk`, { publicKeyMultibase: undefined, publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: 'AA' } }),
          vm(`${DID}#bad`, { publicKeyMultibase: 'z6Mk!!' }),
        ],
      },
    },
    'did:test:twice': {
      doc: {
        id: 'did:test:twice',
        verificationMethod: [
          vm('did:test:twice#k', { controller: 'did:test:twice' }),
          vm('did:test:twice#k', { controller: 'did:test:twice' }),
        ],
        assertionMethod: ['did:test:twice#k'],
      },
    },
    'did:test:dated': {
      doc: {
        id: 'did:test:dated',
        assertionMethod: [
          vm('did:test:dated#expires', { controller: 'did:test:dated', expires: '2025-06-01T00:00:00Z' }),
          vm('did:test:dated#revoked', { controller: 'did:test:dated', revoked: '2025-03-01T00:00:00Z' }),
          vm('did:test:dated#garbled', { controller: 'did:test:dated', expires: 'soon' }),
          // Date.parse reads these: a time in the verifier's own zone, and the year 99999.
          vm('did:test:dated#zoneless', { controller: 'did:test:dated', expires: '2025-06-01T00:00:00' }),
          vm('did:test:dated#year', { controller: 'did:test:dated', revoked: '99999' }),
        ],
      },
    },
    'did:test:gone': { doc: { id: 'did:test:gone' }, didDocumentMetadata: { deactivated: true } },
    'did:test:swap': { doc: { id: 'did:test:other' } },
  } satisfies Record<string, { doc: DidDocument; didDocumentMetadata?: Record<string, unknown> }>;
  const resolver = testResolver(docs);
  const resolveKey = createKeyResolver(resolver, { now: () => Date.parse('2025-04-01T00:00:00Z') });

  it('accepts referenced, relative and embedded methods for their relationship', async () => {
    expect(await resolveKey(`${DID}#auth`, 'authentication')).toEqual(publicKey);
    expect(await resolveKey(`${DID}#relative`, 'assertionMethod')).toEqual(publicKey);
    expect(await resolveKey(`${DID}#embedded`, 'assertionMethod')).toEqual(publicKey);
  });

  it('KEY_NOT_AUTHORIZED: a method outside the proof purpose relationship (DID Core §5.3)', async () => {
    expect(await codeOf(resolveKey(`${DID}#auth`, 'assertionMethod'))).toMatch(
      /^KEY_NOT_AUTHORIZED: verification method is not authorized for assertionMethod/,
    );
    expect(await codeOf(resolveKey(`${DID}#embedded`, 'authentication'))).toMatch(
      /^KEY_NOT_AUTHORIZED: verification method not found/,
    );
  });

  it('KEY_NOT_AUTHORIZED: a method controlled by another DID, or declared twice', async () => {
    expect(await codeOf(resolveKey(`${DID}#foreign`, 'assertionMethod'))).toMatch(/^KEY_NOT_AUTHORIZED: .*controller/);
    expect(await codeOf(resolveKey('did:test:twice#k', 'assertionMethod'))).toMatch(
      /^KEY_NOT_AUTHORIZED: .*more than once/,
    );
  });

  it('KEY_NOT_AUTHORIZED: revoked, expired or unreadable dates (Controlled Identifiers §2.2)', async () => {
    expect(await codeOf(resolveKey('did:test:dated#revoked', 'assertionMethod'))).toMatch(
      /^KEY_NOT_AUTHORIZED: .*revoked/,
    );
    for (const id of ['garbled', 'zoneless', 'year']) {
      expect(await codeOf(resolveKey(`did:test:dated#${id}`, 'assertionMethod'))).toMatch(
        /^KEY_NOT_AUTHORIZED: verification method (expires|revoked) is not a dateTimeStamp$/,
      );
    }
    expect(await resolveKey('did:test:dated#expires', 'assertionMethod')).toEqual(publicKey);
    const later = createKeyResolver(resolver, { now: () => Date.parse('2025-06-01T00:00:00Z') });
    expect(await codeOf(later('did:test:dated#expires', 'assertionMethod'))).toMatch(/^KEY_NOT_AUTHORIZED: .*expired/);
  });

  it('INVALID_PUBLIC_KEY: not a Multikey, a non-Ed25519 multikey, JWK-only, or bad multibase', async () => {
    expect(await codeOf(resolveKey(`${DID}#ed2020`, 'capabilityInvocation'))).toMatch(
      /^INVALID_PUBLIC_KEY: .*Ed25519VerificationKey2020/,
    );
    expect(await codeOf(resolveKey(`${DID}#x25519`, 'capabilityInvocation'))).toMatch(/^INVALID_PUBLIC_KEY/);
    expect(await codeOf(resolveKey(`${DID}#jwk`, 'capabilityDelegation'))).toMatch(/^INVALID_PUBLIC_KEY/);
    expect(await codeOf(resolveKey(`${DID}#bad`, 'capabilityDelegation'))).toMatch(/^INVALID_PUBLIC_KEY/);
  });

  it('a method with two key materials is refused, whichever resolver served it (DID Core §5.2.1)', async () => {
    const other = encodePublicKeyMultibase(Uint8Array.from({ length: 32 }, (_, i) => i + 1));
    const doc: DidDocument = {
      id: DID,
      assertionMethod: [
        vm(`${DID}#jwk`, { publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: 'AA' } }),
        vm(`${DID}#b58`, { publicKeyBase58: other } as Partial<VerificationMethod>),
      ],
    };
    // Through a registry, the document itself is refused; a bare Resolvable skips that check.
    const registry = testResolver({ [DID]: { doc } });
    const bare = { resolve: async () => ({ didDocument: doc, didDocumentMetadata: {}, didResolutionMetadata: {} }) };
    for (const id of ['jwk', 'b58']) {
      expect(await codeOf(createKeyResolver(registry)(`${DID}#${id}`, 'assertionMethod'))).toMatch(
        /^DID_RESOLUTION_FAILED: .*invalidDidDocument .*more than one verification material/,
      );
      expect(await codeOf(createKeyResolver(bare)(`${DID}#${id}`, 'assertionMethod'))).toMatch(
        /^INVALID_PUBLIC_KEY: .*more than one verification material/,
      );
    }
  });

  it('INVALID_PUBLIC_KEY: a small-order key in a document', async () => {
    const smallOrder = encodePublicKeyMultibase(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0)));
    const resolver = testResolver({
      [DID]: { doc: { id: DID, assertionMethod: [vm(`${DID}#k`, { publicKeyMultibase: smallOrder })] } },
    });
    expect(await codeOf(createKeyResolver(resolver)(`${DID}#k`, 'assertionMethod'))).toMatch(/^INVALID_PUBLIC_KEY/);
  });

  it('DID_RESOLUTION_FAILED names the resolution error', async () => {
    expect(await codeOf(resolveKey('did:test:nobody#k', 'assertionMethod'))).toBe(
      'DID_RESOLUTION_FAILED: DID resolution failed: notFound (no such agent)',
    );
    expect(await codeOf(resolveKey('did:unknown:x#k', 'assertionMethod'))).toMatch(
      /^DID_RESOLUTION_FAILED: .*methodNotSupported/,
    );
    expect(await codeOf(resolveKey('https://example.com/key', 'assertionMethod'))).toMatch(
      /^DID_RESOLUTION_FAILED: .*invalidDid/,
    );
    expect(await codeOf(resolveKey('did:test:swap#k', 'assertionMethod'))).toMatch(
      /^DID_RESOLUTION_FAILED: .*invalidDidDocument/,
    );
    const throwing = createKeyResolver({
      resolve: async () => {
        throw new Error('down');
      },
    });
    expect(await codeOf(throwing('did:test:alice#auth', 'authentication'))).toMatch(
      /^DID_RESOLUTION_FAILED: .*internalError/,
    );
    const empty = createKeyResolver({
      resolve: async () => ({ didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: {} }),
    });
    expect(await codeOf(empty('did:test:alice#auth', 'authentication'))).toMatch(/^DID_RESOLUTION_FAILED: .*notFound/);
  });

  it('DID_DEACTIVATED for a DID whose metadata says deactivated', async () => {
    expect(await codeOf(resolveKey('did:test:gone#k', 'assertionMethod'))).toMatch(/^DID_DEACTIVATED/);
  });
});

describe('createKeyResolver over the same document object', () => {
  const fixed = (doc: DidDocument) =>
    createKeyResolver({
      resolve: async () => ({ didDocument: doc, didDocumentMetadata: {}, didResolutionMetadata: {} }),
    });

  it('hands out a copy of the key each time, so a caller cannot alter the next answer', async () => {
    const doc = Object.freeze({
      id: DID,
      verificationMethod: Object.freeze([Object.freeze(vm(`${DID}#k`))]),
      assertionMethod: Object.freeze([`${DID}#k`]),
    });
    const resolveKey = fixed(doc as DidDocument);
    const first = await resolveKey(`${DID}#k`, 'assertionMethod');
    first.fill(0);
    expect(await resolveKey(`${DID}#k`, 'assertionMethod')).toEqual(publicKey);
    // The remembered answer is per relationship: other relationships are still refused.
    expect(await codeOf(resolveKey(`${DID}#k`, 'authentication'))).toMatch(/^KEY_NOT_AUTHORIZED/);
  });

  it('sees changes to a document that is not frozen (only frozen documents are remembered)', async () => {
    const doc: DidDocument = { id: DID, verificationMethod: [vm(`${DID}#k`)], assertionMethod: [`${DID}#k`] };
    const resolveKey = fixed(doc);
    expect(await resolveKey(`${DID}#k`, 'assertionMethod')).toEqual(publicKey);
    doc.assertionMethod = [];
    expect(await codeOf(resolveKey(`${DID}#k`, 'assertionMethod'))).toMatch(/^KEY_NOT_AUTHORIZED/);
    // Frozen on top but with a mutable method inside: not remembered either.
    const inner = vm(`${DID}#k`);
    const shallow = Object.freeze({
      id: DID,
      verificationMethod: Object.freeze([inner]),
      assertionMethod: Object.freeze([`${DID}#k`]),
    });
    const shallowKey = fixed(shallow as DidDocument);
    expect(await shallowKey(`${DID}#k`, 'assertionMethod')).toEqual(publicKey);
    inner.publicKeyMultibase = otherKey;
    expect(await shallowKey(`${DID}#k`, 'assertionMethod')).not.toEqual(publicKey);
  });

  it('checks expires and revoked against the clock on every call, even for a remembered key', async () => {
    const doc = Object.freeze({
      id: DID,
      assertionMethod: Object.freeze([Object.freeze(vm(`${DID}#k`, { expires: '2025-06-01T00:00:00Z' }))]),
    });
    let now = Date.parse('2025-05-01T00:00:00Z');
    const resolveKey = createKeyResolver(
      {
        resolve: async () => ({ didDocument: doc as DidDocument, didDocumentMetadata: {}, didResolutionMetadata: {} }),
      },
      { now: () => now },
    );
    expect(await resolveKey(`${DID}#k`, 'assertionMethod')).toEqual(publicKey);
    now = Date.parse('2025-07-01T00:00:00Z');
    expect(await codeOf(resolveKey(`${DID}#k`, 'assertionMethod'))).toMatch(/^KEY_NOT_AUTHORIZED: .*expired/);
  });
});

describe('findVerificationMethod', () => {
  it('returns the method object itself for reuse', () => {
    const doc: DidDocument = { id: DID, verificationMethod: [vm(`${DID}#a`)], assertionMethod: [`${DID}#a`] };
    expect(findVerificationMethod(doc, `${DID}#a`, 'assertionMethod')).toBe(doc.verificationMethod?.[0]);
    expect(() => findVerificationMethod(doc, `${DID}#a`, 'keyAgreement')).toThrow(
      expect.objectContaining({ code: 'KEY_NOT_AUTHORIZED' }),
    );
  });
});

describe('createKeyResolver over a cached resolver', () => {
  it('looks once more for a key the cached document lacks (a rotation), at most once per cooldown', async () => {
    let now = Date.parse('2025-05-01T00:00:00Z');
    const before: DidDocument = { id: DID, verificationMethod: [vm(`${DID}#k1`)], assertionMethod: [`${DID}#k1`] };
    const after: DidDocument = {
      id: DID,
      verificationMethod: [vm(`${DID}#k2`), vm(`${DID}#k1`)],
      assertionMethod: [`${DID}#k2`, `${DID}#k1`],
    };
    const docs: Record<string, { doc: DidDocument }> = { [DID]: { doc: before } };
    let calls = 0;
    const inner = testResolver(docs);
    const cached = createCachedResolver({ resolve: (did) => (calls++, inner.resolve(did)) }, { now: () => now });
    const resolveKey = createKeyResolver(cached, { now: () => now });
    expect(await resolveKey(`${DID}#k1`, 'assertionMethod')).toEqual(publicKey);
    docs[DID] = { doc: after }; // the controller rotates #k2 in
    now += 10_000;
    // The cached copy is 10 s old: inside the 30 s cooldown, refused without a fetch.
    expect(await codeOf(resolveKey(`${DID}#k2`, 'assertionMethod'))).toMatch(/^KEY_NOT_AUTHORIZED/);
    expect(calls).toBe(1);
    now += 21_000;
    expect(await resolveKey(`${DID}#k2`, 'assertionMethod')).toEqual(publicKey);
    expect(calls).toBe(2);
    // A made-up key right after: the cooldown holds, and the answer is still no.
    expect(await codeOf(resolveKey(`${DID}#made-up`, 'assertionMethod'))).toMatch(/^KEY_NOT_AUTHORIZED/);
    expect(calls).toBe(2);
  });
});
