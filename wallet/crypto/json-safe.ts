/**
 * Validation of in-memory values at Mandate's JSON boundary: the rules of json-value.ts, applied
 * to a value built in code rather than parsed from text.
 */
import { canonicalizeJson } from './jcs.ts';
import type { JsonLimits, JsonValue } from './json-value.ts';

/**
 * Asserts that an in-memory value is safe JSON (same rules as canonicalization, size measured
 * on its canonical UTF-8 form). It is canonicalization without the result: one walk checks
 * everything the signed form depends on.
 */
export function assertSafeJson(value: unknown, limits?: JsonLimits): asserts value is JsonValue {
  canonicalizeJson(value, limits, undefined);
}
