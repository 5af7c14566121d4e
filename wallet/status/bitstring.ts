/**
 * The uncompressed bitstring of W3C Bitstring Status List v1.0: a fixed-size array of
 * `statusSize`-bit entries. Compression and the `encodedList` text form live in
 * `encoded-list.ts`; documents in `credential.ts`; index allocation in `allocate.ts`.
 *
 * Layout (Bitstring Status List §2.2 encodedList, §7.1 Bitstring Encoding): index 0 is the
 * left-most bit, i.e. the most significant bit of the first byte; entry i occupies bits
 * [i·statusSize, (i+1)·statusSize) and is read most significant bit first (§3.2 step 10:
 * "the position indicated by the credentialIndex multiplied by the size").
 *
 * Mandate supports statusSize 1..8: §1.3 lets processors support only size 1, and 8 bits
 * (256 messages) bounds the statusMessage array a document may make us hold.
 */
import { StatusListError, type StatusListErrorCode } from './errors.ts';

/** Bitstring Status List §3.2 step 2 / §6.1: the herd-privacy minimum, 131,072 entries. */
export const MIN_STATUS_LIST_ENTRIES = 131_072;
/** Largest statusSize Mandate accepts (see the module comment). */
export const MAX_STATUS_SIZE = 8;
/** Largest uncompressed bitstring Mandate creates or decodes by default: 16 MiB (2^27 one-bit entries). */
export const MAX_STATUS_LIST_BYTES = 16 * 1024 * 1024;

export interface StatusBitstring {
  /** The uncompressed bitstring, index 0 at the most significant bit of byte 0. */
  readonly bytes: Uint8Array;
  /** Bits per entry, 1..MAX_STATUS_SIZE. */
  readonly statusSize: number;
  /** Number of entries: ⌊bytes.length · 8 / statusSize⌋. */
  readonly length: number;
}

export interface CreateStatusListOptions {
  /** Number of entries; at least MIN_STATUS_LIST_ENTRIES (the default), length·statusSize a multiple of 8. */
  length?: number;
  /** Bits per entry (default 1, Bitstring Status List §2.1 statusSize). */
  statusSize?: number;
}

/** Throws `code` (INVALID_STATUS_ARGUMENT by default) unless `statusSize` is an integer in 1..MAX_STATUS_SIZE. */
export function assertStatusSize(
  statusSize: unknown,
  code: StatusListErrorCode = 'INVALID_STATUS_ARGUMENT',
): asserts statusSize is number {
  if (
    typeof statusSize !== 'number' ||
    !Number.isInteger(statusSize) ||
    statusSize < 1 ||
    statusSize > MAX_STATUS_SIZE
  ) {
    throw new StatusListError(code, `statusSize must be an integer from 1 to ${MAX_STATUS_SIZE}`);
  }
}

/** A new all-zero list (every entry status 0: valid, Bitstring Status List §3.3 step 1). */
export function createStatusList(options: CreateStatusListOptions = {}): StatusBitstring {
  const { length = MIN_STATUS_LIST_ENTRIES, statusSize = 1 } = options;
  assertStatusSize(statusSize);
  if (!Number.isSafeInteger(length)) throw new StatusListError('INVALID_STATUS_ARGUMENT', 'length must be an integer');
  if (length < MIN_STATUS_LIST_ENTRIES) {
    throw new StatusListError(
      'STATUS_LIST_TOO_SHORT',
      `a status list needs at least ${MIN_STATUS_LIST_ENTRIES} entries for herd privacy`,
    );
  }
  const bits = length * statusSize;
  if (bits % 8 !== 0)
    throw new StatusListError('INVALID_STATUS_ARGUMENT', 'length × statusSize must be a whole number of bytes');
  if (bits / 8 > MAX_STATUS_LIST_BYTES) {
    throw new StatusListError('STATUS_LIST_TOO_LARGE', `a status list is at most ${MAX_STATUS_LIST_BYTES} bytes`);
  }
  return { bytes: new Uint8Array(bits / 8), statusSize, length };
}

/**
 * Wraps an uncompressed bitstring (taken as is, not copied) as a list of `statusSize`-bit entries,
 * refusing one with fewer than `minEntries` entries (§3.2 step 9, STATUS_LIST_LENGTH_ERROR).
 */
export function statusListFromBytes(
  bytes: Uint8Array,
  statusSize = 1,
  minEntries = MIN_STATUS_LIST_ENTRIES,
): StatusBitstring {
  assertStatusSize(statusSize);
  const length = Math.floor((bytes.length * 8) / statusSize);
  if (length < minEntries) {
    throw new StatusListError(
      'STATUS_LIST_TOO_SHORT',
      `the status list has ${length} entries, fewer than the minimum ${minEntries}`,
    );
  }
  return { bytes, statusSize, length };
}

// First bit of entry `index`, after checking it lies wholly inside the bitstring. Bounds come
// from `bytes` itself, not from `length`, so a hand-built inconsistent object cannot read past it.
function entryStart(list: StatusBitstring, index: number): number {
  if (!Number.isSafeInteger(index))
    throw new StatusListError('INVALID_STATUS_ARGUMENT', 'a status index must be an integer');
  const start = index * list.statusSize;
  if (index < 0 || start + list.statusSize > list.bytes.length * 8) {
    throw new StatusListError(
      'STATUS_INDEX_OUT_OF_RANGE',
      `status index ${index} is outside the list of ${list.length} entries`,
    );
  }
  return start;
}

/** The status value (0..2^statusSize − 1) of entry `index`; 0 means valid (§3.2 step 13). */
export function getStatus(list: StatusBitstring, index: number): number {
  const start = entryStart(list, index);
  let value = 0;
  for (let bit = start; bit < start + list.statusSize; bit++) {
    value = (value << 1) | (((list.bytes[bit >> 3] as number) >> (7 - (bit & 7))) & 1);
  }
  return value;
}

/** Sets entry `index` to `value` in place (e.g. 1 to revoke, 0 to lift a suspension). */
export function setStatus(list: StatusBitstring, index: number, value: number): void {
  const start = entryStart(list, index);
  if (!Number.isInteger(value) || value < 0 || value >= 2 ** list.statusSize) {
    throw new StatusListError(
      'INVALID_STATUS_ARGUMENT',
      `a ${list.statusSize}-bit status value must be an integer from 0 to ${2 ** list.statusSize - 1}`,
    );
  }
  for (let i = 0; i < list.statusSize; i++) {
    const bit = start + i;
    const mask = 0x80 >> (bit & 7);
    // Bit i of the entry, counted from its most significant bit.
    const on = (value >> (list.statusSize - 1 - i)) & 1;
    const byte = list.bytes[bit >> 3] as number;
    list.bytes[bit >> 3] = on ? byte | mask : byte & ~mask;
  }
}
