/**
 * Answering a Mandate verifier's presentation challenge (docs/verifier.md §Wire format): a
 * presentation of the agent's chain, its proof `domain` the target the 401 names (`realm`), its
 * `challenge` the verifier's nonce (`challenge-endpoint`), or one the agent picks and repeats in
 * the named header (`challenge-header`), or one it picks (no parameter: `none` mode).
 *
 * The realm is the service's word, and a presentation is valid at the target it names: a service
 * that named another's target could replay the answer there. So the agent signs only for a
 * target that is this request's own — its host (`host` or `host:port`), or an https URI covering
 * the request URL — or one its owner mapped to this origin (`targets`); the challenge endpoint
 * must be on the request's origin.
 */
import { bytesToBase64url } from '../crypto/base64url.ts';
import { randomBytes } from '../crypto/bytes.ts';
import { isObject } from '../crypto/json-value.ts';
import { fetchJson, type FetchLike } from '../net/http.ts';
import type { SigningIdentity } from '../vc/identity.ts';
import { signPresentation } from '../vc/presentation.ts';
import { encodePresentationHeader } from '../vc/transport.ts';
import type { MandateCredential } from '../vc/types.ts';
import type { PresentationChallenge } from './challenge.ts';
import { resourceCovers } from './discovery.ts';
import { AgentFetchError } from './errors.ts';

export interface PresentationContext {
  identity: SigningIdentity;
  credentials: readonly MandateCredential[];
  /** Targets the owner allows per origin, beyond the request's own host. */
  targets: Readonly<Record<string, string>>;
  fetch: FetchLike;
}

/** The headers that answer the challenge: `Authorization: VP …`, and the challenge header when asked. */
export type PresentationHeaders = [string, string][];

/** The longest nonce taken from a challenge endpoint (the verifier's own bound). */
const MAX_CHALLENGE_LENGTH = 512;

function failed(message: string): AgentFetchError {
  return new AgentFetchError('AGENT_CHALLENGE_FAILED', message, { status: 401 });
}

/** Whether `realm` may be signed for a request to `url`. */
function ownTarget(realm: string, url: URL, targets: Readonly<Record<string, string>>): boolean {
  if (realm === url.host || realm === url.hostname || targets[url.origin] === realm) return true;
  return /^https:\/\//i.test(realm) && resourceCovers(realm, url.href);
}

async function endpointChallenge(endpoint: string, url: URL, fetch: FetchLike): Promise<string> {
  let target: URL;
  try {
    target = new URL(endpoint, url);
  } catch {
    throw failed('the challenge endpoint is not a URL');
  }
  if (target.origin !== url.origin) throw failed(`the challenge endpoint is not on ${url.origin}`);
  const answer = await fetchJson(target.href, {
    limits: { timeoutMs: 10_000, maxBytes: 4096 },
    fetch,
    accept: 'application/json',
    mediaTypes: new Set(['application/json']),
  });
  const challenge = answer.ok && isObject(answer.json) ? answer.json.challenge : undefined;
  if (typeof challenge !== 'string' || challenge.length === 0 || challenge.length > MAX_CHALLENGE_LENGTH)
    throw failed(`the challenge endpoint gave no challenge${answer.ok ? '' : ` (${answer.message})`}`);
  return challenge;
}

/**
 * The headers answering `challenge` for a request to `requestUrl`. Throws AGENT_CHALLENGE_FAILED
 * and AGENT_CREDENTIALS_MISSING.
 */
export async function answerPresentationChallenge(
  challenge: PresentationChallenge,
  requestUrl: string,
  context: PresentationContext,
): Promise<PresentationHeaders> {
  if (context.credentials.length === 0)
    throw new AgentFetchError(
      'AGENT_CREDENTIALS_MISSING',
      'the service asks for a presentation and the agent holds no credentials',
      { status: 401 },
    );
  const url = new URL(requestUrl);
  const { realm } = challenge;
  if (realm === undefined) throw failed('the presentation challenge names no target (realm)');
  if (!ownTarget(realm, url, context.targets))
    throw failed(
      `the service at ${url.origin} asks for a presentation to the target "${realm.slice(0, 128)}", which is not its own (add it to the agent's targets)`,
    );
  const headers: PresentationHeaders = [];
  let nonce: string;
  if (challenge.challengeEndpoint !== undefined) {
    nonce = await endpointChallenge(challenge.challengeEndpoint, url, context.fetch);
  } else {
    nonce = bytesToBase64url(randomBytes(16));
    const name = challenge.challengeHeader;
    // Only an extension header (the verifier's is X-Mandate-Challenge): never one that carries credentials.
    if (name !== undefined && !/^x-[a-z0-9-]{1,64}$/i.test(name))
      throw failed('the challenge header is not an X- header');
    if (name !== undefined) headers.push([name, nonce]);
  }
  const vp = await signPresentation({
    holder: context.identity,
    credentials: [...context.credentials],
    challenge: nonce,
    domain: realm,
  });
  headers.push(['authorization', encodePresentationHeader(vp)]);
  return headers;
}
