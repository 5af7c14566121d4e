import { describe, expect, it } from 'vitest';
import { base64url } from 'multiformats/bases/base64';
import { concatBytes } from '../../../wallet/crypto/bytes.ts';
import { allocateIndex, randomBelow } from '../../../wallet/status/allocate.ts';
import {
  MAX_STATUS_LIST_BYTES,
  MIN_STATUS_LIST_ENTRIES,
  createStatusList,
  getStatus,
  setStatus,
  statusListFromBytes,
} from '../../../wallet/status/bitstring.ts';
import {
  assertEntryMatchesList,
  buildStatusListCredential,
  buildStatusListEntry,
  checkStatus,
  parseStatusListCredential,
  parseStatusListEntry,
  readEntryStatus,
  type StatusMessage,
} from '../../../wallet/status/credential.ts';
import { decodeStatusList, encodeStatusList } from '../../../wallet/status/encoded-list.ts';
import { gunzip, gzip, readBounded } from '../../../wallet/status/gzip.ts';

const err = (code: string) => expect.objectContaining({ name: 'StatusListError', code });

/** Awaits `promise` and returns what it rejected with (fails the test if it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('expected a rejection'),
    (error: unknown) => error,
  );
}

const LIST_URL = 'https://issuer.example/status/7';
const ISSUER = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';

// Bitstring Status List §2.2, Example 3: 131,072 zero bits.
const SPEC_EXAMPLE_ENCODED_LIST = 'uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA';

const TWO_BIT_MESSAGES: StatusMessage[] = [
  { status: '0x0', message: 'pending_review' },
  { status: '0x1', message: 'accepted' },
  { status: '0x2', message: 'rejected' },
  { status: '0x3', message: 'undefined' },
];

/** GZIP of `total` zero bytes, produced in 1 MiB writes (the test never holds the plaintext). */
async function gzippedZeros(total: number): Promise<Uint8Array> {
  const stream = new CompressionStream('gzip');
  const writer = stream.writable.getWriter();
  const output = readBounded(stream.readable, Number.POSITIVE_INFINITY);
  const block = new Uint8Array(1 << 20);
  for (let written = 0; written < total; written += block.length) await writer.write(block);
  await writer.close();
  return output;
}

/** Damaged GZIP of a valid 16 KiB list, each keeping a trailer that declares 16,384 bytes. */
async function corruptedGzips(): Promise<Uint8Array[]> {
  const good = await gzip(new Uint8Array(16_384));
  const truncated = concatBytes(good.subarray(0, 12), good.subarray(-8));
  const badCrc = good.slice();
  badCrc[badCrc.length - 8]! ^= 1;
  const twoMembers = concatBytes(await gzip(new Uint8Array(16_384)), good); // Node would inflate both
  const junk = concatBytes(good, new Uint8Array([0, 0, 0, 0]));
  return [truncated, badCrc, twoMembers, junk];
}

function listCredential(encodedList: string, extra: Record<string, unknown> = {}) {
  return buildStatusListCredential({
    id: LIST_URL,
    issuer: ISSUER,
    validFrom: '2025-01-01T00:00:00Z',
    statusPurpose: 'revocation',
    encodedList,
    ...extra,
  });
}

