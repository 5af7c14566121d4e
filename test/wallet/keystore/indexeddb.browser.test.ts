import { createStore, get as idbGet, set as idbSet } from 'idb-keyval';
import { describe, expect, it } from 'vitest';
import kp from '@vectors/w3c-vc-di-eddsa/keyPair.json';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { getPublicKey, sign, verify } from '../../../wallet/crypto/ed25519.ts';
import { decodePrivateKeyMultibase } from '../../../wallet/crypto/multikey.ts';
import { createIndexedDbKeyStore, createMemoryKeyStore } from '../../../wallet/keystore/index.ts';

const code = (c: string) => expect.objectContaining({ code: c });
const FAST = { N: 2 ** 10, r: 8, p: 1 };
const message = utf8ToBytes('delegate: read calendar');
const vectorSeed = decodePrivateKeyMultibase(kp.privateKeyMultibase);
let counter = 0;
/** A database name no other test uses, so tests stay independent. */
const freshName = () => `mandate-keystore-test-${Date.now()}-${++counter}`;
/** The raw object store behind a key store, to plant crafted records. */
const rawStore = (name: string) => createStore(name, 'keys');

describe('IndexedDB key store (non-extractable CryptoKeys)', () => {
  it('generates, signs, and signs again with the same key from a new store object on the same database', async () => {
    const name = freshName();
    const store = createIndexedDbKeyStore({ name });
    const info = await store.generate('agent');
    expect(info).toMatchObject({ id: 'agent', extractable: false });
    const first = await (await store.signer('agent')).sign(message);
    expect(await verify(first, message, info.publicKey)).toBe(true);

    const reopened = createIndexedDbKeyStore({ name });
    expect(await reopened.get('agent')).toEqual(info);
    const signer = await reopened.signer('agent');
    expect(signer.publicKey).toEqual(info.publicKey);
    expect(await signer.sign(message)).toEqual(first); // Ed25519 is deterministic: same key
  });

  it('keeps the private key as a non-extractable CryptoKey and refuses exportSeed', async () => {
    const name = freshName();
    const store = createIndexedDbKeyStore({ name });
    await store.generate('agent');
    const record = (await idbGet('agent', rawStore(name))) as Record<string, unknown>;
    expect(record.privateKey).toBeInstanceOf(CryptoKey);
    expect(record.privateKey).toMatchObject({ extractable: false, type: 'private', algorithm: { name: 'Ed25519' } });
    expect(Object.keys(record).sort()).toEqual(['createdAt', 'id', 'privateKey', 'publicKeyMultibase', 'version']);
    await expect(store.exportSeed('agent')).rejects.toThrow(code('KEY_NOT_EXTRACTABLE'));
  });

  it('imports a seed as a non-extractable key that signs exactly as the seed does', async () => {
    const store = createIndexedDbKeyStore({ name: freshName() });
    const info = await store.put('vector', vectorSeed);
    expect(info).toMatchObject({ publicKeyMultibase: kp.publicKeyMultibase, extractable: false });
    expect(await (await store.signer('vector')).sign(message)).toEqual(await sign(message, vectorSeed));
    await expect(store.exportSeed('vector')).rejects.toThrow(code('KEY_NOT_EXTRACTABLE'));
  });

  it('lists by id, deletes, and reports KEY_EXISTS, KEY_NOT_FOUND and INVALID_KEY_ID', async () => {
    const store = createIndexedDbKeyStore({ name: freshName() });
    const generated = await store.generate();
    await store.generate('b');
    await store.put('a', vectorSeed);
    expect((await store.list()).map((k) => k.id)).toEqual(['a', 'b', generated.id].sort());
    await expect(store.generate('a')).rejects.toThrow(code('KEY_EXISTS'));
    await expect(store.put('a', vectorSeed)).rejects.toThrow(code('KEY_EXISTS'));
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);
    expect(await store.get('a')).toBeUndefined();
    await expect(store.signer('a')).rejects.toThrow(code('KEY_NOT_FOUND'));
    await expect(store.get('../a')).rejects.toThrow(code('INVALID_KEY_ID'));
    expect((await store.list()).map((k) => k.id)).toEqual(['b', generated.id].sort());
  });

  it('lets exactly one of two racing writers create an id', async () => {
    const name = freshName();
    const results = await Promise.allSettled([
      createIndexedDbKeyStore({ name }).generate('race'),
      createIndexedDbKeyStore({ name }).put('race', vectorSeed),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: code('KEY_EXISTS') });
  });

  it('reports crafted or damaged records as KEY_FILE_CORRUPT', async () => {
    const name = freshName();
    const store = createIndexedDbKeyStore({ name });
    const a = await store.generate('a');
    await store.generate('b');
    const recordB = (await idbGet('b', rawStore(name))) as Record<string, unknown>;
    // b's CryptoKey under a's public key: caught when the first signature is verified.
    await idbSet('mixed', { ...recordB, id: 'mixed', publicKeyMultibase: a.publicKeyMultibase }, rawStore(name));
    const signer = await store.signer('mixed');
    await expect(signer.sign(message)).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await idbSet('junk', { hello: 'world' }, rawStore(name));
    await expect(store.get('junk')).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await idbSet('fake', { ...recordB, id: 'fake', privateKey: { type: 'private' } }, rawStore(name));
    await expect(store.signer('fake')).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await expect(store.put('junk', vectorSeed)).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    expect(await idbGet('junk', rawStore(name))).toEqual({ hello: 'world' }); // not replaced
    // An extractable CryptoKey (written by other code of the origin, say): any script could export it.
    const exportable = await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
    await idbSet('exportable', { ...recordB, id: 'exportable', privateKey: exportable.privateKey }, rawStore(name));
    await expect(store.get('exportable')).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await expect(store.signer('exportable')).rejects.toThrow(code('KEY_FILE_CORRUPT'));
  });
});

