/**
 * EdDSA JWTs (RFC 7519 signed per RFC 8037, Ed25519 only): the one place Mandate signs and
 * verifies them, over the one compact-JWS reader and verifier (jws.ts, shared with DPoP proofs
 * and the MCP resource server), so every JWT verdict is reached the same way.
 *
 * - Only Ed25519 keys (RFC 8037 §2), validated by the crypto core (JWT_KEY_INVALID); a
 *   verification key carrying `d` is refused; signatures checked by ed25519.ts's strict `verify`.
 * - Only `alg` "EdDSA" (RFC 8037 §3.1) and "Ed25519" (RFC 9864 §2); "none", HMAC and the rest
 *   fail before any key is chosen (RFC 8725 §3.1).
 * - `exp` required by default (RFC 8725 §3.10), 60 s clock tolerance, tokens at most 8 KiB.
 * Why each: docs/wallet.md §EdDSA JWTs. Failures are JwtError; messages never quote the token.
 */
import { base64urlToBytesOfLength, bytesToBase64url } from './base64url.ts';
import { assertBytes } from './bytes.ts';
import { assertValidPublicKey, getPublicKey, sign } from './ed25519.ts';
import { MandateError } from './errors.ts';
import { sha256Utf8 } from './hash.ts';
import { isObject, type JsonValue } from './json-value.ts';
import { parseCompactJws, readJwsHeader, readUnverifiedClaims, verifyJws } from './jws.ts';

export type JwtErrorCode =
  /** Not a compact JWS with a JSON header and claims set, or a header/claim of the wrong type. */
  | 'JWT_MALFORMED'
  /** `alg` is not EdDSA/Ed25519 (e.g. "none", "HS256"). */
  | 'JWT_ALG_NOT_ALLOWED'
  /** The signature does not verify under the chosen key. */
  | 'JWT_SIGNATURE_INVALID'
  /** `exp` is past (beyond the clock tolerance). */
  | 'JWT_EXPIRED'
  /** A claim check failed: `iss`, `aud`, `nbf`, `iat` in the future, a required claim missing. */
  | 'JWT_CLAIM_INVALID'
  /** A key that is not a valid Ed25519 public JWK (or private JWK, for signing). */
  | 'JWT_KEY_INVALID'
  /** No key of the key set matches the token's `kid` (or several do). */
  | 'JWT_KEY_NOT_FOUND';

export class JwtError extends MandateError<JwtErrorCode> {
  override name = 'JwtError';
  /** For JWT_EXPIRED and JWT_CLAIM_INVALID: the claim that failed (`exp`, `aud`, …). */
  readonly claim: string | undefined;

  constructor(code: JwtErrorCode, message: string, options?: { cause?: unknown; claim?: string }) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.claim = options?.claim;
  }
}

/** RFC 8037 §2 public key, with the RFC 7517 members Mandate publishes. */
export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  /** base64url (RFC 4648 §5, unpadded) of the 32-byte public key. */
  x: string;
  kid?: string;
  alg?: 'EdDSA';
  use?: 'sig';
}

/** RFC 8037 §2 private key: the public members plus `d`, the 32-byte seed. */
export interface Ed25519PrivateJwk extends Ed25519PublicJwk {
  d: string;
}

/** RFC 7517 §5 key set. Keys that are not Ed25519 public keys are ignored. */
export interface JwkSet {
  keys: readonly unknown[];
}

/** The claims of a token (RFC 7519 §4.1 registered claims typed, the rest as JSON). */
export interface JwtClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  jti?: string;
  nbf?: number;
  exp?: number;
  iat?: number;
  [claim: string]: unknown;
}

export interface JwtHeader {
  alg: 'EdDSA' | 'Ed25519';
  kid?: string;
  typ?: string;
}

export interface VerifiedJwt {
  header: JwtHeader;
  claims: JwtClaims;
  /** The key that verified the token. */
  jwk: Ed25519PublicJwk;
}

