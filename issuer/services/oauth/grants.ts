/**
 * The two grants of the token endpoint, each answering who the token is for and what authority
 * it rests on (docs/oauth.md §Grants):
 *
 * - `client_credentials` (RFC 6749 §4.4) with `private_key_jwt` (RFC 7523 §2.2): a self-custody
 *   agent enrolled here authenticates as itself; its authority is its current AgentCredential,
 *   which must be active (not revoked, suspended, expired or not yet valid).
 * - token exchange (RFC 8693 §2.1): `subject_token` is a Mandate presentation, verified with
 *   `verifyPresentation` as `POST /v1/vp/verify` does (this issuer the one trusted issuer, its
 *   resolver, status lists and replay cache), with the requested `resource` as the expected
 *   domain; the authority is exactly what its chain allows, the delegators become `act`. The
 *   presentation must be bound to the client: its challenge names the DPoP key, or the client
 *   authenticates as its holder (presentation-binding.ts).
 */
import type { JsonValue } from '../../../wallet/crypto/json-value.ts';
import { isMandateError } from '../../../wallet/crypto/errors.ts';
import { statusEntries, issuerId } from '../../../wallet/vc/parse.ts';
import { decodePresentationHeader } from '../../../wallet/vc/transport.ts';
import type { VerifiedCredentialCache } from '../../../wallet/vc/credential-cache.ts';
import type { ChainCredential } from '../../../wallet/vc/types.ts';
import {
  TOKEN_TYPE_ACCESS_TOKEN,
  TOKEN_TYPE_MANDATE_PRESENTATION,
  type TokenRequest,
} from '../../../wallet/contract/oauth.ts';
import type { IssuerDeps } from '../../deps.ts';
import type { SessionStatusEntry } from '../../storage/sessions-store.ts';
import { chainCredentialOf } from '../credentials.ts';
import { presentationStatusEntries } from '../introspection.ts';
import { issuerTrust } from '../vp-verify.ts';
import { verifyDeciding } from '../database-watch.ts';
import { actorClaimOf, type ActorClaim } from '../session-tokens.ts';
import { authenticateClient } from './client-assertion.ts';
import { authenticateBySecret, type ClientSecretCredentials } from './client-secret.ts';
import { refuse, refuseClaimed } from './errors.ts';
import type { DpopBinding } from './dpop.ts';
import type { OAuthEndpoints } from './metadata.ts';
import { claimedHolder, requiredChallenge } from './presentation-binding.ts';

/** What an OAuth grant uses of the issuer's dependencies. */
export type GrantDeps = Pick<IssuerDeps, 'stores' | 'resolver' | 'now'>;

/** What a grant establishes: whose authority, how much, where, and what it rests on. */
export interface GrantedAuthority {
  agentDid: string;
  /** The effective scopes of the authority (the token gets the requested part of them). */
  effectiveScopes: string[];
  /** The targets the authority is limited to (undefined = any); they must cover `resource` (wallet/vc/domains.ts). */
  domains: string[] | undefined;
  act: ActorClaim | undefined;
  statusEntries: SessionStatusEntry[];
}

/** Largest presentation a subject token may carry (the body limit bounds it too). */
const MAX_PRESENTATION_BYTES = 48 * 1024;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function activeCredentialOf(
  deps: Pick<IssuerDeps, 'stores' | 'now'>,
  did: string,
  custody: 'self' | 'server',
): Promise<ChainCredential> {
  const agent = await deps.stores.agents.get(did);
  if (!agent) return refuse('invalid_client', 'AGENT_NOT_FOUND', `${did} is not an agent enrolled here`, did);
  if (agent.custody !== custody)
    refuse(
      'unauthorized_client',
      'CUSTODY_MISMATCH',
      custody === 'self'
        ? `${did} is a server-custody agent: its key is held here, it cannot sign a client assertion`
        : `${did} is a self-custody agent: it authenticates with private_key_jwt`,
      did,
    );
  const current =
    agent.currentCredentialId === null ? undefined : await deps.stores.credentials.get(agent.currentCredentialId);
  if (!current) return refuse('invalid_grant', 'NO_CURRENT_CREDENTIAL', `${did} has no current credential`, did);
  const now = deps.now();
  if (current.revokedAt !== null) refuse('invalid_grant', 'CREDENTIAL_REVOKED', `${current.id} is revoked`, did);
  if (current.suspendedAt !== null) refuse('invalid_grant', 'CREDENTIAL_SUSPENDED', `${current.id} is suspended`, did);
  if (current.validUntil !== null && current.validUntil <= now)
    refuse('invalid_grant', 'CREDENTIAL_EXPIRED', `${current.id} has expired`, did);
  if (current.validFrom > now)
    refuse('invalid_grant', 'CREDENTIAL_NOT_YET_VALID', `${current.id} is not valid yet`, did);
  return chainCredentialOf(current);
}