describe('status bitstring', () => {
  it('creates 131,072 one-bit entries in 16 KiB by default, all valid', () => {
    const list = createStatusList();
    expect(list.length).toBe(MIN_STATUS_LIST_ENTRIES);
    expect(list.bytes.length).toBe(16_384);
    expect(getStatus(list, 0)).toBe(0);
    expect(getStatus(list, 131_071)).toBe(0);
  });

  it('puts index 0 at the most significant bit of the first byte (§2.2, §7.1)', () => {
    const list = createStatusList();
    setStatus(list, 0, 1);
    expect(list.bytes[0]).toBe(0b1000_0000);
    setStatus(list, 7, 1);
    expect(list.bytes[0]).toBe(0b1000_0001);
    setStatus(list, 9, 1);
    expect(list.bytes[1]).toBe(0b0100_0000);
    setStatus(list, 131_071, 1);
    expect(list.bytes[16_383]).toBe(0b0000_0001);
    expect([0, 1, 7, 8, 9, 131_071].map((i) => getStatus(list, i))).toEqual([1, 0, 1, 0, 1, 1]);
    setStatus(list, 0, 0);
    expect(list.bytes[0]).toBe(0b0000_0001);
    expect(getStatus(list, 0)).toBe(0);
  });

  it('stores multi-bit entries most significant bit first', () => {
    const list = createStatusList({ statusSize: 2 });
    expect(list.bytes.length).toBe(32_768);
    setStatus(list, 0, 0b10);
    setStatus(list, 1, 0b11);
    setStatus(list, 3, 0b01);
    expect(list.bytes[0]).toBe(0b10_11_00_01);
    expect([0, 1, 2, 3].map((i) => getStatus(list, i))).toEqual([2, 3, 0, 1]);
    setStatus(list, 1, 0);
    expect(list.bytes[0]).toBe(0b10_00_00_01);

    // 3-bit entries straddle byte boundaries.
    const three = createStatusList({ statusSize: 3 });
    setStatus(three, 2, 0b101); // bits 6..8
    expect(three.bytes[0]).toBe(0b0000_0010);
    expect(three.bytes[1]).toBe(0b1000_0000);
    expect(getStatus(three, 2)).toBe(5);
    expect(getStatus(three, 1)).toBe(0);
    expect(getStatus(three, 3)).toBe(0);
  });

  it('refuses lists below the herd-privacy minimum or above the size limit', () => {
    expect(() => createStatusList({ length: MIN_STATUS_LIST_ENTRIES - 8 })).toThrow(err('STATUS_LIST_TOO_SHORT'));
    expect(() => statusListFromBytes(new Uint8Array(16_383))).toThrow(err('STATUS_LIST_TOO_SHORT'));
    expect(() => statusListFromBytes(new Uint8Array(16_384), 2)).toThrow(err('STATUS_LIST_TOO_SHORT'));
    expect(statusListFromBytes(new Uint8Array(16), 1, 128).length).toBe(128);
    expect(() => createStatusList({ length: MAX_STATUS_LIST_BYTES * 8 + 8 })).toThrow(err('STATUS_LIST_TOO_LARGE'));
  });

  it('rejects invalid arguments and out-of-range indexes', () => {
    const list = createStatusList();
    expect(() => getStatus(list, 131_072)).toThrow(err('STATUS_INDEX_OUT_OF_RANGE'));
    expect(() => getStatus(list, -1)).toThrow(err('STATUS_INDEX_OUT_OF_RANGE'));
    expect(() => setStatus(list, 131_072, 1)).toThrow(err('STATUS_INDEX_OUT_OF_RANGE'));
    expect(() => getStatus(list, 1.5)).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(() => setStatus(list, 0, 2)).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(() => setStatus(list, 0, -1)).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(() => createStatusList({ statusSize: 9 })).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(() => createStatusList({ statusSize: 0 })).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(() => createStatusList({ length: 131_073 })).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(list.bytes.every((b) => b === 0)).toBe(true);
  });
});

