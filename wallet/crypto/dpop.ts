/**
 * DPoP proofs (RFC 9449 §4.3): the one verifier of Mandate, used by the issuer's token endpoint
 * (issuer/services/oauth/dpop.ts) and by the MCP resource server (verifier-worker/mcp/dpop.ts),
 * so a key the issuer binds a token to is a key every Mandate resource server accepts proofs of.
 *
 * A proof is accepted when (§4.3, numbered as there):
 * 1. exactly one `DPoP` header: several combine into one value with "," (RFC 9110 §5.3), and a
 *    compact JWS never holds one; at most 4096 characters;
 * 2–3. a compact JWS whose claims are a JSON object;
 * 4. header `typ` = `dpop+jwt`; 5. `alg` one of DPOP_ALGS (never none, never HMAC);
 * 6. the signature verifies under the header `jwk`, 7. a public key of `alg`'s type;
 * 8. `htm` = the request's method; 9. `htu` = its URI (query and fragment ignored);
 * 10. `nonce` accepted, when the caller requires nonces (§8);
 * 11. `iat` inside the caller's window; 12. `ath` = the hash of the access token, at a resource;
 * and `jti` (1..256 characters) not seen before (§11.1): recorded through the caller's store.
 * Failures are DpopError with one reason vocabulary for both sides (docs/oauth.md §Errors,
 * docs/mcp.md §Errors). Messages never quote the proof. The JWS is read and its signature checked
 * by jws.ts, the verifier of every JWS in Mandate. Proofs are made here too (`createDpopProof`,
 * the agent's side, §4.2), signed by jws-key.ts.
 */
import { base64urlToBytesOfLength, bytesToBase64url } from './base64url.ts';
import { MandateError } from './errors.ts';
import { sha256Utf8 } from './hash.ts';
import { isObject, type JsonValue } from './json-value.ts';
import { checkJwtClaims, thumbprintOf, type JwtClaims } from './jwt.ts';
import { parseCompactJws, readJwsHeader, verifyJws, verifyJwsEs256 } from './jws.ts';
import { signCompactJws, type JwsSigningKey } from './jws-key.ts';

/** RFC 9449 §4.2: the `typ` of a proof. */
export const DPOP_PROOF_TYP = 'dpop+jwt';

/**
 * Proof algorithms accepted, and advertised (`dpop_signing_alg_values_supported`, the `algs` of a
 * DPoP challenge): Ed25519 (RFC 8037 §3.1 `EdDSA`, RFC 9864 §2 `Ed25519`) and ES256 (P-256, the
 * one WebCrypto-only clients and oauth4webapi's default key have).
 */
export const DPOP_ALGS = ['EdDSA', 'Ed25519', 'ES256'] as const;

export type DpopAlg = (typeof DPOP_ALGS)[number];

export type DpopErrorCode =
  /** A check of RFC 9449 §4.3 fails (header count, syntax, typ, alg, jwk, signature, htm, htu, iat, ath, jti). */
  | 'DPOP_PROOF_INVALID'
  /** The proof's `jti` was used before (§11.1), or could not be recorded as used (fail closed). */
  | 'DPOP_PROOF_REPLAYED'
  /** The proof carries no (or a stale) server nonce (§8). */
  | 'DPOP_NONCE_REQUIRED'
  /** The proof's key is not the key the token is bound to (`cnf.jkt`, §6.1). */
  | 'DPOP_BINDING_MISMATCH';

export class DpopError extends MandateError<DpopErrorCode> {
  override name = 'DpopError';
}

export interface DpopProofChecks {
  /** The request's `DPoP` header field value (several headers combined with ","). */
  header: string;
  /** The request's method, upper case (`htm`). */
  method: string;
  /** The URI the client used (`htu`). */
  url: string;
  /** At a resource server: the access token the proof accompanies (`ath`, §4.3 item 12). */
  accessToken?: string;
  /** At a resource server: the token's `cnf.jkt`, which the proof key must have (§6.1). */
  jkt?: string;
  /** When the server requires nonces: whether the proof's `nonce` is a current one (§8). */
  acceptsNonce?: (nonce: unknown) => boolean;
  /** Oldest `iat` accepted, seconds before now; and newest, seconds after now (clock skew). */
  maxAgeSec: number;
  clockSkewSec: number;
  /** Now, ms since the epoch. */
  now: number;
  /**
   * Records `key` (the key's thumbprint and the proof's `jti`) as used until `until` (ms);
   * resolves false when it was used before. Its failures reach the caller unchanged.
   */
  firstUse: (key: string, until: number) => Promise<boolean>;
}

