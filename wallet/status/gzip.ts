/**
 * GZIP (RFC 1952) for status lists through the Compression Streams standard, present in Node
 * ≥ 18, Chromium and service workers, so one code path runs everywhere.
 *
 * Decompression is bounded: a status list arrives from the network (or stapled by a holder),
 * and deflate expands up to ~1032:1, so 100 KB can claim 100 MB. We therefore
 * - feed the compressed bytes in small chunks: a transform inflates a whole input chunk before
 *   we see any of it, so the chunk size bounds the overshoot past the limit (≈ 1 MiB here);
 * - read the output incrementally and cancel the stream the moment it exceeds the limit, so a
 *   bomb is refused after inflating at most `maxBytes` plus one chunk's worth, never in full.
 */
import { StatusListError } from './errors.ts';
import { readBounded as readStreamBounded } from '../net/http.ts';

// 1 KiB of deflate input inflates to at most ~1 MiB (RFC 1951 caps a match at 258 bytes per
// ~2 bits); typical compressed lists are a few hundred bytes to a few KiB, so few chunks.
const INPUT_CHUNK = 1024;

// A pull-driven stream over a private copy of `bytes`: one chunk per read, none ahead of demand.
function chunked(bytes: Uint8Array): ReadableStream<BufferSource> {
  // Copied before the first await so a caller mutating its buffer cannot change what is processed.
  const data = bytes.slice();
  let offset = 0;
  return new ReadableStream<BufferSource>(
    {
      pull(controller) {
        if (offset >= data.length) {
          controller.close();
          return;
        }
        controller.enqueue(data.subarray(offset, offset + INPUT_CHUNK));
        offset += INPUT_CHUNK;
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Reads `stream` to its end into one buffer. As soon as more than `maxBytes` have arrived it
 * cancels the stream and throws STATUS_LIST_TOO_LARGE: the rest is never produced.
 */
export async function readBounded(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const out = await readStreamBounded(stream, maxBytes);
  if (!out) throw new StatusListError('STATUS_LIST_TOO_LARGE', `the status list exceeds ${maxBytes} bytes`);
  return out;
}

/** GZIP-compresses `bytes` (Bitstring Status List §3.3 step 3). */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  return readBounded(chunked(bytes).pipeThrough(new CompressionStream('gzip')), Number.POSITIVE_INFINITY);
}

// RFC 1952 §2.3: a member is a 10-byte header, the deflate data, then CRC32 and ISIZE (4 bytes
// each, little-endian); ISIZE is the uncompressed length mod 2^32.
const MIN_GZIP_LENGTH = 18;

function trailerSize(bytes: Uint8Array): number {
  const n = bytes.length;
  return (
    ((bytes[n - 4] as number) |
      ((bytes[n - 3] as number) << 8) |
      ((bytes[n - 2] as number) << 16) |
      ((bytes[n - 1] as number) << 24)) >>>
    0
  );
}

/**
 * Decompresses GZIP `bytes` (§3.4) to at most `maxBytes`: STATUS_LIST_TOO_LARGE beyond it,
 * STATUS_LIST_MALFORMED when the input is not exactly one valid, complete GZIP member.
 */
export async function gunzip(bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  if (bytes.length < MIN_GZIP_LENGTH)
    throw new StatusListError('STATUS_LIST_MALFORMED', 'encodedList is too short to be GZIP data');
  // The declared size refuses an honest bomb without inflating anything. It is attacker-chosen,
  // so it is only a shortcut: the bounded read below is what enforces the limit.
  const declared = trailerSize(bytes);
  if (declared > maxBytes)
    throw new StatusListError('STATUS_LIST_TOO_LARGE', `the status list declares ${declared} bytes, over ${maxBytes}`);
  let out: Uint8Array;
  try {
    out = await readBounded(chunked(bytes).pipeThrough(new DecompressionStream('gzip')), maxBytes);
  } catch (error) {
    if (error instanceof StatusListError) throw error;
    throw new StatusListError('STATUS_LIST_MALFORMED', 'encodedList is not valid GZIP data', { cause: error });
  }
  // zlib checks each member's own CRC32 and ISIZE, but Node accepts several concatenated members
  // where Chromium refuses them; comparing the total with the last trailer refuses two non-empty
  // members everywhere. (Not an empty member first, nor bytes after the trailer: Node reads past
  // those, Chromium refuses them; docs/status-lists.md.)
  if (out.length % 2 ** 32 !== declared) {
    throw new StatusListError('STATUS_LIST_MALFORMED', 'encodedList must be exactly one GZIP member');
  }
  return out;
}
