/**
 * `verifyRequest`: the framework-neutral core of `mandate/verifier`. It takes a Web-standard
 * `Request`, reads the agent's presentation from its `Authorization: VP …` header and decides,
 * in this process and without calling the issuer, whether the request may proceed
 * (docs/verifier.md). The Hono middleware, the Node `http` adapter and the service worker are
 * thin shells around it, so it is isomorphic: Web APIs only, no `node:` imports.
 *
 * Wire format (`VP` base64url token, RFC 4648 §5; scheme case-insensitive, RFC 9110 §11.1),
 * challenge modes and refusals: docs/verifier.md §Wire format. The presentation is a bearer
 * secret: never echoed into any response.
 *
 * This module runs a request through the verifier; the concerns it draws on have one module each:
 * options.ts (validation and defaults), challenge-store.ts, scope-rules.ts, method-override.ts,
 * denials.ts (refusals as HTTP answers), forward-headers.ts (claims for the application).
 */
import type { JsonValue } from '../wallet/crypto/json-value.ts';
import { CHAIN_DIGEST_HEADER, CHAIN_HEADER } from '../wallet/vc/chain-header.ts';
import { verifySignedRequest } from '../wallet/vc/signed-request.ts';
import { decodePresentationHeader, PresentationHeaderError } from '../wallet/vc/transport.ts';
import { invalidVerifierOptions, verifyPresentation } from '../wallet/vc/verify.ts';
import { CHALLENGE_HEADER, MAX_CHALLENGE_LENGTH, type ChallengeStore } from './challenge-store.ts';
import { deny, HEADER_STATUS, NO_STORE } from './denials.ts';
import { requestMethods } from './method-override.ts';
import { stateFor, type VerifierState, type VerifyRequestOptions } from './options.ts';
import { scopesFor } from './scope-rules.ts';
import type { AgentClaims, RequestAllowed, RequestDenied, RequestVerdict } from './verdict.ts';

// The public surface of `mandate/verifier`'s core, each from the module of its concern.
export {
  DEFAULT_MAX_PRESENTATION_BYTES,
  PRESENTATION_SCHEME,
  PresentationHeaderError,
  decodePresentationHeader,
  encodePresentationHeader,
  type PresentationHeaderErrorCode,
} from '../wallet/vc/transport.ts';
// VerifierOptionsError (INVALID_VERIFIER_OPTIONS) is the wallet verifier's: one error for a bad
// configuration, whether verifyPresentation or the middleware finds it (at setup).
export { VerifierOptionsError } from '../wallet/vc/reasons.ts';
export type VerifierOptionsErrorCode = 'INVALID_VERIFIER_OPTIONS';
export {
  CHALLENGE_HEADER,
  createChallengeStore,
  DEFAULT_CHALLENGE_PATH,
  DEFAULT_CHALLENGE_TTL_MS,
  type ChallengeMode,
  type ChallengeStore,
  type ChallengeStoreOptions,
  type IssuedChallenge,
} from './challenge-store.ts';
export { denialResponse, denialStatus } from './denials.ts';
export { applyClaimHeaders, CLAIM_HEADERS, forwardClaims, isMandateHeaderName } from './forward-headers.ts';
export { requestMethods } from './method-override.ts';
export { prepareVerifier, type VerifyRequestOptions } from './options.ts';
export {
  matchesPathPattern,
  pathSegments,
  type RequiredScopes,
  type ScopeResolver,
  type ScopeRule,
} from './scope-rules.ts';
export type {
  AgentClaims,
  DenialBody,
  DenialStatus,
  RequestAllowed,
  RequestDenied,
  RequestVerdict,
} from './verdict.ts';

function proofChallenge(presentation: JsonValue): unknown {
  if (typeof presentation !== 'object' || presentation === null || Array.isArray(presentation)) return undefined;
  const proof = presentation.proof; // one object, or the presentation is refused as MALFORMED
  return typeof proof === 'object' && proof !== null && !Array.isArray(proof) ? proof.challenge : undefined;
}