export interface VerifyJwtOptions {
  /** The verification key (exactly one of `jwk`, `jwks`). */
  jwk?: unknown;
  /** A key set; the key is chosen by the token's `kid`. */
  jwks?: JwkSet;
  /** Expected `iss` (one of them, when a list). */
  issuer?: string | readonly string[];
  /** Expected `aud`: the token must name this audience (one of them, when a list). */
  audience?: string | readonly string[];
  /** Expected `typ` header (e.g. "JWT"); unchecked when absent. */
  typ?: string;
  /** Claims that must be present (default ["exp"]). */
  requiredClaims?: readonly string[];
  /** Clock for exp/nbf/iat (default: now). */
  now?: Date | number;
  /** Tolerance for exp/nbf/iat in seconds (default 60). */
  clockToleranceSec?: number;
  /** Largest accepted token, in characters (default 8192). */
  maxTokenLength?: number;
}

export interface SignJwtOptions {
  /** The 32-byte Ed25519 seed (exactly one of `seed`, `privateJwk`). */
  seed?: Uint8Array;
  privateJwk?: Ed25519PrivateJwk;
  /** Header `kid` (default: the RFC 7638 thumbprint of the public key). */
  kid?: string;
  /** Header `typ` (default "JWT"). */
  typ?: string;
  /** Sets `iat` when the claims have none (default: now). */
  now?: Date | number;
}

const ALGORITHMS = ['EdDSA', 'Ed25519'];
const DEFAULT_MAX_TOKEN_LENGTH = 8192;
const MAX_KEYS = 16;

function keyInvalid(message: string, cause?: unknown): JwtError {
  return new JwtError('JWT_KEY_INVALID', message, cause === undefined ? undefined : { cause });
}

/**
 * Validates an Ed25519 public JWK (RFC 8037 §2): kty OKP, crv Ed25519, `x` the canonical
 * base64url of a valid 32-byte key, no `d`, `alg`/`use` when present "EdDSA"/"sig".
 * Returns a clean copy holding only the members above. Throws JWT_KEY_INVALID.
 */
export function parseEd25519PublicJwk(value: unknown): Ed25519PublicJwk {
  if (!isObject(value)) throw keyInvalid('a JWK must be a JSON object');
  if (value.kty !== 'OKP' || value.crv !== 'Ed25519')
    throw keyInvalid('only Ed25519 keys (kty "OKP", crv "Ed25519") are accepted');
  if ('d' in value) throw keyInvalid('a verification key must be public: the JWK carries a private "d"');
  if (value.alg !== undefined && value.alg !== 'EdDSA' && value.alg !== 'Ed25519')
    throw keyInvalid('the JWK "alg" must be EdDSA');
  if (value.use !== undefined && value.use !== 'sig') throw keyInvalid('the JWK "use" must be "sig"');
  if (value.kid !== undefined && (typeof value.kid !== 'string' || value.kid.length === 0 || value.kid.length > 256)) {
    throw keyInvalid('the JWK "kid" must be a non-empty string of at most 256 characters');
  }
  const x = base64urlToBytesOfLength(value.x, 32);
  if (!x) throw keyInvalid('the JWK "x" must be the unpadded base64url of 32 bytes');
  try {
    assertValidPublicKey(x);
  } catch (error) {
    throw keyInvalid('the JWK "x" is not a usable Ed25519 public key', error);
  }
  return {
    kty: 'OKP',
    crv: 'Ed25519',
    x: value.x as string,
    ...(value.kid === undefined ? {} : { kid: value.kid }),
    alg: 'EdDSA',
    use: 'sig',
  };
}

/** The public JWK of a 32-byte Ed25519 public key, `kid` = its RFC 7638 thumbprint unless given. */
export async function ed25519PublicJwk(publicKey: Uint8Array, kid?: string): Promise<Ed25519PublicJwk> {
  assertValidPublicKey(publicKey);
  const x = bytesToBase64url(publicKey);
  return {
    kty: 'OKP',
    crv: 'Ed25519',
    x,
    kid: kid ?? (await jwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x })),
    alg: 'EdDSA',
    use: 'sig',
  };
}

