import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertDidDocument,
  createKeyResolver,
  createResolver,
  parseDid,
  resolveDidKey,
  type DidResolutionResult,
  type MethodResolver,
} from '../../../wallet/did/index.ts';
import { DID_SYNTAX, isDid } from '../../../wallet/did/parse.ts';

const KEY_DID = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';

const docFor = (did: string): DidResolutionResult => ({
  didDocument: { id: did },
  didDocumentMetadata: {},
  didResolutionMetadata: {},
});

// DIF did-resolver v4 types, copied in shape (with their `any`s), to prove plug-compatibility at compile time.
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-redundant-type-constituents -- copied verbatim from did-resolver */
interface DifExtensible {
  [x: string]: any;
}
interface DifJwk extends DifExtensible {
  kty: string;
  crv?: string;
  x?: string;
  key_ops?: string[];
  ext?: boolean;
}
interface DifVerificationMethod {
  id: string;
  type: string;
  controller: string;
  publicKeyBase58?: string;
  publicKeyJwk?: DifJwk;
  publicKeyMultibase?: string;
  blockchainAccountId?: string;
}
type DifServiceEndpoint = string | Record<string, any>;
interface DifService {
  id: string;
  type: string;
  serviceEndpoint: DifServiceEndpoint | DifServiceEndpoint[];
  [x: string]: any;
}
type DifKeyCapabilitySection =
  'authentication' | 'assertionMethod' | 'keyAgreement' | 'capabilityInvocation' | 'capabilityDelegation';
