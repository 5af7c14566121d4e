// The storage contract (issuer/storage/stores.ts): what every IssuerStores adapter must do, written
// once. An adapter's test calls describeStoreContract with a factory of fresh, empty stores (the
// schema in place); test/issuer/storage/sqlite/store-contract-sqlite.test.ts runs it on a SQLite file.
//
// "Concurrent" attempts are started together with Promise.all: a network adapter really
// interleaves them on several connections; the guarantee (exactly one wins) is the same.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentRecord } from '../../issuer/storage/agents-store.ts';
import { AUDIT_GENESIS_HASH, auditRecordHash, linkAfter, type AuditEntry } from '../../issuer/storage/audit-chain.ts';
import type { AuditRow } from '../../issuer/storage/audit-store.ts';
import type { NewCredential } from '../../issuer/storage/credentials-store.ts';
import type { IssuerStores } from '../../issuer/storage/stores.ts';
import type { NewEnrollmentToken } from '../../issuer/storage/tokens-store.ts';

export interface StoresUnderTest {
  stores: IssuerStores;
  /**
   * Resolves once a call made outside an open writer transaction waits for it to end: the
   * adapter's own sign that the call got as far as the writer's lock, so a test need not sleep.
   */
  writerAwaited(): Promise<void>;
  close(): Promise<void>;
}

const T0 = Date.parse('2026-11-22T10:00:00Z');
const MINUTE = 60_000;
const ATTEMPTS = 8;

/** How many of `attempts` concurrent calls of `attempt` returned true. */
async function winners(attempt: (i: number) => Promise<boolean>, attempts = ATTEMPTS): Promise<number> {
  const results = await Promise.all(
    Array.from({ length: attempts }, (_, i) => Promise.resolve().then(() => attempt(i))),
  );
  return results.filter(Boolean).length;
}

function token(id: string, over: Partial<NewEnrollmentToken> = {}): NewEnrollmentToken {
  return {
    id,
    tokenHash: `hash-${id}`,
    requestedScopes: ['read:x'],
    maxDelegationDepth: 1,
    requestedDomains: [],
    credentialTtlSeconds: 3600,
    createdAt: T0,
    expiresAt: T0 + 10 * MINUTE,
    createdBy: 'admin',
    ...over,
  };
}

function agent(n: number, over: Partial<AgentRecord> = {}): AgentRecord {
  return {
    did: `did:key:z6MkAgent${n}`,
    id: `agent-${n}`,
    custody: 'self',
    tokenId: null,
    privilegeScopes: ['read:x'],
    delegationDepth: 1,
    domains: null,
    currentCredentialId: null,
    createdAt: T0 + n,
    ...over,
  };
}

function credential(id: string, over: Partial<NewCredential> = {}): NewCredential {
  return {
    id,
    type: 'AgentCredential',
    subjectDid: 'did:key:z6MkAgent1',
    issuerDid: 'did:web:issuer.example',
    credential: { id, type: ['VerifiableCredential', 'AgentCredential'] },
    parentId: null,
    revocation: null,
    suspension: null,
    validFrom: T0,
    validUntil: T0 + 60 * MINUTE,
    issuedAt: T0,
    ...over,
  };
}

/** An entry to place: a record without its place in the chain. */
function entryOf(id: string, over: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id,
    at: T0,
    event: 'AGENT_ENROLLED',
    agentDid: null,
    actor: 'system',
    reason: null,
    vpId: null,
    data: null,
    ...over,
  };
}

/** The seqs of `rows` (a whole chain, in order) whose link does not hold. */
function brokenLinks(rows: AuditRow[]): number[] {
  return rows
    .filter((row, i) => {
      const { hash, ...rest } = row;
      const prev = i === 0 ? AUDIT_GENESIS_HASH : rows[i - 1]?.hash;
      return row.seq !== i + 1 || row.prevHash !== prev || auditRecordHash(rest) !== hash;
    })
    .map((row) => row.seq);
}

function auditRow(seq: number, over: Partial<AuditRow> = {}): AuditRow {
  return { ...entryOf(`audit-${seq}`, { at: T0 + seq }), seq, prevHash: `h${seq - 1}`, hash: `h${seq}`, ...over };
}

const LIST_LENGTH = 64;
/** A new, empty status list of 64 entries created at T0 (2026-11-22T10:00:00Z). */
export function statusList(id: string, purpose = 'revocation') {
  return {
    id,
    purpose,
    length: LIST_LENGTH,
    statusSize: 1,
    statusMessages: null,
    bitstring: new Uint8Array(LIST_LENGTH / 8),
    allocated: new Uint8Array(LIST_LENGTH / 8),
    createdAt: T0,
  };
}

export function describeStoreContract(name: string, makeStores: () => Promise<StoresUnderTest>): void {
  describe(`store contract: ${name}`, () => {
    let opened: StoresUnderTest;
    let s: IssuerStores;
    beforeEach(async () => {
      opened = await makeStores();
      s = opened.stores;
    });
    afterEach(async () => {
      await opened.close();
    });

    describeTokens(() => s);
    describeChallenges(() => s);
    describeReplay(() => s);
    describeStatusLists(() => s);
    describeAudit(
      () => s,
      () => opened.writerAwaited(),
    );
    describeSmallStores(() => s);
    describeAgents(() => s);
    describeCredentials(() => s);
    describeDids(() => s);
    describeTransactions(() => opened.stores);
  });
}

type Get = () => IssuerStores;

