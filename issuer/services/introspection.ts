/**
 * Token introspection (RFC 7662) of session tokens and OAuth access tokens (services/oauth/): for a service that must stop honouring a
 * token as soon as a credential it was minted from is revoked or suspended, rather than when it
 * expires (DEFAULT_SESSION_TTL_SECONDS after issuance plus the service's clock tolerance, 60 s in
 * verifySessionToken; docs/api.md §Session tokens).
 *
 * A token is active (§2.2) when this issuer signed it, it has not expired, it was minted here
 * (its `jti` is on record), its agent's DID is not a DID hosted here and deactivated (DID Core
 * §7.1.3: whenever the token was issued) and no status entry of the credentials it was minted
 * from is set for revocation or suspension. A status list that cannot be read makes it inactive:
 * fail closed.
 * An inactive token gets `{active: false}` and nothing more, whatever the reason (§2.2).
 */
import type { JwtClaims } from '../../wallet/crypto/jwt.ts';
import { issuerId, statusEntries } from '../../wallet/vc/parse.ts';
import type { IssuerDeps } from '../deps.ts';
import type { SessionStatusEntry } from '../storage/sessions-store.ts';
import { verifyAccessToken } from './oauth/access-tokens.ts';
import { oauthEndpoints } from './oauth/metadata.ts';
import type { SessionTokenIssuer } from './session-tokens.ts';

/** RFC 7662 §2.2; the claims of the token when active. */
export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      /** RFC 9449 §6.2: DPoP for an access token bound to a key (`cnf.jkt`). */
      token_type: 'Bearer' | 'DPoP';
      iss: string;
      sub: string;
      aud: string;
      scope: string;
      jti: string;
      iat: number;
      exp: number;
      act?: unknown;
      /** Access tokens (RFC 9068 §2.2): the client, and the DPoP key binding. */
      client_id?: string;
      cnf?: unknown;
    };

const INVALIDATING = new Set(['revocation', 'suspension']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The status entries of a verified presentation's credentials, each with its issuer: what a
 * session minted from it depends on. Called only after verifyPresentation accepted it.
 */
export function presentationStatusEntries(presentation: unknown): SessionStatusEntry[] {
  const listed = isObject(presentation) ? presentation.verifiableCredential : undefined;
  const credentials = Array.isArray(listed) ? listed : listed === undefined ? [] : [listed];
  return credentials.filter(isObject).flatMap((vc) => {
    const issuer = issuerId(vc as { issuer: unknown });
    return statusEntries(vc).map((entry) => ({ issuer, entry }));
  });
}

/** True while no entry is set for revocation or suspension; false when one is, or cannot be read. */
async function noneInvalidated(
  deps: Pick<IssuerDeps, 'statusLists' | 'now'>,
  entries: readonly SessionStatusEntry[],
): Promise<boolean> {
  const now = deps.now();
  const results = await Promise.all(
    entries.map(({ issuer, entry }) =>
      deps.statusLists.check(entry, issuer, now).then(
        ({ status, purpose }) => status === 0 || !INVALIDATING.has(purpose),
        () => false,
      ),
    ),
  );
  return results.every(Boolean);
}

function activeResponse(claims: JwtClaims): IntrospectionResponse {
  const bound = isObject(claims.cnf) && typeof claims.cnf.jkt === 'string';
  return {
    active: true,
    token_type: bound ? 'DPoP' : 'Bearer',
    iss: claims.iss as string,
    sub: claims.sub as string,
    aud: claims.aud as string,
    scope: typeof claims.scope === 'string' ? claims.scope : '',
    jti: claims.jti as string,
    iat: claims.iat as number,
    exp: claims.exp as number,
    ...(claims.act === undefined ? {} : { act: claims.act }),
    ...(typeof claims.client_id === 'string' ? { client_id: claims.client_id } : {}),
    ...(bound ? { cnf: claims.cnf } : {}),
  };
}

/** The agent's DID deactivated here (`POST /v1/dids/{did}/deactivate`) ends every token it holds. */
async function agentDeactivated(deps: Pick<IssuerDeps, 'stores'>, agentDid: string): Promise<boolean> {
  return (await deps.stores.dids.get(agentDid))?.deactivated === true;
}

export async function introspectSessionToken(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'statusLists' | 'now'>,
  sessions: SessionTokenIssuer,
  token: string,
): Promise<IntrospectionResponse> {
  const claims =
    (await sessions.verify(token)) ?? (await verifyAccessToken(sessions, oauthEndpoints(deps.config).issuer, token));
  const session = claims === undefined ? undefined : await deps.stores.sessions.get(claims.jti as string, deps.now());
  if (claims === undefined || session === undefined || session.agentDid !== claims.sub) return { active: false };
  if (await agentDeactivated(deps, session.agentDid)) return { active: false };
  return (await noneInvalidated(deps, session.statusEntries)) ? activeResponse(claims) : { active: false };
}
