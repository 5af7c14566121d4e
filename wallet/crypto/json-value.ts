/**
 * What a JSON value is at Mandate's JSON boundary: the types, the limits, the typed error, and
 * the per-value checks that parsing (json-parse.ts), validation (json-safe.ts) and
 * canonicalization (jcs.ts) all apply.
 *
 * Stricter than JSON.parse / JSON.stringify, because everything that becomes signed or verified
 * bytes passes through: no `__proto__`/`constructor`/`prototype` keys, only JSON values, no
 * NaN/±Infinity, well-formed UTF-16 (RFC 8785 §3.2.2.2), bounded depth and size (defaults 32,
 * 64 KiB), no repeated member names in parsed text (RFC 8785 §3.1, I-JSON RFC 7493 §2.3).
 * Why each: docs/crypto.md §JSON and JCS, Rules.
 */
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

export function resolveLimits(limits: JsonLimits | undefined): Required<JsonLimits> {
  if (limits === undefined) return DEFAULT_JSON_LIMITS;
  const maxDepth = limits.maxDepth ?? DEFAULT_JSON_LIMITS.maxDepth;
  const maxBytes = limits.maxBytes ?? DEFAULT_JSON_LIMITS.maxBytes;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0 || !Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError('JSON limits must be non-negative integers');
  }
  return { maxDepth, maxBytes };
}

/** Exact UTF-8 length of a well-formed string, without allocating its encoding. */
export function utf8Length(s: string): number {
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

export function tooLarge(maxBytes: number): JsonError {
  return new JsonError('JSON_TOO_LARGE', `JSON document exceeds ${maxBytes} bytes`);
}

export function tooDeep(maxDepth: number): JsonError {
  return new JsonError('JSON_TOO_DEEP', `JSON nesting exceeds depth ${maxDepth}`);
}

/** A non-null object that is not an array, as a parsed JSON object is (its prototype unchecked: see isPlainObject). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for `{…}` literals and JSON.parse output: no class instances (Date, Map, …). */
export function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The kind of a refused value, for the error message: a typeof name or a class name. */
function describe(value: unknown): string {
  if (value === null || typeof value !== 'object') return typeof value;
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  return proto?.constructor?.name ?? 'object';
}

export function unsupported(value: unknown): JsonError {
  return new JsonError('JSON_UNSUPPORTED_VALUE', `${describe(value)} is not a JSON value`);
}

export function checkString(s: string, what: 'string' | 'key'): void {
  if (!isWellFormed(s)) throw new JsonError('JSON_LONE_SURROGATE', `JSON ${what} contains a lone UTF-16 surrogate`);
}

export function refuseUnsafeKey(key: string): void {
  if (UNSAFE_KEYS.has(key)) throw new JsonError('JSON_UNSAFE_KEY', `JSON key "${key}" is not allowed`);
}

export function checkKey(key: string): void {
  refuseUnsafeKey(key);
  checkString(key, 'key');
}

export function checkNumber(n: number): void {
  if (!Number.isFinite(n)) throw new JsonError('JSON_NON_FINITE', 'JSON numbers must be finite (no NaN or Infinity)');
}
