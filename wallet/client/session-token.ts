/**
 * Checking the issuer's session tokens (docs/api.md §Session tokens) in a service's own
 * process: an EdDSA JWT with `iss` = the issuer's DID, `aud` = the service, `sub` = the agent,
 * `scope` (RFC 8693 §4.2), `vpId` and, for a delegated chain, nested `act` claims (RFC 8693 §4.1).
 *
 * The key comes either from the caller (`jwk` or `jwks`, with `issuer`) or from the issuer
 * (`issuerBaseUrl`): `GET /v1/sessions/public-key`, with the issuer's DID from `GET /v1/health`,
 * fetched once and cached per base URL for the key's `Cache-Control: max-age` (bounded to
 * 30 s … 1 h, default 5 min). A token whose `kid` is not the cached key's causes ONE refetch
 * (a rotated key), at most once per 30 s per issuer, so a stream of forged kids cannot turn a
 * verifier into a fetch loop against its issuer.
 */
import { LruCache } from '../crypto/lru.ts';
import {
  JwtError,
  parseEd25519PublicJwk,
  readJwtHeader,
  verifyEdDsaJwt,
  type Ed25519PublicJwk,
  type JwkSet,
  type JwtClaims,
} from '../crypto/jwt.ts';
import { parseScopes } from '../vc/scopes.ts';
import { IssuerClientError } from './errors.ts';
import { createTransport, type TransportOptions } from './transport.ts';

/** RFC 8693 §4.1: who acts, and (nested) on whose behalf they in turn act. */
export interface ActorClaim {
  sub: string;
  act?: ActorClaim;
}

export interface SessionClaims {
  /** The issuer's DID. */
  iss: string;
  /** The agent's DID. */
  sub: string;
  /** The target service the presentation was verified for. */
  aud: string;
  /** The effective scopes (the token's space-separated `scope`, split). */
  scope: string[];
  vpId: string;
  jti?: string;
  iat: number;
  exp: number;
  /** The delegation path: the leaf's delegator first, nested up to the enrolled agent. */
  act?: ActorClaim;
}

export interface VerifySessionTokenOptions {
  /** The issuer's base URL: key and issuer DID are fetched (and cached) from it. */
  issuerBaseUrl?: string;
  /** The session key (an `Ed25519PublicJwk`, checked), when the caller already has it (then `issuer` is required). */
  jwk?: unknown;
  jwks?: JwkSet;
  /** Expected `iss`. Default with `issuerBaseUrl`: the DID `/v1/health` reports. */
  issuer?: string;
  /** This service's own name: the token's `aud` must be it. */
  audience: string;
  now?: Date | number;
  /** Clock tolerance in seconds (default 60). */
  clockToleranceSec?: number;
  /** For the key fetch: fetch, timeout, retries, plain http beyond loopback. */
  fetch?: TransportOptions['fetch'];
  timeoutMs?: number;
  allowInsecureHttp?: boolean;
}

interface IssuerKey {
  jwk: Ed25519PublicJwk;
  issuer: string;
  /** When a token last named another kid and a rotated key was looked for (or this key was fetched). */
  checkedAt: number;
}

const MIN_TTL_MS = 30_000;
const MAX_TTL_MS = 3_600_000;
const DEFAULT_TTL_MS = 300_000;
const REFETCH_COOLDOWN_MS = 30_000;
const MAX_ACT_DEPTH = 16;

const issuerKeys = new LruCache<string, Promise<IssuerKey>>({ max: 32 });

function maxAgeMs(cacheControl: string | null): number {
  const match = /(?:^|,)\s*max-age=(\d{1,9})\s*(?:,|$)/i.exec(cacheControl ?? '');
  const ms = match ? Number(match[1]) * 1000 : DEFAULT_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, ms));
}

async function fetchIssuerKey(
  baseUrl: string,
  options: VerifySessionTokenOptions,
): Promise<{ key: IssuerKey; ttlMs: number }> {
  const transport = createTransport({
    baseUrl,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    allowInsecureHttp: options.allowInsecureHttp,
  });
  try {
    const [keyResponse, health] = await Promise.all([
      transport.request({ method: 'GET', path: '/v1/sessions/public-key', idempotent: true }),
      options.issuer === undefined
        ? transport.request({ method: 'GET', path: '/v1/health', idempotent: true })
        : undefined,
    ]);
    const jwk = parseEd25519PublicJwk(keyResponse.json);
    const healthJson = health?.json;
    const issuer =
      options.issuer ??
      (healthJson !== null && typeof healthJson === 'object' && !Array.isArray(healthJson)
        ? healthJson.issuer
        : undefined);
    if (typeof issuer !== 'string' || !issuer.startsWith('did:')) throw new Error('no issuer DID');
    return { key: { jwk, issuer, checkedAt: Date.now() }, ttlMs: maxAgeMs(keyResponse.headers.get('cache-control')) };
  } catch (error) {
    throw new IssuerClientError('KEY_UNAVAILABLE', 'the session-token key could not be fetched from the issuer', {
      cause: error,
    });
  }
}

/**
 * The cached key of `baseUrl`, fetched when absent or expired; an unknown kid refetches at most once
 * per cooldown and never evicts the good key (forged kids are free: docs/wallet.md §Session tokens).
 */
