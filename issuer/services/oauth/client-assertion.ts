/**
 * `private_key_jwt` client authentication (RFC 7523 §2.2, RFC 7521 §4.2): the agent proves it
 * is `client_id` (its DID) with a JWT it signed with a key its DID document lists under
 * `authentication`.
 *
 * Checks, in order, each refusal `invalid_client` (RFC 6749 §5.2) with its Mandate reason:
 * 1. `client_assertion_type` is `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`;
 * 2. the header `alg` is EdDSA or Ed25519 (RFC 8037 §3.1, RFC 9864 §2) — nothing else;
 * 3. `iss` = `sub` = `client_id` (RFC 7523 §3 items 1–2), a DID;
 * 4. the key: the header `kid` names a verification method of that DID (absolute, or a
 *    `#fragment`) authorized for `authentication`; without `kid` each `authentication` method is
 *    tried (at most 8) — resolution through the issuer's resolver (deactivation refuses);
 * 5. the signature, `aud` = the issuer URL or the token endpoint URL (RFC 7523 §3 item 3), `exp`
 *    present and at most 5 minutes ahead (item 4), `nbf`/`iat` not in the future (60 s skew);
 * 6. `jti` present and used once (item 7): remembered in the replay store until `exp` + skew.
 */
import { isMandateError } from '../../../wallet/crypto/errors.ts';
import {
  ed25519PublicJwk,
  readJwtClaims,
  readJwtHeader,
  verifyEdDsaJwt,
  type JwtClaims,
} from '../../../wallet/crypto/jwt.ts';
import type { DidDocument, DidResolutionResult } from '../../../wallet/did/types.ts';
import { absoluteDidUrl, createKeyResolver } from '../../../wallet/did/verification-method.ts';
import { CLIENT_ASSERTION_TYPE_JWT_BEARER } from '../../../wallet/contract/oauth.ts';
import type { IssuerDeps } from '../../deps.ts';
import { oauthReasonOf, refuse, refuseClaimed } from './errors.ts';
import type { OAuthEndpoints } from './metadata.ts';

/** RFC 7523 §3 item 4: an assertion lives at most this long ahead of now. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
const SKEW_SECONDS = 60;
const MAX_TRIED_KEYS = 8;

export interface ClientAssertionInput {
  clientId: string | undefined;
  assertionType: string | undefined;
  assertion: string;
}

/** The assertion's claims, unverified: whom it claims to come from picks the keys to try. */
function claimsOf(assertion: string): JwtClaims {
  let claims: JwtClaims | undefined;
  try {
    readJwtHeader(assertion);
    claims = readJwtClaims(assertion);
  } catch (error) {
    const detail = isMandateError(error) ? error.message : 'not a compact JWT';
    return refuse('invalid_client', 'CLIENT_ASSERTION_INVALID', `client_assertion: ${detail} (RFC 7523 §3)`);
  }
  if (claims === undefined)
    refuse('invalid_client', 'CLIENT_ASSERTION_INVALID', 'client_assertion: not a compact JWT (RFC 7523 §3)');
  return claims;
}

/** The client DID's document; refuses DID_RESOLUTION_FAILED or DID_DEACTIVATED (DID Core §7.1.2, §7.1.3). */
async function resolvedDocument(deps: Pick<IssuerDeps, 'resolver'>, did: string): Promise<DidDocument> {
  let result: DidResolutionResult;
  try {
    result = await deps.resolver.resolve(did);
  } catch (error) {
    const detail = isMandateError(error) ? error.message : 'does not resolve';
    return refuseClaimed('invalid_client', 'DID_RESOLUTION_FAILED', `${did.slice(0, 200)}: ${detail}`, did);
  }
  if (result.didDocument === null || result.didResolutionMetadata.error !== undefined)
    refuseClaimed(
      'invalid_client',
      'DID_RESOLUTION_FAILED',
      `${did.slice(0, 200)} does not resolve (${String(result.didResolutionMetadata.error ?? 'no document').slice(0, 64)})`,
      did,
    );
  if (result.didDocumentMetadata.deactivated === true)
    refuseClaimed('invalid_client', 'DID_DEACTIVATED', `${did.slice(0, 200)} is deactivated`, did);
  return result.didDocument;
}

/** The verification methods to try: the one `kid` names, or every `authentication` method. */
async function candidateMethods(
  deps: Pick<IssuerDeps, 'resolver'>,
  did: string,
  kid: string | undefined,
): Promise<string[]> {
  if (kid !== undefined) {
    const vm = absoluteDidUrl(kid, did);
    if (vm.split('#')[0] !== did)
      refuseClaimed('invalid_client', 'KEY_NOT_AUTHORIZED', `the assertion kid names a key of another DID`, did);
    return [vm];
  }
  const didDocument = await resolvedDocument(deps, did);
  const listed = Array.isArray(didDocument.authentication) ? didDocument.authentication : [];
  return listed
    .map((entry) => (typeof entry === 'string' ? entry : entry.id))
    .slice(0, MAX_TRIED_KEYS)
    .map((vm) => absoluteDidUrl(vm, did));
}