describe('encodedList', () => {
  it('decodes the specification example to 131,072 zero bits and re-encodes it identically', async () => {
    const list = await decodeStatusList(SPEC_EXAMPLE_ENCODED_LIST);
    expect(list.length).toBe(131_072);
    expect(list.bytes.every((b) => b === 0)).toBe(true);
    expect(await encodeStatusList(list)).toBe(SPEC_EXAMPLE_ENCODED_LIST);
  });

  it('round-trips set entries as multibase base64url of GZIP', async () => {
    const list = createStatusList({ statusSize: 2 });
    setStatus(list, 0, 3);
    setStatus(list, 94_567, 1);
    setStatus(list, 131_071, 2);
    const encoded = await encodeStatusList(list);
    expect(encoded).toMatch(/^u[A-Za-z0-9_-]+$/);
    const gz = base64url.decode(encoded);
    expect([gz[0], gz[1]]).toEqual([0x1f, 0x8b]); // RFC 1952 §2.3.1 ID1 ID2
    const decoded = await decodeStatusList(encoded, { statusSize: 2 });
    expect(decoded.bytes).toEqual(list.bytes);
    expect([0, 1, 94_567, 131_071].map((i) => getStatus(decoded, i))).toEqual([3, 0, 1, 2]);
  });

  it('rejects text that is not multibase base64url of GZIP', async () => {
    for (const text of [
      SPEC_EXAMPLE_ENCODED_LIST.slice(1), // no multibase prefix
      `z${SPEC_EXAMPLE_ENCODED_LIST.slice(1)}`, // base58btc prefix
      `${SPEC_EXAMPLE_ENCODED_LIST}==`, // padding
      SPEC_EXAMPLE_ENCODED_LIST.replace('-', '+'), // base64, not base64url
      'u',
      'uA', // one stray character: not a whole byte
      `u${base64url.baseEncode(new TextEncoder().encode('not gzip at all'))}`,
      ...(await corruptedGzips()).map((bytes) => base64url.encode(bytes)),
    ]) {
      expect(await rejection(decodeStatusList(text)), text).toEqual(err('STATUS_LIST_MALFORMED'));
    }
    expect(await rejection(decodeStatusList(42 as unknown as string))).toEqual(err('STATUS_LIST_MALFORMED'));
  });

  it('rejects a list shorter than minimumNumberOfEntries (§3.2 step 9) unless the ecosystem lowers it', async () => {
    const short = base64url.encode(await gzip(new Uint8Array(1024)));
    expect(await rejection(decodeStatusList(short))).toEqual(err('STATUS_LIST_TOO_SHORT'));
    expect((await decodeStatusList(short, { minEntries: 8192 })).length).toBe(8192);
    expect(await rejection(decodeStatusList(SPEC_EXAMPLE_ENCODED_LIST, { statusSize: 2 }))).toEqual(
      err('STATUS_LIST_TOO_SHORT'),
    );
  });

  it('refuses a GZIP bomb (100 MiB of zeros) with a typed error, even one that lies about its size', async () => {
    const bomb = await gzippedZeros(100 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(200_000);
    expect(await rejection(decodeStatusList(base64url.encode(bomb)))).toEqual(err('STATUS_LIST_TOO_LARGE'));
    // RFC 1952 ISIZE rewritten to claim 16 KiB: only the bounded inflation can catch it now.
    const liar = bomb.slice();
    liar.set([0x00, 0x40, 0x00, 0x00], liar.length - 4);
    expect(await rejection(decodeStatusList(base64url.encode(liar)))).toEqual(err('STATUS_LIST_TOO_LARGE'));
    expect(await rejection(gunzip(liar, 16_384))).toEqual(err('STATUS_LIST_TOO_LARGE'));
    // A limit derived from the expected list size refuses even a 32 KiB list.
    const doubled = await encodeStatusList(createStatusList({ statusSize: 2 }));
    expect(await rejection(decodeStatusList(doubled, { maxBytes: 16_384 }))).toEqual(err('STATUS_LIST_TOO_LARGE'));
  });

  it('stops reading and cancels the stream as soon as the limit is passed', async () => {
    // An endless source: reading it all would never finish.
    let produced = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          produced += 4096;
          controller.enqueue(new Uint8Array(4096));
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    expect(await rejection(readBounded(endless, 100_000))).toEqual(err('STATUS_LIST_TOO_LARGE'));
    expect(cancelled).toBe(true);
    expect(produced).toBeLessThanOrEqual(100_000 + 4096);
  });

  it('refuses an encodedList longer than the limit before decoding it', async () => {
    const encoded = await encodeStatusList(createStatusList());
    expect(await rejection(decodeStatusList(encoded, { maxEncodedLength: encoded.length - 1 }))).toEqual(
      err('STATUS_LIST_TOO_LARGE'),
    );
    expect((await decodeStatusList(encoded, { maxEncodedLength: encoded.length })).length).toBe(131_072);
    // Default: derived from maxBytes, so a 16 KiB limit refuses 100 KB of text outright.
    expect(await rejection(decodeStatusList(`u${'A'.repeat(100_000)}`, { maxBytes: 16_384 }))).toEqual(
      err('STATUS_LIST_TOO_LARGE'),
    );
    expect(await rejection(decodeStatusList(encoded, { maxBytes: -1 }))).toEqual(err('INVALID_STATUS_ARGUMENT'));
  });
});

describe('index allocation', () => {
  it('returns unused indexes in range, not sequentially', () => {
    const used = new Set<number>();
    for (let i = 0; i < 64; i++) {
      const index = allocateIndex(131_072, used);
      expect(index).toBeGreaterThanOrEqual(0);
      expect(index).toBeLessThan(131_072);
      expect(used.has(index)).toBe(false);
      used.add(index);
    }
    const sorted = [...used].sort((a, b) => a - b);
    expect(sorted.at(-1)! - sorted[0]!).toBeGreaterThan(64); // 64 draws over 131,072 are not a run
  });

  it('finds the last free index of a nearly full list, from a set or a bitmap', () => {
    const used = new Set(Array.from({ length: 4096 }, (_, i) => i));
    used.delete(3001);
    expect(allocateIndex(4096, used)).toBe(3001);
    const bitmap = new Uint8Array(512).fill(0xff);
    bitmap[100] = 0b1111_1011; // index 805 free
    expect(allocateIndex(4096, bitmap)).toBe(805);
  });

  it('is uniform over the free indexes', () => {
    const counts = [0, 0, 0, 0, 0];
    const used = new Set([1]);
    for (let i = 0; i < 4000; i++) counts[allocateIndex(5, used)]! += 1;
    expect(counts[1]).toBe(0);
    // Each of the 4 free indexes expects 1000 (σ ≈ 27); ±250 fails with probability < 1e-15.
    for (const i of [0, 2, 3, 4]) expect(Math.abs(counts[i]! - 1000)).toBeLessThan(250);
  });

  it('uses rejection sampling, not a biased modulo', () => {
    const words = [0xffff_ffff, 0xffff_fffe, 4];
    const random = (out: Uint32Array) => {
      out[0] = words.shift()!;
      return out;
    };
    // 2^32 mod 3 = 1, so only 0xffffffff must be redrawn: 0xfffffffe mod 3 = 2 is kept.
    expect(randomBelow(3, random)).toBe(2);
    expect(randomBelow(3, random)).toBe(1);
    expect(words).toEqual([]);
    expect(() => randomBelow(0)).toThrow(err('INVALID_STATUS_ARGUMENT'));
  });

  it('reports a full list', () => {
    const used = new Set(Array.from({ length: 1024 }, (_, i) => i));
    expect(() => allocateIndex(1024, used)).toThrow(err('STATUS_LIST_FULL'));
    expect(() => allocateIndex(1024, new Uint8Array(128).fill(0xff))).toThrow(err('STATUS_LIST_FULL'));
    expect(() => allocateIndex(1024, new Uint8Array(127))).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(() => allocateIndex(0, used)).toThrow(err('INVALID_STATUS_ARGUMENT'));
  });
});

describe('status list documents', () => {
  it('builds the unsigned BitstringStatusListCredential (§2.2)', () => {
    expect(
      buildStatusListCredential({
        id: LIST_URL,
        issuer: ISSUER,
        validFrom: new Date('2025-01-01T00:00:00.000Z'),
        validUntil: '2025-01-02T00:00:00Z',
        statusPurpose: 'revocation',
        encodedList: SPEC_EXAMPLE_ENCODED_LIST,
        ttl: 300_000,
      }),
    ).toEqual({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      id: LIST_URL,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: ISSUER,
      validFrom: '2025-01-01T00:00:00Z',
      validUntil: '2025-01-02T00:00:00Z',
      credentialSubject: {
        id: `${LIST_URL}#list`,
        type: 'BitstringStatusList',
        statusPurpose: 'revocation',
        encodedList: SPEC_EXAMPLE_ENCODED_LIST,
        ttl: 300_000,
      },
    });
    const minimal = listCredential(SPEC_EXAMPLE_ENCODED_LIST);
    expect(Object.keys(minimal)).not.toContain('validUntil');
    expect(Object.keys(minimal.credentialSubject)).toEqual(['id', 'type', 'statusPurpose', 'encodedList']);
  });

  it('builds BitstringStatusListEntry values (§2.1)', () => {
    expect(
      buildStatusListEntry({ statusListCredential: LIST_URL, statusListIndex: 94_567, statusPurpose: 'revocation' }),
    ).toEqual({
      id: `${LIST_URL}#94567`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '94567',
      statusListCredential: LIST_URL,
    });
    expect(
      buildStatusListEntry({
        statusListCredential: LIST_URL,
        statusListIndex: 0,
        statusPurpose: 'message',
        statusSize: 2,
        statusMessage: TWO_BIT_MESSAGES,
        statusReference: 'https://issuer.example/status-dictionary/',
      }),
    ).toMatchObject({ statusListIndex: '0', statusSize: 2, statusMessage: TWO_BIT_MESSAGES });
  });

  it('refuses to build documents the specification forbids', () => {
    const entry = { statusListCredential: LIST_URL, statusListIndex: 1, statusPurpose: 'message' };
    expect(() => buildStatusListEntry({ ...entry, statusSize: 2 })).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(() =>
      buildStatusListEntry({ ...entry, statusSize: 2, statusMessage: TWO_BIT_MESSAGES.slice(0, 3) }),
    ).toThrow(err('INVALID_STATUS_ARGUMENT'));
    const duplicate = [...TWO_BIT_MESSAGES.slice(0, 3), { status: '0x2', message: 'again' }];
    expect(() => buildStatusListEntry({ ...entry, statusSize: 2, statusMessage: duplicate })).toThrow(
      err('INVALID_STATUS_ARGUMENT'),
    );
    expect(() => buildStatusListEntry({ ...entry, statusListIndex: -1 })).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(() => buildStatusListEntry({ ...entry, id: LIST_URL })).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(() => buildStatusListEntry({ ...entry, statusListCredential: 'not a url' })).toThrow(
      err('INVALID_STATUS_ARGUMENT'),
    );
    expect(() => listCredential(SPEC_EXAMPLE_ENCODED_LIST, { validFrom: '2025-01-01' })).toThrow(
      err('INVALID_STATUS_ARGUMENT'),
    );
    expect(() => listCredential(SPEC_EXAMPLE_ENCODED_LIST, { validFrom: new Date(Number.NaN) })).toThrow(
      err('INVALID_STATUS_ARGUMENT'),
    );
    expect(() => listCredential(SPEC_EXAMPLE_ENCODED_LIST, { id: `${LIST_URL}#x` })).toThrow(
      err('INVALID_STATUS_ARGUMENT'),
    );
    expect(() => listCredential('not-multibase')).toThrow(err('INVALID_STATUS_ARGUMENT'));
    expect(() => listCredential(SPEC_EXAMPLE_ENCODED_LIST, { statusPurpose: [] })).toThrow(
      err('INVALID_STATUS_ARGUMENT'),
    );
    expect(() => listCredential(SPEC_EXAMPLE_ENCODED_LIST, { ttl: -5 })).toThrow(err('INVALID_STATUS_ARGUMENT'));
  });

  it('parses entries and refuses malformed ones (§2.1)', () => {
    const good = buildStatusListEntry({
      statusListCredential: LIST_URL,
      statusListIndex: 42,
      statusPurpose: 'revocation',
    });
    expect(parseStatusListEntry(JSON.parse(JSON.stringify(good)))).toEqual(good);
    expect(parseStatusListEntry({ ...good, statusListIndex: '0042' }).statusListIndex).toBe('0042');
    const malformed: unknown[] = [
      null,
      [good],
      { ...good, type: 'StatusList2021Entry' },
      { ...good, type: ['BitstringStatusListEntry'] },
      { ...good, statusListIndex: 42 },
      ...['', '-1', '+1', '1e3', '4.2', ' 42', '42 ', '0x2a', '٤٢' /* Arabic-Indic digits */].map((i) => ({
        ...good,
        statusListIndex: i,
      })),
      { ...good, statusPurpose: '' },
      { ...good, statusPurpose: ['revocation'] },
      { ...good, statusListCredential: 'relative/path' },
      { ...good, id: LIST_URL },
      { ...good, statusSize: 2 }, // statusMessage is then required
      { ...good, statusSize: 0 },
      { ...good, statusSize: '1' },
      { ...good, statusSize: 2, statusMessage: TWO_BIT_MESSAGES.map((m) => ({ ...m, status: m.status.slice(2) })) },
      { ...good, statusSize: 2, statusMessage: [...TWO_BIT_MESSAGES.slice(0, 3), { status: '0x4', message: 'x' }] },
      { ...good, statusReference: ['https://ok.example/', 7] },
    ];
    for (const value of malformed)
      expect(() => parseStatusListEntry(value), JSON.stringify(value)).toThrow(err('STATUS_ENTRY_MALFORMED'));
  });

  it('parses list credentials and refuses malformed ones (§2.2)', () => {
    const good = listCredential(SPEC_EXAMPLE_ENCODED_LIST);
    expect(parseStatusListCredential(JSON.parse(JSON.stringify(good)))).toEqual(good);
    expect(parseStatusListCredential({ ...good, issuer: { id: ISSUER, name: 'Issuer' } }).issuer).toEqual({
      id: ISSUER,
    });
    const subject = good.credentialSubject;
    const malformed: unknown[] = [
      'credential',
      { ...good, '@context': ['https://www.w3.org/2018/credentials/v1'] },
      { ...good, type: ['VerifiableCredential'] },
      { ...good, type: 'BitstringStatusListCredential' },
      { ...good, type: [...good.type, 7] },
      { ...good, issuer: 'not a url' },
      { ...good, validFrom: 'yesterday' },
      { ...good, validFrom: '2025-02-30T00:00:00Z' }, // no such day (Date.parse would say March 2)
      { ...good, validUntil: '2025-13-01T00:00:00Z' },
      { ...good, credentialSubject: [subject] },
      { ...good, credentialSubject: { ...subject, type: 'StatusList2021' } },
      { ...good, credentialSubject: { ...subject, statusPurpose: [] } },
      { ...good, credentialSubject: { ...subject, statusPurpose: 7 } },
      { ...good, credentialSubject: { ...subject, encodedList: SPEC_EXAMPLE_ENCODED_LIST.slice(1) } },
      { ...good, credentialSubject: { ...subject, encodedList: `${SPEC_EXAMPLE_ENCODED_LIST}=` } },
      { ...good, credentialSubject: { ...subject, ttl: '300' } },
      { ...good, credentialSubject: { ...subject, statusSize: 9 } },
    ];
    for (const value of malformed)
      expect(() => parseStatusListCredential(value), JSON.stringify(value)).toThrow(err('STATUS_LIST_MALFORMED'));
  });
});

describe('checkStatus (§3.2 Validate Algorithm)', () => {
  it('reports valid, revoked and suspended entries', async () => {
    const list = createStatusList();
    setStatus(list, 94_567, 1);
    const credential = listCredential(await encodeStatusList(list), { statusPurpose: ['revocation', 'suspension'] });
    const entry = (index: number, statusPurpose = 'revocation') =>
      buildStatusListEntry({ statusListCredential: LIST_URL, statusListIndex: index, statusPurpose });
    expect(await checkStatus(entry(94_567), credential)).toEqual({ status: 1, purpose: 'revocation', valid: false });
    expect(await checkStatus(entry(94_566), credential)).toEqual({ status: 0, purpose: 'revocation', valid: true });
    expect(await checkStatus(entry(94_567, 'suspension'), credential)).toEqual({
      status: 1,
      purpose: 'suspension',
      valid: false,
    });
  });

  it('returns the status message of multi-bit entries', async () => {
    const list = createStatusList({ statusSize: 2 });
    setStatus(list, 10, 2);
    const credential = listCredential(await encodeStatusList(list), {
      statusPurpose: 'message',
      statusSize: 2,
      statusMessage: TWO_BIT_MESSAGES,
    });
    const entry = (index: number) =>
      buildStatusListEntry({
        statusListCredential: LIST_URL,
        statusListIndex: index,
        statusPurpose: 'message',
        statusSize: 2,
        statusMessage: TWO_BIT_MESSAGES,
      });
    expect(await checkStatus(entry(10), credential)).toEqual({
      status: 2,
      purpose: 'message',
      valid: false,
      message: 'rejected',
    });
    expect(await checkStatus(entry(11), credential)).toEqual({
      status: 0,
      purpose: 'message',
      valid: true,
      message: 'pending_review',
    });
    // One-bit "message" purpose without statusMessage: "set" / "unset" (§2.1).
    const oneBit = createStatusList();
    setStatus(oneBit, 3, 1);
    const decoded = await decodeStatusList(await encodeStatusList(oneBit));
    const plain = buildStatusListEntry({
      statusListCredential: LIST_URL,
      statusListIndex: 3,
      statusPurpose: 'message',
    });
    expect(readEntryStatus(plain, decoded).message).toBe('set');
    expect(readEntryStatus({ ...plain, statusListIndex: '4' }, decoded).message).toBe('unset');
  });

  it('raises a purpose mismatch before decompressing anything (§3.2 step 5)', async () => {
    const credential = listCredential('uAAAA'); // not even GZIP: the purpose check comes first
    const entry = buildStatusListEntry({
      statusListCredential: LIST_URL,
      statusListIndex: 1,
      statusPurpose: 'suspension',
    });
    expect(await rejection(checkStatus(entry, credential))).toEqual(err('STATUS_PURPOSE_MISMATCH'));
  });

  it('refuses a list that is not the one the entry names or has another statusSize', async () => {
    const credential = listCredential(SPEC_EXAMPLE_ENCODED_LIST);
    const entry = buildStatusListEntry({
      statusListCredential: 'https://issuer.example/status/8',
      statusListIndex: 1,
      statusPurpose: 'revocation',
    });
    expect(await rejection(checkStatus(entry, credential))).toEqual(err('STATUS_LIST_MISMATCH'));
    const sameUrl = { ...entry, id: `${LIST_URL}#1`, statusListCredential: LIST_URL };
    const sized = listCredential(SPEC_EXAMPLE_ENCODED_LIST, { statusSize: 2, statusMessage: TWO_BIT_MESSAGES });
    expect(() => assertEntryMatchesList(sameUrl, sized)).toThrow(err('STATUS_LIST_MISMATCH'));
    // A list without an id could be any list of its issuer: it matches no entry.
    const { id: _id, ...anonymous } = credential;
    expect(() => assertEntryMatchesList({ ...entry, statusListCredential: LIST_URL }, anonymous)).toThrow(
      err('STATUS_LIST_MISMATCH'),
    );
    const decodedOneBit = await decodeStatusList(SPEC_EXAMPLE_ENCODED_LIST);
    expect(() =>
      readEntryStatus({ ...sameUrl, statusSize: 2, statusMessage: TWO_BIT_MESSAGES }, decodedOneBit),
    ).toThrow(err('STATUS_LIST_MISMATCH'));
  });

  it('raises a range error for an index outside the decoded list (§3.2 step 10)', async () => {
    const credential = listCredential(SPEC_EXAMPLE_ENCODED_LIST);
    for (const statusListIndex of ['131072', '9007199254740993', '1'.repeat(400)]) {
      const entry = {
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
        statusListCredential: LIST_URL,
        statusListIndex,
      };
      expect(await rejection(checkStatus(entry, credential))).toEqual(err('STATUS_INDEX_OUT_OF_RANGE'));
    }
    const last = {
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListCredential: LIST_URL,
      statusListIndex: '131071',
    };
    expect((await checkStatus(last, credential)).valid).toBe(true);
  });

  it('passes malformed documents and size limits through as typed errors', async () => {
    const entry = buildStatusListEntry({
      statusListCredential: LIST_URL,
      statusListIndex: 1,
      statusPurpose: 'revocation',
    });
    expect(
      await rejection(checkStatus({ ...entry, statusListIndex: 1 }, listCredential(SPEC_EXAMPLE_ENCODED_LIST))),
    ).toEqual(err('STATUS_ENTRY_MALFORMED'));
    expect(await rejection(checkStatus(entry, { credentialSubject: {} }))).toEqual(err('STATUS_LIST_MALFORMED'));
    const big = listCredential(await encodeStatusList(createStatusList({ length: 262_144 })));
    expect(await rejection(checkStatus(entry, big, { maxBytes: 16_384 }))).toEqual(err('STATUS_LIST_TOO_LARGE'));
    const short = listCredential(base64url.encode(await gzip(new Uint8Array(100))));
    expect(await rejection(checkStatus(entry, short))).toEqual(err('STATUS_LIST_TOO_SHORT'));
  });
});
