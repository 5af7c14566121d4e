/**
 * Every reason code Mandate answers or throws across its surfaces, in one table: the verifier's
 * refusals (wallet/vc/reasons.ts), the issuer API's errors (issuer/http/errors.ts), the token
 * endpoint's `mandate_reason` (issuer/services/oauth/errors.ts), the MCP resource server's
 * `reason` (verifier-worker/mcp/errors.ts) and the CLI's own failures (cli/errors.ts). Each of
 * those vocabularies is a subset of this table, checked at compile time, so one code means one
 * thing wherever it appears; the docs' tables of codes are generated from it
 * (`npm run docs:reasons`, test/support/reason-tables.ts).
 *
 * Per code: `meaning` (one line; for the verifier's codes, when the verifier raises it), and where
 * the code is answered over HTTP:
 * - `issuer`: the status of the issuer API's `{error: {code, message}}` answer (`when`, if the
 *   issuer raises it for a reason narrower than `meaning`);
 * - `oauth`: the RFC 6749 §5.2 / RFC 8693 §2.2.2 / RFC 9449 §5 `error` the token endpoint sends
 *   it with (400, 401 for `invalid_client`), each with when (`null`: token exchange refused the
 *   presentation with this verifier reason);
 * - `mcp`: the MCP resource server's status and RFC 6750 §3.1 / RFC 9449 §7.1 `error`.
 * The presentation verifier's own status depends on the failed check: docs/verifier.md §Status codes.
 *
 * This module is the bottom layer: it imports nothing.
 */

/** RFC 6749 §5.2, RFC 8707 §2, RFC 9449 §5 and §8: the token endpoint's `error` values. */
export type OAuthError =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'unsupported_response_type';

/** RFC 6750 §3.1, RFC 9449 §7.1 (and `temporarily_unavailable` for a 503): a resource server's `error`. */
export type ResourceError = 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'temporarily_unavailable';

export interface ReasonEntry {
  readonly meaning: string;
  readonly issuer?: { readonly status: number; readonly when?: string };
  readonly oauth?: { readonly [E in OAuthError]?: string | null };
  readonly mcp?: { readonly status: number; readonly error?: ResourceError; readonly when: string };
}

/** A refused presentation's reason, passed through by the token exchange (RFC 8693 §2.2.2). */
const PRESENTATION = { invalid_request: null } as const;