function describeTokens(get: Get): void {
  describe('tokens', () => {
    it('stores a token, finds it by hash and id, and lists newest first with a cursor', async () => {
      const s = get();
      await s.tokens.insert(token('00000000-0000-4000-8000-000000000001', { createdAt: T0 }));
      await s.tokens.insert(token('00000000-0000-4000-8000-000000000002', { createdAt: T0 + 1 }));
      await s.tokens.insert(token('00000000-0000-4000-8000-000000000003', { createdAt: T0 + 2 }));
      expect((await s.tokens.findByHash('hash-00000000-0000-4000-8000-000000000002'))?.requestedScopes).toEqual([
        'read:x',
      ]);
      expect(await s.tokens.findById('00000000-0000-4000-8000-000000000001')).toMatchObject({
        usedAt: null,
        agentDid: null,
      });
      expect(await s.tokens.findById('nope')).toBeUndefined();
      const first = await s.tokens.list({ limit: 2 });
      expect(first.map((t) => t.id.slice(-1))).toEqual(['3', '2']);
      const last = first[1];
      if (!last) throw new Error('no second token');
      const next = await s.tokens.list({ cursor: `${last.createdAt}|${last.id}`, limit: 2 });
      expect(next.map((t) => t.id.slice(-1))).toEqual(['1']);
    });

    it('claim is single use, under concurrent attempts, and refused once expired', async () => {
      const s = get();
      await s.tokens.insert(token('t1'));
      await s.tokens.insert(token('t2'));
      expect(await winners((i) => s.tokens.claim('t1', T0 + MINUTE, `did:key:z6MkClaimer${i}`))).toBe(1);
      expect((await s.tokens.findById('t1'))?.usedAt).toBe(T0 + MINUTE);
      expect(await s.tokens.claim('t1', T0 + MINUTE, 'did:key:z6MkLate')).toBe(false);
      expect(await s.tokens.claim('t2', T0 + 10 * MINUTE, 'did:key:z6MkLate')).toBe(false);
      expect(await s.tokens.claim('absent', T0, 'did:key:z6MkLate')).toBe(false);
    });

    it('onboarding sessions complete once, under concurrent attempts, and not after expiry', async () => {
      const s = get();
      await s.tokens.insert(token('t1'));
      const session = { tokenId: 't1', custody: 'server' as const, did: null, challengeHash: 'ab', createdAt: T0 };
      await s.tokens.insertSession({ ...session, id: 's1', expiresAt: T0 + MINUTE });
      await s.tokens.insertSession({ ...session, id: 's2', expiresAt: T0 + MINUTE });
      expect(await s.tokens.findSession('s1')).toMatchObject({ tokenId: 't1', challengeHash: 'ab', completedAt: null });
      expect(await winners(() => s.tokens.completeSession('s1', T0 + 1))).toBe(1);
      expect((await s.tokens.findSession('s1'))?.completedAt).toBe(T0 + 1);
      expect(await s.tokens.completeSession('s2', T0 + MINUTE)).toBe(false);
    });
  });
}

function describeChallenges(get: Get): void {
  describe('challenges', () => {
    const challenge = (id: string, createdAt = T0) => ({
      id,
      userDid: 'did:key:z6MkUser',
      challenge: `challenge-${id}`,
      createdAt,
      expiresAt: createdAt + 5 * MINUTE,
    });

    it('stores a challenge and reads it back unanswered', async () => {
      const s = get();
      await s.challenges.insert(challenge('c1'));
      expect(await s.challenges.get('c1')).toStrictEqual({
        ...challenge('c1'),
        usedAt: undefined,
        verified: undefined,
        evidence: undefined,
      });
      expect(await s.challenges.get('absent')).toBeUndefined();
    });

    it('consumption is single use under concurrent attempts, and keeps the first outcome', async () => {
      const s = get();
      await s.challenges.insert(challenge('c1'));
      const won = await winners((i) =>
        s.challenges.consume('c1', T0 + 1, { verified: i % 2 === 0, evidence: JSON.stringify({ attempt: i }) }),
      );
      expect(won).toBe(1);
      const used = await s.challenges.get('c1');
      expect(used?.usedAt).toBe(T0 + 1);
      expect(typeof used?.verified).toBe('boolean');
      // The evidence is the same winner's: its attempt's parity is the verdict kept.
      expect(JSON.parse(used?.evidence ?? 'null').attempt % 2 === 0).toBe(used?.verified);
      expect(await s.challenges.consume('c1', T0 + 2, { verified: true, evidence: '{}' })).toBe(false);
      expect(await s.challenges.consume('absent', T0, { verified: true, evidence: '{}' })).toBe(false);
    });

    it('refuses consumption once expired, and leaves the challenge unanswered', async () => {
      const s = get();
      await s.challenges.insert(challenge('c1'));
      expect(await s.challenges.consume('c1', T0 + 5 * MINUTE + 1, { verified: true, evidence: '{}' })).toBe(false);
      expect((await s.challenges.get('c1'))?.usedAt).toBeUndefined();
    });

    it('deletes challenges long expired unanswered as new ones arrive, never answered ones', async () => {
      const s = get();
      await s.challenges.insert(challenge('old'));
      await s.challenges.insert(challenge('answered'));
      await s.challenges.consume('answered', T0 + 1, { verified: false, evidence: '{}' });
      await s.challenges.insert(challenge('new', T0 + 5 * MINUTE + 61 * MINUTE));
      expect(await s.challenges.get('old')).toBeUndefined();
      expect(await s.challenges.get('answered')).toBeDefined();
      expect(await s.challenges.get('new')).toBeDefined();
    });

    it('refuses a second challenge with the same text', async () => {
      const s = get();
      await s.challenges.insert(challenge('c1'));
      await expect(
        Promise.resolve().then(() => s.challenges.insert({ ...challenge('c2'), challenge: 'challenge-c1' })),
      ).rejects.toThrow();
    });
  });
}

