import { describe, expect, inject, it, vi } from 'vitest';
import canonicalize from 'canonicalize';
import { hexToBytes, utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { seedSigner, verify, type Signer } from '../../../wallet/crypto/ed25519.ts';
import { decodeBase58btc, encodePublicKeyMultibase } from '../../../wallet/crypto/multikey.ts';
import {
  createKeyResolver,
  createResolver,
  resolveDidKey,
  type DidDocument,
  type MethodResolver,
} from '../../../wallet/did/index.ts';
import {
  createLedgerMessage,
  createLedgerResolver,
  didLedgerFromPublicKey,
  encodeLedgerMessage,
  type LedgerMessage,
} from '../../../wallet/did/ledger.ts';
import { ed25519KeyFromMultibase } from '../../../wallet/did/public-key.ts';

// Every Ed25519 key the DID layer accepts from a document goes through ed25519KeyFromMultibase
// (the root key of a did:ledger, and each capabilityInvocation method via publicKeyOf). Spying on
// it, with the real implementation kept, measures replay work as a count of key checks.
vi.mock(import('../../../wallet/did/public-key.ts'), { spy: true });
const keyChecks = vi.mocked(ed25519KeyFromMultibase);

const base = inject('fixtureBaseUrl');
const run = `l${Math.random().toString(36).slice(2, 10)}`; // node and browser share one fixture server
const mirrorPath = `/${run}-mirror`;
const mirrorBaseUrl = `${base}${mirrorPath}`;

const root = seedSigner(hexToBytes('01'.repeat(32), 32));
const delegate = seedSigner(hexToBytes('02'.repeat(32), 32));
const stranger = seedSigner(hexToBytes('03'.repeat(32), 32));

let topicSeq = 0;
/** A fresh topic (and so a fresh DID) per test. */
function newTopic(): string {
  topicSeq++;
  return `0.${Math.floor(Math.random() * 1e6)}.${topicSeq}`;
}

/** Signed-timestamp n seconds after a fixed start. */
const at = (n: number): string => new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString();

function documentFor(did: string, extraKey?: Signer): DidDocument {
  const vmId = `${did}#root`;
  const doc: DidDocument = {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    verificationMethod: [
      { id: vmId, type: 'Multikey', controller: did, publicKeyMultibase: encodePublicKeyMultibase(root.publicKey) },
    ],
    assertionMethod: [vmId],
    capabilityInvocation: [vmId],
  };
  if (extraKey) {
    doc.verificationMethod?.push({
      id: `${did}#delegate`,
      type: 'Multikey',
      controller: did,
      publicKeyMultibase: encodePublicKeyMultibase(extraKey.publicKey),
    });
    doc.capabilityInvocation?.push('#delegate');
  }
  return doc;
}

type MirrorEntry = { consensus_timestamp: string; sequence_number: unknown; message: string; topic_id?: string };

function entry(message: LedgerMessage | string, sequence: number): MirrorEntry {
  return {
    consensus_timestamp: `${1_735_689_600 + sequence}.000000123`,
    sequence_number: sequence,
    message: typeof message === 'string' ? message : encodeLedgerMessage(message),
  };
}

/** Publishes one mirror page; path defaults to the topic's first page. */
async function publishPage(
  topicId: string,
  messages: MirrorEntry[],
  next: string | null = null,
  path = `${mirrorPath}/api/v1/topics/${topicId}/messages`,
): Promise<void> {
  const response = await fetch(`${base}/host${path}`, {
    method: 'PUT',
    body: JSON.stringify({ messages, links: { next } }),
    headers: { 'content-type': 'application/json' },
  });
  expect(response.status).toBe(204);
}

function message(
  operation: 'create' | 'update' | 'deactivate',
  did: string,
  n: number,
  signer: Signer = root,
  document?: DidDocument,
): Promise<LedgerMessage> {
  return createLedgerMessage({
    operation,
    did,
    timestamp: at(n),
    signer,
    document: operation === 'deactivate' ? undefined : (document ?? documentFor(did)),
  });
}

const ledger = createLedgerResolver({ mirrorBaseUrl, network: 'testnet' });
const resolver = createResolver({ methods: { ledger } });

describe('did:ledger messages', () => {
  it('signs the JCS (RFC 8785) of the message without its signature, base58btc-encoded', async () => {
    const did = didLedgerFromPublicKey(root.publicKey, '0.0.1234', 'testnet');
    expect(did).toBe(`did:ledger:testnet:${encodePublicKeyMultibase(root.publicKey)}_0.0.1234`);
    const signed = await message('create', did, 1);
    const { signature, ...unsigned } = signed;
    expect(signature).toMatch(/^z/);
    const oracle = canonicalize(unsigned) as string;
    expect(await verify(decodeBase58btc(signature), utf8ToBytes(oracle), root.publicKey)).toBe(true);
    expect(
      JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(encodeLedgerMessage(signed)), (c) => c.charCodeAt(0)))),
    ).toEqual(signed);
  });

  it('gives messages made back to back strictly increasing timestamps by default', async () => {
    const did = didLedgerFromPublicKey(root.publicKey, '0.0.1');
    const a = await createLedgerMessage({ operation: 'deactivate', did, signer: root });
    const b = await createLedgerMessage({ operation: 'deactivate', did, signer: root });
    expect(Date.parse(b.timestamp)).toBeGreaterThan(Date.parse(a.timestamp));
  });

  it('throws INVALID_DID / INVALID_DID_DOCUMENT for messages that could never apply', async () => {
    const did = didLedgerFromPublicKey(root.publicKey, '0.0.1');
    const keyDid = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';
    await expect(
      createLedgerMessage({ operation: 'create', did: keyDid, document: documentFor(keyDid), signer: root }),
    ).rejects.toMatchObject({ code: 'INVALID_DID' });
    await expect(createLedgerMessage({ operation: 'create', did, signer: root })).rejects.toMatchObject({
      code: 'INVALID_DID_DOCUMENT',
    });
    await expect(
      createLedgerMessage({
        operation: 'update',
        did,
        document: documentFor('did:ledger:mainnet:other_0.0.2'),
        signer: root,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_DID_DOCUMENT' });
    await expect(
      createLedgerMessage({ operation: 'deactivate', did, document: documentFor(did), signer: root }),
    ).rejects.toMatchObject({ code: 'INVALID_DID_DOCUMENT' });
    await expect(
      createLedgerMessage({
        operation: 'create',
        did,
        document: documentFor(did),
        timestamp: 'yesterday',
        signer: root,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_DID_DOCUMENT' });
    await expect(createLedgerMessage({ operation: 'rename' as never, did, signer: root })).rejects.toMatchObject({
      code: 'INVALID_DID_DOCUMENT',
    });
    expect(() => didLedgerFromPublicKey(root.publicKey, '0.0')).toThrow(
      expect.objectContaining({ code: 'INVALID_DID' }),
    );
    expect(() => didLedgerFromPublicKey(new Uint8Array(32).fill(0).fill(1, 0, 1), '0.0.1')).toThrow(
      expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }),
    );
  });
});

describe('did:ledger resolution from a mirror node', () => {
  it('is imported lazily: the loader runs only when a did:ledger is first resolved', async () => {
    let loads = 0;
    const lazy = createResolver({
      methods: { key: resolveDidKey },
      lazyMethods: {
        ledger: () => {
          loads++;
          return import('../../../wallet/did/ledger.ts').then((m): MethodResolver =>
            m.createLedgerResolver({ mirrorBaseUrl, network: 'testnet' }),
          );
        },
      },
    });
    await lazy.resolve('did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp');
    expect(loads).toBe(0);
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    await publishPage(topic, [entry(await message('create', did, 1), 1)]);
    expect((await lazy.resolve(did)).didDocument?.id).toBe(did);
    await lazy.resolve(did);
    expect(loads).toBe(1);
  });

  it('resolves a created DID with ledger-time metadata and replay counts', async () => {
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    await publishPage(topic, [entry(await message('create', did, 1), 1)]);
    const result = await resolver.resolve(did);
    expect(result.didDocument).toEqual(documentFor(did));
    expect(result.didDocumentMetadata).toEqual({
      created: '2025-01-01T00:00:01.000Z',
      updated: '2025-01-01T00:00:01.000Z',
      versionId: '1',
    });
    expect(result.didResolutionMetadata).toEqual({
      contentType: 'application/did+json',
      ledger: {
        pages: 1,
        messages: 1,
        applied: 1,
        ignored: { malformed: 0, wrongDid: 0, badSignature: 0, outOfOrder: 0 },
      },
    });
    // and its key serves proofs
    expect(await createKeyResolver(resolver)(`${did}#root`, 'assertionMethod')).toEqual(root.publicKey);
  });

  it('applies updates signed by the root key or a capabilityInvocation key; ignores strangers', async () => {
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    const withDelegate = documentFor(did, delegate);
    const byDelegate = { ...documentFor(did, delegate), alsoKnownAs: ['https://agents.example/a1'] };
    const byStranger = { ...documentFor(did), alsoKnownAs: ['https://evil.example'] };
    await publishPage(topic, [
      entry(await message('create', did, 1, root, withDelegate), 1),
      entry(await message('update', did, 2, delegate, byDelegate), 2),
      entry(await message('update', did, 3, stranger, byStranger), 3),
    ]);
    const result = await resolver.resolve(did);
    expect(result.didDocument).toEqual(byDelegate);
    expect(result.didDocumentMetadata).toMatchObject({
      created: '2025-01-01T00:00:01.000Z',
      updated: '2025-01-01T00:00:02.000Z',
      versionId: '2',
    });
    expect(result.didResolutionMetadata.ledger).toMatchObject({
      messages: 3,
      applied: 2,
      ignored: { badSignature: 1 },
    });
  });

  it('ignores a message dated more than 10 minutes from its consensus time: a delegate cannot freeze the DID', async () => {
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    const withDelegate = documentFor(did, delegate);
    const rootOnly = { ...documentFor(did), alsoKnownAs: ['https://agents.example/rotated'] };
    const farFuture = await createLedgerMessage({
      operation: 'update',
      did,
      timestamp: '+275760-09-13T00:00:00.000Z',
      signer: delegate,
      document: withDelegate,
    });
    const lateStamp = await message('update', did, 2 + 11 * 60, delegate, withDelegate); // 11 minutes after its consensus time
    await publishPage(topic, [
      entry(await message('create', did, 1, root, withDelegate), 1),
      entry(farFuture, 2),
      entry(lateStamp, 3),
      entry(await message('update', did, 4, root, rootOnly), 4), // the root removes the delegate
    ]);
    const result = await resolver.resolve(did);
    expect(result.didDocument).toEqual(rootOnly);
    expect(result.didResolutionMetadata.ledger).toMatchObject({ applied: 2, ignored: { outOfOrder: 2 } });
  });

  it('ignores and counts malformed, foreign, out-of-order and replayed messages; the last valid state wins', async () => {
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    const other = didLedgerFromPublicKey(stranger.publicKey, topic, 'testnet');
    const v1 = { ...documentFor(did), alsoKnownAs: ['https://v1.example'] };
    const v2 = { ...documentFor(did), alsoKnownAs: ['https://v2.example'] };
    const oldUpdate = await message('update', did, 2, root, v1);
    const tampered = { ...(await message('update', did, 9, root, v1)), timestamp: at(10) };
    await publishPage(topic, [
      entry(await message('update', did, 0, root, v1), 1), // before create
      entry('%%% not base64 %%%', 2),
      entry(btoa('{"operation":"create"'), 3), // not JSON
      entry(btoa('{"operation":"create","did":"x"}'), 4), // missing fields
      entry(await message('create', other, 1, stranger), 5), // another DID on the topic
      entry(await message('create', did, 1), 6),
      entry(await message('create', did, 1), 7), // second create
      entry(oldUpdate, 8),
      entry(await message('update', did, 3, root, v2), 9),
      entry(oldUpdate, 10), // replay of an older, validly signed update
      entry(tampered, 11), // signed over another timestamp
      entry(await message('update', did, 20, root, v1), 11), // sequence number not increasing
      { consensus_timestamp: 'yesterday', sequence_number: 12, message: '' },
    ]);
    const result = await resolver.resolve(did);
    expect(result.didDocument).toEqual(v2);
    expect(result.didDocumentMetadata.versionId).toBe('9');
    expect(result.didResolutionMetadata.ledger).toEqual({
      pages: 1,
      messages: 13,
      applied: 3,
      ignored: { malformed: 4, wrongDid: 1, badSignature: 1, outOfOrder: 4 },
    });
  });

  it('reports deactivation, withholds the keys, and ignores anything after it', async () => {
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    await publishPage(topic, [
      entry(await message('create', did, 1), 1),
      entry(await message('deactivate', did, 2), 2),
      entry(await message('update', did, 3), 3),
    ]);
    const result = await resolver.resolve(did);
    expect(result.didDocumentMetadata).toMatchObject({ deactivated: true, updated: '2025-01-01T00:00:02.000Z' });
    expect(result.didDocument).toEqual({ '@context': ['https://www.w3.org/ns/did/v1'], id: did });
    expect(result.didResolutionMetadata.ledger).toMatchObject({ applied: 2, ignored: { outOfOrder: 1 } });
    await expect(createKeyResolver(resolver)(`${did}#root`, 'assertionMethod')).rejects.toMatchObject({
      code: 'DID_DEACTIVATED',
    });
  });

  it('follows links.next within the mirror', async () => {
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    const page2 = `${mirrorPath}/page2/${topic}`;
    await publishPage(topic, [entry(await message('create', did, 1), 1)], `${page2}?limit=100&sequencenumber=gt:1`);
    const v2 = { ...documentFor(did), alsoKnownAs: ['https://v2.example'] };
    await publishPage(topic, [entry(await message('update', did, 2, root, v2), 2)], null, page2);
    const result = await resolver.resolve(did);
    expect(result.didDocument).toEqual(v2);
    expect(result.didResolutionMetadata.ledger).toMatchObject({ pages: 2, applied: 2 });
  });

  it('fails closed (internalError) rather than return a partial history', async () => {
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    const create = entry(await message('create', did, 1), 1);
    const first = `${mirrorPath}/api/v1/topics/${topic}/messages`;

    await publishPage(topic, [create], 'https://mirror.evil.example/api/v1/topics/x');
    expect((await resolver.resolve(did)).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/leaves the mirror/),
    });
    await publishPage(topic, [create], `${base}/elsewhere/api`);
    expect((await resolver.resolve(did)).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/leaves the mirror/),
    });

    await publishPage(topic, [create], `${first}?page=again`); // the fixture serves the same page again: a loop
    expect((await resolver.resolve(did)).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/pages or loops/),
    });

    await publishPage(topic, [create], `${mirrorPath}/p2/${topic}`);
    await publishPage(topic, [], null, `${mirrorPath}/p2/${topic}`);
    const onePage = createResolver({
      methods: { ledger: createLedgerResolver({ mirrorBaseUrl, network: 'testnet', maxPages: 1 }) },
    });
    expect((await onePage.resolve(did)).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/1 pages/),
    });
    expect((await resolver.resolve(did)).didDocument?.id).toBe(did);

    await publishPage(topic, [
      create,
      entry(await message('update', did, 2), 2),
      entry(await message('update', did, 3), 3),
    ]);
    const fewMessages = createResolver({
      methods: { ledger: createLedgerResolver({ mirrorBaseUrl, network: 'testnet', maxMessages: 2 }) },
    });
    expect((await fewMessages.resolve(did)).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/2 messages/),
    });
  });

  it('maps mirror failures: 404 → notFound, no valid create → notFound, bad pages and slowness → internalError', async () => {
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    expect((await resolver.resolve(did)).didResolutionMetadata.error).toBe('notFound');

    await publishPage(topic, [entry(await message('create', did, 1, stranger), 1)]);
    const unsigned = await resolver.resolve(did);
    expect(unsigned.didResolutionMetadata).toMatchObject({
      error: 'notFound',
      ledger: { ignored: { badSignature: 1 } },
    });

    await fetch(`${base}/host${mirrorPath}/api/v1/topics/${topic}/messages`, {
      method: 'PUT',
      body: '{"messages":{}}',
      headers: { 'content-type': 'application/json' },
    });
    expect((await resolver.resolve(did)).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/malformed page/),
    });

    // <base>/slow/5000/api/v1/… is answered after 5 s
    const slow = createResolver({
      methods: {
        ledger: createLedgerResolver({ mirrorBaseUrl: `${base}/slow/5000`, network: 'testnet', timeoutMs: 150 }),
      },
    });
    expect((await slow.resolve(did)).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: expect.stringMatching(/timed out/),
    });
  });

  it('answers only for its network and only for well-formed did:ledgers', async () => {
    const mainnet = didLedgerFromPublicKey(root.publicKey, '0.0.7', 'mainnet');
    expect((await resolver.resolve(mainnet)).didResolutionMetadata.error).toBe('methodNotSupported');
    const smallOrder = encodePublicKeyMultibase(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0)));
    for (const did of [
      'did:ledger:testnet:abc',
      `did:ledger:testnet:${encodePublicKeyMultibase(root.publicKey)}`,
      `did:ledger:testnet:${encodePublicKeyMultibase(root.publicKey)}_0.0`,
      `did:ledger:testnet:${smallOrder}_0.0.1`,
      `did:ledger:${encodePublicKeyMultibase(root.publicKey)}_0.0.1`,
    ]) {
      expect((await resolver.resolve(did)).didResolutionMetadata.error, did).toBe('invalidDid');
    }
  });

  it('throws INVALID_OPTIONS for an unusable configuration', () => {
    for (const options of [
      { mirrorBaseUrl: 'not a url' },
      { mirrorBaseUrl: 'ftp://mirror.example' },
      { mirrorBaseUrl: 'https://user:pw@mirror.example' },
      { mirrorBaseUrl: 'https://mirror.example', network: 'Test-Net' },
      { mirrorBaseUrl: 'https://mirror.example', maxPages: 0 },
      { mirrorBaseUrl: 'https://mirror.example', timeoutMs: -1 },
    ]) {
      expect(() => createLedgerResolver(options), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTIONS' }),
      );
    }
  });
});

