/**
 * `agent.fetch`: a drop-in `fetch` that answers the challenges of a protected service and sends
 * the request again (docs/agents.md §What it answers):
 * - 401 with a Bearer or DPoP challenge (RFC 6750 §3, RFC 9449 §7.1): a token from the resource's
 *   authorization server (authorization.ts), DPoP-bound, and again once with the server's nonce
 *   when it answers `use_dpop_nonce` (RFC 9449 §9);
 * - 403 `insufficient_scope` (RFC 6750 §3.1): a token for exactly the challenged scopes when the
 *   agent's authority covers them, else AGENT_SCOPE_NOT_HELD, asking nobody;
 * - 401 with `Accept-Signature` (RFC 9421 §5.1): the request signed with the agent's chain;
 * - 401 with a Mandate `VP` challenge: a presentation (presentation-answer.ts);
 * - 401 CHAIN_UNKNOWN to a chain sent by digest: the chain in full.
 * Each kind is answered at most once per call; a service that refuses the answer ends the call
 * with AGENT_SERVICE_REFUSED carrying its reason — never a loop. Any other answer (a 2xx, a 404,
 * a 403 without a scope challenge, a 401 it cannot answer) is returned as it is.
 */
import { bytesToUtf8 } from '../crypto/bytes.ts';
import type { RequestSigner } from '../http-signatures/sign.ts';
import { readBounded } from '../net/http.ts';
import { signChainedRequest } from '../vc/chain-request.ts';
import { uncovered } from '../vc/scopes.ts';
import type { MandateCredential } from '../vc/types.ts';
import type { Authorization, Route } from './authorization.ts';
import {
  oauthChallenge,
  parseChallenges,
  presentationChallenge,
  signatureRequest,
  type OAuthChallenge,
  type SignatureRequest,
} from './challenge.ts';
import type { DpopSession } from './dpop-session.ts';
import { AgentFetchError } from './errors.ts';
import {
  answerPresentationChallenge,
  type PresentationContext,
  type PresentationHeaders,
} from './presentation-answer.ts';
import type { AgentToken } from './token-cache.ts';

export type AgentFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface FetchContext {
  authorization: Authorization;
  dpop: DpopSession | undefined;
  presentation: PresentationContext;
  /** The scopes the agent's authority covers (its leaf credential's), or undefined when unknown. */
  heldScopes: readonly string[] | undefined;
  sign: 'always' | 'when-asked';
  signer: RequestSigner;
  credentials: readonly MandateCredential[];
  send: (input: string | Request, init?: RequestInit) => Promise<Response>;
  /** Origins that accepted the chain in full: sent its digest (chain-request.ts). */
  holding: Set<string>;
}

/** What one call has done so far: its credentials for the next attempt, and what it answered. */
interface CallState {
  route?: Route;
  scopes?: readonly string[] | undefined;
  token?: AgentToken;
  freshToken: boolean;
  steppedUp: boolean;
  presentation?: PresentationHeaders;
  signature?: SignatureRequest;
  byDigest: boolean;
  answered: Set<'presentation' | 'signature' | 'chain'>;
}

const MAX_REFUSAL_BYTES = 16 * 1024;

/** The service's own reason code in a JSON refusal (`reason`, or a token endpoint's `mandate_reason`). */
async function refusalReason(response: Response): Promise<string | undefined> {
  if (!/json/i.test(response.headers.get('content-type') ?? '')) return undefined;
  try {
    const bytes = await readBounded(response.clone().body, MAX_REFUSAL_BYTES);
    const body: unknown = bytes === undefined ? undefined : JSON.parse(bytesToUtf8(bytes));
    const { reason, mandate_reason: mandate } = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    const code = typeof reason === 'string' ? reason : mandate;
    return typeof code === 'string' ? code.slice(0, 64) : undefined;
  } catch {
    return undefined;
  }
}

function refusedAgain(response: Response, oauthError: string | undefined, reason: string | undefined): AgentFetchError {
  const why = [oauthError, reason].filter((part) => part !== undefined).join(', ');
  return new AgentFetchError(
    'AGENT_SERVICE_REFUSED',
    `the service refused the request again after its challenge was answered (HTTP ${response.status}${why ? `, ${why}` : ''})`,
    {
      status: response.status,
      ...(oauthError === undefined ? {} : { oauthError }),
      ...(reason === undefined ? {} : { serviceReason: reason }),
    },
  );
}

/**
 * A call's request, kept to be sent again without building a `Request` per attempt (the plain
 * path costs what a `fetch` with the headers set by hand costs): its URL, its init, and a body
 * that can be sent more than once — the caller's own when it is no stream, else its bytes, read
 * once here.
 */