function describeReplay(get: Get): void {
  describe('replay', () => {
    it('remembers a key once under concurrent attempts, until it expires', async () => {
      const s = get();
      expect(await winners(() => s.replay.remember('vp:a', T0 + MINUTE, T0))).toBe(1);
      expect(await s.replay.remember('vp:a', T0 + 2 * MINUTE, T0 + 1)).toBe(false);
      expect(await s.replay.remember('vp:b', T0 + MINUTE, T0)).toBe(true);
      // Expired: it may be recorded afresh, once.
      expect(await winners(() => s.replay.remember('vp:a', T0 + 3 * MINUTE, T0 + MINUTE))).toBe(1);
    });

    it('refuses a key already expired, and does not record it', async () => {
      const s = get();
      expect(await s.replay.remember('vp:c', T0, T0)).toBe(false);
      expect(await s.replay.remember('vp:c', T0 + MINUTE, T0)).toBe(true);
    });
  });
}

function describeStatusLists(get: Get): void {
  describe('status lists', () => {
    it('stores lists and lists them in creation order', async () => {
      const s = get();
      await s.statusLists.insert(statusList('revocation-1'));
      await s.statusLists.insert({ ...statusList('suspension-1', 'suspension'), createdAt: T0 + 1 });
      const list = await s.statusLists.get('revocation-1');
      expect(list).toMatchObject({ purpose: 'revocation', length: LIST_LENGTH, issued: 0, version: 0 });
      expect(list?.bitstring).toEqual(new Uint8Array(LIST_LENGTH / 8));
      expect((await s.statusLists.list()).map((l) => l.id)).toEqual(['revocation-1', 'suspension-1']);
      expect(await s.statusLists.get('absent')).toBeUndefined();
      expect(await s.statusLists.version('absent')).toBeUndefined();
    });

    it('allocates an index exactly once under concurrent attempts, and counts each allocation', async () => {
      const s = get();
      await s.statusLists.insert(statusList('l1'));
      expect(await winners(() => s.statusLists.allocate('l1', 13, T0 + 1))).toBe(1);
      expect(await winners((i) => s.statusLists.allocate('l1', 20 + i, T0 + 1))).toBe(ATTEMPTS);
      const list = await s.statusLists.get('l1');
      expect(list?.issued).toBe(ATTEMPTS + 1);
      expect(list?.allocated[13 >> 3]).toBe(0x80 >> (13 & 7));
      expect(await s.statusLists.allocate('l1', LIST_LENGTH, T0)).toBe(false);
      expect(await s.statusLists.allocate('l1', -1, T0)).toBe(false);
      expect(await s.statusLists.allocate('absent', 0, T0)).toBe(false);
    });

    it('bumps the version on every bitstring change, and caches a signature only for the current version', async () => {
      const s = get();
      await s.statusLists.insert(statusList('l1'));
      const bits = new Uint8Array(LIST_LENGTH / 8);
      bits[0] = 0x80;
      await s.statusLists.saveBitstring('l1', bits, T0 + 1);
      expect(await s.statusLists.version('l1')).toBe(1);
      expect(await s.statusLists.saveSigned('l1', 0, '{"stale":true}', '"e0"')).toBe(false);
      expect(await s.statusLists.saveSigned('l1', 1, '{"v":1}', '"e1"')).toBe(true);
      expect(await s.statusLists.get('l1')).toMatchObject({ signedVersion: 1, signedJson: '{"v":1}', etag: '"e1"' });
      expect((await s.statusLists.get('l1'))?.bitstring[0]).toBe(0x80);
      await s.statusLists.clearSigned();
      expect(await s.statusLists.get('l1')).toMatchObject({ signedVersion: null, signedJson: null, etag: null });
    });
  });
}