/** RFC 6749 §2.3: exactly one client authentication method; the secret ones name server-custody agents. */
function clientSecretOf(
  params: TokenRequest,
  basic: ClientSecretCredentials | undefined,
): ClientSecretCredentials | undefined {
  const methods = [params.client_assertion, params.client_secret, basic].filter((m) => m !== undefined).length;
  if (methods > 1)
    refuse('invalid_request', 'CLIENT_AUTH_AMBIGUOUS', 'use one client authentication method (RFC 6749 §2.3)');
  if (basic !== undefined) return basic;
  if (params.client_secret === undefined) return undefined;
  if (params.client_id === undefined)
    refuse('invalid_request', 'OAUTH_REQUEST_INVALID', 'client_secret_post needs client_id (RFC 6749 §2.3.1)');
  return { clientId: params.client_id, secret: params.client_secret, method: 'client_secret_post' };
}

/** The client's DID, by its secret (server custody) or its RFC 7523 assertion (self custody). */
async function authenticate(
  deps: GrantDeps,
  endpoints: OAuthEndpoints,
  params: TokenRequest,
  secret: ClientSecretCredentials | undefined,
): Promise<string> {
  if (secret !== undefined) return authenticateBySecret(deps, secret);
  if (params.client_assertion === undefined)
    refuse(
      'invalid_client',
      'CLIENT_AUTH_MISSING',
      'client_credentials needs client authentication: private_key_jwt (RFC 7523 §2.2) or a client secret (RFC 6749 §2.3.1)',
    );
  return authenticateClient(deps, endpoints, {
    clientId: params.client_id,
    assertionType: params.client_assertion_type,
    assertion: params.client_assertion,
  });
}

/**
 * DID Core §7.1.3: a deactivated DID authenticates nothing more. A private_key_jwt client meets
 * this when its DID is resolved; a secret proves only that the caller holds the secret, so the
 * DID the secret belongs to (hosted here for a server-custody agent) is read here.
 */
async function refuseDeactivated(deps: Pick<IssuerDeps, 'stores'>, did: string): Promise<void> {
  if ((await deps.stores.dids.get(did))?.deactivated === true)
    refuse('invalid_client', 'DID_DEACTIVATED', `${did.slice(0, 200)} is deactivated`, did);
}

/** client_credentials: the client (assertion or secret) names the agent, its current AgentCredential its authority. */
export async function clientCredentialsGrant(
  deps: GrantDeps,
  endpoints: OAuthEndpoints,
  params: TokenRequest,
  basic: ClientSecretCredentials | undefined,
): Promise<GrantedAuthority> {
  const secret = clientSecretOf(params, basic);
  const did = await authenticate(deps, endpoints, params, secret);
  if (secret !== undefined) await refuseDeactivated(deps, did);
  const credential = await activeCredentialOf(deps, did, secret === undefined ? 'self' : 'server');
  const subject = credential.credentialSubject;
  return {
    agentDid: did,
    effectiveScopes: [...subject.privilegeScopes],
    domains: subject.domains === undefined ? undefined : [...subject.domains],
    act: undefined,
    statusEntries: statusEntries(credential).map((entry) => ({ issuer: issuerId(credential), entry })),
  };
}

