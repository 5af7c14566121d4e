// OAuth test helpers: a self-custody agent whose private key oauth4webapi and jose can use (a
// WebCrypto Ed25519 CryptoKey), discovery against a running issuer, and a raw token request.
import { calculateJwkThumbprint, exportJWK, importJWK, SignJWT, type CryptoKey } from 'jose';
import * as oauth from 'oauth4webapi';
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { generateSeed, getPublicKey, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { didKeyIdentity, type SigningIdentity } from '../../wallet/vc/identity.ts';
import { mintToken, onboardSelfAgent, type TestIssuer } from './issuer.ts';

export const RESOURCE = 'https://files.example.com/mcp';
export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
export const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

export interface OAuthAgent {
  identity: SigningIdentity;
  did: string;
  vcId: string;
  /** The AgentCredential the issuer signed. */
  credential: Record<string, unknown>;
  privateKey: CryptoKey;
  /** private_key_jwt client authentication with the key's verification method as kid. */
  clientAuth: oauth.ClientAuth;
  client: oauth.Client;
}

export async function ed25519Key(seed: Uint8Array): Promise<CryptoKey> {
  const jwk = { kty: 'OKP', crv: 'Ed25519', x: bytesToBase64url(getPublicKey(seed)), d: bytesToBase64url(seed) };
  return (await importJWK(jwk, 'EdDSA')) as CryptoKey;
}

/** Enrolls a self-custody did:key agent (scopes files:read files:write; domains: RESOURCE and files.example.com). */
export async function oauthAgent(issuer: TestIssuer, token?: Record<string, unknown>): Promise<OAuthAgent> {
  const seed = generateSeed();
  const identity = didKeyIdentity(seedSigner(seed));
  const enrolled = await onboardSelfAgent(
    issuer,
    identity,
    await mintToken(issuer, { requestedDomains: [RESOURCE, 'files.example.com'], ...token }),
  );
  const privateKey = await ed25519Key(seed);
  return {
    identity,
    did: enrolled.agentDid,
    vcId: enrolled.vcId,
    credential: enrolled.verifiableCredential,
    privateKey,
    clientAuth: oauth.PrivateKeyJwt({ key: privateKey, kid: identity.verificationMethod }),
    client: { client_id: enrolled.agentDid },
  };
}

export async function discover(issuer: TestIssuer): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer.url);
  return oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { algorithm: 'oauth2', ...INSECURE }));
}

/** A client assertion with the given claims and header overrides, signed by `key`. */
export async function assertion(
  key: CryptoKey,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', ...header }).sign(key);
}

/**
 * The claims of `did`'s client assertion to `issuer` (RFC 7523 §3): iss = sub = did, aud the
 * issuer, a fresh jti, valid for 60 s; `overrides` on top (undefined removes a claim).
 */
export function assertionClaims(
  issuer: TestIssuer,
  did: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: did,
    sub: did,
    aud: issuer.url,
    jti: crypto.randomUUID(),
    iat: now,
    exp: now + 60,
  };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete claims[name];
    else claims[name] = value;
  }
  return claims;
}

/** `agent`'s own client assertion (its key, its verification method as kid), claims as assertionClaims. */
export function agentAssertion(
  issuer: TestIssuer,
  agent: OAuthAgent,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  return assertion(agent.privateKey, assertionClaims(issuer, agent.did, overrides), {
    kid: agent.identity.verificationMethod,
  });
}

/** POST /oauth/token with a raw form; the parsed JSON answer. */
export async function tokenRequest(
  issuer: TestIssuer,
  form: Record<string, string | string[]>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form))
    for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
  const response = await fetch(`${issuer.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  };
}

/** A did:key holder: its identity signs presentations, its CryptoKey client assertions. */
export interface Holder {
  identity: SigningIdentity;
  did: string;
  privateKey: CryptoKey;
}

export async function newHolder(): Promise<Holder> {
  const seed = generateSeed();
  const identity = didKeyIdentity(seedSigner(seed));
  return { identity, did: identity.did, privateKey: await ed25519Key(seed) };
}

/**
 * private_key_jwt form parameters by which `holder` authenticates as itself: what binds an
 * exchanged presentation to its holder when no DPoP proof is sent (docs/oauth.md §Binding).
 */
export async function holderAuth(
  issuer: TestIssuer,
  holder: { did: string; privateKey: CryptoKey; identity: SigningIdentity },
): Promise<Record<string, string>> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: holder.did, sub: holder.did, aud: issuer.url, jti: crypto.randomUUID(), exp: now + 60 };
  return {
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: await assertion(holder.privateKey, claims, { kid: holder.identity.verificationMethod }),
  };
}

/**
 * The presentation challenge bound to a DPoP key (docs/oauth.md §Binding): its RFC 7638
 * thumbprint, then "." and a fresh value (a challenge is answered once per resource).
 */
export async function dpopChallenge(publicKey: CryptoKey): Promise<string> {
  return `${await calculateJwkThumbprint(await exportJWK(publicKey))}.${crypto.randomUUID()}`;
}
