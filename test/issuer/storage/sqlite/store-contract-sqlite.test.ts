// The storage contract (test/support/store-contract.ts) on the SQLite adapter: a real database
// file in a temporary directory, opened with the schema and upgrade of issuer/storage/db.ts.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDatabase } from '../../../../issuer/storage/db.ts';
import { createSqliteStores } from '../../../../issuer/storage/sqlite-stores.ts';
import { describeStoreContract, statusList } from '../../../support/store-contract.ts';
import { tempDir } from '../../../support/issuer.ts';

describeStoreContract('sqlite', () => {
  const dir = tempDir('mandate-stores-');
  const db = openDatabase(join(dir, 'issuer.db'));
  return Promise.resolve({
    stores: createSqliteStores(db),
    // A call through the outer stores checks the open transaction's gate as it is made, before
    // its first await (issuer/storage/sqlite-stores.ts): it is waiting as soon as it returns.
    writerAwaited: () => Promise.resolve(),
    close: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
});

describe('sqlite stores on one file from two connections (a restart, a second process)', () => {
  it('keeps single use and unique allocation across connections', async () => {
    const dir = tempDir('mandate-stores-');
    const first = openDatabase(join(dir, 'issuer.db'));
    const second = openDatabase(join(dir, 'issuer.db'));
    try {
      const [a, b] = [createSqliteStores(first), createSqliteStores(second)];
      const at = Date.parse('2026-11-22T10:00:00Z');
      await a.challenges.insert({
        id: 'c1',
        userDid: 'did:key:z6MkU',
        challenge: 'x',
        createdAt: at,
        expiresAt: at + 60_000,
      });
      expect(await b.challenges.consume('c1', at + 1, { verified: true, evidence: '{}' })).toBe(true);
      expect(await a.challenges.consume('c1', at + 2, { verified: false, evidence: '{}' })).toBe(false);
      await a.statusLists.insert(statusList('l1'));
      expect(await a.statusLists.allocate('l1', 5, at)).toBe(true);
      expect(await b.statusLists.allocate('l1', 5, at)).toBe(false);
      expect(await a.replay.remember('vp:1', at + 60_000, at)).toBe(true);
      expect(await b.replay.remember('vp:1', at + 60_000, at)).toBe(false);
    } finally {
      first.close();
      second.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
