/**
 * The JSON Canonicalization Scheme (JCS, RFC 8785) that Data Integrity `eddsa-jcs-2022` signs,
 * under the boundary rules of json-value.ts.
 *
 * Canonicalization validates and serializes in ONE walk (a verifier canonicalizes every
 * credential it sees): no second pass, and no time-of-check/time-of-use gap between what was
 * validated and what was serialized. The output is RFC 8785 exactly; the `canonicalize`
 * package (erdtman, the RFC author's reference for JavaScript) is the differential oracle in
 * test/wallet/crypto/jcs.shared.test.ts. It is not called here because it cannot stop early on size or
 * depth, and it would walk the value a second time after validation.
 */
import { utf8ToBytes } from './bytes.ts';
import { memoSpans, type CanonicalMemo, type MemoSpan } from './canonical-memo.ts';
import {
  checkNumber,
  checkString,
  isPlainObject,
  refuseUnsafeKey,
  resolveLimits,
  tooDeep,
  tooLarge,
  unsupported,
  utf8Length,
  type JsonLimits,
} from './json-value.ts';

/** Running state of one canonicalization: the size budget and the memo, if any. */
interface Writer {
  /** UTF-16 length written so far (brackets not counted): a lower bound of the UTF-8 size. */
  size: number;
  readonly maxDepth: number;
  readonly maxBytes: number;
  readonly memo: WeakMap<object, MemoSpan> | undefined;
}

/**
 * Characters that send a string down the slow path: `"`, `\` and U+0000–U+001F need escaping,
 * any surrogate half needs the well-formedness check (why: docs/crypto.md §Fast paths of the walk).
 */
// eslint-disable-next-line no-control-regex -- U+0000–U+001F are what RFC 8785 §3.2.2.2 escapes
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The JSON string literal of `s` (RFC 8785 §3.2.2.2), after the well-formedness check. */
function quote(s: string, what: 'string' | 'key'): string {
  if (!NEEDS_CARE.test(s)) return `"${s}"`;
  checkString(s, what);
  return JSON.stringify(s);
}

/** Counts what was just written against the budget: stops hostile input (huge or DAG-shaped) early. */
function grow(w: Writer, length: number): void {
  w.size += length;
  // UTF-16 length never exceeds UTF-8 length, so this stops hostile input early; the exact
  // UTF-8 size is checked once at the end.
  if (w.size > w.maxBytes) throw tooLarge(w.maxBytes);
}

/** Above this many members, Array.prototype.sort; at or below, an insertion sort. */
const INSERTION_SORT_MAX = 32;

/**
 * Own enumerable keys in UTF-16 code unit order (RFC 8785 §3.2.3), insertion-sorted in place for
 * small objects (why: docs/crypto.md §Fast paths of the walk).
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    if ((keys[j] as string) <= key) continue;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * Validates and serializes `value` per RFC 8785 §3.2 (§3.2.2.1–§3.2.2.3, §3.2.3) in the same walk;
 * each array and object is its own string, so the memo can keep it (docs/crypto.md §Fast paths of the walk).
 */
function write(w: Writer, value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string': {
      const text = quote(value, 'string');
      grow(w, text.length);
      return text;
    }
    case 'number': {
      checkNumber(value);
      const text = `${value}`;
      grow(w, text.length);
      return text;
    }
    case 'boolean':
      grow(w, 5);
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) {
        grow(w, 4);
        return 'null';
      }
      return writeComposite(w, value, depth);
    default:
      throw unsupported(value);
  }
}

/**
 * `"key":` for member names already seen (checked names only, short ones, at most KEY_CACHE_MAX,
 * then afresh: bounded memory). Why: docs/crypto.md §Fast paths of the walk.
 */
const memberPrefixes = new Map<string, string>();
const KEY_CACHE_MAX = 512;
const KEY_CACHE_MAX_LENGTH = 64;

/** The member name `key`, checked and quoted, followed by the colon (RFC 8785 §3.2.3). */
function memberPrefix(key: string): string {
  const known = memberPrefixes.get(key);
  if (known !== undefined) return known;
  refuseUnsafeKey(key);
  const prefix = `${quote(key, 'key')}:`;
  if (key.length <= KEY_CACHE_MAX_LENGTH) {
    if (memberPrefixes.size >= KEY_CACHE_MAX) memberPrefixes.clear();
    memberPrefixes.set(key, prefix);
  }
  return prefix;
}

function writeComposite(w: Writer, value: object, depth: number): string {
  const room = w.maxDepth - depth;
  const remembered = w.memo?.get(value);
  // A span written with at most this much room left fits here too.
  if (remembered !== undefined && remembered.room <= room) {
    grow(w, remembered.text.length);
    return remembered.text;
  }
  if (room <= 0) throw tooDeep(w.maxDepth);
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      // `undefined` also covers holes in sparse arrays, which JSON cannot express.
      if (item === undefined) throw unsupported(item);
      grow(w, 1);
      text += i > 0 ? `,${write(w, item, depth + 1)}` : write(w, item, depth + 1);
    }
    text += ']';
  } else {
    if (!isPlainObject(value)) throw unsupported(value);
    const record = value as Record<string, unknown>;
    const keys = sortedKeys(record);
    text = '{';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const prefix = memberPrefix(key);
      const member: unknown = record[key];
      if (member === undefined) throw unsupported(member);
      grow(w, prefix.length + 1);
      text += i > 0 ? `,${prefix}${write(w, member, depth + 1)}` : prefix + write(w, member, depth + 1);
    }
    text += '}';
  }
  w.memo?.set(value, { text, room });
  return text;
}

function canonicalize(
  value: unknown,
  limits: JsonLimits | undefined,
  memo: CanonicalMemo | undefined,
): { text: string; maxBytes: number } {
  const { maxDepth, maxBytes } = resolveLimits(limits);
  const w: Writer = { size: 0, maxDepth, maxBytes, memo: memo === undefined ? undefined : memoSpans(memo) };
  return { text: write(w, value, 0), maxBytes };
}

/** RFC 8785 canonical JSON text of `value`, after the boundary checks. */
export function canonicalizeJson(value: unknown, limits?: JsonLimits, memo?: CanonicalMemo): string {
  const { text, maxBytes } = canonicalize(value, limits, memo);
  if (text.length * 3 > maxBytes && utf8Length(text) > maxBytes) throw tooLarge(maxBytes);
  return text;
}

/** UTF-8 bytes of the RFC 8785 canonical form of `value` (what Data Integrity hashes). */
export function canonicalBytes(value: unknown, limits?: JsonLimits): Uint8Array {
  const { text, maxBytes } = canonicalize(value, limits, undefined);
  const bytes = utf8ToBytes(text);
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}
