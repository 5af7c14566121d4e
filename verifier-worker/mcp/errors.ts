/**
 * Why the MCP resource server refused a request: one stable reason code per failed check, in the
 * MandateError family (wallet/crypto/errors.ts), so a refusal is as explainable as a presentation's.
 * Each code maps to one HTTP answer (challenge.ts): the RFC 6750 §3.1 / RFC 9449 §7.1 `error`
 * and its status. Each is a code of the reason registry (wallet/reasons/registry.ts) that carries
 * that answer, checked here at compile time both ways; docs/mcp.md §Errors is generated from it.
 */
import { MandateError } from '../../wallet/crypto/errors.ts';
import type { McpCode } from '../../wallet/reasons/registry.ts';

export const MCP_AUTH_REASONS = [
  /** No credentials (no Authorization header, or a scheme this server does not take). */
  'TOKEN_MISSING',
  /** Not a compact JWS with JSON header and claims, or a claim of the wrong type. */
  'TOKEN_MALFORMED',
  /** Header `typ` is not `at+jwt` (RFC 9068 §4), or `alg` is not EdDSA (RFC 8725 §3.1). */
  'TOKEN_TYPE_INVALID',
  /** No key of the issuer's JWKS has the token's `kid`, even after a refetch. */
  'TOKEN_KEY_UNKNOWN',
  /** The signature does not verify. */
  'TOKEN_SIGNATURE_INVALID',
  /** `iss` is not the configured authorization server (RFC 9068 §4 step 3). */
  'TOKEN_ISSUER_MISMATCH',
  /** `aud` does not name this resource (RFC 9068 §4 step 4, RFC 8707). */
  'TOKEN_AUDIENCE_MISMATCH',
  /** `exp` has passed, beyond the clock skew. */
  'TOKEN_EXPIRED',
  /** `nbf` or `iat` lies in the future, beyond the clock skew. */
  'TOKEN_NOT_YET_VALID',
  /** A required claim (`sub`, `client_id`, `jti`, `iat`, `exp`) is missing or wrong, or the lifetime is too long. */
  'TOKEN_CLAIM_INVALID',
  /** The issuer's introspection answered `active: false` (revoked, suspended; option `introspection`). */
  'TOKEN_INACTIVE',
  /** The issuer's JWKS could not be fetched (network, status, not a key set). */
  'JWKS_UNAVAILABLE',
  /** The issuer's introspection endpoint could not answer (network, status, not RFC 7662 JSON): fail closed. */
  'INTROSPECTION_UNAVAILABLE',
  /** A DPoP-bound token (`cnf.jkt`) came without a DPoP proof, or with the Bearer scheme (RFC 9449 §7.1). */
  'DPOP_PROOF_MISSING',
  /** The DPoP proof fails a check of RFC 9449 §4.3 (typ, alg, jwk, signature, htm, htu, iat, ath). */
  'DPOP_PROOF_INVALID',
  /** The proof's key is not the key the token is bound to (`cnf.jkt`, RFC 9449 §6.1). */
  'DPOP_BINDING_MISMATCH',
  /**
   * The proof's `jti` was seen before (RFC 9449 §11.1). The token endpoint's code for the same
   * failure (wallet/crypto/dpop.ts); mcpAuth answered `DPOP_REPLAYED` before 2026-12 (docs/mcp.md §Errors).
   */
  'DPOP_PROOF_REPLAYED',
  /** The caller lacks a scope the tool needs (RFC 6750 §3.1 insufficient_scope). */
  'INSUFFICIENT_SCOPE',
  /** `tools/call` names a tool the tool table does not list (fail closed). */
  'TOOL_NOT_LISTED',
  /** A message's `method` is neither an MCP client method nor in `allowMethods` (exact names). */
  'METHOD_NOT_ALLOWED',
  /** The body is larger than the configured bound. */
  'BODY_TOO_LARGE',
  /** The body is not a JSON-RPC message or batch this server can judge. */
  'BODY_MALFORMED',
] as const satisfies readonly McpCode[];

export type McpAuthReason = (typeof MCP_AUTH_REASONS)[number];

/** Compile-time: every code the registry gives an MCP answer is in the list above. */
const _everyMcpCodeListed: [Exclude<McpCode, McpAuthReason>] extends [never] ? true : never = true;

/** A refusal of the MCP resource server; `code` is the reason. */
export class McpAuthError extends MandateError<McpAuthReason> {
  override name = 'McpAuthError';
}

/** A configuration of `mcpAuth` that cannot work (thrown at setup). */
export class McpAuthOptionsError extends MandateError<'INVALID_MCP_AUTH_OPTIONS'> {
  override name = 'McpAuthOptionsError';
}

export function invalidMcpOptions(message: string): never {
  throw new McpAuthOptionsError('INVALID_MCP_AUTH_OPTIONS', message);
}
