/**
 * Session tokens: after `POST /v1/vp/verify` accepts a presentation with `session: true`, the
 * issuer hands back a short-lived JWT (RFC 7519) that a service can check with nothing but the
 * issuer's published key (`GET /v1/sessions/public-key`, `GET /.well-known/jwks.json`).
 *
 * - Signed EdDSA (RFC 8037 §3.1, Ed25519) through wallet/crypto/jwt.ts (jose underneath); the key pair itself comes
 *   from the crypto core (`generateSeed`) and is stored encrypted under the key-encryption key
 *   (AES-256-GCM, AAD = "mandate:session-signing-key") in `settings`, SEPARATE from the
 *   credential signing key: a leaked session key can mint sessions, never credentials.
 * - `kid` is the RFC 7638 JWK thumbprint, so a future rotation can publish two keys.
 * - Claims: `iss` (issuer DID), `sub` (agent DID), `aud` (target service), `scope` (RFC 8693
 *   §4.2: space-separated effective scopes), `vpId`, `jti`, `iat`, `exp`, and the delegation
 *   path as nested `act` claims (RFC 8693 §4.1): the leaf's delegator is `act.sub`, its own
 *   delegator is `act.act.sub`, and so on up to the agent the platform issued to.
 */
import { decrypt, encrypt } from '../../wallet/crypto/aead.ts';
import { base64urlToBytes, bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../wallet/crypto/bytes.ts';
import { generateSeed, getPublicKey } from '../../wallet/crypto/ed25519.ts';
import { MandateError } from '../../wallet/crypto/errors.ts';
import { ed25519PublicJwk, signEdDsaJwt, verifyEdDsaJwt, type JwtClaims } from '../../wallet/crypto/jwt.ts';
import type { ChainLink } from '../../wallet/vc/verify.ts';
import type { IssuerDeps } from '../deps.ts';
import type { SessionKeyStore } from '../storage/session-key-store.ts';

export type SessionTokenErrorCode = 'SESSION_KEY_UNREADABLE';

export class SessionTokenError extends MandateError<SessionTokenErrorCode> {
  override name = 'SessionTokenError';
}

/** An Ed25519 public JWK (RFC 8037 §2) as published. */
export interface SessionPublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** RFC 8693 §4.1 actor claim: who acts, and (nested) on whose behalf they in turn act. */
export interface ActorClaim {
  sub: string;
  act?: ActorClaim;
}

export interface SessionClaimsInput {
  agentDid: string;
  target: string;
  scopes: readonly string[];
  vpId: string;
  /** The verified chain, leaf first (VerificationSuccess.chain). */
  chain: readonly ChainLink[];
}

export interface IssuedSessionToken {
  token: string;
  expiresAt: Date;
  jti: string;
}

export interface SessionTokenIssuer {
  publicJwk(): Promise<SessionPublicJwk>;
  issue(input: SessionClaimsInput): Promise<IssuedSessionToken>;
  /** The claims of a token this issuer signed and that has not expired; undefined for any other. */
  verify(token: string): Promise<JwtClaims | undefined>;
  /**
   * Signs other tokens with the same key (OAuth access tokens, services/oauth/access-tokens.ts):
   * header `{alg: EdDSA, typ, kid}`, the claims as given.
   */
  signOther(claims: JwtClaims, typ: string): Promise<string>;
  /** The claims of a token signed by `signOther` with header `typ` and claim `iss`, unexpired; undefined for any other. */
  verifyOther(token: string, expected: { typ: string; issuer: string }): Promise<JwtClaims | undefined>;
}

export interface SessionTokenOptions {
  store: SessionKeyStore;
  keyEncryptionKey: Uint8Array;
  issuerDid: string;
  /** Token lifetime (default 300 s). */
  ttlSeconds?: number;
  now?: () => number;
}

export const DEFAULT_SESSION_TTL_SECONDS = 300;
const KEY_AAD = utf8ToBytes('mandate:session-signing-key');

interface StoredSessionKey {
  v: 1;
  /** base64url public key, kept beside the envelope so publishing the JWK needs no decryption. */
  x: string;
  envelope: unknown;
}

interface LoadedKey {
  jwk: SessionPublicJwk;
  /** Decrypted once per process; signing goes through wallet/crypto/jwt.ts. */
  seed: Uint8Array;
}

/**
 * The delegation path of a verified chain as nested `act` claims. Only delegated links name a
 * delegator (their issuer); the root's issuer is the platform, which vouches rather than acts.
 */
export function actorClaimOf(chain: readonly ChainLink[]): ActorClaim | undefined {
  const delegators = chain.filter((link) => link.type === 'DelegatedAgentCredential').map((link) => link.issuer);
  let act: ActorClaim | undefined;
  for (const sub of delegators.reverse()) act = act === undefined ? { sub } : { sub, act };
  return act;
}

function parseStored(value: string): StoredSessionKey {
  try {
    const parsed = JSON.parse(value) as Partial<StoredSessionKey>;
    if (parsed.v === 1 && typeof parsed.x === 'string' && base64urlToBytes(parsed.x)?.length === 32)
      return parsed as StoredSessionKey;
  } catch {
    // fall through: an unreadable row is reported below, never replaced silently
  }
  throw new SessionTokenError('SESSION_KEY_UNREADABLE', 'the stored session signing key is not readable');
}

async function createKey(options: SessionTokenOptions): Promise<string> {
  const seed = generateSeed();
  try {
    const x = bytesToBase64url(getPublicKey(seed));
    const envelope = await encrypt(options.keyEncryptionKey, seed, KEY_AAD);
    return JSON.stringify({ v: 1, x, envelope } satisfies StoredSessionKey);
  } finally {
    seed.fill(0);
  }
}

async function loadKey(options: SessionTokenOptions): Promise<LoadedKey> {
  // Two first requests may race to create the key: the store keeps the first, both use it.
  const stored = parseStored(
    (await options.store.load()) ?? (await options.store.saveIfAbsent(await createKey(options))),
  );
  let seed: Uint8Array;
  try {
    seed = await decrypt(options.keyEncryptionKey, stored.envelope, KEY_AAD);
  } catch (error) {
    throw new SessionTokenError(
      'SESSION_KEY_UNREADABLE',
      'the session signing key does not decrypt under the key-encryption key',
      { cause: error },
    );
  }
  const jwk = await ed25519PublicJwk(getPublicKey(seed));
  if (jwk.x !== stored.x || jwk.kid === undefined) {
    seed.fill(0);
    throw new SessionTokenError('SESSION_KEY_UNREADABLE', 'the stored session key does not match its public key');
  }
  return { jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: jwk.kid, alg: 'EdDSA', use: 'sig' }, seed };
}

