/**
 * verifyRequest's options: validated once per options object (a bad configuration fails at
 * setup), with their defaults built then and kept with it, since they hold state (caches, nonces).
 */
import { createCachedResolver } from '../wallet/did/cache.ts';
import { resolveDidKey } from '../wallet/did/key.ts';
import { createResolver } from '../wallet/did/registry.ts';
import type { Resolvable } from '../wallet/did/types.ts';
import { createKeyResolver } from '../wallet/did/verification-method.ts';
import { createWebResolver } from '../wallet/did/web.ts';
import type { FetchLike } from '../wallet/net/http.ts';
import type { UrlPolicy } from '../wallet/net/url-policy.ts';
import { createStatusListClient, type StatusListClient } from '../wallet/status/client.ts';
import { createChainCache, type ChainCache } from '../wallet/vc/chain-cache.ts';
import { createVerifiedCredentialCache, type VerifiedCredentialCache } from '../wallet/vc/credential-cache.ts';
import { createReplayCache, type ReplayCache } from '../wallet/vc/replay-cache.ts';
import { DEFAULT_MAX_SIGNED_BODY_BYTES } from '../wallet/vc/signed-request.ts';
import { DEFAULT_MAX_PRESENTATION_BYTES } from '../wallet/vc/transport.ts';
import {
  assertVerifyPresentationOptions,
  invalidVerifierOptions,
  isDidList,
  type VerifyPresentationOptions,
} from '../wallet/vc/verify.ts';
import {
  createChallengeStore,
  DEFAULT_CHALLENGE_PATH,
  type ChallengeMode,
  type ChallengeStore,
} from './challenge-store.ts';
import { assertKnownOptionKeys } from './option-keys.ts';
import { planScopes, type RequiredScopes, type ScopePlan } from './scope-rules.ts';

export interface VerifyRequestOptions {
  /** DIDs whose AgentCredentials are accepted as chain roots (your issuer's DID). */
  trustedIssuers: readonly string[];
  /** DIDs of service providers whose DelegationGrantCredentials are accepted. */
  trustedGrantIssuers?: readonly string[];
  /** This service's name or resource URI: every presentation's proof `domain` must equal or cover it (docs/protocol.md §Where authority applies). */
  target: string;
  requiredScopes?: RequiredScopes;
  /** Default `'endpoint'`. */
  challenge?: ChallengeMode;
  /** The nonce store of `'endpoint'` mode (default: in memory, 5-minute nonces). */
  challenges?: ChallengeStore;
  /** Path of the challenge endpoint (default `/.well-known/mandate/challenge`). */
  challengePath?: string;
  /** Default: a cached did:key + did:web resolver (wallet/did). */
  resolver?: Resolvable;
  /** Default: a status list client checking lists with `resolver`'s keys. */
  statusLists?: StatusListClient;
  /** Default in `'endpoint'` mode: an in-memory cache; required in the other modes. */
  replayCache?: ReplayCache;
  /** Default: an in-memory verified-credential cache (10 minutes). */
  credentialCache?: VerifiedCredentialCache;
  /** Chains of signed requests accepted before, by digest (default: in memory, 1,000 chains, 10 minutes). */
  chainCache?: ChainCache;
  /** Largest body of a signed request read to check its `Content-Digest` (default 1 MiB). */
  maxSignedBodyBytes?: number;
  /** Network policy of the default did:web resolver and status list client (https only by default). */
  urlPolicy?: UrlPolicy;
  /** fetch for the default did:web resolver and status list client. */
  fetch?: FetchLike;
  /** Clock, ms since the epoch (default Date.now). */
  now?: () => number;
  /** Tolerance for clocks, both ways (default 60 s). */
  clockSkewMs?: number;
  /** Most credentials in a chain (default 8). */
  maxChainLength?: number;
  /** Largest presentation, in bytes of JSON (default 64 KiB). */
  maxPresentationBytes?: number;
  /** Accept self-issued roots (issuer = subject). Development only. */
  allowSelfSigned?: boolean;
  /** Longest presentation lifetime (`expires` − `created`) accepted (default 1 hour). */
  maxPresentationLifetimeMs?: number;
  /** Refuse root credentials and grants without a revocation or suspension entry (default false). */
  requireCredentialStatus?: boolean;
}

/** What a request is judged with: the options checked, their defaults built. */
export interface VerifierState {
  target: string;
  mode: ChallengeMode;
  challengePath: string;
  challenges: ChallengeStore | undefined;
  scopes: ScopePlan;
  maxBytes: number;
  now: () => number;
  /** Signed requests: the chains held, and the largest body whose digest is checked. */
  chainCache: ChainCache;
  maxSignedBodyBytes: number;
  /** What every verifyPresentation call shares, copied at setup so later edits of the options change nothing. */
  verification: Omit<VerifyPresentationOptions, 'expectedChallenge' | 'requiredScopes' | 'now'>;
}

/** The options of signed requests only (docs/protocol.md §Signed requests), checked, with their defaults. */
function signedRequestState(
  options: VerifyRequestOptions,
  now: () => number,
): Pick<VerifierState, 'chainCache' | 'maxSignedBodyBytes'> {
  const maxSignedBodyBytes = options.maxSignedBodyBytes ?? DEFAULT_MAX_SIGNED_BODY_BYTES;
  if (!Number.isSafeInteger(maxSignedBodyBytes) || maxSignedBodyBytes < 0)
    invalidVerifierOptions('maxSignedBodyBytes must be a non-negative integer');
  if (options.chainCache !== undefined && typeof (options.chainCache as Partial<ChainCache>).get !== 'function')
    invalidVerifierOptions('chainCache must be a chain cache (createChainCache)');
  return { chainCache: options.chainCache ?? createChainCache({ now }), maxSignedBodyBytes };
}