/** RFC 7638 thumbprint (SHA-256, base64url) of an Ed25519 public JWK: over {crv, kty, x} only. */
export function jwkThumbprint(jwk: Pick<Ed25519PublicJwk, 'kty' | 'crv' | 'x'>): Promise<string> {
  try {
    return Promise.resolve(thumbprintOf({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }));
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * RFC 7638 thumbprint of a raw 32-byte Ed25519 public key, synchronously: what Web Bot Auth
 * names a key by (its `keyid`), the same value as `jwkThumbprint` of the key's JWK.
 */
export function ed25519Thumbprint(publicKey: Uint8Array): string {
  assertValidPublicKey(publicKey);
  return thumbprintOf({ crv: 'Ed25519', kty: 'OKP', x: bytesToBase64url(publicKey) });
}

/**
 * RFC 7638 §3: SHA-256 over the JSON of the key type's required members, in lexicographic order
 * and without whitespace — the caller passes them in that order (Ed25519: crv, kty, x; P-256:
 * crv, kty, x, y). Throws JWT_KEY_INVALID when one is not a non-empty string.
 */
export function thumbprintOf(members: Readonly<Record<string, unknown>>): string {
  for (const [name, value] of Object.entries(members))
    if (typeof value !== 'string' || value.length === 0)
      throw keyInvalid(`the JWK "${name}" must be a non-empty string`);
  return bytesToBase64url(sha256Utf8(JSON.stringify(members)));
}

/**
 * The protected header of a compact JWT, unverified: its `alg` must be EdDSA. For choosing a key
 * (by `kid`) before verification; never trust anything else in it before `verifyEdDsaJwt`.
 */
export function readJwtHeader(token: unknown, maxTokenLength = DEFAULT_MAX_TOKEN_LENGTH): JwtHeader {
  if (typeof token !== 'string' || token.length === 0)
    throw new JwtError('JWT_MALFORMED', 'the token must be a non-empty string');
  if (token.length > maxTokenLength)
    throw new JwtError('JWT_MALFORMED', `the token is longer than ${maxTokenLength} characters`);
  return parseHeader(token);
}

function parseHeader(token: string): JwtHeader {
  // Read as unknowns: nothing in an unverified header is trusted to have a type.
  const header: Readonly<Record<string, unknown>> | undefined = readJwsHeader(token);
  if (header === undefined) throw new JwtError('JWT_MALFORMED', 'not a compact JWS with a JSON protected header');
  if (typeof header.alg !== 'string' || !ALGORITHMS.includes(header.alg)) {
    throw new JwtError(
      'JWT_ALG_NOT_ALLOWED',
      `alg ${JSON.stringify(String(header.alg)).slice(0, 40)} is not allowed: only EdDSA`,
    );
  }
  if (header.kid !== undefined && typeof header.kid !== 'string')
    throw new JwtError('JWT_MALFORMED', 'the header "kid" must be a string');
  if (header.typ !== undefined && typeof header.typ !== 'string')
    throw new JwtError('JWT_MALFORMED', 'the header "typ" must be a string');
  return {
    alg: header.alg as JwtHeader['alg'],
    ...(header.kid === undefined ? {} : { kid: header.kid }),
    ...(header.typ === undefined ? {} : { typ: header.typ }),
  };
}

/** The one key of `jwks` for `kid`: JWT_KEY_NOT_FOUND when none (or, ambiguously, several) match. */
function selectKey(jwks: JwkSet, kid: string | undefined): Ed25519PublicJwk {
  if (!isObject(jwks) || !Array.isArray(jwks.keys)) throw keyInvalid('a JWK Set must be an object with a "keys" array');
  const usable: Ed25519PublicJwk[] = [];
  for (const candidate of jwks.keys.slice(0, MAX_KEYS)) {
    try {
      usable.push(parseEd25519PublicJwk(candidate));
    } catch {
      // RFC 7517 §5: keys a consumer does not understand are ignored.
    }
  }
  const matching = kid === undefined ? usable : usable.filter((key) => key.kid === kid);
  if (matching.length !== 1) {
    throw new JwtError(
      'JWT_KEY_NOT_FOUND',
      matching.length === 0
        ? 'no Ed25519 key of the key set matches the token'
        : 'several keys of the key set match the token (no distinguishing kid)',
    );
  }
  return matching[0] as Ed25519PublicJwk;
}

/** The claims of `token`, UNVERIFIED (undefined when it is no compact JWT): for audit and key choice only. */
export function readJwtClaims(token: string): JwtClaims | undefined {
  return readUnverifiedClaims(token);
}

/** What `checkJwtClaims` checks; the times in seconds. */
export interface JwtClaimChecks {
  typ?: string | undefined;
  issuer?: string | readonly string[] | undefined;
  audience?: string | readonly string[] | undefined;
  requiredClaims: readonly string[];
  /** Now, whole seconds since the epoch. */
  nowSec: number;
  toleranceSec: number;
}

function claimFailed(claim: string, reason: 'missing' | 'check_failed' | 'invalid'): JwtError {
  return new JwtError('JWT_CLAIM_INVALID', `claim "${claim}" check failed (${reason})`, { claim });
}

/** RFC 7515 §4.1.9: "JWT" and "application/jwt" name one type, compared case-insensitively. */
function normalizedTyp(value: string): string {
  const lower = value.toLowerCase();
  return value.includes('/') ? lower : `application/${lower}`;
}

function numericDate(claims: JwtClaims, name: 'iat' | 'nbf' | 'exp'): number | undefined {
  const value = claims[name];
  if (value !== undefined && typeof value !== 'number') throw claimFailed(name, 'invalid');
  return value;
}

function audienceMatches(aud: unknown, expected: string | readonly string[]): boolean {
  const wanted = typeof expected === 'string' ? [expected] : expected;
  if (typeof aud === 'string') return wanted.includes(aud);
  return Array.isArray(aud) && wanted.some((name) => aud.includes(name));
}

/**
 * RFC 7519 §7.2 step 10 for a verified token: header `typ`, required claims present, `iss`, `aud`
 * (one of the expected names), then `nbf` and `exp` (RFC 7519 §4.1.4–5) within the tolerance;
 * `iat`, `nbf`, `exp` numbers when present. Throws JwtError (JWT_EXPIRED for `exp`).
 */
export function checkJwtClaims(
  header: Readonly<Record<string, JsonValue>>,
  claims: JwtClaims,
  checks: JwtClaimChecks,
): void {
  const { typ, issuer, audience } = checks;
  if (typ !== undefined && (typeof header.typ !== 'string' || normalizedTyp(header.typ) !== normalizedTyp(typ)))
    throw claimFailed('typ', 'check_failed');
  const present = [...checks.requiredClaims];
  if (audience !== undefined) present.push('aud');
  if (issuer !== undefined) present.push('iss');
  for (const claim of new Set(present.reverse()))
    if (!Object.hasOwn(claims, claim)) throw claimFailed(claim, 'missing');
  if (issuer !== undefined && !(typeof issuer === 'string' ? [issuer] : issuer).some((name) => name === claims.iss))
    throw claimFailed('iss', 'check_failed');
  if (audience !== undefined && !audienceMatches(claims.aud, audience)) throw claimFailed('aud', 'check_failed');
  numericDate(claims, 'iat');
  const nbf = numericDate(claims, 'nbf');
  if (nbf !== undefined && nbf > checks.nowSec + checks.toleranceSec) throw claimFailed('nbf', 'check_failed');
  const exp = numericDate(claims, 'exp');
  if (exp !== undefined && exp <= checks.nowSec - checks.toleranceSec)
    throw new JwtError('JWT_EXPIRED', 'the token has expired', { claim: 'exp' });
}

/**
 * Verifies an EdDSA JWT with `options.jwk` (or the key of `options.jwks` its `kid` names), then
 * its claims (RFC 7519 §7.2). Resolves with the header, claims and key; rejects with JwtError.
 */
export async function verifyEdDsaJwt(token: unknown, options: VerifyJwtOptions): Promise<VerifiedJwt> {
  if ((options.jwk === undefined) === (options.jwks === undefined))
    throw keyInvalid('pass exactly one of jwk and jwks');
  const maxLength = options.maxTokenLength ?? DEFAULT_MAX_TOKEN_LENGTH;
  const header = readJwtHeader(token, maxLength);
  const jwk = options.jwks !== undefined ? selectKey(options.jwks, header.kid) : parseEd25519PublicJwk(options.jwk);
  const jws = parseCompactJws(token as string, maxLength);
  if (jws === undefined) throw new JwtError('JWT_MALFORMED', 'the token is not a well-formed signed JWT');
  if (!(await verifyJws(jws, base64urlToBytesOfLength(jwk.x, 32) ?? new Uint8Array(0))))
    throw new JwtError('JWT_SIGNATURE_INVALID', 'the token signature does not verify');
  const claims: JwtClaims = jws.claims;
  const nowMs = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  const toleranceSec = options.clockToleranceSec ?? 60;
  checkJwtClaims(jws.header, claims, {
    typ: options.typ,
    issuer: options.issuer,
    audience: options.audience,
    requiredClaims: options.requiredClaims ?? ['exp'],
    nowSec: Math.floor(nowMs / 1000),
    toleranceSec,
  });
  // A token issued later than now (beyond tolerance) comes from a wrong clock or a forger.
  if (typeof claims.iat === 'number' && claims.iat > nowMs / 1000 + toleranceSec)
    throw new JwtError('JWT_CLAIM_INVALID', 'claim "iat" is in the future', { claim: 'iat' });
  return { header, claims, jwk };
}

/** Validates an Ed25519 private JWK and returns the seed it holds (checked against `x`). */
function seedOfPrivateJwk(jwk: unknown): Uint8Array {
  if (!isObject(jwk) || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519')
    throw keyInvalid('the private JWK must be an Ed25519 key (kty "OKP", crv "Ed25519")');
  const seed = base64urlToBytesOfLength(jwk.d, 32);
  if (!seed) throw keyInvalid('the private JWK "d" must be the unpadded base64url of 32 bytes');
  if (bytesToBase64url(getPublicKey(seed)) !== jwk.x)
    throw keyInvalid('the private JWK "d" does not belong to its "x"');
  return seed;
}

/**
 * Signs `claims` as an EdDSA JWT (RFC 8037 §3.1) with a seed or a private JWK. Header:
 * `{alg: "EdDSA", typ, kid}`. Sets `iat` when absent; every other claim is taken as given.
 */
export async function signEdDsaJwt(claims: JwtClaims, options: SignJwtOptions): Promise<string> {
  if ((options.seed === undefined) === (options.privateJwk === undefined))
    throw keyInvalid('pass exactly one of seed and privateJwk');
  // Copied before the first await, so a writable alias cannot swap the key mid-signature.
  const seed =
    options.seed !== undefined
      ? Uint8Array.from(assertBytes(options.seed, 32, 'seed'))
      : seedOfPrivateJwk(options.privateJwk);
  try {
    const x = bytesToBase64url(getPublicKey(seed));
    const kid = options.kid ?? thumbprintOf({ crv: 'Ed25519', kty: 'OKP', x });
    const iat =
      claims.iat ?? Math.floor((options.now === undefined ? Date.now() : new Date(options.now).getTime()) / 1000);
    const payload: JwtClaims = { ...claims, iat };
    for (const name of ['iat', 'nbf', 'exp'] as const) {
      const value = payload[name];
      if (typeof value === 'number' && !Number.isFinite(value))
        throw new TypeError(`"${name}" claim must be a finite number`);
    }
    // RFC 7515 §7.1: BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature).
    const signingInput = `${base64urlJson({ alg: 'EdDSA', typ: options.typ ?? 'JWT', kid })}.${base64urlJson(payload)}`;
    const signature = await sign(encoder.encode(signingInput), seed);
    return `${signingInput}.${bytesToBase64url(signature)}`;
  } finally {
    seed.fill(0);
  }
}

const encoder = new TextEncoder();

function base64urlJson(value: object): string {
  return bytesToBase64url(encoder.encode(JSON.stringify(value)));
}
