/**
 * The `encodedList` text form of a status list (Bitstring Status List §2.2): the multibase
 * base64url (prefix `u`, no padding, RFC 4648 §5) encoding of the GZIP-compressed bitstring.
 * Decoding takes untrusted input, so it is bounded twice: the text length is checked before
 * anything is allocated from it, and decompression stops at `maxBytes` (see gzip.ts).
 */
import { base64urlToBytesLenient, bytesToBase64url } from '../crypto/base64url.ts';
import {
  MAX_STATUS_LIST_BYTES,
  MIN_STATUS_LIST_ENTRIES,
  assertStatusSize,
  statusListFromBytes,
  type StatusBitstring,
} from './bitstring.ts';
import { StatusListError } from './errors.ts';
import { gunzip, gzip } from './gzip.ts';

/** §2.2 encodedList syntax: multibase prefix `u`, then base64url without padding. */
export const ENCODED_LIST_SYNTAX = /^u[A-Za-z0-9_-]+$/;

export interface DecodeStatusListOptions {
  /** Bits per entry, from the credentialStatus entry (default 1, §2.1 statusSize). */
  statusSize?: number;
  /** minimumNumberOfEntries (§3.2 step 2): 131,072 unless an ecosystem sets another bound. */
  minEntries?: number;
  /**
   * Largest uncompressed bitstring accepted, in bytes (default MAX_STATUS_LIST_BYTES = 16 MiB).
   * A verifier that knows the list sizes it expects should set it to that (e.g. 16_384).
   */
  maxBytes?: number;
  /** Longest `encodedList` accepted, in characters (default: what `maxBytes` of incompressible data needs). */
  maxEncodedLength?: number;
}

// Even incompressible data grows by well under 1/8 + 64 bytes in GZIP (stored blocks add 5 bytes
// per 64 KiB, plus an 18-byte header and trailer); base64 adds 4/3, multibase one prefix character.
function defaultMaxEncodedLength(maxBytes: number): number {
  return 1 + Math.ceil(((maxBytes + Math.floor(maxBytes / 8) + 64) * 4) / 3);
}

function assertLimit(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new StatusListError('INVALID_STATUS_ARGUMENT', `${name} must be a non-negative integer`);
}

/** The `encodedList` value for `list` (§3.3 steps 3–4). */
export async function encodeStatusList(list: StatusBitstring): Promise<string> {
  return `u${bytesToBase64url(await gzip(list.bytes))}`;
}

/**
 * Expands an `encodedList` into a list of `statusSize`-bit entries (§3.4, then §3.2 step 9).
 * Errors: STATUS_LIST_MALFORMED (not `u` + base64url, not GZIP), STATUS_LIST_TOO_LARGE (text or
 * bitstring over the limits), STATUS_LIST_TOO_SHORT (fewer than `minEntries` entries).
 */
export async function decodeStatusList(
  encodedList: string,
  options: DecodeStatusListOptions = {},
): Promise<StatusBitstring> {
  const { statusSize = 1, minEntries = MIN_STATUS_LIST_ENTRIES } = options;
  assertStatusSize(statusSize);
  assertLimit(minEntries, 'minEntries');
  return statusListFromBytes(await inflateEncodedList(encodedList, options), statusSize, minEntries);
}

/**
 * The uncompressed bitstring of an `encodedList` (§3.4), whatever its entries' size: one copy
 * serves every `statusSize` (`statusListFromBytes` wraps it without copying). Errors as
 * `decodeStatusList`, but for STATUS_LIST_TOO_SHORT, which depends on the entry size.
 */
export async function inflateEncodedList(
  encodedList: string,
  options: Pick<DecodeStatusListOptions, 'maxBytes' | 'maxEncodedLength'> = {},
): Promise<Uint8Array> {
  const maxBytes = options.maxBytes ?? MAX_STATUS_LIST_BYTES;
  const maxEncodedLength = options.maxEncodedLength ?? defaultMaxEncodedLength(maxBytes);
  assertLimit(maxBytes, 'maxBytes');
  assertLimit(maxEncodedLength, 'maxEncodedLength');
  if (typeof encodedList !== 'string')
    throw new StatusListError('STATUS_LIST_MALFORMED', 'encodedList must be a string');
  if (encodedList.length > maxEncodedLength) {
    throw new StatusListError('STATUS_LIST_TOO_LARGE', `encodedList is longer than ${maxEncodedLength} characters`);
  }
  // §2.2: base64url "with no padding". The base64url decoder would silently strip "=", so
  // the alphabet is checked here; the prefix `u` selects base64url among multibase encodings.
  if (!ENCODED_LIST_SYNTAX.test(encodedList)) {
    throw new StatusListError(
      'STATUS_LIST_MALFORMED',
      'encodedList must be multibase base64url without padding ("u" prefix)',
    );
  }
  let compressed: Uint8Array;
  try {
    compressed = base64urlToBytesLenient(encodedList.slice(1));
  } catch (error) {
    // Only a length that leaves stray bits gets here (e.g. one character after a full group).
    throw new StatusListError('STATUS_LIST_MALFORMED', 'encodedList is not valid base64url', { cause: error });
  }
  return gunzip(compressed, maxBytes);
}