type DifDidDocument = {
  '@context'?: 'https://www.w3.org/ns/did/v1' | string | string[];
  id: string;
  alsoKnownAs?: string[];
  controller?: string | string[];
  verificationMethod?: DifVerificationMethod[];
  service?: DifService[];
  publicKey?: DifVerificationMethod[];
} & { [x in DifKeyCapabilitySection]?: (string | DifVerificationMethod)[] };
interface DifResolutionResult {
  '@context'?: 'https://w3id.org/did-resolution/v1' | string | string[];
  didResolutionMetadata: DifExtensible & {
    contentType?: string;
    error?: 'invalidDid' | 'notFound' | 'representationNotSupported' | 'unsupportedDidMethod' | string;
  };
  didDocument: DifDidDocument | null;
  didDocumentMetadata: DifExtensible & {
    created?: string;
    updated?: string;
    deactivated?: boolean;
    versionId?: string;
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-redundant-type-constituents */
interface DifParsedDid {
  did: string;
  didUrl: string;
  method: string;
  id: string;
  path?: string;
  fragment?: string;
  query?: string;
  params?: Record<string, string>;
}
interface DifResolvable {
  resolve: (didUrl: string, options?: DifExtensible & { accept?: string }) => Promise<DifResolutionResult>;
}
type DifResolver = (
  did: string,
  parsed: DifParsedDid,
  resolver: DifResolvable,
  options: DifExtensible,
) => Promise<DifResolutionResult>;

describe('parseDid (DID Core §3.1–3.2)', () => {
  it('splits a DID URL into DID, method, id, path, query and fragment', () => {
    expect(parseDid('did:web:example.com%3A8443:agents:a1/path/x?versionId=2&a=b#key-1')).toEqual({
      did: 'did:web:example.com%3A8443:agents:a1',
      didUrl: 'did:web:example.com%3A8443:agents:a1/path/x?versionId=2&a=b#key-1',
      method: 'web',
      id: 'example.com%3A8443:agents:a1',
      path: '/path/x',
      query: 'versionId=2&a=b',
      fragment: 'key-1',
    });
    expect(parseDid(KEY_DID)).toEqual({ did: KEY_DID, didUrl: KEY_DID, method: 'key', id: KEY_DID.slice(8) });
    expect(parseDid('did:ex::a')).toMatchObject({ id: ':a' }); // empty id segments are allowed, a trailing ":" is not
  });

  it('isDid agrees with DID_SYNTAX (its flat fast path included) and with parseDid, on DIDs and near-DIDs', () => {
    const text = fc
      .array(fc.constantFrom(...'did:ke0aZ9._-%3A:/#? '.split('')), { maxLength: 24 })
      .map((a) => a.join(''));
    const candidates = fc.oneof(
      text.map((t) => `did:${t}`),
      text.map((t) => `did:ex:${t}`),
      text,
    );
    fc.assert(
      fc.property(candidates, (candidate) => {
        const bare = (() => {
          try {
            return parseDid(candidate).did === candidate;
          } catch {
            return false;
          }
        })();
        expect(isDid(candidate), candidate).toBe(DID_SYNTAX.test(candidate));
        expect(isDid(candidate), candidate).toBe(bare);
      }),
      { numRuns: 2000 },
    );
  });

  it('splits every generated DID URL so that its parts spell it again (simple and full grammar alike)', () => {
    const chars = (alphabet: string) =>
      fc.array(fc.constantFrom(...alphabet.split('')), { maxLength: 12 }).map((a) => a.join(''));
    const idchars = 'aZ09._-';
    const segment = fc.oneof(chars(idchars), fc.constant('%3A'));
    const didUrl = fc
      .record({
        method: fc.constantFrom('key', 'web', 'ex1'),
        segments: fc.array(segment, { maxLength: 3 }),
        last: fc.tuple(fc.constantFrom(...idchars.split('')), chars(idchars)).map(([a, b]) => a + b),
        path: fc.option(
          fc.array(chars("a~!$&'()*+,;=:@-"), { minLength: 1, maxLength: 2 }).map((p) => `/${p.join('/')}`),
          { nil: undefined },
        ),
        query: fc.option(chars('a=&/?%'.replace('%', '')), { nil: undefined }),
        fragment: fc.option(chars("z6Mk-._~!$&'()*+,;=:@/?"), { nil: undefined }),
      })
      .map((p) => ({ ...p, id: [...p.segments, p.last].join(':') }));
    fc.assert(
      fc.property(didUrl, (p) => {
        const text = `did:${p.method}:${p.id}${p.path ?? ''}${p.query === undefined ? '' : `?${p.query}`}${p.fragment === undefined ? '' : `#${p.fragment}`}`;
        const parsed = parseDid(text);
        expect(parsed).toEqual({
          did: `did:${p.method}:${p.id}`,
          didUrl: text,
          method: p.method,
          id: p.id,
          ...(p.path && { path: p.path }),
          ...(p.query !== undefined && { query: p.query }),
          ...(p.fragment !== undefined && { fragment: p.fragment }),
        });
      }),
      { numRuns: 500 },
    );
  });

  it('throws INVALID_DID on everything the grammar refuses', () => {
    for (const bad of [
      'did:Key:abc', // method names are lower case
      'did:key:',
      'did:key:abc:', // last segment must be non-empty
      'did:key:a b',
      'did:key:%zz',
      'did:key',
      'DID:key:abc',
      'did:ke_y:abc',
      'did:key:abc#frag ment',
      `did:key:${'a'.repeat(5000)}`,
      42 as unknown as string,
    ]) {
      expect(() => parseDid(bad), String(bad).slice(0, 30)).toThrow(expect.objectContaining({ code: 'INVALID_DID' }));
    }
  });
});

describe('createResolver', () => {
  it('resolves through the registered method and passes the parsed DID to it', async () => {
    const seen: unknown[] = [];
    const resolver = createResolver({
      methods: {
        ex: async (did, parsed, _resolver, options) => {
          seen.push({ did, parsed, options });
          return docFor(did);
        },
      },
    });
    const result = await resolver.resolve('did:ex:123/p?q=1#f', { accept: 'application/did+json' });
    expect(result.didDocument).toEqual({ id: 'did:ex:123' });
    expect(seen).toEqual([
      {
        did: 'did:ex:123',
        parsed: {
          did: 'did:ex:123',
          didUrl: 'did:ex:123/p?q=1#f',
          method: 'ex',
          id: '123',
          path: '/p',
          query: 'q=1',
          fragment: 'f',
        },
        options: { accept: 'application/did+json' },
      },
    ]);
  });

  it('never throws: invalidDid, methodNotSupported', async () => {
    const resolver = createResolver({ methods: { key: resolveDidKey } });
    const invalid = await resolver.resolve('did:KEY:x');
    expect(invalid).toMatchObject({ didDocument: null, didResolutionMetadata: { error: 'invalidDid' } });
    const unknown = await resolver.resolve('did:nope:123');
    expect(unknown).toMatchObject({ didDocument: null, didResolutionMetadata: { error: 'methodNotSupported' } });
    expect(await resolver.resolve(undefined as unknown as string)).toMatchObject({
      didResolutionMetadata: { error: 'invalidDid' },
    });
  });

  it('turns a throwing method resolver into internalError without leaking what it threw', async () => {
    const resolver = createResolver({
      methods: {
        boom: async () => {
          throw new Error('db password is hunter2');
        },
        sync: () => {
          throw new Error('secret');
        },
        junk: async () => 'not a result' as unknown as DidResolutionResult,
      },
    });
    for (const did of ['did:boom:1', 'did:sync:1', 'did:junk:1']) {
      const result = await resolver.resolve(did);
      expect(result.didResolutionMetadata.error).toBe('internalError');
      expect(result.didDocument).toBeNull();
      expect(JSON.stringify(result)).not.toMatch(/hunter2|secret/);
    }
  });

  it('fails closed on a document for another DID, and drops documents from error results', async () => {
    const resolver = createResolver({
      methods: {
        liar: async () => docFor('did:liar:someone-else'),
        both: async (did) => ({ ...docFor(did), didResolutionMetadata: { error: 'notFound' } }),
        empty: async () => ({ didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: {} }),
      },
    });
    expect((await resolver.resolve('did:liar:me')).didResolutionMetadata.error).toBe('invalidDidDocument');
    expect(await resolver.resolve('did:both:1')).toMatchObject({
      didDocument: null,
      didResolutionMetadata: { error: 'notFound' },
    });
    expect((await resolver.resolve('did:empty:1')).didResolutionMetadata.error).toBe('notFound');
  });

  it('fails closed on a malformed document from a plugin: invalidDidDocument, never a TypeError in a key lookup later', async () => {
    const odd =
      (extra: Record<string, unknown>): MethodResolver =>
      async (did) => {
        const result = docFor(did);
        return { ...result, didDocument: { ...result.didDocument, ...extra } as DidResolutionResult['didDocument'] };
      };
    const resolver = createResolver({
      methods: {
        object: odd({ verificationMethod: {} }),
        nulls: odd({ assertionMethod: [null] }),
        string: odd({ assertionMethod: 'did:string:1#k' }),
        anonymous: odd({ authentication: [{ type: 'Multikey', publicKeyMultibase: 'z6Mk' }] }),
      },
    });
    for (const did of ['did:object:1', 'did:nulls:1', 'did:string:1', 'did:anonymous:1']) {
      const result = await resolver.resolve(did);
      expect(result, did).toMatchObject({ didDocument: null, didResolutionMetadata: { error: 'invalidDidDocument' } });
      await expect(createKeyResolver(resolver)(`${did}#k`, 'assertionMethod'), did).rejects.toMatchObject({
        code: 'DID_RESOLUTION_FAILED',
      });
    }
  });

  it('register adds or replaces a method; bad names and non-functions throw INVALID_METHOD_RESOLVER', async () => {
    const resolver = createResolver();
    expect((await resolver.resolve('did:ex:1')).didResolutionMetadata.error).toBe('methodNotSupported');
    resolver.register('ex', async (did) => docFor(did));
    expect((await resolver.resolve('did:ex:1')).didDocument?.id).toBe('did:ex:1');
    expect(() => resolver.register('Bad', async (did) => docFor(did))).toThrow(
      expect.objectContaining({ code: 'INVALID_METHOD_RESOLVER' }),
    );
    expect(() => resolver.register('ok', 'nope' as unknown as MethodResolver)).toThrow(
      expect.objectContaining({ code: 'INVALID_METHOD_RESOLVER' }),
    );
    expect(() => createResolver({ lazyMethods: { 'a-b': async () => async () => docFor('x') } })).toThrow(
      expect.objectContaining({ code: 'INVALID_METHOD_RESOLVER' }),
    );
    expect(() => createResolver({ lazyMethods: { ok: 'nope' as never } })).toThrow(
      expect.objectContaining({ code: 'INVALID_METHOD_RESOLVER' }),
    );
  });

  it('imports a lazy method only when a DID of that method is first resolved, once for concurrent calls', async () => {
    let loads = 0;
    const resolver = createResolver({
      methods: { key: resolveDidKey },
      lazyMethods: {
        ex: async () => {
          loads++;
          return { default: async (did: string) => docFor(did) };
        },
      },
    });
    await resolver.resolve(KEY_DID);
    await resolver.resolve('did:other:1');
    expect(loads).toBe(0);
    const results = await Promise.all([1, 2, 3].map((n) => resolver.resolve(`did:ex:${n}`)));
    expect(results.map((r) => r.didDocument?.id)).toEqual(['did:ex:1', 'did:ex:2', 'did:ex:3']);
    await resolver.resolve('did:ex:4');
    expect(loads).toBe(1);
  });

  it('accepts a bare resolver or DIF getResolver() output from a lazy loader', async () => {
    const resolver = createResolver({
      lazyMethods: {
        bare: async () => async (did: string) => docFor(did),
        dif: async () => ({ dif: async (did: string) => docFor(did) }),
        empty: async () => ({}),
      },
    });
    expect((await resolver.resolve('did:bare:1')).didDocument?.id).toBe('did:bare:1');
    expect((await resolver.resolve('did:dif:1')).didDocument?.id).toBe('did:dif:1');
    expect((await resolver.resolve('did:empty:1')).didResolutionMetadata.error).toBe('internalError');
  });

  it('reports a failing lazy import as internalError and retries it on the next resolution', async () => {
    let attempts = 0;
    const resolver = createResolver({
      lazyMethods: {
        flaky: async () => {
          attempts++;
          if (attempts === 1) throw new Error('chunk load failed');
          return async (did: string) => docFor(did);
        },
      },
    });
    expect((await resolver.resolve('did:flaky:1')).didResolutionMetadata.error).toBe('internalError');
    expect((await resolver.resolve('did:flaky:1')).didDocument?.id).toBe('did:flaky:1');
    expect(attempts).toBe(2);
  });

  it('is type-compatible with DIF did-resolver in both directions', async () => {
    // A DIF method resolver plugs into createResolver as is …
    const difResolver: DifResolver = async (did) => ({
      didDocument: {
        id: did,
        verificationMethod: [
          {
            id: `${did}#k`,
            type: 'JsonWebKey2020',
            controller: did,
            publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: 'AA' },
          },
        ],
      },
      didDocumentMetadata: {},
      didResolutionMetadata: { contentType: 'application/did+json' },
    });
    const resolver = createResolver({ methods: { dif: difResolver } });
    expect((await resolver.resolve('did:dif:1')).didDocument?.verificationMethod?.[0]?.type).toBe('JsonWebKey2020');
    // … and ours satisfies DIF's resolver type.
    const ours: DifResolver = resolveDidKey;
    const difResult = await ours(KEY_DID, parseDid(KEY_DID), resolver, {});
    expect(difResult.didDocument?.id).toBe(KEY_DID);
  });
});

describe('assertDidDocument', () => {
  it('returns a well-formed document and throws INVALID_DID_DOCUMENT on a malformed one', () => {
    const good = {
      '@context': ['https://www.w3.org/ns/did/v1', { '@vocab': 'https://example.com/#' }],
      id: 'did:ex:1',
      verificationMethod: [{ id: 'did:ex:1#k', type: 'Multikey', controller: 'did:ex:1', publicKeyMultibase: 'z6Mk' }],
      authentication: ['did:ex:1#k', { id: '#e', type: 'Multikey', controller: 'did:ex:1' }],
      service: [{ id: '#s', type: ['A', 'B'], serviceEndpoint: 'https://example.com' }],
      custom: 'kept',
    };
    expect(assertDidDocument(good, 'did:ex:1')).toBe(good);
    const bad: unknown[] = [
      null,
      [],
      { id: 'did:ex:2' },
      { id: 'did:ex:1', '@context': 5 },
      { id: 'did:ex:1', controller: [1] },
      { id: 'did:ex:1', verificationMethod: {} },
      { id: 'did:ex:1', verificationMethod: [{ id: 'x', type: 'Multikey' }] },
      { id: 'did:ex:1', verificationMethod: [{ id: 'x', type: 'Multikey', controller: 'c', publicKeyMultibase: 5 }] },
      { id: 'did:ex:1', verificationMethod: [{ id: 'x', type: 'Multikey', controller: 'c', publicKeyJwk: 'k' }] },
      { id: 'did:ex:1', verificationMethod: [{ id: 'x', type: 'Multikey', controller: 'c', revoked: 5 }] },
      { id: 'did:ex:1', assertionMethod: [5] },
      { id: 'did:ex:1', service: [{ id: 's', type: 'T' }] },
      { id: 'did:ex:1', alsoKnownAs: new Array(300).fill('x') },
    ];
    for (const value of bad)
      expect(() => assertDidDocument(value, 'did:ex:1'), JSON.stringify(value)?.slice(0, 60)).toThrow(
        expect.objectContaining({ code: 'INVALID_DID_DOCUMENT' }),
      );
  });
});