export const REASONS = {
  // The verifier's codes (wallet/vc/reasons.ts), in its order.
  MALFORMED: {
    meaning:
      'not JSON-safe, too large or deep, wrong shapes, bad scopes, chain too long (check 0); a malformed proof member (checks 1 and 3, see §Order within the checks); an internal failure, in whichever check it happens (fail closed)',
    issuer: { status: 400, when: 'a presentation `POST /v1/vp/verify` cannot even read' },
    oauth: PRESENTATION,
  },
  VP_SIGNATURE_INVALID: {
    meaning: 'the presentation proof does not verify, names an unsupported cryptosuite or the wrong purpose',
    oauth: PRESENTATION,
  },
  VP_EXPIRED: {
    meaning:
      'the presentation proof is past `expires` (or `created` + 5 min) or `created` is in the future, beyond skew; or it has no `created`, lives longer than the verifier accepts (1 hour by default), or expires before it was created',
    oauth: PRESENTATION,
  },
  CHALLENGE_MISMATCH: {
    meaning: "the proof's `challenge` differs from the expected one (or is missing)",
    issuer: { status: 403 },
    oauth: PRESENTATION,
  },
  TARGET_MISMATCH: {
    meaning:
      "the proof's `domain` neither is nor covers this verifier, or the leaf's `domains` do not cover it ([§Where authority applies](#where-authority-applies))",
    oauth: {
      invalid_target:
        "the authority's `domains` do not cover `resource`, or the presentation's `domain` neither is nor covers it",
    },
  },
  REPLAYED: {
    meaning:
      'the vpId or the challenge was seen before (replay cache), or it expires so soon that a full replay cache can no longer vouch for it',
    oauth: PRESENTATION,
  },
  DID_RESOLUTION_FAILED: {
    meaning: 'a DID involved does not resolve (not found, network, invalid document)',
    issuer: { status: 422, when: "a DID whose key must check a signature (a provider's) could not be resolved" },
    oauth: { ...PRESENTATION, invalid_client: 'the client DID does not resolve' },
  },
  DID_DEACTIVATED: {
    meaning: 'a DID involved is deactivated',
    issuer: { status: 410 },
    oauth: { ...PRESENTATION, invalid_client: 'the client DID is deactivated (also with a client secret)' },
  },
  KEY_NOT_AUTHORIZED: {
    meaning: "the proof's key is not the signer's, or not in the right verification relationship",
    issuer: { status: 403 },
    oauth: {
      ...PRESENTATION,
      invalid_client:
        'the `kid` is not an `authentication` key of the client DID (or names another DID), or the DID lists none',
    },
  },
  CREDENTIAL_SIGNATURE_INVALID: {
    meaning: "a credential's (or a consent's) proof does not verify",
    oauth: PRESENTATION,
  },
  CREDENTIAL_EXPIRED: {
    meaning: "now is past a credential's `validUntil` (+ skew)",
    oauth: { ...PRESENTATION, invalid_grant: "the agent's current credential has expired" },
  },
  CREDENTIAL_NOT_YET_VALID: {
    meaning: "now is before a credential's `validFrom` (− skew)",
    oauth: { ...PRESENTATION, invalid_grant: "the agent's current credential is not valid yet" },
  },
  UNTRUSTED_ISSUER: {
    meaning:
      "the root's issuer is not trusted (a self-issued root without `allowSelfSigned`), or a grant's issuer is not a trusted grant issuer",
    oauth: PRESENTATION,
  },
  CHAIN_BROKEN: {
    meaning:
      "a link's id/digest/delegator/validity rule fails, the chain does not end in a root, or a consent does not match its grant",
    issuer: { status: 422 },
    oauth: PRESENTATION,
  },
  SCOPE_ESCALATION: {
    meaning: "a child's scopes exceed its parent's, or a grant exceeds the consent or the ceiling",
    issuer: { status: 422 },
    oauth: PRESENTATION,
  },
  DEPTH_EXCEEDED: {
    meaning: "a child's `delegationDepth` is not below its parent's",
    issuer: { status: 422 },
    oauth: PRESENTATION,
  },
  DOMAIN_ESCALATION: {
    meaning:
      "a child's domain entry is covered by no entry of its parent's, or the child drops a parent's domain limit",
    issuer: { status: 422 },
    oauth: PRESENTATION,
  },
  HOLDER_MISMATCH: {
    meaning: "the leaf's subject is not the presentation's holder, or a grant names an agent outside the chain",
    oauth: {
      ...PRESENTATION,
      invalid_grant:
        "token exchange: `client_id` / the client assertion names another agent than the presentation's holder",
    },
  },
  INSUFFICIENT_SCOPE: {
    meaning: 'a required scope is not covered by the effective scopes',
    oauth: PRESENTATION,
    mcp: {
      status: 403,
      error: 'insufficient_scope',
      when: 'The caller lacks a scope the called tools need; `scope` (header and body) lists all they need — ask the issuer for a token with it (step-up).',
    },
  },
  CREDENTIAL_REVOKED: {
    meaning: 'a `revocation` status entry is set',
    issuer: { status: 409, when: 'the credential an operation needs is revoked' },
    oauth: { ...PRESENTATION, invalid_grant: "the agent's current credential is revoked" },
  },
  CREDENTIAL_SUSPENDED: {
    meaning: 'a `suspension` status entry is set',
    issuer: { status: 409, when: 'the credential an operation needs is suspended' },
    oauth: { ...PRESENTATION, invalid_grant: "the agent's current credential is suspended" },
  },
  STATUS_UNAVAILABLE: {
    meaning: 'a status list cannot be fetched, verified or decoded (fail closed), or no status client was configured',
    oauth: PRESENTATION,
  },
  // A signed request's own (wallet/vc/signed-request.ts, docs/protocol.md §Signed requests).
  CHAIN_UNKNOWN: {
    meaning:
      '`Mandate-Chain-Digest` names a chain this verifier does not hold (never sent in full here, evicted or expired): send the request again with the chain in full in `Mandate-Chain`',
  },

  // The issuer API's own codes (issuer/http/errors.ts).
  VALIDATION_FAILED: {
    meaning: 'a parameter, query or body member is not of its schema; `details` lists `[{path, message}]`',
    issuer: { status: 400 },
  },
  MALFORMED_JSON: {
    meaning: 'the body is not JSON, or not I-JSON (a member named twice, a lone surrogate)',
    issuer: { status: 400 },
  },
  INVALID_DID: {
    meaning: 'a DID (path or body) that is not DID Core §3.1 syntax',
    issuer: { status: 400 },
  },
  SIGNATURE_ENCODING_INVALID: {
    meaning: 'a challenge signature that is neither base58btc multibase nor hex of 64 bytes',
    issuer: { status: 400 },
  },
  CREDENTIAL_INVALID: {
    meaning: 'VC-API: the credential to issue is not a VC 2.0 credential',
    issuer: { status: 400 },
  },
  UNAUTHORIZED: {
    meaning: 'no key, or a wrong one, for an operation that needs one (admin, introspection)',
    issuer: { status: 401 },
  },
  TOKEN_INVALID: { meaning: 'the enrollment token is not one this issuer gave', issuer: { status: 403 } },
  CHALLENGE_EXPIRED: { meaning: 'the challenge has expired: ask for a new one', issuer: { status: 403 } },
  PROOF_INVALID: {
    meaning: 'the proof answering a challenge (onboarding, user consent) does not verify or is not the expected one',
    issuer: { status: 403 },
  },
  CUSTODY_MISMATCH: {
    meaning: "an operation for the other custody mode (server-held key vs the agent's own)",
    issuer: { status: 403 },
    oauth: { unauthorized_client: 'a server-custody agent with `private_key_jwt`' },
  },
  EVENT_SIGNATURE_INVALID: {
    meaning: "a provider's audit event whose proof does not verify",
    issuer: { status: 403 },
  },
  NOT_FOUND: { meaning: 'no such route or resource', issuer: { status: 404 } },
  AGENT_NOT_FOUND: {
    meaning: 'the DID is not an agent enrolled here',
    issuer: { status: 404 },
    oauth: { invalid_client: 'the DID is not an agent enrolled here' },
  },
  CHALLENGE_NOT_FOUND: { meaning: 'no such challenge', issuer: { status: 404 } },
  CREDENTIAL_NOT_FOUND: { meaning: 'no such credential (or not one of this agent)', issuer: { status: 404 } },
  STATUS_LIST_NOT_FOUND: { meaning: 'no such status list', issuer: { status: 404 } },
  STATUS_ENTRY_NOT_FOUND: {
    meaning: 'VC-API: the credential has no status entry for the purpose named',
    issuer: { status: 404 },
  },
  DID_NOT_FOUND: { meaning: 'no such DID here', issuer: { status: 404 } },
  SERVICE_NOT_FOUND: { meaning: 'a service id the DID document does not have', issuer: { status: 404 } },
  CLIENT_SECRET_NOT_FOUND: {
    meaning: "DELETE of an agent's client secret when it has none",
    issuer: { status: 404 },
  },
  TOKEN_USED: { meaning: 'the enrollment token was already used', issuer: { status: 409 } },
  CHALLENGE_USED: { meaning: 'the challenge was already answered', issuer: { status: 409 } },
  AGENT_EXISTS: { meaning: 'an agent with this DID is already enrolled', issuer: { status: 409 } },
  CREDENTIAL_ALREADY_REVOKED: {
    meaning: 'a repeated revoke: the credential was revoked before (clients treat it as success)',
    issuer: { status: 409 },
  },
  CREDENTIAL_SUPERSEDED: {
    meaning: 'the credential was already renewed: renew the newest one',
    issuer: { status: 409 },
  },
  CREDENTIAL_NOT_SUSPENDED: { meaning: 'resume of a credential that is not suspended', issuer: { status: 409 } },
  NO_CURRENT_CREDENTIAL: {
    meaning: 'the agent has no current credential',
    issuer: { status: 409 },
    oauth: { invalid_grant: 'the agent has no current credential' },
  },
  STATUS_LIST_EXISTS: { meaning: 'a status list with this id already exists', issuer: { status: 409 } },
  CREDENTIAL_EXISTS: {
    meaning: 'VC-API: a credential with this id (or options.credentialId) was issued here before',
    issuer: { status: 409 },
  },
  DID_EXISTS: {
    meaning: 'the DID (or the did:web path chosen for it) already exists here',
    issuer: { status: 409 },
  },
  SERVICE_EXISTS: { meaning: 'the DID document already has a service with this id', issuer: { status: 409 } },
  ISSUER_DID_PROTECTED: {
    meaning: "the issuer's own DID cannot be deactivated through the API",
    issuer: { status: 409 },
  },
  EVENT_DUPLICATE: { meaning: "a provider's audit event id that was already recorded", issuer: { status: 409 } },
  PAYLOAD_TOO_LARGE: { meaning: 'the body is larger than the limit', issuer: { status: 413 } },
  UNSUPPORTED_MEDIA_TYPE: { meaning: 'a body that is not `application/json`', issuer: { status: 415 } },
  DID_METHOD_UNSUPPORTED: { meaning: 'a DID method this issuer does not take', issuer: { status: 422 } },
  NOT_REVOCABLE: {
    meaning: 'a delegated credential: its delegator, not the issuer, gives a new one',
    issuer: { status: 422 },
  },
  DID_KEY_SERVICES_UNSUPPORTED: {
    meaning: 'did:key documents are derived from the key: they cannot carry services',
    issuer: { status: 422 },
  },
  DID_NOT_HOSTED: {
    meaning: "the DID's document is not served by this issuer, so it cannot be changed here",
    issuer: { status: 422 },
  },
  EVENT_STALE: {
    meaning: "a provider's audit event signed too long ago (or in the future)",
    issuer: { status: 422 },
  },
  CREDENTIAL_TYPE_RESERVED: {
    meaning: 'VC-API: Mandate authority types are issued only through /v1 (enrollment, /v1/vcs)',
    issuer: { status: 422 },
  },
  STATUS_LIST_UNAVAILABLE: {
    meaning: 'an entry for a purpose this issuer has no status list for (create one first)',
    issuer: { status: 422 },
  },
  RATE_LIMITED: { meaning: 'over the rate limit: see `Retry-After`', issuer: { status: 429 } },
  INTERNAL_ERROR: { meaning: 'an unexpected failure; its details go to the log only', issuer: { status: 500 } },
  CUSTODY_KEY_UNREADABLE: {
    meaning:
      'a server-held key does not decrypt under the key-encryption key, or is not the key on record (never used)',
    issuer: { status: 500 },
  },
  SERVICE_UNAVAILABLE: {
    meaning: 'starting, or a shared rate-limit store that cannot count the request: see `Retry-After`',
    issuer: { status: 503 },
  },
  DATABASE_UNAVAILABLE: {
    meaning:
      'the database did not answer (down, restarting, out of connection slots): nothing was decided; see `Retry-After`',
    issuer: { status: 503 },
  },
  NOT_READY: {
    meaning: 'GET /v1/ready: a dependency (the database) did not answer; `details.checks` names it',
    issuer: { status: 503 },
  },
  SHUTTING_DOWN: {
    meaning: 'GET /v1/ready after SIGTERM: this process is finishing its requests and takes no new ones',
    issuer: { status: 503 },
  },
  INVALID_PUBLIC_KEY: {
    meaning: 'a verification method that is no usable Ed25519 Multikey',
    oauth: { invalid_client: 'the client assertion key is no usable Ed25519 Multikey' },
  },

  // The token endpoint's own codes (issuer/services/oauth/errors.ts).
  OAUTH_REQUEST_INVALID: {
    meaning: 'a parameter missing, repeated, or not of its grammar',
    oauth: {
      invalid_request:
        'a parameter repeated or too long; `grant_type` missing; token exchange without `subject_token`/`subject_token_type`; `actor_token` sent; another `requested_token_type`; `client_secret` without `client_id`',
    },
  },
  GRANT_TYPE_UNSUPPORTED: {
    meaning: 'a grant type this issuer does not issue for',
    oauth: { unsupported_grant_type: 'any `grant_type` but `client_credentials` and token exchange' },
  },
  CLIENT_AUTH_MISSING: {
    meaning: 'no client authentication where the grant needs it, or an authentication method not supported',
    oauth: {
      invalid_client:
        '`client_credentials` without `client_assertion` or client secret; another `client_assertion_type`',
    },
  },
  CLIENT_ASSERTION_INVALID: {
    meaning: 'the client assertion is not a valid RFC 7523 JWT of the client (signature, claims, lifetime)',
    oauth: {
      invalid_client:
        'the assertion is not a JWT, `alg` not EdDSA/Ed25519, `iss` ≠ `sub` or not a DID, `client_id` ≠ `iss`, bad signature, wrong `aud`, expired, `exp` > 5 min ahead, no `jti`',
    },
  },
  CLIENT_ASSERTION_REPLAYED: {
    meaning: "the client assertion's `jti` was used before",
    oauth: { invalid_client: "the assertion's `jti` was used before" },
  },
  CLIENT_SECRET_INVALID: {
    meaning: "a client secret that is not the agent's current one (api.md §Agent client secrets)",
    oauth: {
      invalid_client:
        "a client secret that is not the named agent's current one (wrong, rotated, revoked, another agent's); Basic credentials without `:`",
    },
  },
  CLIENT_AUTH_AMBIGUOUS: {
    meaning: 'more than one client authentication method in one request (RFC 6749 §2.3)',
    oauth: { invalid_request: 'more than one of `client_assertion`, `client_secret`, Basic (RFC 6749 §2.3)' },
  },
  SCOPE_NOT_GRANTED: {
    meaning: 'a requested scope that is not a Mandate scope, or not covered by the effective scopes',
    oauth: {
      invalid_scope:
        'a requested scope outside the scope grammar or not covered by the effective scopes; no scope at all',
    },
  },
  RESOURCE_INVALID: {
    meaning: '`resource` missing or not an absolute URI without fragment (RFC 8707 §2)',
    oauth: { invalid_target: '`resource` missing, repeated, not an absolute URI, or with a fragment (RFC 8707 §2)' },
  },
  DPOP_PROOF_INVALID: {
    meaning: 'the DPoP proof fails a check of RFC 9449 §4.3',
    oauth: { invalid_dpop_proof: 'the proof fails a §DPoP rule' },
    mcp: {
      status: 401,
      error: 'invalid_dpop_proof',
      when: 'A check of RFC 9449 §4.3 failed (more than one `DPoP` header, typ, alg, jwk, signature, htm, htu, iat, ath, jti).',
    },
  },
  DPOP_PROOF_REPLAYED: {
    meaning: "the DPoP proof's `jti` was used before, or could not be recorded as used (RFC 9449 §11.1)",
    oauth: { invalid_dpop_proof: "the proof's `jti` was used before" },
    mcp: {
      status: 401,
      error: 'invalid_dpop_proof',
      when: "The proof's `jti` was used before, or could not be recorded (§Replay store). The token endpoint's code for the same failure; before 2026-12 mcpAuth answered `DPOP_REPLAYED` (the `error`, `invalid_dpop_proof`, is unchanged).",
    },
  },
  DPOP_NONCE_REQUIRED: {
    meaning: 'the DPoP proof carries no (or a stale) server nonce (RFC 9449 §8)',
    oauth: {
      use_dpop_nonce: 'nonces are required and the proof has none or a stale one (`DPoP-Nonce` holds the current one)',
    },
  },
  DPOP_REQUIRED: {
    meaning: 'no DPoP proof, and this issuer does not issue Bearer tokens (SERVICE_OAUTH_ALLOW_BEARER)',
    oauth: {
      invalid_request:
        'no DPoP proof and Bearer tokens are not allowed (the description names `SERVICE_OAUTH_ALLOW_BEARER=true`)',
    },
  },
  SUBJECT_TOKEN_INVALID: {
    meaning: 'the subject token is not of the supported token type, or does not decode',
    oauth: {
      invalid_request: '`subject_token_type` is not the presentation type; the token is not base64url UTF-8 JSON',
    },
  },
  PRESENTATION_NOT_BOUND: {
    meaning: "token exchange with DPoP: the presentation's challenge is not bound to the DPoP key",
    oauth: {
      invalid_request:
        "token exchange with DPoP: the presentation's `challenge` is not the DPoP key's RFC 7638 thumbprint (or `<thumbprint>.<suffix>`)",
    },
  },
  HOLDER_AUTH_REQUIRED: {
    meaning: "token exchange without DPoP: the client did not authenticate as the presentation's holder",
    oauth: {
      invalid_client:
        "token exchange without DPoP: the client did not authenticate as the presentation's holder (`private_key_jwt`)",
    },
  },
  AUTHORIZATION_FLOW_UNSUPPORTED: {
    meaning: 'the authorization endpoint: this issuer runs no user-facing (redirect) flows',
    oauth: { unsupported_response_type: 'any request to `GET /oauth/authorize`' },
  },

  // The MCP resource server's codes (verifier-worker/mcp/errors.ts), in its order.
  TOKEN_MISSING: {
    meaning: 'no credentials (no Authorization header, or a scheme this server does not take)',
    mcp: {
      status: 401,
      when: 'No `Authorization`, or a scheme other than `Bearer`, `DPoP` (and `VP` when enabled).',
    },
  },
  TOKEN_MALFORMED: {
    meaning: 'not a compact JWS with JSON header and claims, or a claim of the wrong type',
    mcp: {
      status: 401,
      error: 'invalid_token',
      when: 'Not a token68, not a compact JWS with JSON header and claims, a `crit` header, or a non-string `kid`.',
    },
  },
  TOKEN_TYPE_INVALID: {
    meaning: 'header `typ` is not `at+jwt` (RFC 9068 §4), or `alg` is not EdDSA (RFC 8725 §3.1)',
    mcp: { status: 401, error: 'invalid_token', when: '`typ` is not `at+jwt`, or `alg` is not EdDSA.' },
  },
  TOKEN_KEY_UNKNOWN: {
    meaning: "no key of the issuer's JWKS has the token's `kid`, even after a refetch",
    mcp: {
      status: 401,
      error: 'invalid_token',
      when: "No key of the JWKS has the token's `kid`, even after the refetch.",
    },
  },
  TOKEN_SIGNATURE_INVALID: {
    meaning: 'the access token signature does not verify',
    mcp: { status: 401, error: 'invalid_token', when: 'The signature does not verify.' },
  },
  TOKEN_ISSUER_MISMATCH: {
    meaning: '`iss` is not the configured authorization server (RFC 9068 §4 step 3)',
    mcp: { status: 401, error: 'invalid_token', when: '`iss` is not `authorizationServer`.' },
  },
  TOKEN_AUDIENCE_MISMATCH: {
    meaning: '`aud` does not name this resource (RFC 9068 §4 step 4, RFC 8707)',
    mcp: { status: 401, error: 'invalid_token', when: '`aud` does not name `resource` (a token for another server).' },
  },
  TOKEN_EXPIRED: {
    meaning: 'an enrollment token, or an access token whose `exp` passed (beyond the clock skew)',
    issuer: { status: 403, when: 'the enrollment token has expired' },
    mcp: { status: 401, error: 'invalid_token', when: '`exp` passed (beyond the skew).' },
  },
  TOKEN_NOT_YET_VALID: {
    meaning: '`nbf` or `iat` lies in the future, beyond the clock skew',
    mcp: { status: 401, error: 'invalid_token', when: '`iat` or `nbf` in the future (beyond the skew).' },
  },
  TOKEN_CLAIM_INVALID: {
    meaning:
      'a required claim (`sub`, `client_id`, `jti`, `iat`, `exp`) is missing or wrong, or the lifetime is too long',
    mcp: {
      status: 401,
      error: 'invalid_token',
      when: '`sub`, `client_id`, `jti`, `iat` or `exp` missing or mistyped; `scope`, `act` or `cnf` malformed; lifetime too long.',
    },
  },
  TOKEN_INACTIVE: {
    meaning: "the issuer's introspection answered `active: false` (revoked, suspended)",
    mcp: {
      status: 401,
      error: 'invalid_token',
      when: 'With `introspection`: the issuer answered `active: false` (a credential of the chain revoked or suspended, the token unknown to it).',
    },
  },
  JWKS_UNAVAILABLE: {
    meaning: "the issuer's JWKS could not be fetched (network, status, not a key set)",
    mcp: {
      status: 503,
      error: 'temporarily_unavailable',
      when: "The issuer's keys could not be read (`Retry-After: 30`).",
    },
  },
  INTROSPECTION_UNAVAILABLE: {
    meaning: "the issuer's introspection endpoint could not answer (network, status, not RFC 7662 JSON): fail closed",
    mcp: {
      status: 503,
      error: 'temporarily_unavailable',
      when: 'With `introspection`: the endpoint could not answer (unreachable, a status other than 200 — e.g. a wrong `key` — or no RFC 7662 JSON); fail closed (`Retry-After: 30`).',
    },
  },
  DPOP_PROOF_MISSING: {
    meaning: 'a DPoP-bound token (`cnf.jkt`) came without a DPoP proof, or with the Bearer scheme (RFC 9449 §7.1)',
    mcp: {
      status: 401,
      error: 'invalid_token',
      when: 'A bound token without the DPoP scheme or proof; the DPoP scheme with an unbound token; an unbound token under `requireDpop`.',
    },
  },
  DPOP_BINDING_MISMATCH: {
    meaning: "the DPoP proof's key is not the key the token is bound to (`cnf.jkt`, RFC 9449 §6.1)",
    mcp: { status: 401, error: 'invalid_token', when: "The proof's key is not `cnf.jkt`." },
  },
  TOOL_NOT_LISTED: {
    meaning: '`tools/call` names a tool the tool table does not list (fail closed)',
    mcp: {
      status: 403,
      error: 'insufficient_scope',
      when: '`tools/call` names a tool the table does not list (no `scope`: no token helps).',
    },
  },
  METHOD_NOT_ALLOWED: {
    meaning: "a message's `method` is neither an MCP client method nor in `allowMethods` (exact names)",
    mcp: {
      status: 400,
      when: "A message's `method` is neither an MCP client method nor in `allowMethods` (exact comparison). JSON-RPC error `-32601`, `data.reason`.",
    },
  },
  BODY_TOO_LARGE: {
    meaning: 'the body is larger than the configured bound',
    mcp: { status: 413, when: 'The body exceeds `maxBodyBytes`. JSON-RPC error `-32600`, `data.reason`.' },
  },
  BODY_MALFORMED: {
    meaning: 'the body is not a JSON-RPC message or batch this server can judge',
    mcp: {
      status: 400,
      when: 'Not I-JSON, not JSON-RPC 2.0 objects, an empty or over-long batch, a message that is no response and has no string `method`, `tools/call` without `params.name`. JSON-RPC error `-32700`, `data.reason`.',
    },
  },

  // HTTP Message Signatures and Content-Digest (wallet/http-signatures/errors.ts), in the
  // verifier's order (docs/http-signatures.md §Reason codes).
  HTTP_SIGNATURE_MISSING: { meaning: 'the message has no `Signature-Input` or no `Signature` header field' },
  HTTP_SIGNATURE_MALFORMED: {
    meaning:
      '`Signature-Input` or `Signature` is not an RFC 8941 dictionary of the right shapes (inner list of strings; byte sequence), too large, a duplicate or uncomputable covered component, or the chosen label has no `Signature` entry',
  },
  HTTP_SIGNATURE_NOT_FOUND: { meaning: 'no signature with the label (or `tag`) the verifier asks for' },
  HTTP_SIGNATURE_ALG_UNSUPPORTED: { meaning: "the signature's `alg` parameter is not `ed25519`" },
  HTTP_SIGNATURE_PARAMS_INVALID: {
    meaning:
      'a signature parameter is missing or of the wrong type: no `created` or `keyid`, no `nonce` where replay is checked, `expires` before `created`',
  },
  HTTP_SIGNATURE_NOT_YET_VALID: { meaning: "the signature's `created` is in the future, beyond the allowed skew" },
  HTTP_SIGNATURE_LIFETIME_EXCEEDED: { meaning: '`expires` − `created` is more than 300 seconds' },
  HTTP_SIGNATURE_EXPIRED: {
    meaning: 'now is past `expires`, or past `created` + the maximum age (300 s by default), beyond the allowed skew',
  },
  HTTP_SIGNATURE_COMPONENT_NOT_COVERED: {
    meaning: 'a component the verifier requires (`@method`, `@authority`, `@path`, `@query`, …) is not covered',
  },
  HTTP_SIGNATURE_COMPONENT_ABSENT: {
    meaning: 'a covered component is not in the message (a header field or dictionary member it lacks)',
  },
  HTTP_SIGNATURE_AGENT_INVALID: {
    meaning:
      'Web Bot Auth: the signature covers no `Signature-Agent` member (keyed by its label, or exactly one), or the member is not an https URL of a supported `type` (a `directory` member is an origin)',
  },
  HTTP_SIGNATURE_KEY_UNKNOWN: { meaning: 'the `keyid` names no key the verifier knows' },
  HTTP_SIGNATURE_KEYID_MISMATCH: {
    meaning: 'Web Bot Auth: the `keyid` is not the RFC 7638 JWK thumbprint of the key it resolved to',
  },
  HTTP_SIGNATURE_INVALID: { meaning: 'the signature does not verify over the rebuilt signature base' },
  CONTENT_DIGEST_MISSING: { meaning: 'the message has a body but its signature does not cover `content-digest`' },
  CONTENT_DIGEST_UNSUPPORTED: {
    meaning: '`Content-Digest` lists no algorithm the verifier supports (`sha-256`, `sha-512`)',
  },
  CONTENT_DIGEST_MISMATCH: { meaning: '`Content-Digest` is malformed or does not match the body received' },
  HTTP_SIGNATURE_REPLAYED: {
    meaning: "the signature's `nonce` was seen before for this key (or the replay store could not record it)",
  },
  HTTP_SIGNATURE_OPTIONS_INVALID: {
    meaning:
      'signing was asked for something it refuses: a lifetime over 300 s, a malformed or absent component, a label already used',
  },

  // Web Bot Auth key discovery, read by a verifier (wallet/http-signatures/directory-read.ts).
  KEY_DIRECTORY_INVALID: {
    meaning:
      'a fetched key directory or Signature Agent Card is refused whole: a status other than 200, a directory not served as `application/http-message-signatures-directory+json`, over the size or key-count limit, not JSON, no JWK Set, or a card whose `client_id` is not the URL fetched',
  },
  KEY_DIRECTORY_KID_MISMATCH: {
    meaning:
      "a directory key left out: its `kid` is not its RFC 7638 thumbprint (the draft's MUST at the well-known URI)",
  },

  // A2A agent cards (wallet/a2a/errors.ts); a refused card also reports the DID layer's and the chain's codes above.
  A2A_CARD_MALFORMED: {
    meaning:
      'the agent card is no JSON-safe object within the limits (256 KiB, depth 32), or an A2A v1.0 field has the wrong JSON type',
  },
  A2A_CARD_AMBIGUOUS: {
    meaning:
      'signAgentCard: the card holds a member outside the A2A v1.0 schema (no signature covers it), or an empty string, array or object, or a null, that A2A SDKs drop before signing and the A2A v1.0 text keeps (verifiers would disagree on what was signed)',
  },
  A2A_CARD_UNSIGNED: {
    meaning: "the agent card carries no signature, or none whose `kid` is a DID URL of the agent's DID",
  },
  A2A_EXTENSION_MISSING: { meaning: 'the agent card declares no Mandate identity extension' },
  A2A_EXTENSION_MALFORMED: {
    meaning:
      'the Mandate identity extension appears more than once, or its `params` lack a DID or a non-empty `credentials` array',
  },
  A2A_CARD_SIGNATURE_MALFORMED: {
    meaning:
      'the agent\'s card signature is not a detached EdDSA JWS with `typ` "JOSE" and a DID URL `kid` (bad base64url, a `crit`, a signature that is not 64 bytes, an unprotected header repeating a protected one)',
  },
  A2A_CARD_SIGNATURE_INVALID: {
    meaning: "the agent's card signature does not verify over the card's canonical form (a tampered card)",
  },
  A2A_CARD_SUBJECT_MISMATCH: {
    meaning: "the card's DID is not the subject of the leaf credential it carries",
  },

  // The agent's client side, `agent.fetch` (wallet/agent/errors.ts, docs/agents.md §Errors).
  AGENT_OPTIONS_INVALID: {
    meaning:
      'createAgent was given no key (or a key store holding several keys and no `keyId`), a key id the store does not hold, or `sign: "always"` without credentials',
  },
  AGENT_METADATA_INVALID: {
    meaning:
      'RFC 9728 protected-resource metadata or RFC 8414 authorization-server metadata could not be read: not 200 JSON within the limits, a required member missing, an endpoint not https (http only on loopback), no authorization server named',
  },
  AGENT_RESOURCE_MISMATCH: {
    meaning:
      "the protected-resource metadata's `resource` is not the resource the agent called (RFC 9728 §3.3), or not the one the challenge named",
  },
  AGENT_ISSUER_MISMATCH: {
    meaning:
      "the authorization-server metadata's `issuer` is not the URL it was fetched for (RFC 8414 §3.3), or a token response's `iss` differs from it (RFC 9207 §2.4)",
  },
  AGENT_CLIENT_AUTH_UNSUPPORTED: {
    meaning:
      'the authorization server supports none of the client authentication methods the agent has (private_key_jwt, client_secret_basic/post, none with a token exchange)',
  },
  AGENT_TOKEN_REFUSED: {
    meaning:
      'the token endpoint refused (RFC 6749 §5.2); `oauthError` and `serviceReason` carry its `error` and `mandate_reason`, `scopes` the asked ones on `invalid_scope`',
  },
  AGENT_TOKEN_RESPONSE_INVALID: {
    meaning:
      'the token response is no RFC 6749 §5.1 answer: no `access_token`, a `token_type` other than Bearer or DPoP, a Bearer token where a DPoP-bound one was asked for, a bad `expires_in`',
  },
  AGENT_SCOPE_NOT_HELD: {
    meaning:
      "a 403 `insufficient_scope` asks for scopes the agent's authority does not cover: no token is asked for, `scopes` names the missing ones",
  },
  AGENT_CREDENTIALS_MISSING: {
    meaning:
      'the challenge needs a credential chain (a presentation, a token exchange, a signed request) and the agent holds none',
  },
  AGENT_CHALLENGE_FAILED: {
    meaning:
      "a Mandate presentation challenge could not be answered: the service's challenge endpoint gave no challenge, or its `WWW-Authenticate` names no target (`realm`)",
  },
  AGENT_SERVICE_REFUSED: {
    meaning:
      'the service refused the request again after its challenge was answered (a revoked token, an unusable proof, more scopes than a retry may ask): the answer ends the attempt, never a loop; `serviceReason` is its reason',
  },

  // The CLI's own codes (cli/errors.ts).
  USAGE: {
    meaning:
      'unknown command, sub-command or option (with the closest one when it looks like a typo); a missing or extra argument; a missing required option',
  },
  ARGUMENT_INVALID: {
    meaning:
      'an option value of the wrong form: not an integer in range, not one of the allowed values, not an ISO 8601 time',
  },
  FILE_UNREADABLE: { meaning: 'the file does not exist, is not a regular file, or is larger than 1 MiB' },
  FILE_INVALID: { meaning: 'the file is not strict JSON (bounded depth and size, no `__proto__` keys)' },
  ADMIN_KEY_MISSING: {
    meaning: 'an admin command with no key in `--admin-key`, `MANDATE_ADMIN_KEY` or `SERVICE_ADMIN_API_KEY`',
  },
  SERVICE_UNREACHABLE: {
    meaning:
      '`mandate fetch`: no answer from the service or its authorization server (connection refused, DNS failure, no complete answer within `--timeout`)',
  },
} as const satisfies Readonly<Record<string, ReasonEntry>>;