export interface VerifiedDpopProof {
  /** RFC 7638 thumbprint of the proof key: a token's `cnf.jkt`. */
  jkt: string;
  jti: string;
  iat: number;
}

const MAX_PROOF_LENGTH = 4096;

function invalid(message: string): never {
  throw new DpopError('DPOP_PROOF_INVALID', `DPoP proof: ${message}`);
}

function coordinate(value: unknown, length: number): string | undefined {
  return base64urlToBytesOfLength(value, length) === undefined ? undefined : (value as string);
}

/** A proof key: its public members, in RFC 7638 order, and the key the signature is checked with. */
type ProofKey =
  | { alg: 'ES256'; members: { crv: 'P-256'; kty: 'EC'; x: string; y: string } }
  | { alg: 'EdDSA' | 'Ed25519'; members: { crv: 'Ed25519'; kty: 'OKP'; x: string }; publicKey: Uint8Array };

/** Item 7: the public members of `alg`'s key type only (a private member, another curve: refused). */
function proofKey(alg: DpopAlg, jwk: JsonValue | undefined): ProofKey {
  if (!isObject(jwk)) return invalid('no "jwk" header (RFC 9449 §4.3 item 7)');
  if ('d' in jwk || 'k' in jwk) invalid('the "jwk" holds a private key (RFC 9449 §4.3 item 7)');
  if (alg === 'ES256') {
    const x = coordinate(jwk.x, 32);
    const y = coordinate(jwk.y, 32);
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || x === undefined || y === undefined)
      invalid('an ES256 proof needs a P-256 "jwk" (RFC 7518 §6.2.1)');
    return { alg, members: { crv: 'P-256', kty: 'EC', x, y } };
  }
  const publicKey = base64urlToBytesOfLength(jwk.x, 32);
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || publicKey === undefined)
    invalid('an EdDSA proof needs an Ed25519 "jwk" (RFC 8037 §2)');
  return { alg, members: { crv: 'Ed25519', kty: 'OKP', x: jwk.x as string }, publicKey };
}

/** Items 2, 4, 5, 7: the header, unverified. */
function readHeader(proof: string): ProofKey {
  const header = readJwsHeader(proof);
  if (header === undefined) return invalid('not a compact JWS (RFC 9449 §4.3 item 2)');
  if (header.typ !== DPOP_PROOF_TYP) invalid('"typ" must be "dpop+jwt" (RFC 9449 §4.3 item 4)');
  const alg = header.alg;
  if (typeof alg !== 'string' || !(DPOP_ALGS as readonly string[]).includes(alg))
    return invalid(`"alg" must be one of ${DPOP_ALGS.join(', ')} (RFC 9449 §4.3 item 5)`);
  return proofKey(alg as DpopAlg, header.jwk);
}

/** Items 3, 6: the claims, once the signature verifies. */
async function verifiedClaims(proof: string, key: ProofKey, nowMs: number): Promise<JwtClaims> {
  const unusable = 'the key or the claims are not usable (RFC 9449 §4.3 items 3, 6)';
  // A proof's header carries the client's key: not kept, so it cannot push out a token header.
  const jws = parseCompactJws(proof, MAX_PROOF_LENGTH, { cacheHeader: false });
  if (jws === undefined) return invalid(unusable);
  let verified: boolean;
  try {
    verified = key.alg === 'ES256' ? await verifyJwsEs256(jws, key.members) : await verifyJws(jws, key.publicKey);
  } catch {
    return invalid(unusable); // a P-256 "jwk" that is no point of the curve
  }
  if (!verified) return invalid('the signature does not verify (RFC 9449 §4.3 item 6)');
  const claims: JwtClaims = jws.claims;
  try {
    // RFC 7519 §7.2: `nbf` and `exp`, when a proof carries them, hold too (no tolerance).
    checkJwtClaims(jws.header, claims, { requiredClaims: [], nowSec: Math.floor(nowMs / 1000), toleranceSec: 0 });
  } catch {
    return invalid(unusable);
  }
  return claims;
}