function decodeSubjectToken(params: TokenRequest): JsonValue {
  if (params.subject_token === undefined || params.subject_token_type === undefined)
    refuse('invalid_request', 'OAUTH_REQUEST_INVALID', 'token exchange needs subject_token and subject_token_type');
  if (params.subject_token_type !== TOKEN_TYPE_MANDATE_PRESENTATION)
    refuse(
      'invalid_request',
      'SUBJECT_TOKEN_INVALID',
      `subject_token_type must be ${TOKEN_TYPE_MANDATE_PRESENTATION} (RFC 8693 §2.1)`,
    );
  if (params.actor_token !== undefined || params.actor_token_type !== undefined)
    refuse('invalid_request', 'OAUTH_REQUEST_INVALID', 'actor_token is not supported: the chain names the actors');
  if (params.requested_token_type !== undefined && params.requested_token_type !== TOKEN_TYPE_ACCESS_TOKEN)
    refuse('invalid_request', 'OAUTH_REQUEST_INVALID', `requested_token_type must be ${TOKEN_TYPE_ACCESS_TOKEN}`);
  try {
    return decodePresentationHeader(`VP ${params.subject_token}`, MAX_PRESENTATION_BYTES);
  } catch (error) {
    const detail = isMandateError(error) ? error.message : 'does not decode';
    return refuse('invalid_request', 'SUBJECT_TOKEN_INVALID', `subject_token: ${detail}`);
  }
}

/**
 * Token exchange: the presentation is the grant, bound to the client (presentation-binding.ts):
 * by the DPoP key its challenge names, or by the client authenticating as its holder.
 */
export async function tokenExchangeGrant(
  deps: Pick<IssuerDeps, 'stores' | 'issuer' | 'resolver' | 'statusLists' | 'replayCache' | 'now'>,
  endpoints: OAuthEndpoints,
  params: TokenRequest,
  exchange: { resource: string; binding: DpopBinding | undefined },
  credentialCache: VerifiedCredentialCache,
): Promise<GrantedAuthority> {
  const { resource, binding } = exchange;
  const presentation = decodeSubjectToken(params);
  const challenge = requiredChallenge(presentation, binding, params.client_assertion);
  const client =
    params.client_assertion === undefined
      ? params.client_id
      : await authenticateClient(deps, endpoints, {
          clientId: params.client_id,
          assertionType: params.client_assertion_type,
          assertion: params.client_assertion,
        });
  // Before the verification spends the presentation: another client cannot use it up.
  const holder = claimedHolder(presentation);
  if (client !== undefined && holder !== undefined && client !== holder)
    refuseClaimed(
      'invalid_grant',
      'HOLDER_MISMATCH',
      'the client is not the presentation holder',
      holder.slice(0, 256),
    );
  const result = await verifyDeciding(presentation, {
    ...issuerTrust(deps, credentialCache),
    expectedDomain: resource,
    ...(challenge === undefined ? {} : { expectedChallenge: challenge }),
  });
  if (!result.valid) {
    const agent = isObject(presentation) && typeof presentation.holder === 'string' ? presentation.holder : undefined;
    // RFC 8693 §2.2.2: an unacceptable subject token is invalid_request; a wrong audience invalid_target.
    const error = result.reason === 'TARGET_MISMATCH' ? 'invalid_target' : 'invalid_request';
    return refuseClaimed(error, result.reason, `subject_token: ${result.message}`, agent?.slice(0, 256));
  }
  if (client !== undefined && client !== result.agentDid)
    refuse('invalid_grant', 'HOLDER_MISMATCH', 'client_id is not the agent the presentation is for', result.agentDid);
  return {
    agentDid: result.agentDid,
    effectiveScopes: result.effectiveScopes,
    // verifyPresentation already held `resource` to the leaf's domains (TARGET_MISMATCH).
    domains: undefined,
    act: actorClaimOf(result.chain),
    statusEntries: presentationStatusEntries(presentation),
  };
}