interface Outgoing {
  url: string;
  method: string;
  headers: HeadersInit | undefined;
  init: RequestInit;
}

function replayable(body: BodyInit | null | undefined): BodyInit | undefined {
  if (body === undefined || body === null) return undefined;
  const fixed =
    typeof body === 'string' ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    body instanceof Blob ||
    body instanceof URLSearchParams ||
    body instanceof FormData;
  return fixed ? body : undefined;
}

/** Where a relative URL resolves: the page or worker, as `fetch` resolves it (none in Node). */
const baseUrl = (globalThis as { location?: { href?: string } }).location?.href;

async function outgoing(input: string | URL | Request, init: RequestInit | undefined): Promise<Outgoing> {
  const body = replayable(init?.body);
  if (!(input instanceof Request) && (init?.body === undefined || init.body === null || body !== undefined)) {
    const url = new URL(input, baseUrl).href;
    return { url, method: (init?.method ?? 'GET').toUpperCase(), headers: init?.headers, init: { ...init } };
  }
  // A Request, or a stream body: read once into bytes that every attempt can send.
  const request = new Request(input, init);
  const bytes = request.body === null ? undefined : await request.arrayBuffer();
  const { method, headers, signal, redirect, credentials, cache, referrer, referrerPolicy, integrity, keepalive } =
    request;
  return {
    url: request.url,
    method,
    headers,
    init: {
      method,
      signal,
      redirect,
      credentials,
      cache,
      referrer,
      referrerPolicy,
      integrity,
      keepalive,
      ...(bytes === undefined ? {} : { body: bytes }),
    },
  };
}

/** The request as this attempt sends it: the call's credentials, a DPoP proof, a signature. */
async function prepare(
  context: FetchContext,
  call: Outgoing,
  state: CallState,
): Promise<[string | Request, RequestInit]> {
  const headers = new Headers(call.headers);
  if (state.presentation !== undefined) {
    for (const [name, value] of state.presentation) headers.set(name, value);
  } else if (state.token !== undefined) {
    headers.set('authorization', `${state.token.tokenType} ${state.token.accessToken}`);
    if (state.token.tokenType === 'DPoP' && context.dpop !== undefined)
      headers.set('dpop', await context.dpop.proof(call.method, call.url, state.token.accessToken));
  }
  const init = { ...call.init, headers };
  if (context.sign !== 'always' && state.signature === undefined) return [call.url, init];
  const wanted = state.signature;
  const signed = await signChainedRequest(new Request(call.url, init), context.signer, context.credentials, {
    byDigest: state.byDigest,
    ...(wanted === undefined ? {} : { label: wanted.label, components: wanted.components }),
    ...(wanted?.tag === undefined ? {} : { tag: wanted.tag }),
  });
  return [signed, {}];
}

/** Sends an attempt; once more with a resource server's fresh DPoP nonce when it asks (RFC 9449 §9). */
async function send(context: FetchContext, original: Outgoing, state: CallState): Promise<Response> {
  let response = await context.send(...(await prepare(context, original, state)));
  if (context.dpop === undefined || state.token?.tokenType !== 'DPoP') return response;
  const fresh = context.dpop.remember(original.url, response);
  const challenge = oauthChallenge(parseChallenges(response.headers.get('www-authenticate')));
  if (fresh && response.status === 401 && challenge?.error === 'use_dpop_nonce') {
    await response.body?.cancel();
    response = await context.send(...(await prepare(context, original, state)));
    context.dpop.remember(original.url, response);
  }
  return response;
}

/** The scopes a 401 leads the agent to ask for: the challenged ones it holds, else the server's default. */
function firstScopes(context: FetchContext, challenge: OAuthChallenge, route: Route): readonly string[] | undefined {
  if (challenge.scopes.length === 0) return route.scopes;
  if (context.heldScopes === undefined) return challenge.scopes;
  return notHeld(challenge.scopes, context.heldScopes).length === 0 ? challenge.scopes : route.scopes;
}

/** The scopes of `asked` that `held` does not cover; one outside the scope grammar is not covered. */
function notHeld(asked: readonly string[], held: readonly string[]): string[] {
  return asked.filter((scope) => {
    try {
      return uncovered([scope], held).length > 0;
    } catch {
      return true;
    }
  });
}

async function routeOf(
  context: FetchContext,
  state: CallState,
  url: string,
  challenge: OAuthChallenge,
): Promise<Route> {
  return (
    state.route ??
    context.authorization.routeFor(url) ??
    context.authorization.discover(url, challenge.resourceMetadata)
  );
}

