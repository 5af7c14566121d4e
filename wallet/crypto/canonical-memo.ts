/**
 * Canonical forms already written, by object identity, so one verification canonicalizes each
 * embedded object once: JCS output nests (the canonical form of a presentation contains each
 * credential's canonical form verbatim, and a credential's contains its subject's), so after
 * one walk over a presentation, the credential digests and each credential's signed form
 * (the credential minus its proof: a new object whose members are all remembered) cost only
 * their top-level members. jcs.ts reads and fills the memo; this module creates it, and
 * recognizes values already canonicalized in an earlier verification (snapshots).
 *
 * A memo is only sound while the objects it has seen are not modified: create one per
 * verification (`createCanonicalMemo`), never share it across calls on mutable input.
 */
import { isPlainObject, type JsonValue } from './json-value.ts';

declare const MEMO_BRAND: unique symbol;

/** An opaque memo for canonicalizeJson (jcs.ts). */
export interface CanonicalMemo {
  readonly [MEMO_BRAND]: true;
}

/** A remembered canonical form and the nesting depth still allowed when it was written. */
export interface MemoSpan {
  readonly text: string;
  readonly room: number;
}

/** The one implementation of CanonicalMemo: spans by object identity, weakly held. */
class MemoSpans implements CanonicalMemo {
  declare readonly [MEMO_BRAND]: true;
  readonly spans = new WeakMap<object, MemoSpan>();
}

/** A fresh, empty memo for one verification. */
export function createCanonicalMemo(): CanonicalMemo {
  return new MemoSpans();
}

/** The spans behind a memo; anything not made by createCanonicalMemo is a caller's bug. */
export function memoSpans(memo: CanonicalMemo): WeakMap<object, MemoSpan> {
  if (!(memo instanceof MemoSpans)) throw new TypeError('not a CanonicalMemo (use createCanonicalMemo)');
  return memo.spans;
}

/**
 * A canonical form worked out before, kept with its parsed value so that a value can later be
 * recognized as the same JSON by comparing structures — far cheaper than serializing it again.
 * `height` is how deeply it nests (`{}` is 1), the depth room it needs.
 */
export interface CanonicalSnapshot {
  readonly text: string;
  readonly value: JsonValue;
  readonly height: number;
}

function heightOf(value: JsonValue): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const member of Array.isArray(value) ? value : Object.values(value))
    deepest = Math.max(deepest, heightOf(member));
  return deepest + 1;
}

/** A snapshot of canonical text (as returned by canonicalizeJson: already validated). */
export function canonicalSnapshot(canonicalText: string): CanonicalSnapshot {
  const value = JSON.parse(canonicalText) as JsonValue;
  return { text: canonicalText, value, height: heightOf(value) };
}

/**
 * True when `value` is exactly the JSON value `expected` (same kinds, items, own keys, members);
 * then it canonicalizes as `expected` did and passes its checks (why: docs/crypto.md §JSON and JCS, Snapshots).
 */
function sameJson(value: unknown, expected: JsonValue): boolean {
  if (typeof expected !== 'object' || expected === null) return value === expected;
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(expected)) {
    if (!Array.isArray(value) || value.length !== expected.length) return false;
    for (let i = 0; i < expected.length; i++) if (!sameJson(value[i], expected[i] as JsonValue)) return false;
    return true;
  }
  if (Array.isArray(value) || !isPlainObject(value)) return false;
  const record = value as Record<string, unknown>;
  let count = 0;
  for (const key in expected) {
    if (!Object.hasOwn(record, key) || !sameJson(record[key], expected[key] as JsonValue)) return false;
    count++;
  }
  return Object.keys(record).length === count;
}

/**
 * Recognizes `value` as the JSON of `snapshot` and, when it is, records `snapshot.text` as its
 * canonical form in `memo`: canonicalizing anything that contains `value` then copies the text
 * instead of walking it. A verifier uses this for credentials it has verified before. False,
 * and nothing recorded, when `value` differs in any way.
 */
export function recallCanonical(value: unknown, snapshot: CanonicalSnapshot, memo: CanonicalMemo): boolean {
  if (typeof value !== 'object' || value === null || !sameJson(value, snapshot.value)) return false;
  memoSpans(memo).set(value, { text: snapshot.text, room: snapshot.height });
  return true;
}
