/** What the demo provider accepts from outside: size bounds and the narrowing of untyped JSON. */

/** Largest request body accepted (an AgentCredential and a consent are ~2 KB). */
export const MAX_REQUEST_BYTES = 32 * 1024;
/** Agent DIDs are did:key here, but a DID is bounded by the issuer's schema anyway. */
export const DID_SYNTAX = /^did:[a-z0-9]+:[\x21-\x7e]{1,2048}$/;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