/** Every code of the registry. */
export type RegisteredCode = keyof typeof REASONS;

type Registry = typeof REASONS;

/** The codes the issuer API answers in its `{error: {code}}` shape. */
export type IssuerCode = { [K in RegisteredCode]: Registry[K] extends { issuer: object } ? K : never }[RegisteredCode];

/** The codes the token endpoint sends as `mandate_reason`. */
export type OAuthReasonCode = {
  [K in RegisteredCode]: Registry[K] extends { oauth: object } ? K : never;
}[RegisteredCode];

/** The codes the MCP resource server answers as `reason`. */
export type McpCode = { [K in RegisteredCode]: Registry[K] extends { mcp: object } ? K : never }[RegisteredCode];

/** The issuer API's status of each of its codes: the table issuer/http/errors.ts answers with. */
export type IssuerStatuses = {
  readonly [K in IssuerCode]: Registry[K] extends { issuer: { status: infer S } } ? S : never;
};

export function isRegisteredCode(code: unknown): code is RegisteredCode {
  return typeof code === 'string' && Object.hasOwn(REASONS, code);
}

/** Whether `code` is one the token endpoint answers as `mandate_reason`. */
export function isOAuthReasonCode(code: unknown): code is OAuthReasonCode {
  return isRegisteredCode(code) && 'oauth' in REASONS[code];
}

/** The entry of `code` (every field optional but `meaning`, for reading across surfaces). */
export function reasonEntry(code: RegisteredCode): ReasonEntry {
  return REASONS[code];
}

/** Registered codes, in registry order. */
export const REGISTERED_CODES = Object.keys(REASONS) as readonly RegisteredCode[];

/** The code → status table of the issuer API, read off the registry. */
export function issuerStatuses(): IssuerStatuses {
  const table: Record<string, number> = {};
  for (const code of REGISTERED_CODES) {
    const status = reasonEntry(code).issuer?.status;
    if (status !== undefined) table[code] = status;
  }
  return Object.freeze(table) as IssuerStatuses;
}
