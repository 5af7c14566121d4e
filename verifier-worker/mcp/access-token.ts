/**
 * Validation of an RFC 9068 access token (JWT profile) at the resource server, each step of
 * RFC 9068 §4 one check: `typ` is `at+jwt`, `alg` EdDSA, the signature verifies under the
 * issuer's key named by `kid` (jwks-cache.ts), `iss` is the configured authorization server,
 * `aud` names this resource (RFC 8707), `exp`/`nbf`/`iat` hold within the clock skew, and
 * `sub`, `client_id`, `jti` are present. What the token says about the caller comes back as
 * an `AccessToken`: the agent (`sub`), its scopes, the delegator chain (`act`, RFC 8693 §4.1)
 * and the DPoP binding (`cnf.jkt`, RFC 9449 §6.1). Refusals throw McpAuthError.
 */
import type { JsonValue } from '../../wallet/crypto/json-value.ts';
import { assertScope } from '../../wallet/vc/scopes.ts';
import { McpAuthError, type McpAuthReason } from './errors.ts';
import type { JwksCache } from './jwks-cache.ts';
import { isEdDsaAlg, parseCompactJws, verifyJws, type CompactJws } from '../../wallet/crypto/jws.ts';

/** What a verified access token says. */
export interface AccessToken {
  /** The raw token (a bearer secret: never log or echo it). */
  token: string;
  issuer: string;
  /** `sub`: the agent's DID. */
  agentDid: string;
  clientId: string;
  /** `scope`, split on spaces; entries outside Mandate's scope grammar are dropped (they grant nothing here). */
  scopes: string[];
  /** `act` unwound, nearest first: who delegated to the agent, then who delegated to them, … */
  delegators: string[];
  jti: string;
  /** Seconds since the epoch. */
  issuedAt: number;
  expiresAt: number;
  /** `cnf.jkt`: the RFC 7638 thumbprint of the key the token is bound to (DPoP), when bound. */
  jkt?: string;
}

export interface AccessTokenChecks {
  issuer: string;
  /** This resource's identifier (RFC 8707 / RFC 9728 `resource`). */
  resource: string;
  jwks: JwksCache;
  /** Seconds. */
  clockSkewSec: number;
  /** Longest accepted `exp − iat`, seconds. */
  maxLifetimeSec: number;
  maxTokenLength: number;
  now: () => number;
}

const AT_JWT_TYPES = new Set(['at+jwt', 'application/at+jwt']);
const MAX_ACT_DEPTH = 16;

function fail(code: McpAuthReason, message: string): never {
  throw new McpAuthError(code, message);
}

function text(claims: Record<string, JsonValue>, name: string): string {
  const value = claims[name];
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048)
    fail('TOKEN_CLAIM_INVALID', `the token's "${name}" must be a non-empty string (RFC 9068 §2.2)`);
  return value;
}

function seconds(claims: Record<string, JsonValue>, name: string): number {
  const value = claims[name];
  if (typeof value !== 'number' || !Number.isFinite(value))
    fail('TOKEN_CLAIM_INVALID', `the token's "${name}" must be a NumericDate (RFC 7519 §2)`);
  return value;
}

/** RFC 9068 §4 steps 1–2: typ and alg, read off the unverified header. */
function checkHeader(jws: CompactJws): string | undefined {
  const { typ, alg, kid } = jws.header;
  if (typeof typ !== 'string' || !AT_JWT_TYPES.has(typ.toLowerCase()))
    fail('TOKEN_TYPE_INVALID', 'the token is not an access token: header "typ" must be "at+jwt" (RFC 9068 §4)');
  if (!isEdDsaAlg(alg)) fail('TOKEN_TYPE_INVALID', 'the token "alg" must be EdDSA (RFC 8037 §3.1)');
  if (kid !== undefined && (typeof kid !== 'string' || kid.length > 256))
    fail('TOKEN_MALFORMED', 'the header "kid" must be a string');
  return kid;
}

async function checkSignature(jws: CompactJws, kid: string | undefined, jwks: JwksCache): Promise<void> {
  const key = await jwks.keyFor(kid);
  if (key === undefined) fail('TOKEN_KEY_UNKNOWN', "no key of the authorization server's JWKS matches the token's kid");
  if (!(await verifyJws(jws, key))) fail('TOKEN_SIGNATURE_INVALID', 'the token signature does not verify');
}