/** The challenge the presentation must carry, or a refusal. Consumes an endpoint nonce. */
async function expectedChallenge(
  state: VerifierState,
  request: Request,
  presentation: JsonValue,
): Promise<string | undefined | RequestDenied> {
  if (state.mode === 'none') return undefined;
  if (state.mode === 'request') {
    const header = request.headers.get(CHALLENGE_HEADER);
    if (header === null || header === '' || header.length > MAX_CHALLENGE_LENGTH) {
      return deny(
        state,
        request,
        'CHALLENGE_MISMATCH',
        `send the challenge the presentation answers in ${CHALLENGE_HEADER}`,
        'presentation',
      );
    }
    return header;
  }
  const challenge = proofChallenge(presentation);
  // One attempt per nonce: consumed before the signature is checked, so a forgery guesses once.
  if (
    typeof challenge !== 'string' ||
    challenge.length > MAX_CHALLENGE_LENGTH ||
    !(await (state.challenges as ChallengeStore).consume(challenge))
  ) {
    return deny(
      state,
      request,
      'CHALLENGE_MISMATCH',
      'the presentation does not answer a live challenge of this verifier: get one from the challenge endpoint',
      'presentation',
    );
  }
  return challenge;
}

/**
 * A signed request bound to a chain (docs/protocol.md §Signed requests): it names a chain and
 * presents no `Authorization: VP …`, which keeps its meaning whatever else a request carries.
 */
function isSignedRequest(request: Request): boolean {
  const { headers } = request;
  if (!headers.has(CHAIN_HEADER) && !headers.has(CHAIN_DIGEST_HEADER)) return false;
  return !/^\s*vp(?:\s|$)/i.test(headers.get('authorization') ?? '');
}

/** The route's required scopes, or the refusal of a path no rule allows (before any crypto). */
async function routeScopes(state: VerifierState, request: Request): Promise<readonly string[] | RequestDenied> {
  const url = new URL(request.url);
  const methods = requestMethods(request, url);
  const requiredScopes = methods === undefined ? undefined : await scopesFor(state.scopes, request, url, methods);
  if (requiredScopes !== undefined) return requiredScopes;
  const asked = methods === undefined ? 'a method override that is no method name:' : methods.join(' and ');
  return deny(state, request, 'INSUFFICIENT_SCOPE', `no scope rule allows ${asked} ${url.pathname}`, 'scopes');
}

/**
 * A signed request: its signature and chain (wallet/vc/signed-request.ts), the route's scopes;
 * `Content-Digest` checked on `body` when the adapter holds it, else on a clone's body.
 */
async function verifySigned(
  state: VerifierState,
  request: Request,
  body: Uint8Array | undefined,
): Promise<RequestVerdict> {
  const requiredScopes = await routeScopes(state, request);
  if ('allowed' in requiredScopes) return requiredScopes;
  const { maxPresentationLifetimeMs: _lifetime, replayCache, ...chainOptions } = state.verification;
  const result = await verifySignedRequest(request, {
    ...chainOptions,
    replayCache,
    chainCache: state.chainCache,
    maxBodyBytes: state.maxSignedBodyBytes,
    ...(body === undefined ? {} : { body }),
    requiredScopes,
    now: new Date(state.now()),
  });
  if (!result.valid)
    return deny(state, request, result.reason, result.message, result.failedCheck, undefined, result.checks);
  return allowed(result, {
    // A signed request's single-use identifier, as the vpId is a presentation's.
    vpId: `signature:${result.signature.nonce}`,
    signature: { ...result.signature, chainDigest: result.chainDigest },
  });
}