async function issuerKey(
  baseUrl: string,
  kid: string | undefined,
  options: VerifySessionTokenOptions,
): Promise<IssuerKey> {
  const cacheKey = `${baseUrl} ${options.issuer ?? ''}`;
  const fetchAndCache = async (): Promise<IssuerKey> => {
    const { key, ttlMs } = await fetchIssuerKey(baseUrl, options);
    issuerKeys.set(cacheKey, Promise.resolve(key), ttlMs);
    return key;
  };
  let cached = issuerKeys.get(cacheKey);
  if (cached === undefined) {
    cached = fetchAndCache();
    issuerKeys.set(cacheKey, cached, MIN_TTL_MS);
    cached.catch(() => issuerKeys.delete(cacheKey)); // no key at all: the next token tries again
  }
  const key = await cached;
  if (
    kid === undefined ||
    key.jwk.kid === undefined ||
    kid === key.jwk.kid ||
    Date.now() - key.checkedAt < REFETCH_COOLDOWN_MS
  )
    return key;
  key.checkedAt = Date.now();
  return fetchAndCache().catch(() => key);
}

function claimInvalid(claim: string, message: string): JwtError {
  return new JwtError('JWT_CLAIM_INVALID', message, { claim });
}

function parseActor(value: unknown, depth = 0): ActorClaim {
  if (depth >= MAX_ACT_DEPTH) throw claimInvalid('act', `"act" is nested deeper than ${MAX_ACT_DEPTH}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw claimInvalid('act', '"act" must be an object');
  const { sub, act } = value as { sub?: unknown; act?: unknown };
  if (typeof sub !== 'string' || !sub.startsWith('did:')) throw claimInvalid('act', '"act.sub" must be a DID');
  return act === undefined ? { sub } : { sub, act: parseActor(act, depth + 1) };
}

/** The Mandate session claims of a verified JWT, each checked for type and shape. */
function sessionClaims(claims: JwtClaims): SessionClaims {
  const { iss, sub, aud, scope, vpId, jti, iat, exp, act } = claims as Record<string, unknown>;
  if (typeof iss !== 'string') throw claimInvalid('iss', '"iss" must be a string');
  if (typeof sub !== 'string' || !sub.startsWith('did:')) throw claimInvalid('sub', '"sub" must be the agent DID');
  if (typeof aud !== 'string') throw claimInvalid('aud', '"aud" must be one string (the target service)');
  if (typeof scope !== 'string') throw claimInvalid('scope', '"scope" must be a space-separated string');
  let scopes: string[];
  try {
    scopes = parseScopes(scope === '' ? [] : scope.split(' '));
  } catch (error) {
    throw new JwtError('JWT_CLAIM_INVALID', '"scope" holds an invalid scope', { claim: 'scope', cause: error });
  }
  if (typeof vpId !== 'string' || vpId.length === 0) throw claimInvalid('vpId', '"vpId" must be a string');
  if (jti !== undefined && typeof jti !== 'string') throw claimInvalid('jti', '"jti" must be a string');
  if (typeof iat !== 'number' || typeof exp !== 'number') throw claimInvalid('iat', '"iat" and "exp" must be numbers');
  return {
    iss,
    sub,
    aud,
    scope: scopes,
    vpId,
    ...(jti === undefined ? {} : { jti }),
    iat,
    exp,
    ...(act === undefined ? {} : { act: parseActor(act) }),
  };
}

/**
 * Verifies a session token for the service `audience`: signature (EdDSA, the issuer's session
 * key), `iss`, `aud`, `exp`/`iat` (± tolerance), and the Mandate claims. Rejects with JwtError
 * (`JWT_EXPIRED`, `JWT_CLAIM_INVALID`, `JWT_SIGNATURE_INVALID`, …) or, when the key cannot be
 * fetched, IssuerClientError `KEY_UNAVAILABLE`; `CONFIG_INVALID` for unusable options.
 */
export async function verifySessionToken(token: unknown, options: VerifySessionTokenOptions): Promise<SessionClaims> {
  const sources = [options.issuerBaseUrl, options.jwk, options.jwks].filter((s) => s !== undefined).length;
  if (sources !== 1) throw new IssuerClientError('CONFIG_INVALID', 'pass exactly one of issuerBaseUrl, jwk and jwks');
  if (typeof options.audience !== 'string' || options.audience.length === 0)
    throw new IssuerClientError('CONFIG_INVALID', "audience (this service's name) is required");
  if (options.issuerBaseUrl === undefined && options.issuer === undefined)
    throw new IssuerClientError('CONFIG_INVALID', 'issuer (the expected "iss") is required with jwk/jwks');
  const common = {
    audience: options.audience,
    typ: 'JWT',
    requiredClaims: ['exp', 'iat', 'sub'],
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.clockToleranceSec === undefined ? {} : { clockToleranceSec: options.clockToleranceSec }),
  };
  let verified;
  if (options.issuerBaseUrl !== undefined) {
    const baseUrl = createTransport({
      baseUrl: options.issuerBaseUrl,
      allowInsecureHttp: options.allowInsecureHttp,
    }).baseUrl;
    // The header is read (unverified) only to notice a rotated key; a malformed token or a
    // foreign alg is refused here, before any fetch.
    const { kid } = readJwtHeader(token);
    const key = await issuerKey(baseUrl, kid, options);
    if (kid !== undefined && key.jwk.kid !== undefined && kid !== key.jwk.kid)
      throw new JwtError('JWT_KEY_NOT_FOUND', 'the token names a key the issuer does not publish');
    verified = await verifyEdDsaJwt(token, { ...common, jwk: key.jwk, issuer: key.issuer });
  } else {
    verified = await verifyEdDsaJwt(token, {
      ...common,
      ...(options.jwks ? { jwks: options.jwks } : { jwk: options.jwk }),
      issuer: options.issuer,
    });
  }
  return sessionClaims(verified.claims);
}