describe('IndexedDB key store (extractable: passphrase-encrypted seeds)', () => {
  it('requires a passphrase: PASSPHRASE_REQUIRED', async () => {
    const store = createIndexedDbKeyStore({ name: freshName(), extractable: true });
    await expect(store.generate('k')).rejects.toThrow(code('PASSPHRASE_REQUIRED'));
    await expect(store.put('k', vectorSeed)).rejects.toThrow(code('PASSPHRASE_REQUIRED'));
    expect(await store.list()).toEqual([]);
  });

  it('stores the seed encrypted, exports it with the passphrase, and refuses a wrong one with WRONG_PASSPHRASE', async () => {
    const name = freshName();
    const store = createIndexedDbKeyStore({ name, extractable: true, passphrase: 'correct horse', kdfCost: FAST });
    const info = await store.put('backup', vectorSeed);
    expect(info).toMatchObject({ publicKeyMultibase: kp.publicKeyMultibase, extractable: true });
    const record = (await idbGet('backup', rawStore(name))) as Record<string, unknown>;
    expect(record.encryptedSecretKey).toMatchObject({
      kdf: { alg: 'scrypt', N: 1024 },
      cipher: { v: 1, alg: 'A256GCM' },
    });
    expect(JSON.stringify(record)).not.toContain(kp.privateKeyMultibase);

    const reopened = createIndexedDbKeyStore({ name, passphrase: 'correct horse' });
    expect(await reopened.exportSeed('backup')).toEqual(vectorSeed);
    const signer = await reopened.signer('backup');
    expect(await verify(await signer.sign(message), message, getPublicKey(vectorSeed))).toBe(true);
    await expect(createIndexedDbKeyStore({ name, passphrase: 'wrong' }).signer('backup')).rejects.toThrow(
      code('WRONG_PASSPHRASE'),
    );
    await expect(createIndexedDbKeyStore({ name }).exportSeed('backup')).rejects.toThrow(code('PASSPHRASE_REQUIRED'));
  });
});

describe('memory key store in the browser', () => {
  it('generates, signs and exports', async () => {
    const store = createMemoryKeyStore();
    const info = await store.generate('ephemeral');
    const signer = await store.signer('ephemeral');
    expect(await verify(await signer.sign(message), message, info.publicKey)).toBe(true);
    expect(getPublicKey(await store.exportSeed('ephemeral'))).toEqual(info.publicKey);
  });
});
