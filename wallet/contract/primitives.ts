/**
 * The building blocks of the issuer API's wire contract: scopes, DIDs, domains, free text and
 * opaque JSON objects, each a zod schema that validates a request member AND describes it in the
 * OpenAPI document (`.meta()`: zod v4's registry, which the generator reads).
 */
import { z } from 'zod';
import type { JsonObject } from '../crypto/json-value.ts';
import { MAX_SCOPE_LENGTH, MAX_SCOPES } from '../vc/scopes.ts';

// docs/scopes.md grammar (wallet/vc/scopes.ts SCOPE_RE): segment(:segment)*, segments [a-z0-9._-]+.
export const ScopeSchema = z
  .string()
  .max(MAX_SCOPE_LENGTH)
  .regex(/^[a-z0-9._-]+(?::[a-z0-9._-]+)*$/, 'a scope is segment(:segment)* with segments [a-z0-9._-]+')
  .meta({ example: 'files:read' });

export const ScopesSchema = z.array(ScopeSchema).min(1).max(MAX_SCOPES);

// DID Core §3.1 `did` (wallet/did/parse.ts DID_SYNTAX, which a test holds equal to this one:
// the contract sits beside wallet/did, not above it).
const PCT = '%[0-9A-Fa-f]{2}';
const IDCHAR = `(?:[A-Za-z0-9._-]|${PCT})`;
export const DID_PATTERN = new RegExp(`^did:[a-z0-9]+:(?:${IDCHAR}*:)*${IDCHAR}+$`);

// Bounded: wallet/did/parse.ts MAX_DID_URL_LENGTH is for DID URLs; DIDs here are shorter.
export const DidSchema = z
  .string()
  .max(2048)
  .regex(DID_PATTERN, 'must be a DID (did:<method>:<id>, DID Core §3.1)')
  .meta({ example: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' });

/**
 * Free text that ends up in the audit trail and on operators' screens: no control characters
 * (a terminal would act on them) and no bidirectional formatting characters (they reorder
 * what is shown, CVE-2021-42574).
 */
export const PrintableTextSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(
    /^[^\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+$/u,
    'must not contain control or bidirectional formatting characters',
  );

/** A target service name as presentations and credentials carry it (`domain`). */
export const DomainSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
  .meta({ example: 'files.example.com' });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether `value` is a JSON object. Shallow: for values that came from JSON (a parsed body, a
 * stored document), whose members are JSON values by construction.
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return isObject(value);
}

/**
 * Any JSON object of type `T` (credentials, presentations, DID documents), checked further by
 * the wallet and handed on exactly as received: z.record would build a copy, and the copy
 * loses an own `__proto__` member (assigning it sets the prototype), so a member the wallet
 * refuses as MALFORMED would be gone before the wallet saw it.
 */
export function jsonObject<T extends object = Record<string, unknown>>() {
  return z
    .custom<T>(isObject, { message: 'must be a JSON object' })
    .meta({ type: 'object', additionalProperties: true });
}

/** Any JSON object, as the server reads it. */
export const JsonObjectSchema = jsonObject();
/** Any JSON object, typed for clients that read its members as JSON values. */
export const JsonValueObjectSchema = jsonObject<JsonObject>();

/**
 * A string member whose values the schema does not list (a reason code, a credential type),
 * typed as `T` for both ends and published as a plain string.
 */
export function stringOf<T extends string>(is: (value: unknown) => value is T) {
  return z.custom<T>(is, { message: 'must be a known code' }).meta({ type: 'string' });
}

export const PageQuerySchema = z.object({
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** An Ed25519 public key as a JWK (RFC 8037 §2), `kid` named by its owner: session keys, key directories. */
export const Ed25519JwkSchema = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string(),
    kid: z.string(),
    alg: z.literal('EdDSA'),
    use: z.literal('sig'),
  })
  .meta({ id: 'Ed25519Jwk' });

/** A JWK Set (RFC 7517 §5) of Ed25519 keys. */
export const Ed25519JwksSchema = z.object({ keys: z.array(Ed25519JwkSchema) }).meta({ id: 'Ed25519Jwks' });

export type Ed25519Jwk = z.infer<typeof Ed25519JwkSchema>;