/** `htu` as §4.3 item 9 compares it: without query and fragment, syntax-normalized (RFC 3986 §6.2.2). */
function targetUri(url: unknown): string | undefined {
  try {
    const parsed = typeof url === 'string' ? new URL(url) : undefined;
    return parsed === undefined ? undefined : `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

/** Items 8–12 and the `jti` grammar. */
function checkClaims(claims: JwtClaims, checks: DpopProofChecks): { jti: string; iat: number } {
  const { jti, htm, htu, iat, ath } = claims;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
    invalid('"jti" must be 1..256 characters (RFC 9449 §4.2)');
  if (htm !== checks.method) invalid(`"htm" must be ${checks.method} (RFC 9449 §4.3 item 8)`);
  const target = targetUri(checks.url);
  if (target === undefined || targetUri(htu) !== target) invalid(`"htu" must be ${target} (RFC 9449 §4.3 item 9)`);
  if (checks.acceptsNonce !== undefined && !checks.acceptsNonce(claims.nonce))
    throw new DpopError('DPOP_NONCE_REQUIRED', 'DPoP proof: use the server nonce in DPoP-Nonce (RFC 9449 §8)');
  const now = checks.now / 1000;
  if (typeof iat !== 'number' || !(iat <= now + checks.clockSkewSec && iat >= now - checks.maxAgeSec))
    invalid(`"iat" must lie within the last ${checks.maxAgeSec} s (RFC 9449 §4.3 item 11)`);
  if (checks.accessToken !== undefined && ath !== bytesToBase64url(sha256Utf8(checks.accessToken)))
    invalid('"ath" must be the hash of the access token (RFC 9449 §4.3 item 12)');
  return { jti, iat };
}

/**
 * Verifies the DPoP proof in `checks.header` for this request. Throws DpopError:
 * DPOP_PROOF_INVALID, DPOP_NONCE_REQUIRED, DPOP_BINDING_MISMATCH or DPOP_PROOF_REPLAYED.
 */
export async function verifyDpopProof(checks: DpopProofChecks): Promise<VerifiedDpopProof> {
  const proof = checks.header;
  if (proof.length === 0 || proof.length > MAX_PROOF_LENGTH || proof.includes(','))
    invalid(`exactly one DPoP header of at most ${MAX_PROOF_LENGTH} characters (RFC 9449 §4.3 item 1)`);
  const key = readHeader(proof);
  const jkt = thumbprintOf(key.members);
  const claims = await verifiedClaims(proof, key, checks.now);
  const { jti, iat } = checkClaims(claims, checks);
  if (checks.jkt !== undefined && jkt !== checks.jkt)
    throw new DpopError('DPOP_BINDING_MISMATCH', 'the proof key is not the key the token is bound to (RFC 9449 §6.1)');
  // §11.1: one use per proof, remembered until it can no longer pass the iat window; keyed by
  // the key too, so one client cannot spend another's jti values.
  const until = (iat + checks.maxAgeSec + 2 * checks.clockSkewSec) * 1000;
  if (!(await checks.firstUse(`${jkt}:${jti}`, until)))
    throw new DpopError('DPOP_PROOF_REPLAYED', 'DPoP proof: its "jti" was used before (RFC 9449 §11.1)');
  return { jkt, jti, iat };
}

export interface DpopProofClaims {
  /** The request's method (`htm`). */
  method: string;
  /** The request's URI (`htu`): sent without query and fragment (§4.2). */
  url: string;
  /** The server's nonce from `DPoP-Nonce`, when it asked for one (§8, §9). */
  nonce?: string;
  /** At a resource server: the access token the proof accompanies (`ath`, §4.2). */
  accessToken?: string;
  /** Now, ms since the epoch (default Date.now()). */
  now?: number;
}

/**
 * A DPoP proof (RFC 9449 §4.2) by `key` for one request: header `typ` "dpop+jwt", `alg` and the
 * public `jwk`; claims `jti` (a fresh UUID), `htm`, `htu`, `iat`, and `nonce`, `ath` when given.
 * One proof per request: a server remembers each `jti` (§11.1).
 */
export function createDpopProof(key: JwsSigningKey, claims: DpopProofClaims): Promise<string> {
  const url = new URL(claims.url);
  const payload: Record<string, unknown> = {
    jti: globalThis.crypto.randomUUID(),
    htm: claims.method.toUpperCase(),
    htu: `${url.origin}${url.pathname}`,
    iat: Math.floor((claims.now ?? Date.now()) / 1000),
  };
  if (claims.nonce !== undefined) payload.nonce = claims.nonce;
  if (claims.accessToken !== undefined) payload.ath = bytesToBase64url(sha256Utf8(claims.accessToken));
  return signCompactJws({ typ: DPOP_PROOF_TYP, jwk: key.publicJwk }, payload, key);
}
