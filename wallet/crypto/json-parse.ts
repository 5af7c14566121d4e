/**
 * Strict JSON parsing at Mandate's boundary: JSON.parse plus the rules of json-value.ts
 * (bounded size and depth, safe keys, finite numbers, well-formed Unicode) and the I-JSON
 * refusal of repeated member names (RFC 7493 §2.3), which only the text shows.
 */
import {
  checkKey,
  checkNumber,
  checkString,
  JsonError,
  resolveLimits,
  tooDeep,
  tooLarge,
  unsupported,
  utf8Length,
  type JsonLimits,
  type JsonValue,
} from './json-value.ts';

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
 * Object members in a value JSON.parse built, refusing lone surrogates (I-JSON, RFC 7493 §2.1).
 * Iterative: only parseJson bounds the depth (docs/crypto.md §Rules).
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
 * Parses JSON text with the boundary rules of json-value.ts. The size limit applies to the
 * UTF-8 length of `text` and is checked before parsing.
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