async function publicKeyFor(deps: Pick<IssuerDeps, 'resolver' | 'now'>, vm: string, did: string): Promise<Uint8Array> {
  const resolveKey = createKeyResolver(deps.resolver, { now: () => deps.now() });
  try {
    return await resolveKey(vm, 'authentication');
  } catch (error) {
    const reason = oauthReasonOf(isMandateError(error) ? error.code : undefined, 'KEY_NOT_AUTHORIZED');
    const detail = isMandateError(error) ? error.message : 'the key could not be resolved';
    return refuseClaimed('invalid_client', reason, `client_assertion key ${vm.slice(0, 200)}: ${detail}`, did);
  }
}

async function verifySignature(
  deps: Pick<IssuerDeps, 'resolver' | 'now'>,
  endpoints: OAuthEndpoints,
  input: { assertion: string; did: string; kid: string | undefined },
): Promise<JwtClaims> {
  const methods = await candidateMethods(deps, input.did, input.kid);
  if (methods.length === 0)
    refuseClaimed('invalid_client', 'KEY_NOT_AUTHORIZED', `${input.did} lists no authentication key`, input.did);
  let lastError: unknown;
  for (const vm of methods) {
    const jwk = await ed25519PublicJwk(await publicKeyFor(deps, vm, input.did));
    try {
      const { claims } = await verifyEdDsaJwt(input.assertion, {
        jwk,
        issuer: input.did,
        audience: [endpoints.issuer, endpoints.tokenEndpoint],
        requiredClaims: ['exp', 'jti', 'sub', 'aud'],
        now: deps.now(),
        clockToleranceSec: SKEW_SECONDS,
      });
      return claims;
    } catch (error) {
      lastError = error;
      if (!isMandateError(error, 'JWT_SIGNATURE_INVALID')) break; // a claim failure is the same under every key
    }
  }
  const detail = isMandateError(lastError) ? lastError.message : 'does not verify';
  return refuseClaimed(
    'invalid_client',
    'CLIENT_ASSERTION_INVALID',
    `client_assertion: ${detail} (RFC 7523 §3)`,
    input.did,
  );
}

/** The authenticated client's DID; refuses `invalid_client` otherwise (checks in the module comment). */
export async function authenticateClient(
  deps: Pick<IssuerDeps, 'stores' | 'resolver' | 'now'>,
  endpoints: OAuthEndpoints,
  input: ClientAssertionInput,
): Promise<string> {
  if (input.assertionType !== CLIENT_ASSERTION_TYPE_JWT_BEARER)
    refuse(
      'invalid_client',
      'CLIENT_AUTH_MISSING',
      `client_assertion_type must be ${CLIENT_ASSERTION_TYPE_JWT_BEARER} (RFC 7523 §2.2)`,
    );
  const unverified = claimsOf(input.assertion);
  const did = unverified.iss;
  if (typeof did !== 'string' || !did.startsWith('did:') || unverified.sub !== did)
    refuse('invalid_client', 'CLIENT_ASSERTION_INVALID', 'client_assertion iss and sub must both be the client DID');
  if (input.clientId !== undefined && input.clientId !== did)
    refuseClaimed('invalid_client', 'CLIENT_ASSERTION_INVALID', 'client_id differs from the client_assertion iss', did);
  const claims = await verifySignature(deps, endpoints, {
    assertion: input.assertion,
    did,
    kid: readJwtHeader(input.assertion).kid,
  });
  const now = Math.floor(deps.now() / 1000);
  const exp = claims.exp as number;
  if (exp > now + MAX_ASSERTION_LIFETIME_SECONDS + SKEW_SECONDS)
    refuse(
      'invalid_client',
      'CLIENT_ASSERTION_INVALID',
      `client_assertion exp is more than ${MAX_ASSERTION_LIFETIME_SECONDS} s ahead`,
      did,
    );
  const jti = claims.jti;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
    refuse('invalid_client', 'CLIENT_ASSERTION_INVALID', 'client_assertion jti must be 1..256 characters', did);
  const key = `oauth:client-assertion:${did}:${jti}`;
  if (!(await deps.stores.replay.remember(key, (exp + SKEW_SECONDS) * 1000, deps.now())))
    refuse('invalid_client', 'CLIENT_ASSERTION_REPLAYED', 'client_assertion jti was used before (RFC 7523 §3)', did);
  return did;
}
