import { execFileSync } from 'node:child_process';
import { chmod, link, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import kp from '@vectors/w3c-vc-di-eddsa/keyPair.json';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { getPublicKey, sign, verify } from '../../../wallet/crypto/ed25519.ts';
import { decodePrivateKeyMultibase, encodePublicKeyMultibase } from '../../../wallet/crypto/multikey.ts';
import { createFileKeyStore, createMemoryKeyStore, type KeyStore } from '../../../wallet/keystore/node.ts';
import { exposedFileReason } from '../../../wallet/keystore/file.ts';

const code = (c: string) => expect.objectContaining({ code: c });
const FAST = { N: 2 ** 10, r: 8, p: 1 };
const message = utf8ToBytes('delegate: read calendar');
const vectorSeed = decodePrivateKeyMultibase(kp.privateKeyMultibase);

const root = await mkdtemp(join(tmpdir(), 'mandate-keystore-'));
let dir: string;
let counter = 0;
beforeEach(() => {
  dir = join(root, `case-${++counter}`, 'keys'); // parent missing too: created on first write
});
afterAll(() => rm(root, { recursive: true, force: true }));

const readJson = async (id: string): Promise<Record<string, unknown>> =>
  JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8'));
const writeJson = (id: string, value: unknown) =>
  writeFile(join(dir, `${id}.json`), JSON.stringify(value), { mode: 0o600 });

async function expectSigns(store: KeyStore, id: string, publicKey: Uint8Array): Promise<void> {
  const signer = await store.signer(id);
  expect(signer.publicKey).toEqual(publicKey);
  expect(await verify(await signer.sign(message), message, publicKey)).toBe(true);
}

describe('file key store (unencrypted)', () => {
  it('writes one private JSON file per key, in the documented format, in a 0700 directory', async () => {
    const store = createFileKeyStore({ directory: dir });
    const info = await store.put('agent-1', vectorSeed);
    expect(info).toMatchObject({ id: 'agent-1', publicKeyMultibase: kp.publicKeyMultibase, extractable: true });
    expect(info.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await readJson('agent-1')).toEqual({
      version: 1,
      id: 'agent-1',
      createdAt: info.createdAt,
      publicKeyMultibase: kp.publicKeyMultibase,
      secretKeyMultibase: kp.privateKeyMultibase,
    });
    expect((await stat(join(dir, 'agent-1.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await readdir(dir)).toEqual(['agent-1.json']); // no temporary file left behind
  });

  it('signs with a stored key, also from a new store object on the same directory', async () => {
    const info = await createFileKeyStore({ directory: dir }).generate('agent');
    const reopened = createFileKeyStore({ directory: dir });
    expect(await reopened.get('agent')).toEqual(info);
    await expectSigns(reopened, 'agent', info.publicKey);
    // Ed25519 is deterministic: the stored seed is the one that was put.
    await createFileKeyStore({ directory: dir }).put('vector', vectorSeed);
    expect(await (await reopened.signer('vector')).sign(message)).toEqual(await sign(message, vectorSeed));
  });

  it('names a generated key by its publicKeyMultibase when no id is given', async () => {
    const info = await createFileKeyStore({ directory: dir }).generate();
    expect(info.id).toBe(encodePublicKeyMultibase(info.publicKey));
    expect(info.id).toMatch(/^z6Mk/);
  });

  it('exports the seed it was given, unaffected by later writes to the caller buffer', async () => {
    const store = createFileKeyStore({ directory: dir });
    const seed = vectorSeed.slice();
    const pending = store.put('imported', seed);
    seed.fill(7);
    await pending;
    expect(await store.exportSeed('imported')).toEqual(vectorSeed);
  });

  it('lists keys by id, ignoring other files, and deletes them', async () => {
    const store = createFileKeyStore({ directory: dir });
    expect(await store.list()).toEqual([]); // directory does not exist yet
    await store.generate('b');
    await store.generate('a');
    await writeFile(join(dir, 'README.txt'), 'not a key');
    await writeFile(join(dir, '.a.0011.tmp'), '{');
    expect((await store.list()).map((k) => k.id)).toEqual(['a', 'b']);
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);
    expect(await store.get('a')).toBeUndefined();
    expect((await store.list()).map((k) => k.id)).toEqual(['b']);
  });

  it('never overwrites: KEY_EXISTS for a taken id, also when two writers race', async () => {
    const store = createFileKeyStore({ directory: dir });
    const first = await store.generate('taken');
    await expect(store.generate('taken')).rejects.toThrow(code('KEY_EXISTS'));
    await expect(store.put('taken', vectorSeed)).rejects.toThrow(code('KEY_EXISTS'));
    expect(await store.get('taken')).toEqual(first);

    const results = await Promise.allSettled([
      createFileKeyStore({ directory: dir }).put('race', vectorSeed),
      createFileKeyStore({ directory: dir }).generate('race'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: code('KEY_EXISTS') });
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('reports KEY_NOT_FOUND for signer and exportSeed of a missing key', async () => {
    const store = createFileKeyStore({ directory: dir });
    expect(await store.get('missing')).toBeUndefined();
    await expect(store.signer('missing')).rejects.toThrow(code('KEY_NOT_FOUND'));
    await expect(store.exportSeed('missing')).rejects.toThrow(code('KEY_NOT_FOUND'));
  });

  it('refuses ids that are not safe file names with INVALID_KEY_ID', async () => {
    const store = createFileKeyStore({ directory: dir });
    const bad = ['', '../escape', '..', '.hidden', 'a/b', 'a\\b', 'key.json\u0000', 'x'.repeat(129), 'ünïcode', 42];
    for (const id of bad) {
      await expect(store.put(id as string, vectorSeed)).rejects.toThrow(code('INVALID_KEY_ID'));
      await expect(store.generate(id as string)).rejects.toThrow(code('INVALID_KEY_ID'));
      await expect(store.get(id as string)).rejects.toThrow(code('INVALID_KEY_ID'));
      await expect(store.delete(id as string)).rejects.toThrow(code('INVALID_KEY_ID'));
      await expect(store.signer(id as string)).rejects.toThrow(code('INVALID_KEY_ID'));
    }
    await expect(store.generate('x'.repeat(128))).resolves.toMatchObject({ id: 'x'.repeat(128) });
    expect(await readdir(join(dir, '..'))).toEqual(['keys']); // nothing escaped the directory
  });
});

describe('file key store: damaged files are reported, never replaced', () => {
  async function expectCorrupt(store: KeyStore, id: string): Promise<void> {
    const before = await readFile(join(dir, `${id}.json`));
    await expect(store.get(id)).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await expect(store.signer(id)).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await expect(store.list()).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await expect(store.put(id, vectorSeed)).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await expect(store.generate(id)).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    expect(await readFile(join(dir, `${id}.json`))).toEqual(before);
  }

  it('a torn (truncated) file', async () => {
    const store = createFileKeyStore({ directory: dir });
    await store.put('torn', vectorSeed);
    const text = await readFile(join(dir, 'torn.json'), 'utf8');
    await writeFile(join(dir, 'torn.json'), text.slice(0, text.length / 2));
    await expectCorrupt(store, 'torn');
  });

  it('missing or extra members, wrong version, bad timestamp, another id', async () => {
    const store = createFileKeyStore({ directory: dir });
    const good = (await store.put('good', vectorSeed)) && (await readJson('good'));
    const variants: Record<string, unknown> = {
      'no-secret': { ...good, id: 'no-secret', secretKeyMultibase: undefined },
      'no-public': { ...good, id: 'no-public', publicKeyMultibase: undefined },
      extra: { ...good, id: 'extra', note: 'x' },
      'two-secrets': { ...good, id: 'two-secrets', encryptedSecretKey: {} },
      v2: { ...good, id: 'v2', version: 2 },
      time: { ...good, id: 'time', createdAt: 'yesterday' },
      renamed: good,
      array: [good],
      'bad-multibase': { ...good, id: 'bad-multibase', secretKeyMultibase: 'z3u2!!!' },
    };
    for (const [id, value] of Object.entries(variants)) {
      await writeJson(id, value);
      await expectCorrupt(store, id);
      await rm(join(dir, `${id}.json`));
    }
  });

  it('a public key that does not match the seed', async () => {
    const store = createFileKeyStore({ directory: dir });
    const other = await store.generate('other');
    await store.put('swapped', vectorSeed);
    await writeJson('swapped', { ...(await readJson('swapped')), publicKeyMultibase: other.publicKeyMultibase });
    await expectCorrupt(store, 'swapped');
  });

  it('a symbolic link or an oversized file in place of a key file', async () => {
    const store = createFileKeyStore({ directory: dir });
    await store.put('target', vectorSeed);
    await symlink(join(dir, 'target.json'), join(dir, 'link.json'));
    await expect(store.get('link')).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await expect(store.put('link', vectorSeed)).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    expect((await lstat(join(dir, 'link.json'))).isSymbolicLink()).toBe(true);
    await writeFile(join(dir, 'huge.json'), ' '.repeat(100_000) + '{}', { mode: 0o600 });
    await expectCorrupt(store, 'huge');
  });

  it('KEY_FILE_EXPOSED: a key file others may read or write is not used, and left as it is', async () => {
    const store = createFileKeyStore({ directory: dir });
    await store.put('shared', vectorSeed);
    for (const mode of [0o644, 0o620, 0o604]) {
      await chmod(join(dir, 'shared.json'), mode);
      await expect(store.get('shared')).rejects.toThrow(code('KEY_FILE_EXPOSED'));
      await expect(store.signer('shared')).rejects.toThrow(code('KEY_FILE_EXPOSED'));
      expect((await stat(join(dir, 'shared.json'))).mode & 0o777).toBe(mode);
    }
    await chmod(join(dir, 'shared.json'), 0o600);
    expect((await store.get('shared'))?.id).toBe('shared');
    // Another user's file (here a stat as another uid would report it) is refused the same way.
    const uid = process.getuid?.() ?? 0;
    expect(exposedFileReason({ uid: uid + 1, mode: 0o100600 })).toMatch(/another user/);
    expect(exposedFileReason({ uid, mode: 0o100600 })).toBeUndefined();
  });

  it('a FIFO in place of a key file is refused at once, not waited on', async () => {
    const store = createFileKeyStore({ directory: dir });
    await mkdir(dir, { recursive: true });
    execFileSync('mkfifo', ['-m', '600', join(dir, 'pipe.json')]);
    await expect(store.get('pipe')).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await expect(store.list()).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await expect(store.put('pipe', vectorSeed)).rejects.toThrow(code('KEY_FILE_CORRUPT'));
  });

  it("delete removes what a crashed write of that id left behind (a second link to the seed), and no other id's", async () => {
    const store = createFileKeyStore({ directory: dir });
    await store.put('k', vectorSeed);
    await store.put('k.x', vectorSeed);
    // What a crash between link(2) and unlink(2) leaves: the temporary name, linked to the record.
    await link(join(dir, 'k.json'), join(dir, '.k.0123456789abcdef.tmp'));
    await writeFile(join(dir, '.k.x.fedcba9876543210.tmp'), '{', { mode: 0o600 }); // k.x's, mid-write
    expect(await store.delete('k')).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['.k.x.fedcba9876543210.tmp', 'k.x.json']);
  });

  it('an explicit delete removes a corrupt file', async () => {
    const store = createFileKeyStore({ directory: dir });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'broken.json'), '{');
    expect(await store.delete('broken')).toBe(true);
    expect(await store.list()).toEqual([]);
  });
});

describe('file key store (passphrase-encrypted)', () => {
  it('stores only the scrypt parameters and the AES-256-GCM envelope, never the seed', async () => {
    const store = createFileKeyStore({ directory: dir, passphrase: 'correct horse', kdfCost: FAST });
    const info = await store.put('enc', vectorSeed);
    const file = await readJson('enc');
    expect(Object.keys(file).sort()).toEqual([
      'createdAt',
      'encryptedSecretKey',
      'id',
      'publicKeyMultibase',
      'version',
    ]);
    expect(file.encryptedSecretKey).toEqual({
      kdf: { alg: 'scrypt', N: 1024, r: 8, p: 1, salt: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) },
      cipher: {
        v: 1,
        alg: 'A256GCM',
        iv: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
        ct: expect.stringMatching(/^[A-Za-z0-9_-]{64}$/),
      },
    });
    expect(JSON.stringify(file)).not.toContain(kp.privateKeyMultibase);
    expect((await stat(join(dir, 'enc.json'))).mode & 0o777).toBe(0o600);
    expect(info.extractable).toBe(true);

    const reopened = createFileKeyStore({ directory: dir, passphrase: 'correct horse' });
    await expectSigns(reopened, 'enc', getPublicKey(vectorSeed));
    expect(await reopened.exportSeed('enc')).toEqual(vectorSeed);
  });

  it('WRONG_PASSPHRASE for a wrong passphrase; PASSPHRASE_REQUIRED without one (public info stays readable)', async () => {
    const info = await createFileKeyStore({ directory: dir, passphrase: 'right', kdfCost: FAST }).generate('enc');
    const wrong = createFileKeyStore({ directory: dir, passphrase: 'wrong' });
    await expect(wrong.signer('enc')).rejects.toThrow(code('WRONG_PASSPHRASE'));
    await expect(wrong.exportSeed('enc')).rejects.toThrow(code('WRONG_PASSPHRASE'));
    const locked = createFileKeyStore({ directory: dir });
    expect(await locked.get('enc')).toEqual(info);
    await expect(locked.signer('enc')).rejects.toThrow(code('PASSPHRASE_REQUIRED'));
    await expect(locked.exportSeed('enc')).rejects.toThrow(code('PASSPHRASE_REQUIRED'));
  });

  it('binds the ciphertext to its id: a blob copied into another record does not decrypt', async () => {
    const store = createFileKeyStore({ directory: dir, passphrase: 'pw', kdfCost: FAST });
    await store.put('original', vectorSeed);
    await writeJson('copy', { ...(await readJson('original')), id: 'copy' });
    await expect(store.signer('copy')).rejects.toThrow(code('WRONG_PASSPHRASE'));
  });

  it('KEY_FILE_CORRUPT for absurd KDF parameters (refused before scrypt runs) or a mismatching public key', async () => {
    const store = createFileKeyStore({ directory: dir, passphrase: 'pw', kdfCost: FAST });
    const other = await store.generate('other');
    await store.put('enc', vectorSeed);
    const file = await readJson('enc');
    const encrypted = file.encryptedSecretKey as { kdf: Record<string, unknown> };
    await writeJson('dos', {
      ...file,
      id: 'dos',
      encryptedSecretKey: { ...encrypted, kdf: { ...encrypted.kdf, N: 2 ** 40 } },
    });
    await expect(store.get('dos')).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    await expect(store.signer('dos')).rejects.toThrow(code('KEY_FILE_CORRUPT'));
    // The public key is stored in clear; it is checked against the seed once decrypted.
    await writeJson('enc', { ...file, publicKeyMultibase: other.publicKeyMultibase });
    await expect(store.signer('enc')).rejects.toThrow(code('KEY_FILE_CORRUPT'));
  });

  it('validates its options: KDF_PARAMS_INVALID for an absurd cost, PASSPHRASE_INVALID for an empty passphrase', async () => {
    expect(() => createFileKeyStore({ directory: dir, passphrase: 'pw', kdfCost: { N: 2 ** 30, r: 8, p: 1 } })).toThrow(
      code('KDF_PARAMS_INVALID'),
    );
    await expect(createFileKeyStore({ directory: dir, passphrase: '', kdfCost: FAST }).generate('k')).rejects.toThrow(
      code('PASSPHRASE_INVALID'),
    );
    expect(await createFileKeyStore({ directory: dir }).list()).toEqual([]);
  });
});

describe('memory key store', () => {
  it('follows the same rules as the persistent stores', async () => {
    const store = createMemoryKeyStore();
    const info = await store.put('vector', vectorSeed);
    expect(info).toMatchObject({ id: 'vector', publicKeyMultibase: kp.publicKeyMultibase, extractable: true });
    await expectSigns(store, 'vector', info.publicKey);
    expect(await store.exportSeed('vector')).toEqual(vectorSeed);
    const generated = await store.generate();
    expect((await store.list()).map((k) => k.id)).toEqual([generated.id, 'vector'].sort());
    await expect(store.put('vector', vectorSeed)).rejects.toThrow(code('KEY_EXISTS'));
    await expect(store.get('../x')).rejects.toThrow(code('INVALID_KEY_ID'));
    expect(await store.delete('vector')).toBe(true);
    await expect(store.signer('vector')).rejects.toThrow(code('KEY_NOT_FOUND'));
    // KeyInfo is a copy: mutating it does not change the stored key.
    (await store.get(generated.id))?.publicKey.fill(0);
    expect((await store.get(generated.id))?.publicKey).toEqual(generated.publicKey);
  });
});
