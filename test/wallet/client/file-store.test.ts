// The Node file credential store: what survives a restart, what a damaged or planted file does
// (reported, never overwritten), private permissions, and concurrent writers: in one process
// (one or several store objects on a file), in several processes, and after a crashed writer.
import { execFile, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { threadId } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileCredentialStore, LOCK_STALE_MS } from '../../../wallet/client/credential-store-file.ts';
import { issueAgentCredential } from '../../../wallet/vc/agent-credential.ts';
import type { AgentCredential } from '../../../wallet/vc/types.ts';
import { newIdentity } from '../../support/agents.ts';
import { bundled } from '../../support/bundles.ts';

const code = (c: string) => expect.objectContaining({ code: c });
const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'mandate-credstore-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const issuer = newIdentity();
const credential = (scopes = ['files:read']): Promise<AgentCredential> =>
  issueAgentCredential({ issuer, agentDid: newIdentity().did, privilegeScopes: scopes, delegationDepth: 0 });

describe('file credential store', () => {
  it('persists across store objects (a restart), in a private file and directory, without temporary files left', async () => {
    const dir = join(tempDir(), 'wallet');
    const path = join(dir, 'credentials.json');
    const first = createFileCredentialStore({ path });
    expect(await first.list()).toEqual([]);
    const a = await credential();
    const b = await credential(['files:write']);
    await first.put(a);
    await first.put(b);
    const reopened = createFileCredentialStore({ path });
    expect((await reopened.list()).map((c) => c.id)).toEqual([a.id, b.id].sort());
    expect(await reopened.get(b.id)).toEqual(b);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(['credentials.json']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ version: 1, credentials: expect.any(Array) });
    expect(await reopened.delete(a.id)).toBe(true);
    expect(await reopened.delete(a.id)).toBe(false);
    expect((await first.list()).map((c) => c.id)).toEqual([b.id]);
  });

  it('loses nothing when many puts race in one process', async () => {
    const store = createFileCredentialStore({ path: join(tempDir(), 'credentials.json') });
    const many = await Promise.all(Array.from({ length: 12 }, () => credential()));
    await Promise.all(many.map((c) => store.put(c)));
    expect((await store.list()).map((c) => c.id)).toEqual(many.map((c) => c.id).sort());
  });

  it('CREDENTIAL_STORE_CORRUPT for a damaged file, a bad entry, a duplicated id, another version, a symlink or an oversized file — and the file is left as it is', async () => {
    const good = await credential();
    const cases: Array<[string, string]> = [
      ['torn write', '{"version": 1, "credentials": [{"id": '],
      ['not an object', '[]'],
      ['another version', JSON.stringify({ version: 2, credentials: [] })],
      [
        'invalid entry',
        JSON.stringify({ version: 1, credentials: [{ ...good, credentialSubject: { id: 'not a did' } }] }),
      ],
      ['duplicate ids', JSON.stringify({ version: 1, credentials: [good, good] })],
      ['unsafe key', `{"version": 1, "credentials": [], "__proto__": {}}`],
    ];
    for (const [why, content] of cases) {
      const path = join(tempDir(), 'credentials.json');
      writeFileSync(path, content, { mode: 0o600 });
      const store = createFileCredentialStore({ path });
      await expect(store.list(), why).rejects.toEqual(code('CREDENTIAL_STORE_CORRUPT'));
      await expect(store.put(good), why).rejects.toEqual(code('CREDENTIAL_STORE_CORRUPT'));
      expect(readFileSync(path, 'utf8'), why).toBe(content);
    }
    const dir = tempDir();
    writeFileSync(join(dir, 'elsewhere.json'), JSON.stringify({ version: 1, credentials: [] }));
    symlinkSync(join(dir, 'elsewhere.json'), join(dir, 'credentials.json'));
    await expect(createFileCredentialStore({ path: join(dir, 'credentials.json') }).list()).rejects.toEqual(
      code('CREDENTIAL_STORE_CORRUPT'),
    );
    const big = join(tempDir(), 'credentials.json');
    writeFileSync(big, JSON.stringify({ version: 1, credentials: [good] }));
    await expect(createFileCredentialStore({ path: big, maxFileBytes: 256 }).list()).rejects.toEqual(
      code('CREDENTIAL_STORE_CORRUPT'),
    );
  });

  it('CREDENTIAL_INVALID, CREDENTIAL_CONFLICT and CREDENTIAL_STORE_FULL, as in the other stores', async () => {
    const store = createFileCredentialStore({ path: join(tempDir(), 'credentials.json'), maxCredentials: 1 });
    const a = await credential();
    await expect(store.put({ ...a, validFrom: 'yesterday' })).rejects.toEqual(code('CREDENTIAL_INVALID'));
    await store.put(a);
    await store.put(structuredClone(a));
    await expect(store.put({ ...a, validUntil: '2999-01-01T00:00:00Z' })).rejects.toEqual(code('CREDENTIAL_CONFLICT'));
    await expect(store.put(await credential())).rejects.toEqual(code('CREDENTIAL_STORE_FULL'));
    expect(await store.list()).toEqual([a]);
  });

  it('shares one write queue between store objects on one file, even spelled through a symlinked directory: nothing lost', async () => {
    const real = join(tempDir(), 'wallet');
    mkdirSync(real, { mode: 0o700 });
    const alias = join(tempDir(), 'alias');
    symlinkSync(real, alias);
    const stores = [
      createFileCredentialStore({ path: join(real, 'credentials.json') }),
      createFileCredentialStore({ path: join(real, 'credentials.json') }),
      createFileCredentialStore({ path: join(alias, 'credentials.json') }),
    ];
    const many = await Promise.all(Array.from({ length: 30 }, () => credential()));
    await Promise.all(many.map((c, i) => stores[i % stores.length]!.put(c)));
    expect((await stores[0]!.list()).map((c) => c.id)).toEqual(many.map((c) => c.id).sort());
    // Deletes race too: each removes exactly its own credential, once.
    const gone = many.slice(0, 10);
    expect(await Promise.all(gone.map((c, i) => stores[i % stores.length]!.delete(c.id)))).toEqual(
      gone.map(() => true),
    );
    expect((await stores[1]!.list()).map((c) => c.id)).toEqual(
      many
        .slice(10)
        .map((c) => c.id)
        .sort(),
    );
    // No lock or temporary file left behind.
    expect(readdirSync(real)).toEqual(['credentials.json']);
  });

  it('CREDENTIAL_CONFLICT for conflicting copies of one id put through two store objects at once: the first stays', async () => {
    const path = join(tempDir(), 'credentials.json');
    const [one, two] = [createFileCredentialStore({ path }), createFileCredentialStore({ path })];
    const good = await credential();
    const other = { ...good, validUntil: '2999-01-01T00:00:00Z' };
    const results = await Promise.allSettled([one.put(good), two.put(other)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(code('CREDENTIAL_CONFLICT'));
    expect(await two.get(good.id)).toEqual(good);
  });

  it('loses nothing when several processes put into one file at the same instant (the lock file)', async () => {
    const dir = tempDir();
    const path = join(dir, 'wallet', 'credentials.json');
    const processes = 4;
    const many = await Promise.all(Array.from({ length: processes * 8 }, () => credential()));
    const inputs = Array.from({ length: processes }, (_, p) => {
      const file = join(dir, `input-${p}.json`);
      writeFileSync(file, JSON.stringify(many.filter((_, i) => i % processes === p)));
      return file;
    });
    // Each child loads the store (bundled) first, then all put at one wall-clock instant.
    const child = `
      const [, module, path, input, startAt] = process.argv;
      const { createFileCredentialStore } = await import(module);
      const { readFileSync } = await import('node:fs');
      const credentials = JSON.parse(readFileSync(input, 'utf8'));
      const store = createFileCredentialStore({ path });
      // Sleep to just before the instant, then spin (a timer alone may fire a few ms late).
      await new Promise((resolve) => setTimeout(resolve, Number(startAt) - Date.now() - 50));
      while (Date.now() < Number(startAt)) {}
      await Promise.all(credentials.map((c) => store.put(c)));`;
    const startAt = Date.now() + 3000;
    const run = promisify(execFile);
    const module = pathToFileURL(bundled('credential-store-file')).href;
    await Promise.all(
      inputs.map((input) =>
        run(process.execPath, ['--input-type=module', '-e', child, module, path, input, String(startAt)]),
      ),
    );
    expect((await createFileCredentialStore({ path }).list()).map((c) => c.id)).toEqual(many.map((c) => c.id).sort());
    expect(readdirSync(join(dir, 'wallet'))).toEqual(['credentials.json']);
  });

  it('breaks a stale lock (dead owner on this host, our pid but not held, or too old) and waits for a live one', async () => {
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    const lock = (owner: object | string) =>
      typeof owner === 'string' ? owner : JSON.stringify({ thread: threadId, host: hostname(), nonce: 'n', ...owner });
    const old = (Date.now() - LOCK_STALE_MS - 60_000) / 1000;
    const cases: Array<[string, string, boolean]> = [
      ['a dead process on this host', lock({ pid: deadPid }), false],
      ['this process and thread, a lock it does not hold', lock({ pid: process.pid }), false],
      ['another thread of this process, old', lock({ pid: process.pid, thread: threadId + 1 }), true],
      ['a torn lock, old', '{"pid": ', true],
      ['a live process (maybe a reused pid), old', lock({ pid: process.ppid }), true],
      ['another host, old', lock({ pid: process.ppid, host: `not-${hostname()}` }), true],
    ];
    for (const [why, content, aged] of cases) {
      const dir = tempDir();
      const lockPath = join(dir, '.credentials.json.lock');
      writeFileSync(lockPath, content, { mode: 0o600 });
      if (aged) utimesSync(lockPath, old, old);
      const store = createFileCredentialStore({ path: join(dir, 'credentials.json') });
      const c = await credential();
      await store.put(c);
      expect(
        (await store.list()).map((x) => x.id),
        why,
      ).toEqual([c.id]);
      expect(readdirSync(dir), why).toEqual(['credentials.json']);
    }
    // A fresh lock of a live process is waited for, then the put goes through.
    const dir = tempDir();
    const lockPath = join(dir, '.credentials.json.lock');
    writeFileSync(lockPath, lock({ pid: process.ppid }), { mode: 0o600 });
    // ...as is a fresh lock of another thread of this process (worker threads share the pid).
    const threadLock = join(tempDir(), '.credentials.json.lock');
    writeFileSync(threadLock, lock({ pid: process.pid, thread: threadId + 1 }), { mode: 0o600 });
    const store = createFileCredentialStore({ path: join(dir, 'credentials.json') });
    const threadStore = createFileCredentialStore({ path: join(threadLock, '..', 'credentials.json') });
    let threadDone = false;
    const threadPut = threadStore.put(await credential()).then(() => (threadDone = true));
    let done = false;
    const put = store.put(await credential()).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 300));
    expect([done, threadDone]).toEqual([false, false]);
    rmSync(lockPath);
    rmSync(threadLock);
    await Promise.all([put, threadPut]);
    expect(await store.list()).toHaveLength(1);
    expect(await threadStore.list()).toHaveLength(1);
  });
});