/** The verdict of a request whose presentation or signature and chain passed every check. */
function allowed(
  result: Pick<AgentClaims, 'agentDid' | 'effectiveScopes' | 'privilegeScopes' | 'chain'> &
    Pick<RequestAllowed, 'checks' | 'sources'>,
  proof: Pick<AgentClaims, 'vpId' | 'signature'>,
): RequestAllowed {
  const { agentDid, effectiveScopes, privilegeScopes, chain } = result;
  return {
    allowed: true,
    claims: { agentDid, effectiveScopes, privilegeScopes, ...proof, chain },
    checks: result.checks,
    sources: result.sources,
  };
}

/**
 * Decides whether `request` may proceed: from its `Authorization: VP …` header, or — a signed
 * request — from its RFC 9421 signature and the chain it names (docs/protocol.md §Signed
 * requests; only then is the body read, from a clone, to check its `Content-Digest`).
 * Refusals are values, never exceptions; only a misconfiguration (VerifierOptionsError) or a
 * throwing `requiredScopes` function rejects.
 */
export function verifyRequest(request: Request, options: VerifyRequestOptions): Promise<RequestVerdict> {
  return verifyRequestWithBody(request, options, undefined);
}

/**
 * `verifyRequest` for an adapter that holds the body's bytes already (the Node adapter, when a
 * body parser kept them): a signed request's `Content-Digest` is checked on `body`, which spares
 * cloning the request and reading its stream; `request` then needs no body. Internal to
 * mandate/verifier (not re-exported by index.ts).
 */
export async function verifyRequestWithBody(
  request: Request,
  options: VerifyRequestOptions,
  body: Uint8Array | undefined,
): Promise<RequestVerdict> {
  const state = stateFor(options);
  if (isSignedRequest(request)) return verifySigned(state, request, body);
  let presentation: JsonValue;
  try {
    presentation = decodePresentationHeader(request.headers.get('authorization'), state.maxBytes);
  } catch (error) {
    if (!(error instanceof PresentationHeaderError)) throw error;
    return deny(state, request, 'MALFORMED', error.message, 'presentation', HEADER_STATUS[error.code]);
  }
  // The nonce is taken first (endpoint mode): whatever is refused after this, that presentation
  // is spent. Then a path with no rule is refused before any crypto is spent on it.
  const challenge = await expectedChallenge(state, request, presentation);
  if (typeof challenge === 'object') return challenge;
  const requiredScopes = await routeScopes(state, request);
  if ('allowed' in requiredScopes) return requiredScopes;

  const result = await verifyPresentation(presentation, {
    ...state.verification,
    ...(challenge === undefined ? {} : { expectedChallenge: challenge }),
    requiredScopes,
    now: new Date(state.now()),
  });
  if (!result.valid)
    return deny(state, request, result.reason, result.message, result.failedCheck, undefined, result.checks);
  return allowed(result, { vpId: result.vpId });
}

/** A fresh nonce from the options' store, as the challenge endpoint returns it. */
export async function issueChallenge(options: VerifyRequestOptions): Promise<{ challenge: string; expiresAt: string }> {
  const state = stateFor(options);
  if (!state.challenges) invalidVerifierOptions("issueChallenge needs challenge: 'endpoint'");
  const { challenge, expiresAt } = await state.challenges.issue();
  return { challenge, expiresAt: new Date(expiresAt).toISOString() };
}

/**
 * The challenge endpoint: for a request to `challengePath` (in `'endpoint'` mode) the Response
 * to send — 200 `{challenge, expiresAt}` to GET, 405 otherwise; undefined for any other request.
 */
export async function handleChallengeRequest(
  request: Request,
  options: VerifyRequestOptions,
): Promise<Response | undefined> {
  const state = stateFor(options);
  if (state.mode !== 'endpoint' || new URL(request.url).pathname !== state.challengePath) return undefined;
  if (request.method.toUpperCase() !== 'GET') {
    return new Response(JSON.stringify({ error: 'method not allowed' }), {
      status: 405,
      headers: { ...NO_STORE, allow: 'GET' },
    });
  }
  return new Response(JSON.stringify(await issueChallenge(options)), { status: 200, headers: NO_STORE });
}