/** 401 Bearer/DPoP: a new token (the refused one forgotten); a token this call just got, refused, ends it. */
async function reauthorize(
  context: FetchContext,
  original: Outgoing,
  state: CallState,
  response: Response,
  challenge: OAuthChallenge,
): Promise<void> {
  if (state.freshToken) throw refusedAgain(response, challenge.error, await refusalReason(response));
  const route = await routeOf(context, state, original.url, challenge);
  if (state.token !== undefined) context.authorization.drop(route, state.scopes, state.token);
  const scopes = state.token !== undefined ? state.scopes : firstScopes(context, challenge, route);
  state.token = await context.authorization.token(route, scopes);
  Object.assign(state, { route, scopes, freshToken: true, presentation: undefined });
  route.scopes = scopes;
}

/** 403 insufficient_scope: a token for exactly the challenged scopes, when the authority covers them. */
async function stepUp(
  context: FetchContext,
  original: Outgoing,
  state: CallState,
  response: Response,
  challenge: OAuthChallenge,
): Promise<void> {
  const reason = await refusalReason(response);
  const missing = context.heldScopes === undefined ? [] : notHeld(challenge.scopes, context.heldScopes);
  if (missing.length > 0)
    throw new AgentFetchError(
      'AGENT_SCOPE_NOT_HELD',
      `the service asks for scopes the agent's authority does not cover: ${missing.join(' ')}`,
      {
        status: 403,
        scopes: missing,
        oauthError: 'insufficient_scope',
        ...(reason === undefined ? {} : { serviceReason: reason }),
      },
    );
  if (state.steppedUp) throw refusedAgain(response, challenge.error, reason);
  const route = await routeOf(context, state, original.url, challenge);
  const token = await context.authorization.token(route, challenge.scopes);
  // The token just refused already was this one: asking again would loop.
  if (token === state.token) throw refusedAgain(response, challenge.error, reason);
  Object.assign(state, { route, token, scopes: challenge.scopes, steppedUp: true, presentation: undefined });
  route.scopes = challenge.scopes;
}

/** Answers `response`'s challenge into `state`; false when there is none the agent answers. */
async function answer(
  context: FetchContext,
  original: Outgoing,
  state: CallState,
  response: Response,
): Promise<boolean> {
  if (response.status !== 401 && response.status !== 403) return false;
  const challenges = parseChallenges(response.headers.get('www-authenticate'));
  const oauth = oauthChallenge(challenges);
  if (response.status === 403) {
    if (oauth?.error !== 'insufficient_scope' || oauth.scopes.length === 0) return false;
    await stepUp(context, original, state, response, oauth);
    return true;
  }
  const reason = await refusalReason(response);
  if (state.byDigest && reason === 'CHAIN_UNKNOWN' && !state.answered.has('chain')) {
    context.holding.delete(new URL(original.url).origin);
    state.answered.add('chain');
    state.byDigest = false;
    return true;
  }
  const vp = presentationChallenge(challenges);
  if (oauth !== undefined && (vp === undefined || oauth.resourceMetadata !== undefined || state.token !== undefined)) {
    await reauthorize(context, original, state, response, oauth);
    return true;
  }
  const wanted = signatureRequest(response.headers.get('accept-signature'));
  if (wanted !== undefined && !state.answered.has('signature')) {
    state.answered.add('signature');
    state.signature = wanted;
    return true;
  }
  if (vp !== undefined && !state.answered.has('presentation')) {
    state.answered.add('presentation');
    state.presentation = await answerPresentationChallenge(vp, original.url, context.presentation);
    return true;
  }
  if (wanted !== undefined || vp !== undefined) throw refusedAgain(response, vp?.error, reason);
  return false;
}

/** The agent's `fetch` over `context`. */
export function createAgentFetch(context: FetchContext): AgentFetch {
  return async (input, init) => {
    const original = await outgoing(input, init);
    const origin = new URL(original.url).origin;
    const state: CallState = {
      freshToken: false,
      steppedUp: false,
      byDigest: context.holding.has(origin),
      answered: new Set(),
    };
    const route = new Headers(original.headers).has('authorization')
      ? undefined
      : context.authorization.routeFor(original.url);
    if (route !== undefined) {
      const token = context.authorization.cached(route, route.scopes);
      if (token !== undefined) Object.assign(state, { route, token, scopes: route.scopes });
    }
    for (;;) {
      const response = await send(context, original, state);
      if (response.ok && (context.sign === 'always' || state.signature !== undefined)) context.holding.add(origin);
      if (!(await answer(context, original, state, response))) return response;
      await response.body?.cancel();
    }
  };
}