function describeAudit(get: Get, writerAwaited: () => Promise<void>): void {
  describe('audit', () => {
    it('appends a linear chain: a taken seq is refused, whoever read the same head', async () => {
      const s = get();
      expect(await s.audit.last()).toBeUndefined();
      await s.audit.append(auditRow(1));
      const head = await s.audit.last();
      expect(head).toEqual({ seq: 1, hash: 'h1' });
      const attempts = await Promise.allSettled(
        Array.from({ length: ATTEMPTS }, (_, i) =>
          Promise.resolve().then(() => s.audit.append(auditRow(2, { id: `racer-${i}`, hash: `h2-${i}` }))),
        ),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      expect((await s.audit.list({ limit: 10 })).map((r) => r.seq)).toEqual([1, 2]);
    });

    it('appends a batch of links at once, or none of it when one link is refused', async () => {
      const s = get();
      await s.audit.append(auditRow(1));
      // Text PostgreSQL's TEXT cannot hold (U+0000) and the encoding's own mark come back as written.
      const odd = auditRow(3, { actor: 'a\u0000b', reason: '\u0001x', data: '{"k":"\u0000"}', vpId: 'urn:uuid:ü' });
      await s.audit.append(auditRow(2), odd, auditRow(4));
      expect(await s.audit.list({ limit: 10 })).toEqual([auditRow(1), auditRow(2), odd, auditRow(4)]);
      await expect(s.audit.append(auditRow(5), auditRow(4, { id: 'second-4' }))).rejects.toThrow();
      expect(await s.audit.last()).toEqual({ seq: 4, hash: 'h4' });
      await s.audit.append();
      expect((await s.audit.list({ limit: 10 })).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    });

    it('places entries after the head it finds, each with the hash of its place in the chain', async () => {
      const s = get();
      const first = await s.audit.appendEntries([entryOf('e1')]);
      expect(first).toEqual([{ ...entryOf('e1'), seq: 1, prevHash: AUDIT_GENESIS_HASH, hash: expect.any(String) }]);
      // A writer transaction moves the head (another instance, a caller's record): found there.
      await s.transaction(async (tx) => {
        const [row] = linkAfter(await tx.audit.last(), [entryOf('e2')]);
        await tx.audit.append(row as AuditRow);
      });
      // Text PostgreSQL's TEXT cannot hold (U+0000), the encoding's own mark, and what JCS escapes.
      const odd = entryOf('e4', {
        agentDid: 'did:key:z6Mk\u0000',
        actor: 'a\u0000b"\\\n\u001f',
        reason: '\u0001x é 😀',
        vpId: 'urn:uuid:ü',
        data: '{"k":"\\u0000","n":-0.5}',
      });
      const placed = await s.audit.appendEntries([entryOf('e3'), odd]);
      expect(placed.map((row) => row?.seq)).toEqual([3, 4]);
      const rows = await s.audit.list({ limit: 10 });
      expect(rows.slice(2)).toEqual(placed);
      expect(rows[3]).toMatchObject(odd);
      expect(brokenLinks(rows)).toEqual([]);
    });

    it('of concurrent appendEntries calls, each places its entries as consecutive links of one chain', async () => {
      const s = get();
      const calls = await Promise.all(
        Array.from({ length: ATTEMPTS }, (_, i) => s.audit.appendEntries([entryOf(`a-${i}`), entryOf(`b-${i}`)])),
      );
      for (const [a, b] of calls) expect(b?.seq).toBe((a?.seq ?? 0) + 1);
      const rows = await s.audit.list({ limit: 100 });
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 2 * ATTEMPTS }, (_, i) => i + 1));
      expect(brokenLinks(rows)).toEqual([]);
    });

    it('appendEntries waits for an open writer transaction and places its links after what it wrote', async () => {
      const s = get();
      for (const seq of [1, 2]) {
        let outside: ReturnType<IssuerStores['audit']['appendEntries']> | undefined;
        await s.transaction(async (tx) => {
          const [row] = linkAfter(await tx.audit.last(), [entryOf(`inside-${seq}`)]);
          outside = s.audit.appendEntries([entryOf(`outside-${seq}`)]);
          await writerAwaited();
          await tx.audit.append(row as AuditRow);
        });
        expect((await outside)?.[0]?.seq).toBe(2 * seq);
      }
      const rows = await s.audit.list({ limit: 10 });
      expect(rows.map((r) => r.id)).toEqual(['inside-1', 'outside-1', 'inside-2', 'outside-2']);
      expect(brokenLinks(rows)).toEqual([]);
    });

    it('appendEntries inside a writer transaction places after what it wrote, and rolls back with it', async () => {
      const s = get();
      const placed = await s.transaction(async (tx) => {
        const [row] = linkAfter(await tx.audit.last(), [entryOf('in-tx')]);
        await tx.audit.append(row as AuditRow);
        return tx.audit.appendEntries([entryOf('after')]);
      });
      expect(placed.map((row) => row?.seq)).toEqual([2]);
      const undone = s.transaction(async (tx) => {
        const claim = { at: T0, keys: [{ row: 0, key: 'tx-key', expiresAt: T0 + 1000 }], generations: [] };
        expect((await tx.audit.appendEntries([entryOf('undone')], claim))[0]?.seq).toBe(3);
        throw new Error('rolled back');
      });
      await expect(undone).rejects.toThrow('rolled back');
      const rows = await s.audit.list({ limit: 10 });
      expect(rows.map((r) => r.id)).toEqual(['in-tx', 'after']);
      expect(brokenLinks(rows)).toEqual([]);
      expect(await s.replay.remember('tx-key', T0 + 1000, T0)).toBe(true);
    });

    it('appendEntries takes replay keys with the links, and leaves out the entries whose keys are not free', async () => {
      const s = get();
      const claims = (...keys: [row: number, key: string, expiresAt?: number][]) => ({
        at: T0,
        keys: keys.map(([row, key, expiresAt = T0 + 1000]) => ({ row, key, expiresAt })),
        generations: [],
      });
      const ids = (rows: (AuditRow | undefined)[]) => rows.map((row) => row?.id);
      const entries = (...names: string[]) => names.map((name) => entryOf(name));
      const claimed = claims([0, 'k1'], [1, 'k2'], [1, 'k3\u0000']);
      expect(ids(await s.audit.appendEntries(entries('e1', 'e2'), claimed))).toEqual(['e1', 'e2']);
      for (const key of ['k1', 'k2', 'k3\u0000']) expect(await s.replay.remember(key, T0 + 1000, T0)).toBe(false);
      // A key recorded and unexpired; one an earlier entry of the batch takes; one expiring by `at`.
      // An entry left out takes none of its keys (k6, k8), the others take theirs.
      expect(await s.replay.remember('k4', T0 + 1000, T0)).toBe(true);
      const mixed = claims([0, 'k5'], [1, 'k6'], [1, 'k4'], [2, 'k7'], [3, 'k5'], [4, 'k8'], [4, 'k9', T0]);
      const placed = await s.audit.appendEntries(entries('e3', 'e4', 'e5', 'e6', 'e7'), mixed);
      expect(ids(placed)).toEqual(['e3', undefined, 'e5', undefined, undefined]);
      expect(placed.map((row) => row?.seq)).toEqual([3, undefined, 4, undefined, undefined]);
      for (const key of ['k5', 'k7']) expect(await s.replay.remember(key, T0 + 1000, T0)).toBe(false);
      for (const key of ['k6', 'k8', 'k9']) expect(await s.replay.remember(key, T0 + 1000, T0)).toBe(true);
      // Every entry left out: nothing written.
      expect(await s.audit.appendEntries(entries('e8'), claims([0, 'k1']))).toEqual([undefined]);
      // A recorded key whose expiry has passed is taken afresh.
      expect(await s.replay.remember('k10', T0 + 10, T0)).toBe(true);
      const later = { at: T0 + 10, keys: [{ row: 0, key: 'k10', expiresAt: T0 + 2000 }], generations: [] };
      expect(ids(await s.audit.appendEntries(entries('e9'), later))).toEqual(['e9']);
      expect(await s.replay.remember('k10', T0 + 2000, T0 + 1000)).toBe(false);
      const rows = await s.audit.list({ limit: 10 });
      expect(rows.map((r) => r.id)).toEqual(['e1', 'e2', 'e3', 'e5', 'e9']);
      expect(brokenLinks(rows)).toEqual([]);
    });

    it('appendEntries leaves out entries made at a read generation that has passed, and they take no key', async () => {
      const s = get();
      const at = await s.readGeneration.current();
      const conditions = (generation: number, key: string) => ({
        at: T0,
        keys: [{ row: 1, key, expiresAt: T0 + 1000 }],
        generations: [
          { row: 0, generation: at },
          { row: 1, generation },
        ],
      });
      const placed = await s.audit.appendEntries([entryOf('e1'), entryOf('e2')], conditions(at, 'g1'));
      expect(placed.map((row) => row?.id)).toEqual(['e1', 'e2']);
      // A status changed: the generation moves; entries of the old one are left out, and take no key.
      await s.statusLists.insert(statusList('gl'));
      const moved = await s.readGeneration.current();
      expect(moved).not.toBe(at);
      const stale = await s.audit.appendEntries([entryOf('e3'), entryOf('e4'), entryOf('e5')], {
        ...conditions(at, 'g2'),
        generations: [
          { row: 0, generation: at },
          { row: 1, generation: at },
          { row: 2, generation: moved },
        ],
      });
      expect(stale.map((row) => row?.id)).toEqual([undefined, undefined, 'e5']);
      expect(await s.replay.remember('g2', T0 + 1000, T0)).toBe(true);
      expect((await s.audit.list({ limit: 10 })).map((r) => r.id)).toEqual(['e1', 'e2', 'e5']);
    });

    it('the read generation moves with every change to what a verification reads, and only then', async () => {
      const s = get();
      const generation = () => s.readGeneration.current();
      const seen = [await generation()];
      const moves = async (change: () => Promise<unknown>, expected: boolean) => {
        await change();
        const now = await generation();
        expect(now !== seen.at(-1), `${String(change)}`).toBe(expected);
        seen.push(now);
      };
      const doc = { '@context': ['https://www.w3.org/ns/did/v1'], id: 'did:web:x.example:g' };
      const record = { did: doc.id, document: doc, kind: 'managed' as const, deactivated: false };
      await moves(() => s.dids.insert({ ...record, createdAt: T0, updatedAt: T0 }), true);
      await moves(() => s.dids.updateDocument(doc.id, { ...doc, service: [] }, T0 + 1), true);
      await moves(() => s.dids.deactivate(doc.id, T0 + 2), true);
      await moves(() => s.statusLists.insert(statusList('gen')), true);
      await moves(() => s.statusLists.allocate('gen', 7, T0), false);
      await moves(() => s.statusLists.saveBitstring('gen', new Uint8Array(LIST_LENGTH / 8), T0 + 3), true);
      await moves(() => s.settings.set('unrelated', 'x'), false);
      // In a transaction that rolls back, nothing moves.
      await s
        .transaction(async (tx) => {
          await tx.dids.updateDocument(doc.id, doc, T0 + 4);
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      await moves(() => Promise.resolve(), false);
    });

    it('of concurrent appendEntries claims and remember calls with one key, exactly one wins', async () => {
      const s = get();
      const claim = { at: T0, keys: [{ row: 0, key: 'once', expiresAt: T0 + 1000 }], generations: [] };
      const attempt = async (i: number): Promise<['claim' | 'remember', boolean]> =>
        i % 2 === 0
          ? ['claim', (await s.audit.appendEntries([entryOf(`claim-${i}`)], claim))[0] !== undefined]
          : ['remember', await s.replay.remember('once', T0 + 1000, T0)];
      const results = await Promise.all(Array.from({ length: ATTEMPTS }, (_, i) => Promise.resolve(i).then(attempt)));
      const wins = results.filter(([, won]) => won);
      expect(wins).toHaveLength(1);
      // The link is written exactly when a claim won.
      expect(await s.audit.list({ limit: 10 })).toHaveLength(wins[0]?.[0] === 'claim' ? 1 : 0);
    });

    it('lists by filter, in either order, between seq bounds', async () => {
      const s = get();
      await s.audit.append(auditRow(1, { agentDid: 'did:key:z6MkA', event: 'AGENT_ENROLLED' }));
      await s.audit.append(auditRow(2, { agentDid: 'did:key:z6MkA', event: 'CONSENT_VERIFIED' }));
      await s.audit.append(auditRow(3, { agentDid: 'did:key:z6MkB', event: 'CREDENTIAL_REVOKED', data: '{"x":1}' }));
      await s.audit.append(auditRow(4, { event: 'PROVIDER_ACTION' }));
      const seqs = async (filter: Parameters<IssuerStores['audit']['list']>[0]) =>
        (await s.audit.list(filter)).map((r) => r.seq);
      expect(await seqs({ limit: 10 })).toEqual([1, 2, 3, 4]);
      expect(await seqs({ limit: 2, order: 'desc' })).toEqual([4, 3]);
      expect(await seqs({ limit: 10, order: 'desc', beforeSeq: 3 })).toEqual([2, 1]);
      expect(await seqs({ limit: 10, afterSeq: 2 })).toEqual([3, 4]);
      expect(await seqs({ limit: 10, agentDid: 'did:key:z6MkA' })).toEqual([1, 2]);
      expect(await seqs({ limit: 10, event: 'CREDENTIAL_REVOKED' })).toEqual([3]);
      expect(await seqs({ limit: 10, reported: true })).toEqual([2, 4]);
      expect(await seqs({ limit: 10, reported: false, agentDid: 'did:key:z6MkA' })).toEqual([1]);
      expect(await seqs({ limit: 10, from: T0 + 2, to: T0 + 3 })).toEqual([2, 3]);
      expect((await s.audit.list({ limit: 1, afterSeq: 2 }))[0]).toEqual(
        auditRow(3, { agentDid: 'did:key:z6MkB', event: 'CREDENTIAL_REVOKED', data: '{"x":1}' }),
      );
    });

    it('records a provider event receipt once per event id, under concurrent attempts', async () => {
      const s = get();
      expect(await winners((i) => s.auditReceipts.claim('evt-1', `did:web:provider${i}`, `audit-${i}`, T0))).toBe(1);
      expect(await s.auditReceipts.claim('evt-1', 'did:web:provider', 'audit-x', T0 + 1)).toBe(false);
      expect(await s.auditReceipts.claim('evt-2', 'did:web:provider', 'audit-y', T0 + 1)).toBe(true);
    });
  });
}

function describeSmallStores(get: Get): void {
  describe('settings, session key, sessions, VC-API credentials', () => {
    it('settings: reads what was set, the last value set', async () => {
      const s = get();
      expect(await s.settings.get('k')).toBeUndefined();
      await s.settings.set('k', 'one');
      await s.settings.set('k', 'two');
      expect(await s.settings.get('k')).toBe('two');
    });

    it('session key: the first writer wins, and every writer gets its value back', async () => {
      const s = get();
      expect(await s.sessionKey.load()).toBeUndefined();
      const saved = await Promise.all(
        ['first', 'second', 'third'].map((value) => Promise.resolve().then(() => s.sessionKey.saveIfAbsent(value))),
      );
      expect(new Set(saved).size).toBe(1);
      expect(await s.sessionKey.load()).toBe(saved[0]);
    });

    it('sessions: a recorded session is read back until it expires', async () => {
      const s = get();
      const entry = {
        issuer: 'did:web:issuer.example',
        entry: {
          id: 'https://issuer.example/v1/status-list/revocation-1#5',
          type: 'BitstringStatusListEntry' as const,
          statusPurpose: 'revocation',
          statusListIndex: '5',
          statusListCredential: 'https://issuer.example/v1/status-list/revocation-1',
        },
      };
      const session = { jti: 'j1', agentDid: 'did:key:z6MkA', statusEntries: [entry], expiresAt: T0 + MINUTE };
      await s.sessions.record(session, T0);
      expect(await s.sessions.get('j1', T0 + 1)).toEqual(session);
      expect(await s.sessions.get('j1', T0 + MINUTE)).toBeUndefined();
      expect(await s.sessions.get('absent', T0)).toBeUndefined();
    });

    it('VC-API credentials: an id is recorded once', async () => {
      const s = get();
      const record = {
        id: 'urn:uuid:1',
        types: ['VerifiableCredential'],
        statusEntries: [{ purpose: 'revocation', listId: 'revocation-1', index: 3 }],
        issuedAt: T0,
      };
      expect(await s.vcApiCredentials.insert(record)).toBe(true);
      expect(await s.vcApiCredentials.insert({ ...record, issuedAt: T0 + 1 })).toBe(false);
      expect(await s.vcApiCredentials.get('urn:uuid:1')).toEqual(record);
      expect(await s.vcApiCredentials.get('absent')).toBeUndefined();
    });
  });
}

function describeAgents(get: Get): void {
  describe('agents', () => {
    it('stores agents (DID and id unique) and pages them oldest first', async () => {
      const s = get();
      for (const n of [1, 2, 3]) await s.agents.insert(agent(n));
      await expect(Promise.resolve().then(() => s.agents.insert(agent(1)))).rejects.toThrow();
      await expect(Promise.resolve().then(() => s.agents.insert(agent(4, { id: 'agent-1' })))).rejects.toThrow();
      expect(await s.agents.get(agent(2).did)).toEqual(agent(2));
      expect(await s.agents.get('did:key:absent')).toBeUndefined();
      expect(await s.agents.getById(agent(2).id)).toEqual(agent(2));
      expect(await s.agents.getById('absent')).toBeUndefined();
      expect((await s.agents.list({ limit: 2 }))?.map((a) => a.id)).toEqual(['agent-1', 'agent-2']);
      expect((await s.agents.list({ cursor: agent(2).did, limit: 2 }))?.map((a) => a.id)).toEqual(['agent-3']);
      expect(await s.agents.list({ cursor: 'did:key:absent', limit: 2 })).toBeUndefined();
    });

    it('makes a credential current with its terms', async () => {
      const s = get();
      await s.agents.insert(agent(1));
      await s.agents.setCurrentCredential(agent(1).did, 'urn:uuid:c1', {
        privilegeScopes: ['write:y'],
        delegationDepth: 0,
        domains: ['example.com'],
      });
      expect(await s.agents.get(agent(1).did)).toMatchObject({
        currentCredentialId: 'urn:uuid:c1',
        privilegeScopes: ['write:y'],
        delegationDepth: 0,
        domains: ['example.com'],
      });
    });

    it('keeps one client secret hash per agent: rotation replaces it, removal forgets it', async () => {
      const s = get();
      await s.agents.insert(agent(1));
      const did = agent(1).did;
      expect(await s.agentSecrets.get(did)).toBeUndefined();
      expect(await s.agentSecrets.put({ agentDid: did, secretHash: 'a'.repeat(64), createdAt: T0 })).toEqual({
        replaced: false,
      });
      expect(await s.agentSecrets.put({ agentDid: did, secretHash: 'b'.repeat(64), createdAt: T0 + 1 })).toEqual({
        replaced: true,
      });
      expect(await s.agentSecrets.get(did)).toEqual({ agentDid: did, secretHash: 'b'.repeat(64), createdAt: T0 + 1 });
      expect(await s.agentSecrets.remove(did)).toBe(true);
      expect(await s.agentSecrets.remove(did)).toBe(false);
      expect(await s.agentSecrets.get(did)).toBeUndefined();
    });

    it('keeps server-held keys', async () => {
      const s = get();
      expect(await s.agents.anyKey()).toBeUndefined();
      const key = {
        did: 'did:web:issuer.example:agents:a',
        verificationMethod: 'did:web:issuer.example:agents:a#key-1',
        publicKeyMultibase: 'z6MkKey',
        envelope: { v: 1, iv: 'aa', ct: 'bb' },
        createdAt: T0,
      };
      await s.agents.insertKey(key);
      expect(await s.agents.getKey(key.did)).toEqual(key);
      expect(await s.agents.anyKey()).toEqual(key);
      expect(await s.agents.getKey('did:key:absent')).toBeUndefined();
    });

    it('console search: each agent with its hosted DID state and current credential, in pages', async () => {
      const s = get();
      await s.agents.insert(agent(1, { currentCredentialId: 'urn:uuid:c1' }));
      await s.agents.insert(agent(2));
      await s.agents.insert(agent(3));
      await s.credentials.insert(credential('urn:uuid:c1', { subjectDid: agent(1).did }));
      await s.dids.insert({
        did: agent(2).did,
        document: { id: agent(2).did },
        kind: 'agent',
        deactivated: true,
        createdAt: T0,
        updatedAt: T0,
      });
      const page = await s.agents.listWithState({ limit: 2 });
      expect(page?.map((row) => row.agent)).toEqual([agent(1, { currentCredentialId: 'urn:uuid:c1' }), agent(2)]);
      expect(page?.[0]?.current).toEqual(await s.credentials.get('urn:uuid:c1'));
      expect(page?.[0]?.hosted).toBeUndefined();
      expect(page?.[1]).toMatchObject({ hosted: { deactivated: true }, current: undefined });
      const next = await s.agents.listWithState({ cursor: agent(2).did, limit: 2 });
      expect(next?.map((row) => row.agent.did)).toEqual([agent(3).did]);
      expect(await s.agents.listWithState({ cursor: 'did:key:absent', limit: 2 })).toBeUndefined();
    });
  });
}

function describeCredentials(get: Get): void {
  describe('credentials', () => {
    it('stores credentials with their status positions and lists them by subject and by issuer', async () => {
      const s = get();
      await s.statusLists.insert(statusList('revocation-1'));
      const first = credential('urn:uuid:c1', { revocation: { listId: 'revocation-1', index: 7 } });
      await s.credentials.insert(first);
      await s.credentials.insert(credential('urn:uuid:c2', { issuedAt: T0 + 1 }));
      await s.credentials.insert(
        credential('urn:uuid:d1', {
          type: 'DelegatedAgentCredential',
          issuerDid: 'did:key:z6MkAgent1',
          subjectDid: 'did:key:z6MkAgent2',
          parentId: 'urn:uuid:c1',
          issuedAt: T0 + 2,
        }),
      );
      expect(await s.credentials.get('urn:uuid:c1')).toEqual({
        ...first,
        supersededBy: null,
        renewed: false,
        revokedAt: null,
        suspendedAt: null,
        suspendedWith: null,
      });
      expect((await s.credentials.listBySubject('did:key:z6MkAgent1', 10)).map((c) => c.id)).toEqual([
        'urn:uuid:c2',
        'urn:uuid:c1',
      ]);
      // The console's delegations of an agent: what it signed, newest first, in one read.
      expect((await s.credentials.listByIssuer('did:key:z6MkAgent1', 10)).map((c) => c.id)).toEqual(['urn:uuid:d1']);
      expect(await s.credentials.listByIssuer('did:web:issuer.example', 1)).toHaveLength(1);
    });

    it('revokes, supersedes and suspends once each, under concurrent attempts', async () => {
      const s = get();
      for (const id of ['urn:uuid:c1', 'urn:uuid:c2', 'urn:uuid:c3']) await s.credentials.insert(credential(id));
      expect(await winners(() => s.credentials.markRevoked('urn:uuid:c1', T0 + 1))).toBe(1);
      expect(await winners(() => s.credentials.markSuperseded('urn:uuid:c2', 'urn:uuid:c3', true))).toBe(1);
      expect(await s.credentials.get('urn:uuid:c2')).toMatchObject({ supersededBy: 'urn:uuid:c3', renewed: true });
      expect(await winners(() => s.credentials.suspend('urn:uuid:c3', T0 + 2, 'urn:uuid:c3'))).toBe(1);
      expect(await s.credentials.get('urn:uuid:c3')).toMatchObject({
        suspendedAt: T0 + 2,
        suspendedWith: 'urn:uuid:c3',
      });
      expect(await winners(() => s.credentials.reinstate('urn:uuid:c3'))).toBe(1);
      expect(await s.credentials.get('urn:uuid:c3')).toMatchObject({ suspendedAt: null, suspendedWith: null });
    });

    it('follows supersessions back, finds the latest validity and partial revocations', async () => {
      const s = get();
      await s.credentials.insert(credential('urn:uuid:c1', { validUntil: T0 + 10 * MINUTE }));
      await s.credentials.insert(credential('urn:uuid:c2', { issuedAt: T0 + 1, validUntil: T0 + 20 * MINUTE }));
      await s.credentials.insert(credential('urn:uuid:c3', { issuedAt: T0 + 2, validUntil: T0 + 30 * MINUTE }));
      await s.credentials.markSuperseded('urn:uuid:c1', 'urn:uuid:c2', true);
      await s.credentials.markSuperseded('urn:uuid:c2', 'urn:uuid:c3', false);
      expect((await s.credentials.predecessorsOf('urn:uuid:c3')).map((c) => c.id)).toEqual([
        'urn:uuid:c2',
        'urn:uuid:c1',
      ]);
      expect(await s.credentials.latestValidUntil('did:web:issuer.example', T0)).toBe(T0 + 30 * MINUTE);
      expect(await s.credentials.latestValidUntil('did:web:other.example', T0)).toBeUndefined();
      // c3 revoked while c2, which it superseded, is neither revoked nor expired: a partial revocation.
      await s.credentials.markRevoked('urn:uuid:c3', T0 + 3);
      expect((await s.credentials.partialRevocations(T0 + 4)).map((c) => c.id)).toEqual(['urn:uuid:c3']);
      await s.credentials.markRevoked('urn:uuid:c2', T0 + 5);
      await s.credentials.markRevoked('urn:uuid:c1', T0 + 5);
      expect(await s.credentials.partialRevocations(T0 + 6)).toEqual([]);
    });
  });
}

function describeDids(get: Get): void {
  describe('hosted DIDs', () => {
    const hosted = (n: number, kind: 'issuer' | 'agent' | 'managed' = 'managed') => ({
      did: `did:web:issuer.example:dids:${n}`,
      document: { id: `did:web:issuer.example:dids:${n}` },
      kind,
      deactivated: false,
      createdAt: T0 + n,
      updatedAt: T0 + n,
    });

    it('stores, updates and deactivates (once) a hosted DID', async () => {
      const s = get();
      await s.dids.insert(hosted(1));
      expect(await s.dids.get(hosted(1).did)).toEqual(hosted(1));
      const document = { id: hosted(1).did, service: [{ id: '#s', type: 'X', serviceEndpoint: 'https://x.example' }] };
      expect(await s.dids.updateDocument(hosted(1).did, document, T0 + 10)).toBe(true);
      expect(await s.dids.get(hosted(1).did)).toMatchObject({ document, updatedAt: T0 + 10 });
      expect(await s.dids.updateDocument('did:web:absent', document, T0)).toBe(false);
      expect(await winners(() => s.dids.deactivate(hosted(1).did, T0 + 11))).toBe(1);
      expect((await s.dids.get(hosted(1).did))?.deactivated).toBe(true);
    });

    it('pages hosted DIDs oldest first, optionally of one kind', async () => {
      const s = get();
      await s.dids.insert(hosted(1, 'issuer'));
      await s.dids.insert(hosted(2, 'agent'));
      await s.dids.insert(hosted(3, 'agent'));
      const dids = async (page: Parameters<IssuerStores['dids']['list']>[0]) =>
        (await s.dids.list(page))?.map((d) => d.did.slice(-1));
      expect(await dids({ limit: 10 })).toEqual(['1', '2', '3']);
      expect(await dids({ kind: 'agent', limit: 1 })).toEqual(['2']);
      expect(await dids({ kind: 'agent', cursor: hosted(2).did, limit: 5 })).toEqual(['3']);
      expect(await s.dids.list({ cursor: 'did:web:absent', limit: 5 })).toBeUndefined();
    });
  });
}

function describeTransactions(get: () => IssuerStores): void {
  describe('transactions', () => {
    it('rolls back every store written in a transaction that throws', async () => {
      const s = get();
      const failed = s.transaction(async (tx) => {
        await tx.settings.set('k', 'written');
        await tx.audit.append(auditRow(1));
        throw new Error('abort');
      });
      await expect(failed).rejects.toThrow('abort');
      expect(await s.settings.get('k')).toBeUndefined();
      expect(await s.audit.last()).toBeUndefined();
      const committed = await s.transaction(async (tx) => {
        await tx.settings.set('k', 'kept');
        return tx.settings.get('k');
      });
      expect(committed).toBe('kept');
      expect(await s.settings.get('k')).toBe('kept');
    });

    it('rolls back a nested transaction alone when its throw is caught', async () => {
      const s = get();
      await s.transaction(async (tx) => {
        await tx.settings.set('outer', '1');
        await tx
          .transaction(async (inner) => {
            await inner.settings.set('inner', '1');
            throw new Error('inner abort');
          })
          .catch(() => undefined);
        await tx.settings.set('after', '1');
      });
      expect([await s.settings.get('outer'), await s.settings.get('inner'), await s.settings.get('after')]).toEqual([
        '1',
        undefined,
        '1',
      ]);
    });

    it('serializes concurrent audit appends into one linear chain (read the head, write the next link)', async () => {
      const s = get();
      const append = () =>
        s.transaction(async (tx) => {
          const last = await tx.audit.last();
          const seq = (last?.seq ?? 0) + 1;
          await tx.audit.append(auditRow(seq, { id: `append-${seq}`, prevHash: last?.hash ?? 'h0' }));
          return seq;
        });
      const seqs = await Promise.all(Array.from({ length: 12 }, append));
      expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      const rows = await s.audit.list({ limit: 50 });
      expect(rows.map((r) => r.prevHash)).toEqual(['h0', ...rows.slice(0, -1).map((r) => r.hash)]);
    });
  });
}
