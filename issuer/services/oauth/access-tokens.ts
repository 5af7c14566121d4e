/**
 * OAuth access tokens (RFC 9068): EdDSA JWTs signed with the session-token key
 * (services/session-tokens.ts — never the credential key: a leaked session key can mint
 * tokens, never credentials), published at `jwks_uri` (`/.well-known/jwks.json`).
 *
 * Header `{alg: "EdDSA", typ: "at+jwt", kid}` (RFC 9068 §2.1). Claims (§2.2): `iss` = the
 * metadata `issuer` (the base URL), `sub` = the agent DID, `aud` = the RFC 8707 `resource`,
 * `client_id` = the agent DID, `scope` (space-separated), `jti`, `iat`, `exp` (at most 300 s
 * after `iat`), `act` = the delegation path as nested RFC 8693 §4.1 actor claims (as in session
 * tokens), and `cnf: {jkt}` (RFC 9449 §6.1) when bound to a DPoP key.
 *
 * Each token is recorded (ctx.stores.sessions: jti, agent, the status entries of the credentials
 * it rests on) so introspection (RFC 7662) turns it inactive once one of them is revoked or
 * suspended.
 */
import type { JwtClaims } from '../../../wallet/crypto/jwt.ts';
import { ACCESS_TOKEN_TYP } from '../../../wallet/contract/oauth.ts';
import type { IssuerDeps } from '../../deps.ts';
import type { SessionStatusEntry } from '../../storage/sessions-store.ts';
import type { ActorClaim, SessionTokenIssuer } from '../session-tokens.ts';

/** RFC 9068 / issue 25: an access token lives at most 5 minutes. */
export const MAX_ACCESS_TOKEN_TTL_SECONDS = 300;

export interface AccessTokenInput {
  agentDid: string;
  resource: string;
  scopes: readonly string[];
  act: ActorClaim | undefined;
  /** The status entries of every credential the token rests on. */
  statusEntries: SessionStatusEntry[];
  /** DPoP key thumbprint (RFC 7638): the token is bound to it. */
  jkt: string | undefined;
}

export interface IssuedAccessToken {
  token: string;
  jti: string;
  expiresIn: number;
}

export async function issueAccessToken(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'now'>,
  sessions: SessionTokenIssuer,
  issuer: string,
  input: AccessTokenInput,
): Promise<IssuedAccessToken> {
  const expiresIn = Math.min(deps.config.oauthTokenTtlSeconds, MAX_ACCESS_TOKEN_TTL_SECONDS);
  const iat = Math.floor(deps.now() / 1000);
  const jti = crypto.randomUUID();
  const claims: JwtClaims = {
    iss: issuer,
    sub: input.agentDid,
    aud: input.resource,
    client_id: input.agentDid,
    scope: input.scopes.join(' '),
    jti,
    iat,
    exp: iat + expiresIn,
    ...(input.act === undefined ? {} : { act: { ...input.act } }),
    ...(input.jkt === undefined ? {} : { cnf: { jkt: input.jkt } }),
  };
  const token = await sessions.signOther(claims, ACCESS_TOKEN_TYP);
  await deps.stores.sessions.record(
    { jti, agentDid: input.agentDid, statusEntries: input.statusEntries, expiresAt: (iat + expiresIn) * 1000 },
    deps.now(),
  );
  return { token, jti, expiresIn };
}

/** The claims of an unexpired access token this issuer signed; undefined for anything else. */
export function verifyAccessToken(
  sessions: SessionTokenIssuer,
  issuer: string,
  token: string,
): Promise<JwtClaims | undefined> {
  return sessions.verifyOther(token, { typ: ACCESS_TOKEN_TYP, issuer });
}

/** The delegators an actor claim names, the leaf's delegator first. */
export function delegatorsOf(act: ActorClaim | undefined): string[] {
  const out: string[] = [];
  for (let a = act; a !== undefined; a = a.act) out.push(a.sub);
  return out;
}
