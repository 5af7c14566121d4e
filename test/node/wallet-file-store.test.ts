// The Node file credential store: what survives a restart, what a damaged or planted file does
// (reported, never overwritten), private permissions, and concurrent writers in one process.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileCredentialStore } from '../../wallet/client/credential-store-file.ts';
import { issueAgentCredential } from '../../wallet/vc/agent-credential.ts';
import type { AgentCredential } from '../../wallet/vc/types.ts';
import { newIdentity } from '../support/agents.ts';

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
      ['invalid entry', JSON.stringify({ version: 1, credentials: [{ ...good, credentialSubject: { id: 'not a did' } }] })],
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
    await expect(createFileCredentialStore({ path: join(dir, 'credentials.json') }).list()).rejects.toEqual(code('CREDENTIAL_STORE_CORRUPT'));
    const big = join(tempDir(), 'credentials.json');
    writeFileSync(big, JSON.stringify({ version: 1, credentials: [good] }));
    await expect(createFileCredentialStore({ path: big, maxFileBytes: 256 }).list()).rejects.toEqual(code('CREDENTIAL_STORE_CORRUPT'));
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
});
