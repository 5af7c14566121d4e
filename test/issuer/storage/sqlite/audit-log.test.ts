// The audit log as a unit: hash chaining from the genesis value, filters and cursor pages, and
// verifyChain finding an edited, deleted or reordered record.
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../../../../wallet/crypto/bytes.ts';
import { sha256Utf8 } from '../../../../wallet/crypto/hash.ts';
import { canonicalizeJson } from '../../../../wallet/crypto/jcs.ts';
import { AUDIT_GENESIS_HASH, clipText, createAuditLog } from '../../../../issuer/audit.ts';
import { openDatabase } from '../../../../issuer/storage/db.ts';
import { createSqliteStores } from '../../../../issuer/storage/sqlite-stores.ts';

function freshLog(start = Date.parse('2026-11-22T10:00:00Z')) {
  let clock = start;
  const db = openDatabase(':memory:');
  const stores = createSqliteStores(db);
  const log = createAuditLog(stores, () => clock);
  return { db, stores, log, tick: (ms: number) => (clock += ms) };
}

describe('audit log', () => {
  it('chains each record to the previous one, the first to the genesis hash', async () => {
    const { log } = freshLog();
    const first = await log.record({
      event: 'AGENT_ENROLLED',
      actor: 'anonymous',
      agentDid: 'did:key:z6Mk1',
      data: { custody: 'server' },
    });
    const second = await log.record({
      event: 'CREDENTIAL_REVOKED',
      actor: 'admin',
      agentDid: 'did:key:z6Mk1',
      reason: 'lost laptop',
    });
    expect(first.seq).toBe(1);
    expect(first.prevHash).toBe(AUDIT_GENESIS_HASH);
    expect(AUDIT_GENESIS_HASH).toBe(bytesToHex(sha256Utf8('mandate:issuer:audit:genesis:v1')));
    expect(second.prevHash).toBe(first.hash);
    // The hash is SHA-256 over the JCS of the record (time as epoch ms, absent fields null).
    const preimage = {
      seq: 1,
      id: first.id,
      at: Date.parse(first.at),
      event: 'AGENT_ENROLLED',
      agentDid: 'did:key:z6Mk1',
      actor: 'anonymous',
      reason: null,
      vpId: null,
      data: canonicalizeJson({ custody: 'server' }),
      prevHash: AUDIT_GENESIS_HASH,
    };
    expect(first.hash).toBe(bytesToHex(sha256Utf8(canonicalizeJson(preimage))));
    expect(await log.verifyChain()).toEqual({ intact: true, count: 2, headHash: second.hash });
  });

  it('cuts long text without splitting a surrogate pair, so such a record can still be written', async () => {
    expect(clipText('abc', 5)).toBe('abc');
    expect(clipText('abcdef', 3)).toBe('abc');
    expect(clipText('ab\u{1F600}c', 3)).toBe('ab'); // would end in the emoji's high half
    expect(clipText('ab\u{1F600}c', 4)).toBe('ab\u{1F600}');
    expect(clipText('x\ud800y\udc00', 10)).toBe('x\ufffdy\ufffd'); // lone halves, as JSON can spell them
    const { log } = freshLog();
    expect((await log.record({ event: 'E', actor: `${'x'.repeat(511)}\u{1F600}` })).actor).toBe('x'.repeat(511));
  });

  it('rolls back with the surrounding transaction', async () => {
    const { stores, log } = freshLog();
    await log.record({ event: 'A', actor: 'system' });
    await expect(
      stores.transaction(async (tx) => {
        await log.record({ event: 'B', actor: 'system' }, tx);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await log.list()).records.map((r) => r.event)).toEqual(['A']);
    expect((await log.record({ event: 'C', actor: 'system' })).seq).toBe(2);
    expect((await log.verifyChain()).intact).toBe(true);
  });

  it('filters by agent, event and time, and pages with a cursor', async () => {
    const { log, tick } = freshLog();
    for (let i = 0; i < 7; i++) {
      await log.record({
        event: i % 2 === 0 ? 'VP_VERIFIED' : 'VP_REJECTED',
        actor: 'anonymous',
        agentDid: i < 4 ? 'did:key:a' : 'did:key:b',
        vpId: `urn:uuid:${i}`,
      });
      tick(1000);
    }
    expect((await log.list({ agentDid: 'did:key:a' })).records).toHaveLength(4);
    expect((await log.list({ event: 'VP_REJECTED' })).records.map((r) => r.vpId)).toEqual([
      'urn:uuid:1',
      'urn:uuid:3',
      'urn:uuid:5',
    ]);
    const from = Date.parse('2026-11-22T10:00:02Z');
    const to = Date.parse('2026-11-22T10:00:04Z');
    expect((await log.list({ from, to })).records.map((r) => r.seq)).toEqual([3, 4, 5]);
    const pages: number[][] = [];
    let cursor: string | undefined;
    do {
      const page = await log.list({ limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      pages.push(page.records.map((r) => r.seq));
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect((await log.list({ limit: 10_000 })).records).toHaveLength(7); // clamped to 500, not refused
  });

  it('verifies a long log in chunks without stalling the event loop; concurrent calls share one run', async () => {
    const { log } = freshLog();
    let head = '';
    for (let i = 0; i < 5000; i++) head = (await log.record({ event: 'E', actor: 'system', data: { i } })).hash;
    const order: string[] = [];
    const run = log.verifyChain();
    expect(log.verifyChain()).toBe(run);
    setImmediate(() => order.push('other work'));
    // Records written while it runs are neither counted nor a break.
    let late: Promise<unknown> | undefined;
    setImmediate(() => (late = log.record({ event: 'LATE', actor: 'system' })));
    const verdict = await run.then((v) => (order.push('verdict'), v));
    expect(verdict).toEqual({ intact: true, count: 5000, headHash: head });
    expect(order).toEqual(['other work', 'verdict']);
    await late;
    expect(await log.verifyChain()).toMatchObject({ intact: true, count: 5001 });
  });

  it('finds an edited, a deleted and a reordered record', async () => {
    const tamper = async (sql: string) => {
      const { db, log } = freshLog();
      for (let i = 0; i < 5; i++) await log.record({ event: 'E', actor: 'system', data: { i } });
      db.sqlite.exec(sql);
      return log.verifyChain();
    };
    expect(await tamper(`UPDATE audit SET reason = 'edited' WHERE seq = 3`)).toEqual({
      intact: false,
      brokenAt: 3,
      count: 5,
    });
    expect(await tamper(`UPDATE audit SET data = '{"i":9}' WHERE seq = 2`)).toEqual({
      intact: false,
      brokenAt: 2,
      count: 5,
    });
    expect(await tamper(`DELETE FROM audit WHERE seq = 2`)).toEqual({ intact: false, brokenAt: 3, count: 4 });
    // Swapping two records' contents (keeping seq) breaks at the first of them.
    expect(
      await tamper(
        `UPDATE audit SET seq = -1 WHERE seq = 2; UPDATE audit SET seq = 2 WHERE seq = 4; UPDATE audit SET seq = 4 WHERE seq = -1;`,
      ),
    ).toEqual({ intact: false, brokenAt: 2, count: 5 });
    // A record renumbered out of the sequence (to 0) is not skipped.
    expect(await tamper(`UPDATE audit SET seq = 0 WHERE seq = 5`)).toEqual({ intact: false, brokenAt: 0, count: 5 });
  });

  it('group-commits concurrent appends: consecutive links in call order, each answered once stored', async () => {
    const { log, stores } = freshLog();
    const records = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        log.record({ event: 'VP_VERIFIED', actor: 'anonymous', vpId: `urn:vp:${i}` }),
      ),
    );
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(records.map((r) => r.vpId)).toEqual(Array.from({ length: 40 }, (_, i) => `urn:vp:${i}`));
    for (let i = 1; i < records.length; i++) expect(records[i]?.prevHash).toBe(records[i - 1]?.hash);
    expect((await stores.audit.last())?.hash).toBe(records[39]?.hash);
    expect(await log.verifyChain()).toEqual({ intact: true, count: 40, headHash: records[39]?.hash });
  });

  it('logs sharing one database (instances) extend one chain, each following the head the others moved', async () => {
    const { log, stores } = freshLog();
    const other = createAuditLog(stores);
    const transactions: number[] = [];
    const counted = createAuditLog({ ...stores, transaction: (fn) => (transactions.push(1), stores.transaction(fn)) });
    const logs = [log, other, counted];
    for (let round = 0; round < 4; round++) {
      await Promise.all(
        logs.flatMap((l, i) => [0, 1].map((n) => l.record({ event: 'VP_VERIFIED', actor: `log-${i}-${round}-${n}` }))),
      );
    }
    const verdict = await log.verifyChain();
    expect(verdict).toMatchObject({ intact: true, count: 24 });
    // Each batch is placed after the head as the store finds it: no writer transaction, no retry.
    expect(transactions).toEqual([]);
  });

  it('recordIf: a record whose replay key is taken is left out of its batch, the rest is chained', async () => {
    const { log, stores, tick } = freshLog();
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(await stores.replay.remember('spent', now + 60_000, now)).toBe(true);
    const key = (k: string) => [{ key: k, expiresAt: now + 60_000 }];
    const results = await Promise.all([
      log.recordIf({ event: 'VP_VERIFIED', actor: 'a' }, { keys: key('k1') }),
      log.recordIf({ event: 'VP_VERIFIED', actor: 'b' }, { keys: key('spent') }),
      log.record({ event: 'VP_REJECTED', actor: 'c' }),
      log.recordIf({ event: 'VP_VERIFIED', actor: 'd' }, { keys: [...key('k2'), ...key('k1')] }),
      log.recordIf({ event: 'VP_VERIFIED', actor: 'e' }, { keys: key('k3') }),
    ]);
    expect(results.map((r) => r?.seq)).toEqual([1, undefined, 2, undefined, 3]);
    expect(results.map((r) => r?.actor)).toEqual(['a', undefined, 'c', undefined, 'e']);
    expect(await log.verifyChain()).toMatchObject({ intact: true, count: 3 });
    // The left-out record spent nothing: its free key (k2) is still free; the others are spent.
    expect(await stores.replay.remember('k2', now + 60_000, now)).toBe(true);
    expect(await stores.replay.remember('k3', now + 60_000, now)).toBe(false);
    // A key whose expiry has passed by the log's clock is not free either.
    tick(61_000);
    expect(await log.recordIf({ event: 'VP_VERIFIED', actor: 'f' }, { keys: key('k4') })).toBeUndefined();
  });

  it('recordIf with a read generation: written while it holds, refused (nothing written) once it has moved', async () => {
    const { log, stores } = freshLog();
    const generation = await stores.readGeneration.current();
    expect(await log.recordIf({ event: 'VP_VERIFIED', actor: 'a' }, { generation })).toMatchObject({ seq: 1 });
    const doc = { '@context': ['https://www.w3.org/ns/did/v1'], id: 'did:web:x.example:a' };
    const at = Date.parse('2026-11-22T10:00:00Z');
    await stores.dids.insert({
      did: doc.id,
      document: doc,
      kind: 'managed',
      deactivated: false,
      createdAt: at,
      updatedAt: at,
    });
    const key = { key: 'k', expiresAt: at + 60_000 };
    expect(await log.recordIf({ event: 'VP_VERIFIED', actor: 'b' }, { generation, keys: [key] })).toBeUndefined();
    expect(await stores.replay.remember('k', at + 60_000, at)).toBe(true);
    expect(await log.verifyChain()).toMatchObject({ intact: true, count: 1 });
  });

  it('an input with no JSON form fails alone; a batch whose write fails rejects every caller in it', async () => {
    const { log, stores } = freshLog();
    const [bad, good] = await Promise.allSettled([
      log.record({ event: 'VP_VERIFIED', actor: 'anonymous', data: { n: Number.NaN } }),
      log.record({ event: 'VP_VERIFIED', actor: 'anonymous' }),
    ]);
    expect(bad.status).toBe('rejected');
    expect(good.status === 'fulfilled' && good.value.seq).toBe(1);

    const failing = createAuditLog({
      ...stores,
      audit: { ...stores.audit, appendEntries: () => Promise.reject(new Error('disk I/O error')) },
    });
    const settled = await Promise.allSettled([
      failing.record({ event: 'VP_VERIFIED', actor: 'anonymous' }),
      failing.record({ event: 'VP_REJECTED', actor: 'anonymous' }),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect((await stores.audit.last())?.seq).toBe(1);
  });
});
