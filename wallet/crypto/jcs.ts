/**
 * The JSON boundary of Mandate: strict parsing, validation of in-memory values, and the JSON
 * Canonicalization Scheme (JCS, RFC 8785) that Data Integrity `eddsa-jcs-2022` signs.
 *
 * Everything that becomes signed or verified bytes passes through here, so the rules are
 * stricter than JSON.parse / JSON.stringify:
 * - `__proto__`, `constructor` and `prototype` keys are refused anywhere (JSON.parse turns
 *   `"__proto__"` into an own property; merging such a value later pollutes prototypes).
 * - Only JSON values are accepted: no undefined, functions, symbols, bigints, Dates or other
 *   class instances (JSON.stringify would silently drop or convert them, so what is signed
 *   would differ from what the caller holds), no sparse arrays, no NaN/±Infinity (JSON.parse
 *   turns `1e400` into Infinity).
 * - Strings and keys must be well-formed UTF-16: RFC 8785 §3.2.2.2 serializes strings as
 *   UTF-8, and a lone surrogate has no UTF-8 form.
 * - Nesting depth and size are bounded (defaults: depth 32, 64 KiB), so hostile input costs
 *   bounded time and stack.
 * - Parsed text may not repeat a member name in one object: RFC 8785 §3.1 takes I-JSON input,
 *   and I-JSON (RFC 7493 §2.3) forbids it, because parsers disagree on which copy counts
 *   (JSON.parse keeps the last, others the first): one signed text would read two ways.
 *
 * Canonicalization validates and serializes in ONE walk (a verifier canonicalizes every
 * credential it sees): no second pass, and no time-of-check/time-of-use gap between what was
 * validated and what was serialized. The output is RFC 8785 exactly; the `canonicalize`
 * package (erdtman, the RFC author's reference for JavaScript) is the differential oracle in
 * test/shared/jcs.test.ts. It is not called here because it cannot stop early on size or
 * depth, and it would walk the value a second time after validation.
 */
import { utf8ToBytes } from './bytes.ts';
import { MandateError } from './errors.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export type JsonErrorCode =
  | 'JSON_SYNTAX'
  | 'JSON_UNSAFE_KEY'
  | 'JSON_NON_FINITE'
  | 'JSON_UNSUPPORTED_VALUE'
  | 'JSON_LONE_SURROGATE'
  | 'JSON_TOO_DEEP'
  | 'JSON_TOO_LARGE'
  | 'JSON_DUPLICATE_NAME';

export class JsonError extends MandateError<JsonErrorCode> {
  override name = 'JsonError';
}

export interface JsonLimits {
  /** Deepest allowed nesting of arrays/objects; a scalar is depth 0, `{}` is depth 1. */
  maxDepth?: number;
  /** Largest allowed document in UTF-8 bytes: the input text for parseJson, the canonical form for values. */
  maxBytes?: number;
}

export const DEFAULT_JSON_LIMITS: Readonly<Required<JsonLimits>> = /* @__PURE__ */ Object.freeze({
  maxDepth: 32,
  maxBytes: 64 * 1024,
});

/** Keys that reach Object.prototype or a constructor when a parsed value is merged or assigned. */
const UNSAFE_KEYS: ReadonlySet<string> = /* @__PURE__ */ new Set(['__proto__', 'constructor', 'prototype']);

// ES2024 String.prototype.isWellFormed (Node ≥ 20, Chromium ≥ 111); the u-flag regex is the
// fallback. With the u flag a valid surrogate pair is one code point, so only lone halves match.
const LONE_SURROGATE = /\p{Surrogate}/u;
const nativeIsWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;
const isWellFormed: (s: string) => boolean = nativeIsWellFormed
  ? (s) => nativeIsWellFormed.call(s)
  : (s) => !LONE_SURROGATE.test(s);

function resolveLimits(limits: JsonLimits | undefined): Required<JsonLimits> {
  if (limits === undefined) return DEFAULT_JSON_LIMITS;
  const maxDepth = limits.maxDepth ?? DEFAULT_JSON_LIMITS.maxDepth;
  const maxBytes = limits.maxBytes ?? DEFAULT_JSON_LIMITS.maxBytes;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0 || !Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError('JSON limits must be non-negative integers');
  }
  return { maxDepth, maxBytes };
}

/** Exact UTF-8 length of a well-formed string, without allocating its encoding. */
function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4; // a high surrogate is always followed by its low half here (validated)
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function tooLarge(maxBytes: number): JsonError {
  return new JsonError('JSON_TOO_LARGE', `JSON document exceeds ${maxBytes} bytes`);
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null || typeof value !== 'object') return typeof value;
  return Object.getPrototypeOf(value)?.constructor?.name ?? 'object';
}