// Defaults hold state (caches, nonces), so they are built once per options object: keep one
// options object for the life of the server, as the middleware factories do.
const states = new WeakMap<VerifyRequestOptions, VerifierState>();

/**
 * Validates `options` (unknown or misplaced keys included: option-keys.ts) and builds their
 * defaults, once per options object. Called by every entry
 * point; the middleware factories call it at setup so a bad configuration fails at startup.
 */
export function prepareVerifier(options: VerifyRequestOptions, extraKeys: readonly string[] = []): void {
  stateFor(options, extraKeys);
}

/** `extraKeys`: options of the entry point's own (forwardHeaders, baseUrl), known beside the verifier's. */
export function stateFor(options: VerifyRequestOptions, extraKeys: readonly string[] = []): VerifierState {
  const known = states.get(options);
  if (known) return known;
  if (typeof options !== 'object' || options === null) invalidVerifierOptions('options must be an object');
  assertKnownOptionKeys(options, extraKeys);
  const { target } = options;
  // The target is quoted in WWW-Authenticate: no quotes, backslashes or controls (RFC 9110 §5.6.4).
  if (
    typeof target !== 'string' ||
    target.length === 0 ||
    target.length > 256 ||
    /[^\x20-\x7e]|["\\]/.test(target) // anything but printable ASCII, or " or \
  ) {
    invalidVerifierOptions('target must be this service\'s name: 1-256 printable ASCII characters without " or \\');
  }
  if (!isDidList(options.trustedIssuers)) invalidVerifierOptions('trustedIssuers must be a list of DIDs');
  if (options.trustedGrantIssuers !== undefined && !isDidList(options.trustedGrantIssuers))
    invalidVerifierOptions('trustedGrantIssuers must be a list of DIDs');
  const mode = options.challenge ?? 'endpoint';
  if (mode !== 'endpoint' && mode !== 'request' && mode !== 'none')
    invalidVerifierOptions("challenge must be 'endpoint', 'request' or 'none'");
  if (mode !== 'endpoint' && options.replayCache === undefined) {
    // Without issued nonces, the replay cache is the only thing keeping a presentation single-use;
    // a default one could silently be recreated per call. It must be the caller's, and shared.
    invalidVerifierOptions(`challenge '${mode}' needs a replayCache (createReplayCache()) shared by every request`);
  }
  const challengePath = options.challengePath ?? DEFAULT_CHALLENGE_PATH;
  // Also quoted in WWW-Authenticate when the request URL is relative: no quotes or backslashes.
  if (typeof challengePath !== 'string' || !/^\/[\x21\x23-\x5b\x5d-\x7e]*$/.test(challengePath))
    invalidVerifierOptions('challengePath must be an absolute path');
  const maxBytes = options.maxPresentationBytes ?? DEFAULT_MAX_PRESENTATION_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 1)
    invalidVerifierOptions('maxPresentationBytes must be a positive integer');
  const now = options.now ?? Date.now;
  const network = { ...options.urlPolicy, ...(options.fetch ? { fetch: options.fetch } : {}) };
  const resolver =
    options.resolver ??
    createCachedResolver(createResolver({ methods: { key: resolveDidKey, web: createWebResolver(network) } }), { now });
  const state: VerifierState = {
    target,
    mode,
    challengePath,
    challenges: mode === 'endpoint' ? (options.challenges ?? createChallengeStore({ now })) : undefined,
    scopes: planScopes(options.requiredScopes),
    maxBytes,
    now,
    ...signedRequestState(options, now),
    verification: {
      trustedIssuers: [...options.trustedIssuers],
      trustedGrantIssuers: [...(options.trustedGrantIssuers ?? [])],
      expectedDomain: target,
      resolver,
      statusLists: options.statusLists,
      replayCache: options.replayCache ?? createReplayCache({ now }),
      credentialCache: options.credentialCache ?? createVerifiedCredentialCache({ now }),
      ...(options.clockSkewMs === undefined ? {} : { clockSkewMs: options.clockSkewMs }),
      ...(options.maxChainLength === undefined ? {} : { maxChainLength: options.maxChainLength }),
      maxPresentationBytes: maxBytes,
      allowSelfSigned: options.allowSelfSigned === true,
      ...(options.maxPresentationLifetimeMs === undefined
        ? {}
        : { maxPresentationLifetimeMs: options.maxPresentationLifetimeMs }),
      requireCredentialStatus: options.requireCredentialStatus === true,
    },
  };
  // The options verifyPresentation itself will get, checked now: a bad skew, chain length or
  // helper fails at setup, not as a 500 on every request.
  assertVerifyPresentationOptions(state.verification);
  // Made after that check, since it is given the (now valid) clock skew.
  state.verification.statusLists ??= createStatusListClient({
    resolveKey: createKeyResolver(resolver, { now }),
    ...network,
    now,
    ...(options.clockSkewMs === undefined ? {} : { clockSkewMs: options.clockSkewMs }),
  });
  states.set(options, state);
  return state;
}
