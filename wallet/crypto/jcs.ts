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
  | 'JSON_TOO_LARGE';

export class JsonError extends MandateError<JsonErrorCode> {
  override name = 'JsonError';
}

export interface JsonLimits {
  /** Deepest allowed nesting of arrays/objects; a scalar is depth 0, `{}` is depth 1. */
  maxDepth?: number;
  /** Largest allowed document in UTF-8 bytes: the input text for parseJson, the canonical form for values. */
  maxBytes?: number;
}

export const DEFAULT_JSON_LIMITS: Readonly<Required<JsonLimits>> = Object.freeze({ maxDepth: 32, maxBytes: 64 * 1024 });

/** Keys that reach Object.prototype or a constructor when a parsed value is merged or assigned. */
const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

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

function checkKey(key: string): void {
  if (UNSAFE_KEYS.has(key)) throw new JsonError('JSON_UNSAFE_KEY', `JSON key "${key}" is not allowed`);
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

/** Validation-only walk (parseJson: the size was already measured on the text). */
function validate(value: unknown, depth: number, maxDepth: number): void {
  switch (typeof value) {
    case 'string':
      checkString(value, 'string');
      return;
    case 'number':
      checkNumber(value);
      return;
    case 'boolean':
      return;
    case 'object': {
      if (value === null) return;
      if (depth >= maxDepth) throw tooDeep(maxDepth);
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) validate(value[i], depth + 1, maxDepth);
        return;
      }
      // JSON.parse only builds plain objects and arrays, so no prototype check is needed here.
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        checkKey(key);
        validate(record[key], depth + 1, maxDepth);
      }
      return;
    }
    default:
      throw unsupported(value);
  }
}

/** Running state of one canonicalization: the output so far and the size budget. */
interface Writer {
  out: string;
  readonly maxDepth: number;
  readonly maxBytes: number;
}

function append(w: Writer, chunk: string): void {
  w.out += chunk;
  // UTF-16 length never exceeds UTF-8 length, so this stops hostile input early; the exact
  // UTF-8 size is checked once at the end.
  if (w.out.length > w.maxBytes) throw tooLarge(w.maxBytes);
}

/**
 * Validates and serializes `value` per RFC 8785 §3.2 in the same walk:
 * - literals and numbers (§3.2.2.1, §3.2.2.3): ECMAScript Number serialization is exactly
 *   what JSON.stringify produces for finite numbers (-0 becomes 0);
 * - strings (§3.2.2.2): JSON.stringify escapes exactly `"`, `\` and U+0000–U+001F, using
 *   \b \t \n \f \r or lowercase \u00xx, and leaves everything else (including U+2028/9) as is;
 * - object members (§3.2.3): sorted by UTF-16 code units, which is Array.prototype.sort's
 *   default string order.
 */
function write(w: Writer, value: unknown, depth: number): void {
  switch (typeof value) {
    case 'string':
      checkString(value, 'string');
      append(w, JSON.stringify(value));
      return;
    case 'number':
      checkNumber(value);
      append(w, JSON.stringify(value));
      return;
    case 'boolean':
      append(w, value ? 'true' : 'false');
      return;
    case 'object': {
      if (value === null) {
        append(w, 'null');
        return;
      }
      if (depth >= w.maxDepth) throw tooDeep(w.maxDepth);
      if (Array.isArray(value)) {
        append(w, '[');
        for (let i = 0; i < value.length; i++) {
          if (i > 0) append(w, ',');
          const item: unknown = value[i];
          // `undefined` also covers holes in sparse arrays, which JSON cannot express.
          if (item === undefined) throw unsupported(item);
          write(w, item, depth + 1);
        }
        append(w, ']');
        return;
      }
      if (!isPlainObject(value)) throw unsupported(value);
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      append(w, '{');
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        checkKey(key);
        const member: unknown = record[key];
        if (member === undefined) throw unsupported(member);
        if (i > 0) append(w, ',');
        append(w, JSON.stringify(key));
        append(w, ':');
        write(w, member, depth + 1);
      }
      append(w, '}');
      return;
    }
    default:
      throw unsupported(value);
  }
}

function canonicalize(value: unknown, limits: JsonLimits | undefined): { text: string; maxBytes: number } {
  const { maxDepth, maxBytes } = resolveLimits(limits);
  const w: Writer = { out: '', maxDepth, maxBytes };
  write(w, value, 0);
  return { text: w.out, maxBytes };
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The engine's message may quote the input; keep it out of ours.
    throw new JsonError('JSON_SYNTAX', 'input is not valid JSON');
  }
  validate(value, 0, maxDepth);
  return value as JsonValue;
}

/**
 * Asserts that an in-memory value is safe JSON (same rules as canonicalization, size measured
 * on its canonical UTF-8 form).
 */
export function assertSafeJson(value: unknown, limits?: JsonLimits): asserts value is JsonValue {
  canonicalizeJson(value, limits);
}

/** RFC 8785 canonical JSON text of `value`, after the boundary checks. */
export function canonicalizeJson(value: unknown, limits?: JsonLimits): string {
  const { text, maxBytes } = canonicalize(value, limits);
  if (text.length * 3 > maxBytes && utf8Length(text) > maxBytes) throw tooLarge(maxBytes);
  return text;
}

/** UTF-8 bytes of the RFC 8785 canonical form of `value` (what Data Integrity hashes). */
export function canonicalBytes(value: unknown, limits?: JsonLimits): Uint8Array {
  const { text, maxBytes } = canonicalize(value, limits);
  const bytes = utf8ToBytes(text);
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}
