/**
 * Signing compact JWS (RFC 7515 §7.1) with a key that may never leave its store: the one signer of
 * the JWTs an agent sends — DPoP proofs (dpop.ts) and client assertions (RFC 7523 §2.2).
 *
 * Two key types, the two every DPoP server and RFC 8414 authorization server meets:
 * - Ed25519 (RFC 8037 §3.1, `alg` "EdDSA") through a wallet Signer: a key store's non-extractable
 *   WebCrypto key, a file key, `seedSigner`;
 * - P-256 (RFC 7518 §3.4, `alg` "ES256") through a WebCrypto key pair; WebCrypto's ECDSA signature
 *   is already the R ‖ S form JWS wants (WebCrypto §23.4 "ECDSA: sign"), so nothing is re-encoded.
 * The public key travels as a JWK (the DPoP header's `jwk`) and names the key by its RFC 7638
 * thumbprint (a token's `cnf.jkt`, RFC 9449 §6.1).
 */
import { bytesToBase64url } from './base64url.ts';
import type { Signer } from './ed25519.ts';
import { thumbprintOf } from './jwt.ts';

/** The public members of a signing key, in RFC 7638 order (what a thumbprint hashes). */
export type PublicSigningJwk =
  | { readonly crv: 'Ed25519'; readonly kty: 'OKP'; readonly x: string }
  | { readonly crv: 'P-256'; readonly kty: 'EC'; readonly x: string; readonly y: string };

/** A key that signs JWS: its `alg`, its public JWK and its RFC 7638 thumbprint. */
export interface JwsSigningKey {
  readonly alg: 'EdDSA' | 'ES256';
  readonly publicJwk: PublicSigningJwk;
  /** RFC 7638 SHA-256 thumbprint of `publicJwk`, base64url. */
  readonly thumbprint: string;
  /** The signature of a JWS signing input (RFC 7515 §5.1 step 5). */
  sign(signingInput: Uint8Array): Promise<Uint8Array>;
}

/** An Ed25519 JWS key over a wallet Signer (`alg` "EdDSA", RFC 8037 §3.1). */
export function ed25519SigningKey(signer: Signer): JwsSigningKey {
  const publicJwk = { crv: 'Ed25519', kty: 'OKP', x: bytesToBase64url(signer.publicKey) } as const;
  return Object.freeze({
    alg: 'EdDSA' as const,
    publicJwk,
    thumbprint: thumbprintOf(publicJwk),
    sign: (input: Uint8Array) => signer.sign(input),
  });
}

/**
 * A P-256 JWS key over a WebCrypto ECDSA key pair (`alg` "ES256"); the private key may be
 * non-extractable, the public one is exported once for its JWK.
 */
export async function es256SigningKey(pair: { privateKey: CryptoKey; publicKey: CryptoKey }): Promise<JwsSigningKey> {
  const algorithm = pair.privateKey.algorithm as EcKeyAlgorithm;
  if (algorithm.name !== 'ECDSA' || algorithm.namedCurve !== 'P-256')
    throw new TypeError('an ES256 key must be a WebCrypto ECDSA P-256 key');
  const jwk = await globalThis.crypto.subtle.exportKey('jwk', pair.publicKey);
  if (typeof jwk.x !== 'string' || typeof jwk.y !== 'string') throw new TypeError('the public key has no x and y');
  const publicJwk = { crv: 'P-256', kty: 'EC', x: jwk.x, y: jwk.y } as const;
  const { privateKey } = pair;
  return Object.freeze({
    alg: 'ES256' as const,
    publicJwk,
    thumbprint: thumbprintOf(publicJwk),
    sign: async (input: Uint8Array) =>
      new Uint8Array(
        await globalThis.crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, input.slice()),
      ),
  });
}

const encoder = new TextEncoder();

function base64urlJson(value: object): string {
  return bytesToBase64url(encoder.encode(JSON.stringify(value)));
}

/**
 * A compact JWS of `claims` signed by `key` (RFC 7515 §7.1): the protected header is `header`
 * with `alg` set to the key's. Claims are taken as given.
 */
export async function signCompactJws(
  header: Readonly<Record<string, unknown>>,
  claims: Readonly<Record<string, unknown>>,
  key: JwsSigningKey,
): Promise<string> {
  const signingInput = `${base64urlJson({ ...header, alg: key.alg })}.${base64urlJson(claims)}`;
  const signature = await key.sign(encoder.encode(signingInput));
  return `${signingInput}.${bytesToBase64url(signature)}`;
}