function checkString(s: string, what: 'string' | 'key'): void {
  if (!isWellFormed(s)) throw new JsonError('JSON_LONE_SURROGATE', `JSON ${what} contains a lone UTF-16 surrogate`);
}

function refuseUnsafeKey(key: string): void {
  if (UNSAFE_KEYS.has(key)) throw new JsonError('JSON_UNSAFE_KEY', `JSON key "${key}" is not allowed`);
}

function checkKey(key: string): void {
  refuseUnsafeKey(key);
  checkString(key, 'key');
}

function checkNumber(n: number): void {
  if (!Number.isFinite(n)) throw new JsonError('JSON_NON_FINITE', 'JSON numbers must be finite (no NaN or Infinity)');
}

function tooDeep(maxDepth: number): JsonError {
  return new JsonError('JSON_TOO_DEEP', `JSON nesting exceeds depth ${maxDepth}`);
}

function unsupported(value: unknown): JsonError {
  return new JsonError('JSON_UNSUPPORTED_VALUE', `${describe(value)} is not a JSON value`);
}

/**
 * Validation-only walk (parseJson: the size was already measured on the text). Answers how
 * many object members the value holds, for parseJson's duplicate-name check.
 */
function validate(value: unknown, depth: number, maxDepth: number): number {
  switch (typeof value) {
    case 'string':
      checkString(value, 'string');
      return 0;
    case 'number':
      checkNumber(value);
      return 0;
    case 'boolean':
      return 0;
    case 'object': {
      if (value === null) return 0;
      if (depth >= maxDepth) throw tooDeep(maxDepth);
      let members = 0;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) members += validate(value[i], depth + 1, maxDepth);
        return members;
      }
      // JSON.parse only builds plain objects and arrays, so no prototype check is needed here.
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        checkKey(key);
        members += 1 + validate(record[key], depth + 1, maxDepth);
      }
      return members;
    }
    default:
      throw unsupported(value);
  }
}

/**
 * Canonical forms already written, by object identity, so one verification canonicalizes each
 * embedded object once: JCS output nests (the canonical form of a presentation contains each
 * credential's canonical form verbatim, and a credential's contains its subject's), so after
 * one walk over a presentation, the credential digests and each credential's signed form
 * (the credential minus its proof: a new object whose members are all remembered) cost only
 * their top-level members.
 *
 * A memo is only sound while the objects it has seen are not modified: create one per
 * verification (`createCanonicalMemo`), never share it across calls on mutable input.
 */
export interface CanonicalMemo {
  readonly [MEMO_BRAND]: true;
}
declare const MEMO_BRAND: unique symbol;

/** A remembered canonical form and the nesting depth still allowed when it was written. */
interface MemoSpan {
  readonly text: string;
  readonly room: number;
}
type MemoMap = WeakMap<object, MemoSpan>;

/** A fresh, empty memo for one verification. */
export function createCanonicalMemo(): CanonicalMemo {
  return new WeakMap<object, MemoSpan>() as unknown as CanonicalMemo;
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
 * True when `value` is exactly the JSON value `expected`: same kinds, arrays of the same length
 * with equal items, plain objects with the same own enumerable keys and equal members, and
 * identical primitives. Then `value` canonicalizes to what `expected` does (0 and -0 are both
 * "0"), and it passes every check canonicalization makes, because `expected` did.
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
  (memo as unknown as MemoMap).set(value, { text: snapshot.text, room: snapshot.height });
  return true;
}

/** Running state of one canonicalization: the size budget and the memo, if any. */
interface Writer {
  /** UTF-16 length written so far (brackets not counted): a lower bound of the UTF-8 size. */
  size: number;
  readonly maxDepth: number;
  readonly maxBytes: number;
  readonly memo: MemoMap | undefined;
}