function checkAudience(claims: Record<string, JsonValue>, resource: string): void {
  const aud = claims.aud;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.includes(resource))
    fail('TOKEN_AUDIENCE_MISMATCH', `the token is not for this resource: "aud" must name ${resource} (RFC 8707 §2)`);
}

/** RFC 9068 §4 step 5 (and RFC 7519 §4.1.4–6): exp, nbf, iat within the skew; lifetime bounded. */
function checkTimes(claims: Record<string, JsonValue>, checks: AccessTokenChecks): { iat: number; exp: number } {
  const now = checks.now() / 1000;
  const exp = seconds(claims, 'exp');
  const iat = seconds(claims, 'iat');
  if (exp <= now - checks.clockSkewSec) fail('TOKEN_EXPIRED', 'the token has expired');
  if (iat > now + checks.clockSkewSec) fail('TOKEN_NOT_YET_VALID', 'the token\'s "iat" is in the future');
  if (claims.nbf !== undefined && seconds(claims, 'nbf') > now + checks.clockSkewSec)
    fail('TOKEN_NOT_YET_VALID', 'the token is not valid yet ("nbf")');
  if (exp - iat > checks.maxLifetimeSec)
    fail('TOKEN_CLAIM_INVALID', `the token lives longer than ${checks.maxLifetimeSec} s ("exp" − "iat")`);
  return { iat, exp };
}

function scopesOf(claims: Record<string, JsonValue>): string[] {
  const scope = claims.scope;
  if (scope === undefined) return [];
  if (typeof scope !== 'string') fail('TOKEN_CLAIM_INVALID', 'the token\'s "scope" must be a string (RFC 8693 §4.2)');
  return [
    ...new Set(
      scope.split(' ').filter((entry) => {
        try {
          assertScope(entry);
          return true;
        } catch {
          return false;
        }
      }),
    ),
  ];
}

/** `act` (RFC 8693 §4.1) unwound, nearest actor first. */
function delegatorsOf(claims: Record<string, JsonValue>): string[] {
  const chain: string[] = [];
  let act = claims.act;
  while (act !== undefined) {
    if (typeof act !== 'object' || act === null || Array.isArray(act) || typeof act.sub !== 'string')
      fail('TOKEN_CLAIM_INVALID', 'the token\'s "act" must be an object with a "sub" (RFC 8693 §4.1)');
    if (chain.length === MAX_ACT_DEPTH) fail('TOKEN_CLAIM_INVALID', `"act" nests deeper than ${MAX_ACT_DEPTH}`);
    chain.push(act.sub);
    act = act.act;
  }
  return chain;
}

function jktOf(claims: Record<string, JsonValue>): string | undefined {
  const cnf = claims.cnf;
  if (cnf === undefined) return undefined;
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf) || typeof cnf.jkt !== 'string')
    fail('TOKEN_CLAIM_INVALID', 'the token\'s "cnf" must carry a "jkt" (RFC 9449 §6.1)');
  return cnf.jkt;
}

/** Verifies `token` as an RFC 9068 access token for this resource; throws McpAuthError. */
export async function verifyAccessToken(token: string, checks: AccessTokenChecks): Promise<AccessToken> {
  const jws = parseCompactJws(token, checks.maxTokenLength);
  if (jws === undefined) fail('TOKEN_MALFORMED', 'the token is not a compact JWS with a JSON header and claims');
  const kid = checkHeader(jws);
  await checkSignature(jws, kid, checks.jwks);
  const { claims } = jws;
  if (claims.iss !== checks.issuer)
    fail('TOKEN_ISSUER_MISMATCH', `the token was not issued by ${checks.issuer} (RFC 9068 §4 step 3)`);
  checkAudience(claims, checks.resource);
  const { iat, exp } = checkTimes(claims, checks);
  const jkt = jktOf(claims);
  return {
    token,
    issuer: checks.issuer,
    agentDid: text(claims, 'sub'),
    clientId: text(claims, 'client_id'),
    scopes: scopesOf(claims),
    delegators: delegatorsOf(claims),
    jti: text(claims, 'jti'),
    issuedAt: iat,
    expiresAt: exp,
    ...(jkt === undefined ? {} : { jkt }),
  };
}