export function createSessionTokenIssuer(options: SessionTokenOptions): SessionTokenIssuer {
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_SESSION_TTL_SECONDS;
  const now = options.now ?? Date.now;
  let loaded: Promise<LoadedKey> | undefined;
  const key = (): Promise<LoadedKey> => {
    loaded ??= loadKey(options).catch((error: unknown) => {
      loaded = undefined; // retried on the next request rather than failing forever
      throw error;
    });
    return loaded;
  };
  const verifyWith = async (token: string, expected: { typ: string; issuer: string }) => {
    const { jwk } = await key();
    try {
      const { claims } = await verifyEdDsaJwt(token, {
        jwk,
        issuer: expected.issuer,
        typ: expected.typ,
        requiredClaims: ['exp', 'jti', 'sub'],
        now: now(),
        clockToleranceSec: 0,
      });
      return claims;
    } catch {
      return undefined; // forged, expired or malformed: RFC 7662 §2.2 answers all alike
    }
  };
  return {
    async publicJwk() {
      return { ...(await key()).jwk };
    },
    async issue(input) {
      const { jwk, seed } = await key();
      const iat = Math.floor(now() / 1000);
      const exp = iat + ttlSeconds;
      const jti = crypto.randomUUID();
      const act = actorClaimOf(input.chain);
      const token = await signEdDsaJwt(
        {
          iss: options.issuerDid,
          sub: input.agentDid,
          aud: input.target,
          iat,
          exp,
          jti,
          scope: input.scopes.join(' '),
          vpId: input.vpId,
          ...(act === undefined ? {} : { act }),
        },
        { seed, kid: jwk.kid },
      );
      return { token, expiresAt: new Date(exp * 1000), jti };
    },
    verify: async (token) => verifyWith(token, { typ: 'JWT', issuer: options.issuerDid }),
    async signOther(claims, typ) {
      const { jwk, seed } = await key();
      return signEdDsaJwt(claims, { seed, kid: jwk.kid, typ });
    },
    verifyOther: verifyWith,
  };
}

/** The issuer's session-token issuer: its key in `settings`, encrypted under the key-encryption key. */
export function sessionTokensFor(
  deps: Pick<IssuerDeps, 'stores' | 'keyEncryptionKey' | 'issuer' | 'now'>,
): SessionTokenIssuer {
  return createSessionTokenIssuer({
    store: deps.stores.sessionKey,
    keyEncryptionKey: deps.keyEncryptionKey,
    issuerDid: deps.issuer.did,
    now: () => deps.now(),
  });
}