/**
 * Characters that send a string down the slow path: `"`, `\` and U+0000–U+001F need escaping,
 * and any surrogate half needs the well-formedness check. Real documents (URLs, DIDs, dates,
 * base58) almost never contain one, and one precompiled test is far cheaper than
 * `JSON.stringify` plus `isWellFormed` on every string.
 */
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
 * Own enumerable keys in UTF-16 code unit order (`<` on strings, which is also sort's default
 * order). Objects have a handful of members, often already in order: an in-place insertion sort
 * is linear then, and unlike Array.prototype.sort it allocates no scratch space.
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
 * Validates and serializes `value` per RFC 8785 §3.2 in the same walk:
 * - literals and numbers (§3.2.2.1, §3.2.2.3): ECMAScript Number-to-String is exactly the
 *   serialization JCS prescribes for finite numbers (-0 becomes 0);
 * - strings (§3.2.2.2): JSON.stringify escapes exactly `"`, `\` and U+0000–U+001F, using
 *   \b \t \n \f \r or lowercase \u00xx, and leaves everything else (including U+2028/9) as is;
 *   strings with none of those characters are copied between quotes as they are;
 * - object members (§3.2.3): sorted by UTF-16 code units, which is Array.prototype.sort's
 *   default string order (and the order of the `<` operator on strings).
 * Each array and object is returned as its own string (V8 concatenates by reference), which is
 * what lets the memo keep every nested canonical form without copying.
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
 * `"key":` for member names already seen. Documents repeat a small vocabulary of names
 * (`@context`, `id`, `type`, `proof`…), so most members skip the key checks and the quoting.
 * Only names that passed the checks are stored, short ones, and at most KEY_CACHE_MAX: when
 * full it starts afresh, so a stream of hostile names costs memory only up to that bound.
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
  const w: Writer = { size: 0, maxDepth, maxBytes, memo: memo as MemoMap | undefined };
  return { text: write(w, value, 0), maxBytes };
}

/** Index of the `"` closing the string that opens at `start` (text JSON.parse accepted). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/**
 * The members written in `text` (text JSON.parse accepted): each `:` outside a string is one.
 * JSON.parse keeps one member per name in each object, so more members written than parsed
 * means a name was repeated.
 */
function membersWritten(text: string): number {
  let members = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = stringEnd(text, i);
    else if (c === 0x3a) members++;
  }
  return members;
}

/**
 * Object members in a value JSON.parse built, refusing any string or member name with a lone
 * surrogate half (I-JSON, RFC 7493 §2.1), which JSON text can spell as an escape. Iterative:
 * text within a body limit can nest deeper than the call stack goes, and only parseJson bounds
 * the depth.
 */
function membersParsed(value: unknown): number {
  let members = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') checkString(next, 'string');
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
      continue;
    }
    for (const [name, member] of Object.entries(next)) {
      checkString(name, 'key');
      members++;
      pending.push(member);
    }
  }
  return members;
}

function jsonParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The engine's message may quote the input; keep it out of ours.
    throw new JsonError('JSON_SYNTAX', 'input is not valid JSON');
  }
}

function refuseDuplicates(text: string, membersInValue: number): void {
  if (membersInValue !== membersWritten(text)) {
    throw new JsonError('JSON_DUPLICATE_NAME', 'an object has two members of the same name (I-JSON, RFC 7493 §2.3)');
  }
}

/**
 * Parses JSON text with the boundary rules above. The size limit applies to the UTF-8 length
 * of `text` and is checked before parsing.
 */
export function parseJson(text: string, limits?: JsonLimits): JsonValue {
  const { maxDepth, maxBytes } = resolveLimits(limits);
  if (typeof text !== 'string') throw new JsonError('JSON_SYNTAX', 'JSON input must be a string');
  // A UTF-16 unit is 1–3 UTF-8 bytes: only count exactly when the cheap bounds disagree.
  if (text.length > maxBytes) throw tooLarge(maxBytes);
  if (text.length * 3 > maxBytes) {
    checkString(text, 'string');
    if (utf8Length(text) > maxBytes) throw tooLarge(maxBytes);
  }
  const value = jsonParse(text);
  refuseDuplicates(text, validate(value, 0, maxDepth));
  return value as JsonValue;
}

/**
 * JSON.parse for I-JSON text (RFC 7493), and nothing more: JSON_SYNTAX; JSON_DUPLICATE_NAME
 * for an object naming a member twice, which only the text shows (§2.3); JSON_LONE_SURROGATE
 * for a string or name that is not Unicode (§2.1), which no consumer could sign, store or
 * compare reliably. For a layer that hands the value on to consumers applying their own limits
 * (an HTTP body whose presentation the verifier checks), so no other rule of parseJson applies
 * here.
 */
export function parseUnambiguousJson(text: string): unknown {
  if (typeof text !== 'string') throw new JsonError('JSON_SYNTAX', 'JSON input must be a string');
  const value = jsonParse(text);
  refuseDuplicates(text, membersParsed(value));
  return value;
}

/**
 * Asserts that an in-memory value is safe JSON (same rules as canonicalization, size measured
 * on its canonical UTF-8 form).
 */
export function assertSafeJson(value: unknown, limits?: JsonLimits): asserts value is JsonValue {
  canonicalizeJson(value, limits, undefined);
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
