/**
 * Random allocation of status list indexes. Bitstring Status List §2.1 (statusListIndex):
 * "Implementations SHOULD assign indexes randomly, such that inferences — such as the recency of
 * the assignment or the size of the group — cannot be easily drawn from that position"; a
 * sequential counter would reveal both, and shrink the herd of §6.1 to the few early indexes.
 *
 * The index is uniform over the unused ones: uniform draws by rejection sampling (no modulo bias),
 * retried while they hit used indexes; when the list is nearly full, one uniform draw among the
 * remaining free indexes instead, so allocation never degenerates into a long retry loop.
 */
import { StatusListError } from './errors.ts';

/** Used indexes: a set, or a bitmap laid out like a status list (index 0 = MSB of byte 0, 1 = used). */
export type UsedIndexes = ReadonlySet<number> | Uint8Array;

export interface AllocateIndexOptions {
  /** Source of uniform 32-bit words (default `crypto.getRandomValues`); injectable for tests only. */
  random?: (words: Uint32Array) => Uint32Array;
}

// Random draws tried before counting the free indexes; with half the list free, 32 misses in a
// row happen with probability 2^-32, so the scan only runs for nearly full lists.
const ATTEMPTS = 32;
const TWO_POW_32 = 2 ** 32;

function defaultRandom(words: Uint32Array): Uint32Array {
  return crypto.getRandomValues(words);
}

/**
 * A uniform integer in [0, n), 1 ≤ n ≤ 2^32. Draws below the largest multiple of n that fits in
 * 32 bits are kept and reduced mod n; the others are redrawn, because `x % n` on all of
 * [0, 2^32) would favour the small residues.
 */
export function randomBelow(n: number, random: (words: Uint32Array) => Uint32Array = defaultRandom): number {
  if (!Number.isSafeInteger(n) || n < 1 || n > TWO_POW_32) {
    throw new StatusListError('INVALID_STATUS_ARGUMENT', 'the range must be an integer from 1 to 2^32');
  }
  const limit = TWO_POW_32 - (TWO_POW_32 % n);
  const word = new Uint32Array(1);
  for (;;) {
    const x = random(word)[0] as number;
    if (x < limit) return x % n;
  }
}

function usedPredicate(length: number, used: UsedIndexes): (index: number) => boolean {
  if (used instanceof Uint8Array) {
    if (used.length * 8 < length)
      throw new StatusListError('INVALID_STATUS_ARGUMENT', `the used-index bitmap must cover ${length} indexes`);
    return (index) => (((used[index >> 3] as number) >> (7 - (index & 7))) & 1) === 1;
  }
  if (used instanceof Set) return (index) => used.has(index);
  throw new StatusListError('INVALID_STATUS_ARGUMENT', 'used indexes must be a Set or a Uint8Array bitmap');
}

/**
 * A uniformly random index in [0, length) that `used` does not contain. The caller records it as
 * used (atomically with issuance, so two credentials never share an index).
 * Throws STATUS_LIST_FULL when every index is used.
 */
export function allocateIndex(length: number, used: UsedIndexes, options: AllocateIndexOptions = {}): number {
  const random = options.random ?? defaultRandom;
  if (!Number.isSafeInteger(length) || length < 1 || length > TWO_POW_32) {
    throw new StatusListError('INVALID_STATUS_ARGUMENT', 'length must be an integer from 1 to 2^32');
  }
  const isUsed = usedPredicate(length, used);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const index = randomBelow(length, random);
    if (!isUsed(index)) return index;
  }
  let free = 0;
  for (let index = 0; index < length; index++) if (!isUsed(index)) free++;
  if (free === 0) throw new StatusListError('STATUS_LIST_FULL', `all ${length} status list indexes are allocated`);
  // The k-th free index for a uniform k: uniform over the free indexes, like the draws above.
  let k = randomBelow(free, random);
  for (let index = 0; index < length; index++) {
    if (!isUsed(index) && k-- === 0) return index;
  }
  throw new Error('unreachable: fewer free indexes than counted');
}
