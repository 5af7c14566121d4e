/**
 * Response bodies from documents the issuer holds as parsed JSON (DID documents, resolution
 * results, contexts): typed as the contract's JSON objects by a check, not a cast.
 */
import { isJsonObject } from '../../wallet/contract/primitives.ts';
import type { JsonObject } from '../../wallet/crypto/json-value.ts';

/** `value` as a JSON object; it came from JSON (a stored document, a parsed body), so its members are JSON values. */
export function wireObject(value: object): JsonObject {
  if (!isJsonObject(value)) throw new TypeError('a JSON object was expected');
  return value;
}
