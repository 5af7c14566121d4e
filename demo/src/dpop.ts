/**
 * DPoP (RFC 9449) in the page: an Ed25519 key made with WebCrypto (its private half
 * non-extractable, never leaving this browser), and proofs signed with it — one for the token
 * endpoint (the issuer binds the token to the key: `cnf.jkt`), one for each MCP request (`ath`
 * binds the proof to the token). A stolen token is useless without the key.
 */
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../wallet/crypto/bytes.ts';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';

export interface DpopKey {
  privateKey: CryptoKey;
  /** The public key as the proof's `jwk` header carries it (RFC 8037 §2). */
  publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
  /** Its RFC 7638 thumbprint: the `cnf.jkt` of a token bound to it. */
  jkt: string;
}

export interface DpopProofOptions {
  /** The access token the request carries: the proof's `ath` (RFC 9449 §4.2). */
  accessToken?: string;
  /** A server nonce (`DPoP-Nonce`), when the server asked for one. */
  nonce?: string;
}

export async function createDpopKey(): Promise<DpopKey> {
  const pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
  if (!('privateKey' in pair)) throw new Error('WebCrypto made no Ed25519 key pair');
  const exported = await crypto.subtle.exportKey('jwk', pair.publicKey);
  if (typeof exported.x !== 'string') throw new Error('WebCrypto exported no Ed25519 public key');
  const publicJwk = { kty: 'OKP', crv: 'Ed25519', x: exported.x } as const;
  // RFC 7638 §3.2: the required members in lexicographic order, no whitespace.
  const jkt = bytesToBase64url(sha256Utf8(`{"crv":"Ed25519","kty":"OKP","x":"${publicJwk.x}"}`));
  return { privateKey: pair.privateKey, publicJwk, jkt };
}

const encodeJson = (value: object) => bytesToBase64url(utf8ToBytes(JSON.stringify(value)));

/** A proof for `htm htu` (RFC 9449 §4.2): header `dpop+jwt`/EdDSA with the public key, a fresh `jti`. */
export async function dpopProof(key: DpopKey, htm: string, htu: string, options: DpopProofOptions = {}) {
  const header = { typ: 'dpop+jwt', alg: 'EdDSA', jwk: key.publicJwk };
  const claims = {
    jti: crypto.randomUUID(),
    htm,
    htu,
    iat: Math.floor(Date.now() / 1000),
    ...(options.accessToken === undefined ? {} : { ath: bytesToBase64url(sha256Utf8(options.accessToken)) }),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
  };
  const input = `${encodeJson(header)}.${encodeJson(claims)}`;
  const signature = await crypto.subtle.sign({ name: 'Ed25519' }, key.privateKey, utf8ToBytes(input));
  return { proof: `${input}.${bytesToBase64url(new Uint8Array(signature))}`, header, claims };
}