describe('did:ledger replay cost and deadline', () => {
  // Small order (the identity point): refused by every key check, whatever its method id.
  const invalidKey = encodePublicKeyMultibase(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0)));

  /**
   * A document whose capabilityInvocation lists `invalid` methods with invalid keys, then `last`
   * if given. Relative ids keep 255 methods under the 64 KiB a signed message may hold.
   */
  function documentWithInvalidKeys(did: string, invalid: number, last?: Signer): DidDocument {
    const doc = documentFor(did);
    doc.capabilityInvocation = [];
    for (let i = 0; i < invalid; i++) {
      doc.verificationMethod?.push({
        id: `#bad${i}`,
        type: 'Multikey',
        controller: did,
        publicKeyMultibase: invalidKey,
      });
      doc.capabilityInvocation.push(`#bad${i}`);
    }
    if (last) {
      doc.verificationMethod?.push({
        id: `${did}#last`,
        type: 'Multikey',
        controller: did,
        publicKeyMultibase: encodePublicKeyMultibase(last.publicKey),
      });
      doc.capabilityInvocation.push('#last');
    }
    return doc;
  }

  /** Deactivations signed by a stranger, in order after `from`: junk anyone can post. */
  async function junk(did: string, from: number, count: number): Promise<MirrorEntry[]> {
    const entries: MirrorEntry[] = [];
    for (let n = from; n < from + count; n++) entries.push(entry(await message('deactivate', did, n, stranger), n));
    return entries;
  }

  it('examines only the first 8 capabilityInvocation entries: an entry without a usable key uses up its place', async () => {
    for (const [invalid, delegateSigns] of [
      [7, true],
      [8, false],
    ] as const) {
      const topic = newTopic();
      const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
      const created = documentWithInvalidKeys(did, invalid, delegate);
      const byDelegate = { ...created, alsoKnownAs: ['https://agents.example/by-delegate'] };
      await publishPage(topic, [
        entry(await message('create', did, 1, root, created), 1),
        entry(await message('update', did, 2, delegate, byDelegate), 2),
      ]);
      const result = await resolver.resolve(did);
      expect(result.didDocument, `delegate after ${invalid} invalid entries`).toEqual(
        delegateSigns ? byDelegate : created,
      );
      expect(result.didResolutionMetadata.ledger, `delegate after ${invalid} invalid entries`).toMatchObject({
        applied: delegateSigns ? 2 : 1,
        ignored: { badSignature: delegateSigns ? 0 : 1 },
      });
    }
  });

  it('checks the keys of a document once when it is applied, never per message: junk after 255 invalid keys costs no key checks', async () => {
    const checksFor = async (junkCount: number): Promise<number> => {
      const topic = newTopic();
      const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
      await publishPage(topic, [
        entry(await message('create', did, 1, root, documentWithInvalidKeys(did, 255)), 1),
        ...(await junk(did, 2, junkCount)),
      ]);
      keyChecks.mockClear();
      const result = await resolver.resolve(did);
      expect(result.didDocument?.id).toBe(did);
      expect(result.didResolutionMetadata.ledger).toMatchObject({
        messages: 1 + junkCount,
        applied: 1,
        ignored: { badSignature: junkCount },
      });
      return keyChecks.mock.calls.length;
    };
    const few = await checksFor(2);
    const many = await checksFor(40);
    expect(few).toBeGreaterThan(0); // the spy sees the checks
    expect(few).toBeLessThanOrEqual(1 + 8); // the DID's root key, then the first 8 entries of the one applied state
    expect(many).toBe(few);
  });

  it('checks the deadline before each message: a replay that outlasts timeoutMs stops with internalError', async () => {
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    const history = [entry(await message('create', did, 1), 1), ...(await junk(did, 2, 30))];
    await publishPage(topic, history);
    // A clock that moves 1 s per reading: the deadline passes a few messages into the page.
    let t = 0;
    const slow = createResolver({
      methods: {
        ledger: createLedgerResolver({ mirrorBaseUrl, network: 'testnet', timeoutMs: 5000, now: () => (t += 1000) }),
      },
    });
    const result = await slow.resolve(did);
    expect(result.didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: 'timed out after 5000 ms',
      ledger: { pages: 1 },
    });
    expect(result.didResolutionMetadata.ledger).toMatchObject({
      messages: expect.toSatisfy((n: number) => n < history.length),
    });
    // the same history, read by a clock that stands still, resolves
    const still = createResolver({
      methods: { ledger: createLedgerResolver({ mirrorBaseUrl, network: 'testnet', timeoutMs: 5000, now: () => 0 }) },
    });
    expect((await still.resolve(did)).didResolutionMetadata).toMatchObject({
      ledger: { messages: history.length, applied: 1 },
    });
  });

  it('yields to the event loop during a long replay', async () => {
    const topic = newTopic();
    const did = didLedgerFromPublicKey(root.publicKey, topic, 'testnet');
    await publishPage(topic, [entry(await message('create', did, 1), 1), ...(await junk(did, 2, 10))]);
    // Readings 1 and 2 come before the page is fetched; from the third on, the replay is running.
    let readings = 0;
    let timerFired = false;
    const seenDuringReplay: boolean[] = [];
    const now = (): number => {
      readings++;
      if (readings === 3) setTimeout(() => (timerFired = true), 0);
      if (readings > 3) seenDuringReplay.push(timerFired);
      return readings * 100; // every reading is 100 ms of replay work, past the 50 ms slice
    };
    const paced = createResolver({
      methods: { ledger: createLedgerResolver({ mirrorBaseUrl, network: 'testnet', timeoutMs: 60_000, now }) },
    });
    const result = await paced.resolve(did);
    expect(result.didResolutionMetadata).toMatchObject({ ledger: { messages: 11, applied: 1 } });
    expect(seenDuringReplay).toContain(true);
  });

  it('throws INVALID_OPTIONS for a clock that is not a function', () => {
    expect(() => createLedgerResolver({ mirrorBaseUrl: 'https://mirror.example', now: 5 as never })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
  });
});
