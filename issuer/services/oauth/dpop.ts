/**
 * DPoP proofs at the token endpoint (RFC 9449 §4.3): the client proves possession of a key, and
 * the access token is bound to that key's RFC 7638 thumbprint (`cnf.jkt`, §6.1).
 *
 * A proof is accepted when (§4.3, numbered as there):
 * 1–2. exactly one `DPoP` header, a well-formed compact JWS;
 * 4. header `typ` = `dpop+jwt`; 5. `alg` EdDSA, Ed25519 or ES256 (never none, never HMAC);
 * 6. the signature verifies under the header `jwk`, 7. which holds no private member;
 * 8. `htm` = POST; 9. `htu` = the token endpoint URL (query and fragment ignored);
 * 10. `nonce` = a current server nonce, when the operator requires nonces (SERVICE_OAUTH_DPOP_NONCE);
 * 11. `iat` within 60 s of now (5 minutes in the past at most with a nonce);
 * 12. `jti` (1..256 characters) not seen before: remembered in the replay store, keyed by the
 *     key's thumbprint, until the proof could no longer pass the `iat` check.
 *
 * Server nonces (§8): a random value that changes every NONCE_PERIOD_MS; the current and the
 * previous one are accepted. They live in this process only, so an issuer running several
 * processes needs sticky sessions for nonce-requiring clients (a refused nonce only costs a retry).
 */
import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  errors as joseErrors,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
} from 'jose';
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { randomBytes } from '../../../wallet/crypto/bytes.ts';
import { DPOP_PROOF_TYP } from '../../../wallet/contract/oauth.ts';
import type { IssuerContext } from '../../context.ts';
import { refuse } from './errors.ts';
import { DPOP_ALGS } from './metadata.ts';

const IAT_WINDOW_SECONDS = 60;
const NONCE_PERIOD_MS = 5 * 60_000;
const MAX_PROOF_LENGTH = 4096;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

export interface DpopBinding {
  /** RFC 7638 thumbprint of the proof key: the token's `cnf.jkt`. */
  jkt: string;
}

export interface DpopNonces {
  /** The nonce a client should use now (sent as `DPoP-Nonce`). */
  current(): string;
  accepts(nonce: unknown): boolean;
}

export function createDpopNonces(now: () => number): DpopNonces {
  let period = -1;
  let values: [string, string] = ['', ''];
  const roll = (): [string, string] => {
    const p = Math.floor(now() / NONCE_PERIOD_MS);
    if (p !== period) {
      values = [bytesToBase64url(randomBytes(18)), p === period + 1 ? values[0] : ''];
      period = p;
    }
    return values;
  };
  return {
    current: () => roll()[0],
    accepts: (nonce) => typeof nonce === 'string' && nonce.length > 0 && roll().includes(nonce),
  };
}

function invalid(detail: string): never {
  return refuse('invalid_dpop_proof', 'DPOP_PROOF_INVALID', `DPoP proof: ${detail}`);
}

function headerOf(proof: string): { alg: string; jwk: JWK } {
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    return invalid('not a compact JWS (RFC 9449 §4.3 item 2)');
  }
  if (header.typ !== DPOP_PROOF_TYP) invalid('typ must be dpop+jwt (RFC 9449 §4.3 item 4)');
  const alg = header.alg;
  if (typeof alg !== 'string' || !(DPOP_ALGS as readonly string[]).includes(alg))
    return invalid(`alg must be one of ${DPOP_ALGS.join(', ')} (RFC 9449 §4.3 item 5)`);
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return invalid('no jwk header (§4.3 item 7)');
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) invalid('the jwk holds a private key (RFC 9449 §4.3 item 7)');
  return { alg, jwk };
}

async function verifiedClaims(proof: string, alg: string, jwk: JWK): Promise<JWTPayload> {
  try {
    const key = await importJWK(jwk, alg);
    const { payload } = await jwtVerify(proof, key, { typ: DPOP_PROOF_TYP, algorithms: [alg] });
    return payload;
  } catch (error) {
    if (error instanceof joseErrors.JWSSignatureVerificationFailed)
      return invalid('the signature does not verify (RFC 9449 §4.3 item 6)');
    return invalid('the key or the claims are not usable (RFC 9449 §4.3 items 3, 6)');
  }
}

function stripQuery(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '';
  }
}

export interface DpopCheck {
  /** The `DPoP` header values of the request (several = refused). */
  headers: string[];
  /** The token endpoint URL the proof must name. */
  htu: string;
  nonces: DpopNonces | undefined;
}

/** The proof's binding, or undefined when the request carries no proof; refuses per the module comment. */
export async function checkDpopProof(ctx: IssuerContext, check: DpopCheck): Promise<DpopBinding | undefined> {
  if (check.headers.length === 0) return undefined;
  const proof = check.headers[0] as string;
  if (check.headers.length > 1 || proof.length > MAX_PROOF_LENGTH || proof.includes(','))
    invalid('exactly one DPoP header of at most 4096 characters (RFC 9449 §4.3 item 1)');
  const { alg, jwk } = headerOf(proof);
  const claims = await verifiedClaims(proof, alg, jwk);
  if (claims.htm !== 'POST') invalid('htm must be POST (RFC 9449 §4.3 item 8)');
  if (typeof claims.htu !== 'string' || stripQuery(claims.htu) !== stripQuery(check.htu))
    invalid(`htu must be ${check.htu} (RFC 9449 §4.3 item 9)`);
  if (check.nonces !== undefined && !check.nonces.accepts(claims.nonce))
    refuse('use_dpop_nonce', 'DPOP_NONCE_REQUIRED', 'DPoP proof: use the server nonce in DPoP-Nonce (RFC 9449 §8)');
  const now = Math.floor(ctx.now() / 1000);
  const oldest = now - (check.nonces === undefined ? IAT_WINDOW_SECONDS : NONCE_PERIOD_MS / 1000);
  if (typeof claims.iat !== 'number' || claims.iat > now + IAT_WINDOW_SECONDS || claims.iat < oldest)
    invalid(`iat must be within ${IAT_WINDOW_SECONDS} s of now (RFC 9449 §4.3 item 11)`);
  if (typeof claims.jti !== 'string' || claims.jti.length === 0 || claims.jti.length > 256)
    invalid('jti must be 1..256 characters (RFC 9449 §4.2)');
  const jkt = await calculateJwkThumbprint(jwk);
  const until = (claims.iat + IAT_WINDOW_SECONDS) * 1000 + NONCE_PERIOD_MS;
  if (!(await ctx.stores.replay.remember(`oauth:dpop:${jkt}:${claims.jti}`, until, ctx.now())))
    refuse('invalid_dpop_proof', 'DPOP_PROOF_REPLAYED', 'DPoP proof jti was used before (RFC 9449 §11.1)');
  return { jkt };
}
